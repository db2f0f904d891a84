//go:build !linux

package sim

import "unsafe"

// adviseHugePages does nothing where madvise's huge-page advice is not
// available.
func adviseHugePages(unsafe.Pointer, uintptr) {}
