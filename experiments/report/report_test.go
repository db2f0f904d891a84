package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/data/reference"
	"github.com/arena-sim/arena/experiments/sweep"

	"github.com/arena-sim/arena/sim"
)

// TestPublishedMatchesReference recomputes the published Philly table from
// the authors' stored arrays: the numbers the report prints beside ours
// must be the artifact's.
func TestPublishedMatchesReference(t *testing.T) {
	var runs []reference.Run
	for _, p := range PublishedPhilly {
		r, ok := reference.Philly(p.Policy)
		if !ok {
			t.Fatalf("no stored reference for %s", p.Policy)
		}
		runs = append(runs, r)
	}
	padTo, padValue := 0, 0.0
	for _, r := range runs {
		padTo = max(padTo, len(r.JCT))
		for _, v := range r.JCT {
			padValue = math.Max(padValue, v)
		}
	}
	padded := func(r reference.Run) float64 {
		return (meanOf(r.JCT)*float64(len(r.JCT)) + float64(padTo-len(r.JCT))*padValue) / float64(padTo)
	}
	arena := runs[0]
	for i, p := range PublishedPhilly {
		r := runs[i]
		if len(r.JCT) != p.Finished {
			t.Errorf("%s: %d jobs stored, table says %d", p.Policy, len(r.JCT), p.Finished)
		}
		if d := math.Abs(meanOf(r.JCT) - p.MeanJCT); d > 1 {
			t.Errorf("%s: mean JCT %.0f, table %.0f", p.Policy, meanOf(r.JCT), p.MeanJCT)
		}
		if d := math.Abs(padded(r) - p.PaddedMeanJCT); d > 1 {
			t.Errorf("%s: padded mean %.0f, table %.0f", p.Policy, padded(r), p.PaddedMeanJCT)
		}
		if i > 0 {
			if red := 100 * (1 - padded(arena)/padded(r)); math.Abs(red-p.Reduction) > 0.05 {
				t.Errorf("%s: reduction %.2f %%, table %.1f %%", p.Policy, red, p.Reduction)
			}
			// 0.006: ARENA.md prints ElasticFlow-LS's stored 1.4646 as 1.47.
			if q := meanOf(arena.Thr) / meanOf(r.Thr); math.Abs(q-p.AvgThrRatio) > 0.006 {
				t.Errorf("%s: throughput ratio %.3f, table %.2f", p.Policy, q, p.AvgThrRatio)
			}
		}
		if d := math.Abs(meanOf(r.Queueing) - p.MeanQueueing); d > 1 {
			t.Errorf("%s: mean queueing %.1f, table %.1f", p.Policy, meanOf(r.Queueing), p.MeanQueueing)
		}
	}
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestReproduceWritesEveryTableAndFigure runs a shortened reproduction
// (the built-in sections with their traces cut to a few rounds) and checks
// REPORT.md holds each section's table and links figures that exist.
func TestReproduceWritesEveryTableAndFigure(t *testing.T) {
	specs := map[string]*sweep.Spec{}
	for _, name := range slices.Concat(Sections, []string{"headline"}) {
		s, err := BuiltinSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		short := *s
		short.Rounds = []int{40}
		if name == "load" {
			short.Densities = []float64{0.5, 1}
		}
		specs[name] = &short
	}
	out := t.TempDir()
	sections := slices.Concat(Sections, []string{"headline"})
	res, err := Reproduce(context.Background(), testRegistry(), ReproduceOptions{Out: out, Parallel: 2, Specs: specs, Sections: sections})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	for _, want := range []string{
		"### Philly, artifact timing", "### Philly, exact timing", "### Helios, artifact timing", "### PAI, exact timing",
		"| policy | jobs finished | mean JCT (s) | padded mean JCT (s) | Arena JCT reduction | Arena/x avg thr | Arena/x peak thr | mean queueing (s)",
		"| fcfs | ", "(590)", "## Arena ablations", "### Load sweep, artifact timing", "| density |", "## Notes", "wall-clock", "## Headline: Philly",
		"## Verdicts: the paper's claims, reproduced?", "| claim | paper | ours | reproduced? | run |", "| Arena finishes 828 jobs (Philly) | 828 |",
		"## Surprises", "Why one run's padded mean JCT differs between tables", "Padding of this table: every policy's JCTs padded to",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if len(res.Figures) < 2*3*5+2*2 {
		t.Errorf("%d figures, want at least %d", len(res.Figures), 2*3*5+2*2)
	}
	for _, f := range res.Figures {
		rel, _ := filepath.Rel(out, f.Path)
		if !strings.Contains(report, "]("+filepath.ToSlash(rel)+")") {
			t.Errorf("figure %s not linked from the report", rel)
		}
		if st, err := os.Stat(f.Path); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f.Path, err)
		}
	}
	// A second reproduction with --resume reuses every run.
	res2, err := Reproduce(context.Background(), testRegistry(), ReproduceOptions{Out: out, Parallel: 2, Specs: specs, Sections: sections, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Sweep.Ran != 0 || res2.Sweep.Skipped != res.Runs {
		t.Errorf("resume ran %d and reused %d of %d", res2.Sweep.Ran, res2.Sweep.Skipped, res.Runs)
	}
	// --baseline fcfs: the comparison columns are against FCFS.
	res3, err := Reproduce(context.Background(), testRegistry(), ReproduceOptions{Out: out, Parallel: 2, Specs: specs, Sections: []string{"pai"}, Resume: true, Baseline: "fcfs"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(res3.Report)
	if !strings.Contains(string(data), "| JCT reduction vs fcfs | avg thr / fcfs |") {
		t.Error("--baseline fcfs: no table against fcfs")
	}
}

func summaryRun(policy, key string, finished int, padded, thr, peak float64) *sweep.Results {
	return &sweep.Results{Record: sweep.RunRecord{Key: key}, Summary: sim.Summary{Policy: policy, Finished: finished, PaddedMeanJCT: padded, SubmittedMeanJCT: padded, MeanThroughput: thr, PeakThroughput: peak}}
}

// Hand-worked verdicts: FCFS's padded mean 5× Arena's is an 80 % reduction
// on the artifact's metric (paper 81.3 %: within ±2 pp), but the verdict is
// on the default metric, where FCFS's submitted mean is 2× Arena's: a 50 %
// reduction, **no**; a mean-throughput ratio 1.40 is 9.7 % off the paper's
// 1.55 (outside ±3 %); Arena's 828 finished jobs match.
func TestVerdicts(t *testing.T) {
	w := &reportWriter{}
	rs := []*sweep.Results{summaryRun("arena", "a", 828, 40000, 7000, 11000), summaryRun("fcfs", "f", 590, 200000, 5000, 11000/1.58)}
	rs[1].Summary.SubmittedMeanJCT = 80000
	w.mainVerdicts(rs)
	got := map[string]bool{}
	for _, v := range w.verdicts {
		got[v.claim] = *v.ok
	}
	want := map[string]bool{
		"Arena finishes 828 jobs (Philly)": true,
		"Arena's JCT reduction vs fcfs":    false,
		"Arena/fcfs mean throughput":       false,
		"Arena/fcfs peak throughput":       true,
		"Arena's mean JCT (Philly)":        false, // MeanJCT 0 here
	}
	for c, ok := range want {
		if g, present := got[c]; !present || g != ok {
			t.Errorf("verdict %q = %v (present %v), want %v", c, g, present, ok)
		}
	}
	w.writeVerdicts()
	if !strings.Contains(w.b.String(), "| Arena's JCT reduction vs fcfs | 81.3 % | 50.0 % (artifact padded 80.0 %) | **no** (±2 pp); artifact padded: yes | runs/a, runs/f |") {
		t.Errorf("verdict table:\n%s", w.b.String())
	}
}

// A variant that finishes more jobs faster than Arena is flagged.
func TestSurprisesFlagVariantsBeatingArena(t *testing.T) {
	w := &reportWriter{}
	w.flagSurprises("ablations, exact timing", []*sweep.Results{summaryRun("arena", "a", 800, 50000, 7000, 0), summaryRun("arena-no", "n", 820, 42950, 6000, 0)})
	if len(w.surprises) != 1 || !strings.Contains(w.surprises[0], "arena-no beats Arena** on padded mean JCT: Arena's reduction against it is -16.4 %") {
		t.Errorf("surprises %q", w.surprises)
	}
}
