package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

func outcomeOf(jobs [][2]float64, thr ...float64) *runner.Outcome {
	res := &sim.Result{Start: 0}
	for _, j := range jobs {
		res.Jobs = append(res.Jobs, sim.JobRecord{Submit: j[0], Finish: j[1], JCT: j[1] - j[0]})
	}
	for _, t := range thr {
		res.Timeline = append(res.Timeline, sim.RoundRecord{Throughput: t})
	}
	return &runner.Outcome{Result: res}
}

// TestTestbedMetrics: the runtime plotter's definitions on hand-worked
// cases — JCT at the first 20-s check after the end, JCTs ≤ 100 s
// discarded, baselines padded with the largest JCT of any policy up to
// Arena's finished count, throughput the mean over rounds.
func TestTestbedMetrics(t *testing.T) {
	outs := []*runner.Outcome{
		// Arena: 250 → check 260; 50 → 60 (≤ 100, dropped); 100→1000 → 900.
		outcomeOf([][2]float64{{0, 250}, {0, 50}, {100, 1000}, {0, -1}}, 10, 20),
		// FCFS: 1990 → check 2000; one job < Arena's two: padded with 2000.
		outcomeOf([][2]float64{{0, 1990}}, 5, 5),
		// Gavel: three 500-s jobs, no padding.
		outcomeOf([][2]float64{{0, 500}, {0, 500}, {0, 500}}, 15, 15),
		// ElasticFlow-LS: none: two paddings.
		outcomeOf(nil, 0, 30),
	}
	g := testbedGroup(TestbedConfig{Key: "k"}, sim.Exact, outs)
	want := []struct {
		n            int
		mean, padded float64
	}{{2, 580, 580}, {1, 2000, 2000}, {3, 500, 500}, {0, 0, 2000}}
	for i, w := range want {
		p := g.Policies[i]
		if p.Finished != w.n || p.MeanJCT != w.mean || p.PaddedJCT != w.padded {
			t.Errorf("%s: finished %d mean %v padded %v; want %d %v %v", p.Policy, p.Finished, p.MeanJCT, p.PaddedJCT, w.n, w.mean, w.padded)
		}
	}
	wantRatios := []TestbedRatio{{"FCFS", (2000 - 580) / 2000.0, 3}, {"Gavel", (500 - 580) / 500.0, 1}, {"ElasticFlow-LS", (2000 - 580) / 2000.0, 1}}
	for i, w := range wantRatios {
		r := g.Ratios[i]
		if r.Baseline != w.Baseline || math.Abs(r.JCTReduction-w.JCTReduction) > 1e-12 || math.Abs(r.ThroughputRatio-w.ThroughputRatio) > 1e-12 {
			t.Errorf("ratio %d = %+v, want %+v", i, r, w)
		}
	}
	// Artifact timing keeps the recorded JCT (no check rounding).
	g = testbedGroup(TestbedConfig{Key: "k"}, sim.Artifact, outs)
	if g.Policies[0].MeanJCT != (250+900)/2.0 {
		t.Errorf("artifact timing mean JCT %v, want 575", g.Policies[0].MeanJCT)
	}
}

// TestReproduceTestbed runs the exact-timing prediction end to end: the
// steps change what they say (÷1, the testbed profile, the runtime's
// admission), the band's point is the prediction step and lies within
// its range, and the summary files are written.
func TestReproduceTestbed(t *testing.T) {
	out := t.TempDir()
	rep, err := ReproduceTestbed(context.Background(), policy.NewRegistry(), TestbedOptions{Out: out, Timings: []sim.Timing{sim.Exact}})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(TestbedPolicies) * (len(TestbedSteps()) + len(TestbedGrid()) - 1); rep.Runs != want {
		t.Errorf("%d runs, want %d", rep.Runs, want)
	}
	dropped := func(step string, i int) int { return rep.Step(sim.Exact, step).Policies[i].Dropped }
	if dropped("overheads", 1) != 0 || dropped("admission", 1) == 0 || dropped("admission", 2) == 0 {
		t.Errorf("FCFS/Gavel drops before/after runtime admission: %d / %d, %d", dropped("overheads", 1), dropped("admission", 1), dropped("admission", 2))
	}
	finished := func(step string) int { return rep.Step(sim.Exact, step).Policies[0].Finished }
	if finished("div1") >= finished("artifact-constants") {
		t.Errorf("Arena finished %d jobs at ÷1 and %d at ÷5: five times the work should finish fewer", finished("div1"), finished("artifact-constants"))
	}
	pred := rep.Step(sim.Exact, "slowdown")
	for i, p := range TestbedPolicies[1:] {
		for _, thr := range []bool{false, true} {
			b := rep.Band(sim.Exact, p.Label, thr)
			want := pred.Ratios[i].JCTReduction
			if thr {
				want = pred.Ratios[i].ThroughputRatio
			}
			if b.Point != want || b.Min > b.Point || b.Point > b.Max || b.Min > b.Median || b.Median > b.Max {
				t.Errorf("%s band %+v (throughput %t), point should be %v", p.Label, b, thr, want)
			}
		}
	}
	for _, f := range []string{"REPORT.md", "testbed.json", "testbed.csv"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		if f == "testbed.csv" {
			if n := strings.Count(string(data), "\n"); n != 1+len(TestbedPolicies)*(len(TestbedSteps())+len(TestbedGrid())) {
				t.Errorf("testbed.csv has %d lines", n)
			}
		}
	}
}
