package preemptive_test

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// BenchmarkPhilly is the full 2000-round Philly run of each policy built on
// this mechanism, in both timing modes.
func BenchmarkPhilly(b *testing.B) {
	for _, name := range []string{"tiresias", "srtf"} {
		for _, timing := range []sim.Timing{sim.Artifact, sim.Exact} {
			b.Run(name+"/"+timing.String(), func(b *testing.B) {
				for b.Loop() {
					_, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
						Trace: "philly", Cluster: "paper-1280", Policy: name, Timing: timing, Rounds: 2000,
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
