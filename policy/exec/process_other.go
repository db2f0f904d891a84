//go:build !unix

package exec

import (
	"os"
	"syscall"
)

// groupAttr: no process groups here; the child alone is managed.
func groupAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) { _ = p.Kill() }
