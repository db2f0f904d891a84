package sweep

import (
	"os"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
)

// typeGrid is two types of two factors each, nothing else: one at a time
// (4 points) and the corners (4).
var typeGrid = Sensitivity{Overheads: []float64{1}, IterationTimes: []float64{1},
	GPUTypes: map[string][]float64{"l20": {1.2, 0.8}, "h100": {0.8, 1.2}}}

// The per-type points, hand-listed: each type alone at each factor, then
// the four corners; three types add their 8 corners to 6 single-type
// points; a point multiplies the run's own per-type factors, and an
// estimator point replaces its estimator.
func TestTypePoints(t *testing.T) {
	var keys []string
	for _, p := range typeGrid.Perturbed() {
		keys = append(keys, p.Key())
	}
	want := "t-h100x0.8 t-h100x1.2 t-l20x0.8 t-l20x1.2 t-h100x0.8-l20x0.8 t-h100x0.8-l20x1.2 t-h100x1.2-l20x0.8 t-h100x1.2-l20x1.2"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("points %s\nwant   %s", got, want)
	}
	if s := typeGrid.String(); s != "iteration times per GPU type h100 ×0.8/1/1.2, l20 ×0.8/1/1.2, one at a time and corners, 8 points" {
		t.Errorf("grid %q", s)
	}
	three := Sensitivity{GPUTypes: map[string][]float64{"h100": {0.8, 1.2}, "l20": {0.9}, "a100": {0.8, 0.9, 1.1}}}
	// a100: 3 + h100: 2 + l20: 1 alone; corners 2 (a100 0.8/1.1) × 2 × 1.
	if n := len(three.TypePoints()); n != 6+4 {
		t.Errorf("three types: %d per-type points, want 10", n)
	}
	p := GridPoint{Overhead: 1, IterTime: 1, Types: "h100=1.25,l20=0.8"}
	r := p.Apply(runner.Run{TypeSlowdowns: "a100=1.5,h100=2"})
	if r.TypeSlowdowns != "a100=1.5,h100=2.5,l20=0.8" || r.Slowdown != 0 || r.OverheadScale != 0 {
		t.Errorf("per-type point on a run with its own: %+v", r)
	}
	if p.String() != "h100 ×1.25 · l20 ×0.8" {
		t.Errorf("point %q", p)
	}
	e := GridPoint{Overhead: 1, IterTime: 1, Estimator: "analytic"}
	if r := e.Apply(runner.Run{Estimator: "profiledb"}); r.Estimator != "analytic" || e.Key() != "e-analytic" || e.String() != "estimator analytic" {
		t.Errorf("estimator point: %+v %q %q", r, e.Key(), e)
	}
}

// Hand-worked verdicts over the per-type grid (arena against fcfs, five
// seeds, t(0.975, 4) = 2.776). At the centre and at every point the
// reductions are 10, 11, 9, 10, 10 % ([8.8, 11.2] %) but at the corner
// h100 ×1.2 · l20 ×1.2, where they are 2, −3, 5, 1, 0 % (mean 1 %,
// interval [−2.6, 4.6] %): the JCT verdict is fragile, naming that corner
// alone. Its paired shift, seed by seed −8, −14, −4, −9, −10 points: mean
// −9, s = √13 = 3.606, half-width 2.776·3.606/√5 = 4.48: [−13.5, −4.5].
// A point marked skipped for the cell (an estimator that cannot price it)
// leaves the verdicts: with the corner skipped the comparison holds, and
// the note is the cell's.
func TestMarkRobustPerType(t *testing.T) {
	sig := []float64{0.10, 0.11, 0.09, 0.10, 0.10}
	flat := []float64{1.1, 1.1, 1.1, 1.1, 1.1}
	corner := GridPoint{Overhead: 1, IterTime: 1, Types: "h100=1.2,l20=1.2"}
	perPoint := map[GridPoint][]SummaryRow{}
	for _, p := range typeGrid.Perturbed() {
		red := sig
		if p == corner {
			red = []float64{0.02, -0.03, 0.05, 0.01, 0}
		}
		perPoint[p] = pairRows(t, red, flat)
	}
	main := pairRows(t, sig, flat)
	markRobust(main, typeGrid, perPoint, nil)
	r := find(main, "x", "arena")
	if r.JCTVerdict != "fragile" || r.ThroughputVerdict != "holds" || r.Robustness != "JCT reduction fragile (interval contains 0 at h100 ×1.2 · l20 ×1.2); throughput ratio holds" {
		t.Errorf("verdicts %q %q: %q", r.JCTVerdict, r.ThroughputVerdict, r.Robustness)
	}
	var b strings.Builder
	if err := WriteRobustness(&b, main); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"arena vs fcfs: JCT reduction fragile",
		"how far the grid moves its JCT reduction (point − centre, paired by seed; mean [95 % t-interval], percentage points):\n        h100 ×1.2 · l20 ×1.2: −9.0 pts [−13.5, −4.5]\n",
		"JCT reduction 0 hold · 1 fragile",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("robustness lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "h100 ×0.8:") {
		t.Errorf("a point where the comparison holds has a shift line:\n%s", out)
	}

	skipped := map[GridPoint]map[string]string{corner: {CellKey(r): "h100 ×1.2 · l20 ×1.2 skipped: a note"}}
	markRobust(main, typeGrid, perPoint, skipped)
	if r.JCTVerdict != "holds" || r.Robust == nil || !*r.Robust || len(r.GridSkipped) != 1 {
		t.Errorf("corner skipped: %q robust %v skipped %q, want holds and the note", r.JCTVerdict, deb(r.Robust), r.GridSkipped)
	}
	b.Reset()
	if err := WriteRobustness(&b, main); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "    h100 ×1.2 · l20 ×1.2 skipped: a note\n") || strings.Contains(b.String(), "pts") {
		t.Errorf("skipped point: the note is not under the cell, or a holding comparison has shifts:\n%s", b.String())
	}
	if gridColumn(r) != typeGrid.String()+"; skipped here: h100 ×1.2 · l20 ×1.2 skipped: a note" {
		t.Errorf("sensitivity_grid %q", gridColumn(r))
	}
}

// Bad grids are refused naming what is wrong: an unknown GPU type, a
// factor out of bounds, a type twice, an unknown estimator; a type no
// cluster of the sweep has is refused at the spec's sensitivity key,
// naming it and the clusters' types.
func TestParseSensitivityTypes(t *testing.T) {
	g, err := ParseSensitivity("overheads=1;iteration-times=1;types=H100:0.8/1.2,l20:0.9;estimators=profiledb,analytic")
	if err != nil || len(g.GPUTypes["h100"]) != 2 || len(g.Estimators) != 2 || len(g.Perturbed()) != 3+2+2 {
		t.Fatalf("parsed %+v (%v): want h100 and l20, 2 estimators, 7 points", g, err)
	}
	for bad, want := range map[string]string{
		"types=h100x:0.8":         `GPU type "h100x": not a GPU type arena knows`,
		"types=h100:0":            "h100 factor 0: want a factor from 0.01 to 100",
		"types=h100:0.005":        "from 0.01 to 100",
		"types=h100:fast":         `h100: "fast" is not a number`,
		"types=h100=0.8":          "want TYPE:FACTOR/FACTOR",
		"types=h100:0.8,H100:1":   "h100 given twice",
		"estimators=oracle":       `estimator "oracle": unknown`,
		"types=l20:1;types=l20:2": "types given twice",
	} {
		if _, err := ParseSensitivity(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", bad, err, want)
		}
	}
	for yaml, want := range map[string]string{
		"sensitivity:\n  gpu_types: {h100: [0.8, 200]}\n": "s.yaml:6",
		"sensitivity:\n  gpu_types: {k80x: [0.8]}\n":      `GPU type "k80x"`,
		"sensitivity:\n  gpu_types: [h100]\n":             "want a mapping of GPU type to factors",
		"sensitivity:\n  estimators: [oracle]\n":          `estimator "oracle": unknown`,
	} {
		_, err := ParseSpec("s.yaml", "", []byte("traces: [testbed]\nclusters: [h100-l20]\npolicies: [fcfs]\ntiming: exact\n"+yaml))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "sensitivity") {
			t.Errorf("%q: %v, want an error naming sensitivity and %q", yaml, err, want)
		}
	}
	spec, err := ParseSpec("s.yaml", "", []byte("traces: [testbed]\nclusters: [h100-l20]\npolicies: [fcfs]\ntiming: exact\nestimators: analytic\ngpu_map: a40=h100,a10=l20\nsensitivity:\n  gpu_types: {a100: [0.8], h100: [1.2]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = spec.Expand(policy.NewRegistry())
	if err == nil || !strings.Contains(err.Error(), "s.yaml:7") || !strings.Contains(err.Error(), "GPU type a100: no cluster of the sweep has it (h100-l20: h100, l20)") {
		t.Errorf("type in no cluster: %v, want it named at s.yaml:7", err)
	}
}

// A small real sweep on h100-l20 (the testbed trace mapped onto it, the
// analytic model pricing both types): h100 ×1.2 is run for every run,
// the estimator point profiledb is skipped with a note (the database
// cannot price h100 or l20), analytic is the runs' own (no point); the
// perturbed runs carry their per-type factor, and the robustness columns
// are filled.
func TestSweepPerTypeSensitivity(t *testing.T) {
	spec, err := ParseSpec("s.yaml", "", []byte(`traces: [testbed]
clusters: [h100-l20]
policies: [arena, fcfs]
timing: exact
rounds: 20
estimators: analytic
gpu_map: a40=h100,a10=l20
sensitivity: {overheads: 1, iteration_times: 1, gpu_types: {h100: [1.2]}, estimators: [profiledb, analytic]}
`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	sp := SensitivityPlan(plan, *spec.Sensitivity)
	if len(sp.Runs) != 2 || len(sp.Notes) != 1 || !strings.Contains(sp.Notes[0], "estimator profiledb skipped on cluster h100-l20: it cannot price h100, l20") {
		t.Fatalf("perturbed plan: %d runs, notes %q; want 2 (h100 ×1.2 × 2 policies) and the profiledb note", len(sp.Runs), sp.Notes)
	}
	for _, r := range sp.Runs {
		if !strings.HasSuffix(r.Key, ".t-h100x1.2") || r.Run.TypeSlowdowns != "h100=1.2" || r.Run.Estimator != "analytic" {
			t.Errorf("perturbed run %s: type slowdowns %q, estimator %q", r.Key, r.Run.TypeSlowdowns, r.Run.Estimator)
		}
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	sweep(t, sp, SensitivityDir(out), Shard{}, false)
	data, err := os.ReadFile(RunDir(SensitivityDir(out), sp.Runs[0].Key) + "/run.json")
	if err != nil || !strings.Contains(string(data), `"type_slowdowns": "h100=1.2"`) {
		t.Errorf("run.json of %s: %s (%v), want type_slowdowns recorded", sp.Runs[0].Key, data, err)
	}
	rows := merge(t, plan, MergeOptions{Out: out, Sensitivity: spec.Sensitivity})
	f := find(rows, "testbed", "fcfs")
	if f == nil || f.JCTVerdict != "not resolved" || f.RankingRobust == nil || len(f.GridSkipped) != 1 || len(f.Shifts) != 1 || f.Shifts[0].Point.Types != "h100=1.2" {
		t.Fatalf("fcfs row: %+v", f)
	}
	if !strings.Contains(gridColumn(f), "iteration times per GPU type h100 ×1/1.2, one type, 1 point; estimators profiledb/analytic") {
		t.Errorf("sensitivity_grid %q", gridColumn(f))
	}
	var b strings.Builder
	if err := WriteRobustness(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "h100 ×1.2: ") || !strings.Contains(b.String(), "(one seed: no interval)") || !strings.Contains(b.String(), "    estimator profiledb skipped on cluster h100-l20") {
		t.Errorf("robustness lacks the shift at h100 ×1.2 or the skipped point:\n%s", b.String())
	}
	t.Logf("\n%s", b.String())
}
