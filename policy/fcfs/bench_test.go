package fcfs_test

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// BenchmarkPhillyFCFS is the wall time of the Philly FCFS run (2000 rounds)
// that the authors' Python simulator needs 24 s for.
func BenchmarkPhillyFCFS(b *testing.B) {
	for _, timing := range []sim.Timing{sim.Artifact, sim.Exact} {
		b.Run(timing.String(), func(b *testing.B) {
			reg := policy.NewRegistry()
			for b.Loop() {
				if _, err := runner.Execute(context.Background(), reg, runner.Run{
					Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: timing, Rounds: 2000,
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
