package outdir

import "golang.org/x/sys/unix"

// exchange swaps two paths atomically (Linux ≥ 3.15, on file systems that
// support RENAME_EXCHANGE; an error otherwise, and the caller falls back).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
