package elasticflow

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// randomScenario draws a small ElasticFlow run: two GPU types (a40 nodes
// of 2 GPUs, so shares above 2 take several nodes), up to 40 jobs asking
// for 1–16 GPUs, a few throughputs (equal gains are common),
// either timing and either variant.
func randomScenario(rt *rapid.T) (*sim.Cluster, table, []sim.JobSpec, sim.Timing, Variant) {
	models := []string{"gpt-1.3b", "gpt-2.6b", "moe-1.3b", "moe-2.4b"}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "h", Pools: []sim.Pool{
		{GPU: "a100", Nodes: rapid.IntRange(1, 4).Draw(rt, "a100"), GPUsPerNode: 4},
		{GPU: "a40", Nodes: rapid.IntRange(1, 8).Draw(rt, "a40"), GPUsPerNode: 2},
	}})
	if err != nil {
		rt.Fatal(err)
	}
	// Throughputs (samples/s, batch 128) in steps of 8: gains of jobs on
	// different shares are often equal, so ties between the shares' heaps
	// are decided by position.
	thr := []float64{8, 16, 24, 32, 40, 256}
	est := table{}
	for _, m := range models {
		est[m] = map[int]float64{}
		for n := 1; n <= 32; n *= 2 {
			if k := rapid.IntRange(-1, len(thr)-1).Draw(rt, fmt.Sprintf("%s@%d", m, n)); k >= 0 {
				est[m][n] = thr[k]
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
	return c, est, specs, timing, variant
}

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
	rapid.Check(t, func(rt *rapid.T) {
		c, est, specs, timing, variant := randomScenario(rt)
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
		requireSameRun(rt, "with the held place", got, want)
	})
	t.Logf("held-place answers %d", used)
	if used == 0 {
		t.Error("the held place was never used: degenerate generator")
	}
}

// TestGainHeapIsContainerHeap checks the doubling's heap (gainHeap's
// init, pop and fix0, sift steps written out) against container/heap on
// the same type: random gains from a few values (ties decided by
// position, infinities and the infeasible gain among them), then random
// pops and refreshes of the top, as double makes them; after every
// operation the two layouts must be equal entry for entry. A differential
// property test, not a golden.
func TestGainHeapIsContainerHeap(t *testing.T) {
	vals := []float64{-1e9, -3, 0, 0, 2, 2, 5, math.Inf(1), math.Inf(-1)}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "n")
		var got, want gainHeap
		for i := range n {
			e := gainEntry{i, rapid.SampledFrom(vals).Draw(rt, "gain")}
			got, want = append(got, e), append(want, e)
		}
		got.init()
		heap.Init(&want)
		same := func(op string) {
			if !slices.Equal(got, want) {
				rt.Fatalf("after %s: %v, container/heap %v", op, got, want)
			}
		}
		same("init")
		for len(want) > 0 {
			if rapid.Bool().Draw(rt, "pop") {
				got.pop()
				heap.Pop(&want)
				same("pop")
				continue
			}
			g := rapid.SampledFrom(vals).Draw(rt, "gain")
			got[0].gain, want[0].gain = g, g
			got.fix0()
			heap.Fix(&want, 0)
			same("fix")
		}
	})
}
