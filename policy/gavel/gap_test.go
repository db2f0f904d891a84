package gavel_test

import (
	"context"
	"slices"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// TestGapSeeded: gavel-stored with a relative gap draws among assignments
// within it: the same seed gives the same run, another seed another run,
// and gap 0 is the exact solver's run (PAI, artifact timing; a few seconds).
func TestGapSeeded(t *testing.T) {
	run := func(p string) *sim.Result {
		o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
			Trace: "pai", Cluster: "paper-1280", Policy: p, Timing: sim.Artifact, Rounds: 500, Check: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return o.Result
	}
	thr := func(r *sim.Result) []float64 {
		var out []float64
		for _, row := range r.Timeline {
			out = append(out, row.Throughput)
		}
		return out
	}
	a, b := run("gavel-stored(gap=1e-4,seed=1)"), run("gavel-stored(gap=1e-4,seed=1)")
	if !slices.Equal(a.JCTs, b.JCTs) || !slices.Equal(thr(a), thr(b)) {
		t.Error("the same seed gave different runs")
	}
	if c := run("gavel-stored(gap=1e-4,seed=2)"); slices.Equal(thr(a), thr(c)) {
		t.Error("seeds 1 and 2 gave the same run: the gap draw has no effect")
	}
	if d, e := run("gavel-stored(gap=0)"), run("gavel-stored"); !slices.Equal(thr(d), thr(e)) {
		t.Error("gap 0 differs from the exact solver")
	}
}
