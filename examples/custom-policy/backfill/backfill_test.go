package backfill_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"

	"example.com/custom-policy/backfill"
)

// TestConformance is the one call arena's conformance suite asks of a
// policy: small clusters with the invariant checker on, determinism, no
// View mutation, edge clusters, a minimum workload.
func TestConformance(t *testing.T) {
	reg := policy.NewRegistry()
	if err := reg.Register(backfill.Entry()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"backfill", "backfill(order=smallest)"} {
		t.Run(p, func(t *testing.T) { policytest.Run(t, reg, p) })
	}
}
