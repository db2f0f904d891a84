//go:build unix

package outdir

import "syscall"

// Open flags: never through a symbolic link, never blocking on a FIFO.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonblock = syscall.O_NONBLOCK
)
