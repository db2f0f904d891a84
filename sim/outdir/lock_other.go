//go:build !unix

package outdir

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// flock is a no-op where the system has no flock: no protection, no error.
func flock(*os.File, bool) error { return nil }

// haveFlock: no flock here, so cleanStale cannot tell a live writer's
// temporary from a dead one's and removes none.
const haveFlock = false
