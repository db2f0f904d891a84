package sim

import "unsafe"

// hugeMin is the size from which hugeSlice asks for huge pages: below a
// few huge pages the array's TLB misses are few anyway.
const hugeMin = 8 << 20

// hugeSlice is make([]T, n), its memory backed by transparent huge pages
// where the kernel offers them on request (Linux with
// /sys/kernel/mm/transparent_hugepage/enabled "madvise" or "always";
// elsewhere it is make alone). For the per-job arrays a decision reads at
// random positions, a job at a time (the Jobs, the job pointers, the
// batch marks): with 4-KiB pages nearly every job's first read in a pass
// is a TLB miss, a page walk that costs more than the cache miss on a
// virtual machine; a 2-MiB page covers 6,500 Jobs. The advice changes no
// value, only how the memory is mapped; the array is zeroed as make's.
func hugeSlice[T any](n int) []T {
	s := make([]T, n)
	if size := uintptr(n) * unsafe.Sizeof(*new(T)); size >= hugeMin {
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}
