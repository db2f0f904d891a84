//go:build unix

package sim

import (
	"math"
	"syscall"
)

// cpuSeconds is the process's user + system CPU time so far; on a shared,
// busy machine CPU time per event is steadier than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
