package sim

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back the 2-MiB-aligned part of the
// n bytes at p with huge pages (madvise MADV_HUGEPAGE). Pages not yet
// touched (a fresh large allocation's) are then faulted in as huge pages.
// An error (a kernel without transparent huge pages) is ignored: the
// advice changes no result.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	lo := (uintptr(p) + huge - 1) &^ (huge - 1)
	hi := (uintptr(p) + n) &^ (huge - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-uintptr(p))), hi-lo), syscall.MADV_HUGEPAGE)
}
