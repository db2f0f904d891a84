package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addProfileFlags gives cmd --cpuprofile and --memprofile: the command's
// RunE then runs under the CPU profiler and, at its end, the heap profile
// is written (both in pprof format, for `go tool pprof bin/arena FILE`).
func addProfileFlags(cmd *cobra.Command) {
	var cpu, mem string
	cmd.Flags().StringVar(&cpu, "cpuprofile", "", "write a CPU profile of the command to `FILE` (pprof format)")
	cmd.Flags().StringVar(&mem, "memprofile", "", "write a heap profile at the end of the command to `FILE` (pprof format)")
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) (err error) {
		if cpu != "" {
			f, err := os.Create(cpu)
			if err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Close()
				return fmt.Errorf("--cpuprofile: %w", err)
			}
			defer func() {
				pprof.StopCPUProfile()
				if cerr := f.Close(); cerr != nil {
					err = errors.Join(err, fmt.Errorf("--cpuprofile: %w", cerr))
				}
			}()
		}
		err = run(cmd, args)
		if mem != "" {
			if merr := writeHeapProfile(mem); merr != nil {
				err = errors.Join(err, fmt.Errorf("--memprofile: %w", merr))
			}
		}
		return err
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // up-to-date allocation statistics
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
