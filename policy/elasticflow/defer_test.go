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

// TestDeferralChangesNothing runs random small workloads through the engine
// twice, once with ElasticFlow-LS deferring re-placements to the type's last
// admission of a decision and once re-placing at every admission (the
// artifact's order of work, exact=true), and requires the same run: every
// job record, the timeline, the allocations and the per-round digest. A
// differential property test, not a golden. The policy's own overhead is
// huge (2e8 s per GPU, at most 8e8 s) and some iteration times long, so
// that minimum shares often depend on the quota and both paths (deferred,
// and flushed for a job whose share is not fixed) are taken; the test
// checks that each was.
func TestDeferralChangesNothing(t *testing.T) {
	var deferred, full int
	models := []string{"gpt-1.3b", "gpt-2.6b", "moe-1.3b", "moe-2.4b"}
	rapid.Check(t, func(rt *rapid.T) {
		c, err := sim.NewCluster(sim.ClusterSpec{Name: "d", Pools: []sim.Pool{
			{GPU: "a100", Nodes: rapid.IntRange(1, 4).Draw(rt, "a100"), GPUsPerNode: 4},
			{GPU: "a40", Nodes: rapid.IntRange(1, 6).Draw(rt, "a40"), GPUsPerNode: 2},
		}})
		if err != nil {
			rt.Fatal(err)
		}
		// Iteration times from 0.5 s to 5e5 s (1000 iterations: up to
		// 5e8 s of work against the 1e9 s slack).
		its := []float64{0.5, 1, 2, 1e5, 3e5, 5e5}
		est := table{}
		for _, m := range models {
			est[m] = map[int]float64{}
			for n := 1; n <= 32; n *= 2 {
				if k := rapid.IntRange(-1, len(its)-1).Draw(rt, fmt.Sprintf("%s@%d", m, n)); k >= 0 {
					est[m][n] = 128 / its[k]
				}
			}
		}
		n := rapid.IntRange(1, 40).Draw(rt, "jobs")
		specs := make([]sim.JobSpec, n)
		for i := range specs {
			m := rapid.SampledFrom(models).Draw(rt, "model")
			specs[i] = sim.JobSpec{
				ID: sim.JobID(i), Name: fmt.Sprintf("j%d", i), Submit: sim.Time(rapid.IntRange(0, 3000).Draw(rt, "submit")),
				Workload: estimator.Workload{Model: mustModel(rt, m), Batch: 128}, Iterations: int64(rapid.IntRange(100, 1000).Draw(rt, "iters")),
				GPU: rapid.SampledFrom([]string{"a100", "a40"}).Draw(rt, "gpu"), GPUs: rapid.SampledFrom([]int{1, 2, 4, 8, 16}).Draw(rt, "gpus"),
			}
		}
		timing := rapid.SampledFrom([]sim.Timing{sim.Exact, sim.Artifact}).Draw(rt, "timing")
		policyOverhead := sim.Overhead{PerGPU: 2e8, Cap: 8e8}
		run := func(exact bool) (*sim.Result, *ElasticFlow) {
			cfg := sim.DefaultConfig(c, est)
			cfg.Timing, cfg.Rounds, cfg.Overhead = timing, 40, sim.Overhead{PerGPU: 150, Cap: 600}
			ef := New(c, est, LongSlack, policyOverhead, prunedCheck)
			ef.exact = exact
			res, err := sim.Run(context.Background(), cfg, ef, append([]sim.JobSpec(nil), specs...))
			if err != nil {
				rt.Fatal(err)
			}
			return res, ef
		}
		want, _ := run(true)
		got, ef := run(false)
		deferred += ef.deferred
		full += ef.full
		requireSameRun(rt, "with deferral", got, want)
	})
	t.Logf("admissions deferred %d, re-placed at once %d", deferred, full)
	if deferred == 0 || full == 0 {
		t.Errorf("admissions deferred %d, re-placed at once %d: the test should take both paths", deferred, full)
	}
}

func mustModel(rt *rapid.T, name string) estimator.Model {
	m, err := estimator.ParseModel(name)
	if err != nil {
		rt.Fatal(err)
	}
	return m
}

// requireSameRun fails t unless got and want have the same jobs,
// timeline, allocations and digest, naming the first that differs and
// what the got run did differently (how).
func requireSameRun(t interface{ Fatalf(string, ...any) }, how string, got, want *sim.Result) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"jobs", got.Jobs, want.Jobs}, {"timeline", got.Timeline, want.Timeline},
		{"allocations", got.Allocations, want.Allocations}, {"digest", got.Digest, want.Digest},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Fatalf("%s differ %s:\n got %+v\nwant %+v", c.name, how, c.got, c.want)
		}
	}
}
