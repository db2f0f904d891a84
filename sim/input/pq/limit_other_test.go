//go:build !linux

package pq

import "testing"

// limitAddressSpace is Linux-only; elsewhere the allocation bound of
// each case is all that is checked.
func limitAddressSpace(t *testing.T, n uint64) {
	t.Logf("WARNING: no address-space limit on this platform; only the allocation bound is checked")
}
