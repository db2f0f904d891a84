package runner

import (
	"context"
	"testing"
	"time"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// Anchor (published): the Llama 3 scenario as one 16,384-GPU job (Meta,
// The Llama 3 Herd of Models, 2024, §3.3.4: 466 interruptions in a
// 54-day snapshot of Llama 3 405B pre-training on 16,384 H100s, "over
// 90 %" effective training time). The job (gpt-405b, priced by the
// hybrid estimator's bounded 3D search) runs on 2,048 of the 2,064 nodes
// of examples/faults/llama3-16k-spares.yaml under the llama3 preset for
// 54 days, restarting on spare nodes at once (schedule on events),
// checkpoints at Young's interval for M = 10,012 s (δ = 10 s, τ = 447 s,
// restore 208 s, the testbed profile's restart). Bands: interruptions
// within 15 % of 466 (Poisson noise at this count is ±4.6 %; outages that
// land while the job restarts or on a spare node do not interrupt it),
// effective training time in [0.90, 0.96] (docs/faults.md: 0.931, 0.931,
// 0.928 for seeds 1–3; Daly's closed form 0.928).
func TestLlama3Scenario16k(t *testing.T) {
	if testing.Short() {
		t.Skip("54 simulated days on 16,512 GPUs")
	}
	for _, seed := range []int64{1, 2} {
		r := Run{
			Trace: "../../examples/faults/llama3-405b.csv", Cluster: "../../examples/faults/llama3-16k-spares.yaml",
			Estimator: "hybrid", Policy: "fcfs", Timing: sim.Exact, ScheduleOnEvents: true, Seed: seed,
			Rounds: HorizonRounds(54 * 24 * time.Hour), Faults: "llama3", Overheads: "testbed",
			CheckpointInterval: 447, CheckpointCost: 10, CheckpointRestore: 208,
		}
		s, err := Resolve(policy.NewRegistry(), r)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.Jobs[0].GPUs; n != 16384 || len(s.Jobs) != 1 {
			t.Fatalf("%d jobs, the first of %d GPUs; want one of 16,384", len(s.Jobs), n)
		}
		out, err := s.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		f := out.Summary.Faults
		if f == nil {
			t.Fatal("no fault summary")
		}
		t.Logf("seed %d: %d interruptions, effective training time %.3f (paper: 466, over 0.90)", seed, f.Interruptions, f.EffectiveTrainingTimeRatio)
		if f.Interruptions < 396 || f.Interruptions > 536 {
			t.Errorf("seed %d: %d interruptions, want 466 ± 15 %%", seed, f.Interruptions)
		}
		if e := f.EffectiveTrainingTimeRatio; e < 0.90 || e > 0.96 {
			t.Errorf("seed %d: effective training time %.3f, want in [0.90, 0.96]", seed, e)
		}
	}
}
