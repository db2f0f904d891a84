package preemptive_test

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// TestPhillyInvariants runs tiresias and srtf on Philly in both timing
// modes with the engine's invariant checker on after every event; the
// preemptive ones must finish more jobs than FCFS's 590 in artifact timing
// (no head-of-line blocking, short jobs first).
func TestPhillyInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("full Philly runs")
	}
	for _, name := range []string{"tiresias", "srtf"} {
		for _, timing := range []sim.Timing{sim.Artifact, sim.Exact} {
			out, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
				Trace: "philly", Cluster: "paper-1280", Policy: name, Timing: timing, Rounds: 2000, Check: true,
			})
			if err != nil {
				t.Fatalf("%s, %s timing: %v", name, timing, err)
			}
			if s := out.Summary; timing == sim.Artifact && s.Finished <= 590 {
				t.Errorf("%s, artifact timing: %d jobs finished, want more than FCFS's 590", name, s.Finished)
			}
		}
	}
}
