package elasticflow

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// TestHeldPlaceIsTheGPUs checks the held place (jobState.held): actions
// tells a re-placed job whose slots do not change from the place the
// policy last gave it instead of reading its GPUs from the engine. On
// random small workloads (single-node and multi-node places: a40 nodes of
// 2 GPUs, shares up to 16) every such answer is compared with the one
// read from the job's GPUs (checkHeld panics on a difference), and the
// run equals the run that always reads the GPUs (noHeld): every job
// record, the timeline, the allocations and the per-round digest. A
// differential property test, not a golden.
func TestHeldPlaceIsTheGPUs(t *testing.T) {
	used := 0
	models := []string{"gpt-1.3b", "gpt-2.6b", "moe-1.3b", "moe-2.4b"}
	rapid.Check(t, func(rt *rapid.T) {
		c, err := sim.NewCluster(sim.ClusterSpec{Name: "h", Pools: []sim.Pool{
			{GPU: "a100", Nodes: rapid.IntRange(1, 4).Draw(rt, "a100"), GPUsPerNode: 4},
			{GPU: "a40", Nodes: rapid.IntRange(1, 8).Draw(rt, "a40"), GPUsPerNode: 2},
		}})
		if err != nil {
			rt.Fatal(err)
		}
		its := []float64{0.5, 1, 2, 5, 20}
		est := table{}
		for _, m := range models {
			est[m] = map[int]float64{}
			for n := 1; n <= 32; n *= 2 {
				if k := rapid.IntRange(-1, len(its)-1).Draw(rt, fmt.Sprintf("%s@%d", m, n)); k >= 0 {
					est[m][n] = 128 / its[k]
				}
			}
		}
		specs := make([]sim.JobSpec, rapid.IntRange(1, 40).Draw(rt, "jobs"))
		for i := range specs {
			m := rapid.SampledFrom(models).Draw(rt, "model")
			specs[i] = sim.JobSpec{
				ID: sim.JobID(i), Name: fmt.Sprintf("j%d", i), Submit: sim.Time(rapid.IntRange(0, 3000).Draw(rt, "submit")),
				Workload: estimator.Workload{Model: mustModel(rt, m), Batch: 128}, Iterations: int64(rapid.IntRange(100, 3000).Draw(rt, "iters")),
				GPU: rapid.SampledFrom([]string{"a100", "a40"}).Draw(rt, "gpu"), GPUs: rapid.SampledFrom([]int{1, 2, 4, 8, 16}).Draw(rt, "gpus"),
			}
		}
		timing := rapid.SampledFrom([]sim.Timing{sim.Exact, sim.Artifact}).Draw(rt, "timing")
		variant := rapid.SampledFrom([]Variant{LongSlack, Deadlines}).Draw(rt, "variant")
		run := func(noHeld bool) (*sim.Result, *ElasticFlow) {
			cfg := sim.DefaultConfig(c, est)
			cfg.Timing, cfg.Rounds, cfg.Overhead = timing, 40, sim.Overhead{PerGPU: 150, Cap: 600}
			ef := New(c, est, variant, sim.Overhead{PerGPU: 150, Cap: 600}, prunedCheck)
			ef.noHeld, ef.checkHeld = noHeld, !noHeld
			res, err := sim.Run(context.Background(), cfg, ef, append([]sim.JobSpec(nil), specs...))
			if err != nil {
				rt.Fatal(err)
			}
			return res, ef
		}
		want, _ := run(true)
		got, ef := run(false)
		used += ef.heldUsed
		for _, c := range []struct {
			name      string
			got, want any
		}{
			{"jobs", got.Jobs, want.Jobs}, {"timeline", got.Timeline, want.Timeline},
			{"allocations", got.Allocations, want.Allocations}, {"digest", got.Digest, want.Digest},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				rt.Fatalf("%s differ with the held place:\n got %+v\nwant %+v", c.name, c.got, c.want)
			}
		}
	})
	t.Logf("held-place answers %d", used)
	if used == 0 {
		t.Error("the held place was never used: degenerate generator")
	}
}
