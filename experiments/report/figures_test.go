package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim"
)

// Load figures put each trace in its own panel and refuse to join runs
// that differ in more than density (here: timing) into one line.
func TestLoadFiguresPerTraceAndRefusal(t *testing.T) {
	plan := smallPlan(t) // pai and testbed × artifact and exact × density 1, 2
	out := t.TempDir()
	smallSweep(t, plan, out)
	var all, exact []*sweep.Results
	for _, pr := range plan.Runs {
		r, err := sweep.LoadResults(sweep.RunDir(out, pr.Key), true)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
		if r.Summary.Timing == "exact" {
			exact = append(exact, r)
		}
	}
	sweep.PadGroups(all)
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

// Two policies × three seeds of one cell (results made by hand: the
// built-in traces are deterministic, so a sweep collapses their seeds)
// give one cell covering the three groups, drawn once per kind, named
// after the cell, its whiskers the 95 % t-interval over 3 seeds, its
// policies renamed by Labels. A fourth seed run by one policy only stays
// out of the cell (a band needs every policy on the same draws).
func TestSeedFigures(t *testing.T) {
	var rs []*sweep.Results
	add := func(p string, seed int64) {
		group := sweep.GroupKey("synth", "paper-1280", sim.Exact, 100, 1, seed, "")
		jct := 1000 * float64(seed)
		rs = append(rs, &sweep.Results{
			Record:   sweep.RunRecord{Key: p + "." + group, Group: group, Seed: seed, Density: 1, JCTs: []float64{jct}},
			Summary:  sim.Summary{Policy: p, Trace: "synth", Cluster: "paper-1280", Timing: "exact", Rounds: 100, Estimator: "profiledb", Finished: 1, MeanJCT: jct, CensoredMeanJCT: jct, Utilization: map[string]float64{"a100": 0.5}},
			Jobs:     []sim.JobRecord{{ID: 1, State: "finished", JCT: jct}},
			Timeline: []sim.RoundRecord{{Time: 0, Throughput: 10 * float64(seed)}, {Time: 300, Throughput: 20}},
		})
	}
	for _, p := range []string{"fcfs", "exec:python3 sjf.py"} {
		for _, seed := range []int64{1, 2, 3} {
			add(p, seed)
		}
	}
	add("fcfs", 4)
	sweep.PadGroups(rs)
	cells := SeedCells(rs)
	if len(cells) != 1 || !slices.Equal(cells[0].Seeds, []int64{1, 2, 3}) || len(cells[0].Groups) != 3 {
		t.Fatalf("cells %+v, want one over seeds 1–3 covering 3 groups", cells)
	}
	out := t.TempDir()
	o := FigureOptions{Format: "svg", Labels: map[string]string{"exec:python3 sjf.py": "SJF"}}
	figs, err := WriteSeedFigures(out, cells, append([]string{"occupancy"}, SeedKinds...), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != len(SeedKinds) {
		t.Fatalf("%d seed figures, want one per seed kind (%v; occupancy has none)", len(figs), SeedKinds)
	}
	if got := filepath.Base(figs[1].Path); got != "synth.paper-1280.exact.r100.d1.seeds.jct-bars.svg" {
		t.Errorf("bars at %s, want synth.paper-1280.exact.r100.d1.seeds.jct-bars.svg", got)
	}
	if !strings.Contains(figs[1].Title, "95 % t-interval") {
		t.Errorf("caption %q does not name the interval", figs[1].Title)
	}
	svg, _ := os.ReadFile(figs[1].Path)
	for _, s := range []string{"95 % t-interval over 3 seeds", ">SJF<", ">fcfs<"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("seed bars lack %q", s)
		}
	}
	if strings.Contains(string(svg), "exec:python3") {
		t.Error("the label did not replace the command line")
	}
	// The bars are the mean over seeds, whiskers its t-interval: JCTs
	// 1000, 2000, 3000 s → mean 2000 s ± t(0.975, 2)·1000/√3 = ±2484 s.
	runs := seedBarRuns(cells[0], o)
	if iv := runs[0].MeanJCTCI; runs[0].MeanJCT != 2000 || math.Abs(iv[0]-(2000-2484.1)) > 0.5 || math.Abs(iv[1]-(2000+2484.1)) > 0.5 {
		t.Errorf("fcfs bar %v %v, want 2000 [−484.1, 4484.1]", runs[0].MeanJCT, iv)
	}
}

func TestParseLabels(t *testing.T) {
	got, err := ParseLabels([]string{"exec:python3 sjf.py=SJF", "backfill(order=smallest)=Backfill"})
	if err != nil || got["exec:python3 sjf.py"] != "SJF" || got["backfill(order=smallest)"] != "Backfill" {
		t.Errorf("%v %v", got, err)
	}
	for _, bad := range []string{"SJF", "=SJF", "fcfs=", "fcfs=A,fcfs=B"} {
		if _, err := ParseLabels(strings.Split(bad, ",")); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The spec's labels: mapping, and its errors located by line.
func TestSpecLabels(t *testing.T) {
	base := "traces: [pai]\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\n"
	s, err := sweep.ParseSpec("s.yaml", "", []byte(base+"labels: {\"exec:python3 sjf.py\": SJF, fcfs: FCFS}\n"))
	if err != nil || s.Labels["exec:python3 sjf.py"] != "SJF" || s.Labels["fcfs"] != "FCFS" || !s.HasKey("labels") {
		t.Fatalf("labels %v, %v", s.Labels, err)
	}
	for bad, line := range map[string]string{"labels: [SJF]\n": "s.yaml:5", "labels: {fcfs: \"\"}\n": "s.yaml:5", "labels:\n  fcfs: A\n  fcfs: B\n": "s.yaml:7"} {
		_, err := sweep.ParseSpec("s.yaml", "", []byte(base+bad))
		if err == nil || !strings.Contains(err.Error(), line+":") || !strings.Contains(err.Error(), "key labels") {
			t.Errorf("%q: %v, want an error at %s naming labels", bad, err, line)
		}
	}
}
