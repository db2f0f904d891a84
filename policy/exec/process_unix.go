//go:build unix

package exec

import (
	"os"
	"syscall"
)

// groupAttr starts the child as the leader of a new process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills every process of p's group (p leads it: groupAttr).
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill() // in case the group is already gone but p is not reaped
}
