package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
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

// Two seeds of one cell give a seeds figure with the cell's name.
func TestSeedFigures(t *testing.T) {
	s, err := ParseSpec("seeds.yaml", "", []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs, srtf]\ntiming: [exact]\nrounds: 100\nseeds: [1, 2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	var rs []*Results
	for _, pr := range plan.Runs {
		r, err := LoadResults(RunDir(out, pr.Key), true)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	PadGroups(rs)
	figs, err := WriteSeedFigures(out, rs, FigureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 1 || !strings.Contains(filepath.Base(figs[0].Path), ".seeds.jct-bars.png") {
		t.Errorf("seed figures %v, want one <cell>.seeds.jct-bars.png", figs)
	}
}
