package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// Load figures put each trace in its own panel and refuse to join runs
// that differ in more than density (here: timing) into one line.
func TestLoadFiguresPerTraceAndRefusal(t *testing.T) {
	plan := smallPlan(t) // pai and testbed × artifact and exact × density 1, 2
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	var all, exact []*Results
	for _, pr := range plan.Runs {
		r, err := LoadResults(RunDir(out, pr.Key), true)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
		if r.Summary.Timing == "exact" {
			exact = append(exact, r)
		}
	}
	PadGroups(all)
	if _, err := WriteLoadFigures(t.TempDir(), "", all, FigureOptions{}); err == nil || !strings.Contains(err.Error(), "differ in more than the density") {
		t.Errorf("runs of two timings joined into one load line: %v", err)
	}
	figs, err := WriteLoadFigures(filepath.Join(out, "figures"), "", exact, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(figs[0].Path)
	for _, panel := range []string{">pai<", ">testbed<"} {
		if !strings.Contains(string(svg), panel) {
			t.Errorf("load figure lacks the panel title %s", panel)
		}
	}
}

// Two seeds of one cell (results made by hand: the built-in traces are
// deterministic, so a sweep collapses their seeds) give one seeds figure
// named after the cell, its bars labelled with the seed count.
func TestSeedFigures(t *testing.T) {
	var rs []*Results
	for _, p := range []string{"fcfs", "srtf"} {
		for _, seed := range []int64{1, 2} {
			group := groupKey("synth", "paper-1280", sim.Exact, 100, 1, seed, "")
			rs = append(rs, &Results{
				Record:  RunRecord{Key: p + "." + group, Group: group, Seed: seed, Density: 1, JCTs: []float64{1000 * float64(seed)}},
				Summary: sim.Summary{Policy: p, Trace: "synth", Cluster: "paper-1280", Timing: "exact", Rounds: 100, Estimator: "profiledb", Finished: 1, MeanJCT: 1000 * float64(seed)},
			})
		}
	}
	PadGroups(rs)
	out := t.TempDir()
	figs, err := WriteSeedFigures(out, rs, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || filepath.Base(figs[0].Path) != "synth.paper-1280.exact.r100.d1.seeds.jct-bars.svg" {
		t.Fatalf("seed figures %v, want synth.paper-1280.exact.r100.d1.seeds.jct-bars.svg", figs)
	}
	svg, _ := os.ReadFile(figs[0].Path)
	if !strings.Contains(string(svg), "fcfs (2 seeds)") {
		t.Error("bars not labelled with their seed count")
	}
}
