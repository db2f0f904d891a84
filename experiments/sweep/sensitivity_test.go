package sweep

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// The grid's runs carry the perturbation as a product with the run's own
// values (hand-worked): a run calibrated ×1.1 (relaxed ×1.3) at overheads
// ×1.25 · iteration times ×0.95 runs with overhead scale 1.25 and
// slowdowns 1.1·0.95 and 1.3·0.95; a factor of 1 leaves its field alone
// (0 stays 0: the centre is the run itself); keys and groups name the
// point, so padding never mixes points.
func TestSensitivityPlanPerturbsRuns(t *testing.T) {
	plan := &Plan{Name: "p", Runs: []PlannedRun{
		{Key: "arena.g", Group: "g", Run: runner.Run{Policy: "arena", Slowdown: 1.1, RelaxedSlowdown: 1.3}},
		{Key: "fcfs.g", Group: "g", Run: runner.Run{Policy: "fcfs", OverheadScale: 2}},
	}}
	sp := SensitivityPlan(plan, DefaultSensitivity())
	if len(sp.Runs) != 2*8 {
		t.Fatalf("%d perturbed runs, want 16 (8 points × 2 runs)", len(sp.Runs))
	}
	find := func(key string) runner.Run {
		for _, r := range sp.Runs {
			if r.Key == key {
				if r.Group != strings.TrimPrefix(strings.TrimPrefix(key, "arena."), "fcfs.") {
					t.Errorf("%s: group %q does not carry the point", key, r.Group)
				}
				return r.Run
			}
		}
		t.Fatalf("no run %s", key)
		return runner.Run{}
	}
	r := find("arena.g.o1.25-i0.95")
	sd, rsd, f := 1.1, 1.3, 0.95 // variables: a float64 product, as at run time
	if r.OverheadScale != 1.25 || r.Slowdown != sd*f || r.RelaxedSlowdown != rsd*f {
		t.Errorf("arena at o1.25-i0.95: overhead scale %v, slowdown %v, relaxed %v; want 1.25, %v, %v", r.OverheadScale, r.Slowdown, r.RelaxedSlowdown, sd*f, rsd*f)
	}
	r = find("fcfs.g.o0.75-i1.05")
	if r.OverheadScale != 1.5 || r.Slowdown != 1.05 || r.RelaxedSlowdown != 0 {
		t.Errorf("fcfs at o0.75-i1.05: overhead scale %v, slowdown %v, relaxed %v; want 1.5 (2 × 0.75), 1.05, 0", r.OverheadScale, r.Slowdown, r.RelaxedSlowdown)
	}
	r = find("fcfs.g.o1-i0.95")
	if r.OverheadScale != 2 || r.Slowdown != 0.95 {
		t.Errorf("fcfs at o1-i0.95: overhead scale %v (want 2, untouched), slowdown %v (want 0.95)", r.OverheadScale, r.Slowdown)
	}
	for _, pr := range sp.Runs {
		if strings.HasSuffix(pr.Key, ".o1-i1") {
			t.Errorf("the centre is re-run: %s", pr.Key)
		}
	}
	if c := (GridPoint{Overhead: 1, IterTime: 1}).Apply(plan.Runs[1].Run); !reflect.DeepEqual(c, plan.Runs[1].Run) {
		t.Errorf("the centre changes the run: %+v", c)
	}
}

// cellRows is one cell of three policies and three seeds with per-seed
// submitted mean JCTs jct[policy] (the same for every seed but a small
// per-seed wiggle, so intervals exist) and throughputs thr[policy].
func cellRows(trace string, jct, thr map[string]float64) []SummaryRow {
	var rows []SummaryRow
	for _, p := range []string{"arena", "fcfs", "sia"} {
		for s := int64(1); s <= 3; s++ {
			w := 1 + 0.01*float64(s-2)
			rows = append(rows, row(p+"."+trace, sim.Summary{Trace: trace, Cluster: "c", Timing: "exact", Rounds: 600, Density: 1,
				Estimator: "profiledb", Policy: p, Seed: s, SubmittedMeanJCT: jct[p] * w, MeanThroughput: thr[p] * w}))
		}
	}
	addSeedStats(rows)
	return rows
}

func find(rows []SummaryRow, trace, policy string) *SummaryRow {
	for i := range rows {
		if rows[i].Trace == trace && rows[i].Policy == policy {
			return &rows[i]
		}
	}
	return nil
}

// Hand-built, against baseline sia. Cell "a": at the centre arena 100 s,
// fcfs 200 s, sia 150 s: arena vs sia +33 %, fcfs vs sia −33 %. At
// overheads ×1.25 · iteration times ×1 alone fcfs takes 140 s: fcfs vs
// sia turns positive (its sign flips: fragile), arena vs sia stays
// positive (holds), and the ranking arena < sia < fcfs becomes arena <
// fcfs < sia. Cell "b" is the same at every point but one, where
// arena's throughput falls below sia's: the JCT sign holds but the
// throughput ratio crosses 1 (fragile); its ranking holds.
func TestMarkRobust(t *testing.T) {
	g := DefaultSensitivity()
	jct := map[string]float64{"arena": 100, "fcfs": 200, "sia": 150}
	thr := map[string]float64{"arena": 12, "fcfs": 8, "sia": 10}
	flipAt, thrAt := GridPoint{Overhead: 1.25, IterTime: 1}, GridPoint{Overhead: 0.75, IterTime: 0.95}
	rowsAt := func(p GridPoint) []SummaryRow {
		ja, ta := jct, thr
		if p == flipAt {
			ja = map[string]float64{"arena": 100, "fcfs": 140, "sia": 150}
		}
		tb := thr
		if p == thrAt {
			tb = map[string]float64{"arena": 9, "fcfs": 8, "sia": 10}
		}
		rows := append(cellRows("a", ja, ta), cellRows("b", jct, tb)...)
		if err := SetBaseline(rows, "sia"); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	main := rowsAt(GridPoint{Overhead: 1, IterTime: 1})
	perPoint := map[GridPoint][]SummaryRow{}
	for _, p := range g.Perturbed() {
		perPoint[p] = rowsAt(p)
	}
	markRobust(main, g, perPoint, nil)

	check := func(trace, pol string, want *bool, text string) {
		t.Helper()
		r := find(main, trace, pol)
		if (want == nil) != (r.Robust == nil) || want != nil && *want != *r.Robust || !strings.Contains(r.Robustness, text) {
			t.Errorf("%s/%s (%s): robust %v %q, want %v containing %q", trace, pol, r.Comparison, deb(r.Robust), r.Robustness, deb(want), text)
		}
	}
	yes, no := true, false
	check("a", "arena", &yes, "holds")
	check("a", "fcfs", &no, "JCT reduction fragile (significant the other way at overheads ×1.25 · iteration times ×1)")
	check("a", "sia", nil, "")
	check("b", "arena", &no, "throughput ratio fragile (significant the other way at overheads ×0.75 · iteration times ×0.95)")
	check("b", "fcfs", &yes, "holds")
	if r := find(main, "a", "fcfs"); strings.Contains(r.Robustness, "0.75") {
		t.Errorf("fcfs flips at one point only, yet: %q", r.Robustness)
	}
	if r := find(main, "a", "sia"); r.RankingRobust == nil || *r.RankingRobust || !strings.Contains(r.RankingRobustness, "arena < fcfs < sia at overheads ×1.25 · iteration times ×1") {
		t.Errorf("cell a's ranking: %v %q, want a change to arena < fcfs < sia", deb(r.RankingRobust), r.RankingRobustness)
	}
	if r := find(main, "b", "sia"); r.RankingRobust == nil || !*r.RankingRobust {
		t.Errorf("cell b's ranking %v %q, want it to hold", deb(r.RankingRobust), r.RankingRobustness)
	}
	var b strings.Builder
	if err := WriteSeedTable(&b, main); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"under model error", "JCT fragile · thr. holds", "overheads ×0.75/1/1.25 × iteration times ×0.95/1/1.05, 9 points",
		"JCT reduction 3 hold · 1 fragile · 0 not resolved · 0 undecided", "throughput ratio 3 hold · 1 fragile", "ranking by mean holds in 1 of 2 cells", "ranking by submitted mean JCT arena < sia < fcfs changes"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("seed table lacks %q:\n%s", w, b.String())
		}
	}

	// A point without results leaves a comparison that holds elsewhere
	// undecided (null), not robust.
	delete(perPoint, GridPoint{Overhead: 1.25, IterTime: 1.05})
	markRobust(main, g, perPoint, nil)
	if r := find(main, "b", "fcfs"); r.Robust != nil || !strings.Contains(r.Robustness, "undecided") {
		t.Errorf("missing point: robust %v %q, want null and undecided", deb(r.Robust), r.Robustness)
	}
	if r := find(main, "a", "fcfs"); r.Robust == nil || *r.Robust {
		t.Errorf("a flip elsewhere still decides fragile: %v", deb(r.Robust))
	}
}

func deb(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

// End to end on a small sweep: the perturbed runs go to OUT/sensitivity,
// summary.parquet keeps its rows and gains the robustness columns (null
// without --sensitivity), which survive the parquet round trip.
func TestSweepSensitivityColumns(t *testing.T) {
	spec, err := ParseSpec("s.yaml", "", []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [arena, fcfs]\ntiming: exact\nrounds: 100\nsensitivity: {overheads: [1.25], iteration_times: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Sensitivity == nil || len(spec.Sensitivity.Perturbed()) != 1 {
		t.Fatalf("spec grid %+v, want one perturbed point", spec.Sensitivity)
	}
	plan, err := spec.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	plain := merge(t, plan, MergeOptions{Out: out})
	if plain[0].Robust != nil || plain[0].SensitivityGrid != "" {
		t.Errorf("without sensitivity: robust %v, grid %q", deb(plain[0].Robust), plain[0].SensitivityGrid)
	}
	if _, err := MergeSweep(plan, MergeOptions{Out: out, Sensitivity: spec.Sensitivity}); err == nil || !strings.Contains(err.Error(), "perturbed run") {
		t.Errorf("merge before the perturbed runs: %v, want an error naming them", err)
	}
	sweep(t, SensitivityPlan(plan, *spec.Sensitivity), SensitivityDir(out), Shard{}, false)
	rows := merge(t, plan, MergeOptions{Out: out, Sensitivity: spec.Sensitivity})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the 2 main runs", len(rows))
	}
	f := find(rows, "pai", "fcfs")
	// One seed gives no interval: nothing is resolved, so nothing holds.
	if f.Robust != nil || f.RankingRobust == nil || f.SensitivityGrid != "overheads ×1/1.25 × iteration times ×1, 2 points" || f.Robustness != "JCT reduction not resolved (one seed: no interval); throughput ratio not resolved (one seed: no interval)" || f.JCTVerdict != "not resolved" {
		t.Errorf("fcfs row: robust %v ranking %v grid %q robustness %q", deb(f.Robust), deb(f.RankingRobust), f.SensitivityGrid, f.Robustness)
	}
	if _, err := os.Stat(RunDir(SensitivityDir(out), plan.Runs[0].Key+".o1.25-i1")); err != nil {
		t.Errorf("perturbed run not under OUT/sensitivity: %v", err)
	}
}

func TestParseSensitivity(t *testing.T) {
	g, err := ParseSensitivity("overheads=0.5,1.5;iteration-times=1")
	if err != nil || !slices.Equal(g.Overheads, []float64{0.5, 1.5}) || len(g.Perturbed()) != 2 {
		t.Errorf("parsed %+v (%v), want overheads 0.5,1.5 and no iteration-time axis", g, err)
	}
	if g, _ := ParseSensitivity(""); g.String() != DefaultSensitivity().String() {
		t.Errorf("empty: %s", g)
	}
	for _, bad := range []string{"overheads=0", "overheads=x", "speed=2", "overheads=1;overheads=2"} {
		if _, err := ParseSensitivity(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	_, err = ParseSpec("s.yaml", "", []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: exact\nsensitivity:\n  overheads: [0.75, -1]\n"))
	if err == nil || !strings.Contains(err.Error(), "s.yaml:6") || !strings.Contains(err.Error(), "sensitivity") {
		t.Errorf("bad factor: %v, want an error at s.yaml:6 naming the key", err)
	}
}

// pairRows is a two-policy cell over five seeds, fcfs the baseline:
// fcfs takes 1000 s and 100 samples/s on every seed, arena 1000·(1−red[s])
// s and 100·thr[s] samples/s, so the paired JCT reductions are red and
// the throughput ratios thr exactly.
func pairRows(t *testing.T, red, thr []float64) []SummaryRow {
	t.Helper()
	var rows []SummaryRow
	for s := range red {
		for _, p := range []string{"arena", "fcfs"} {
			jct, tp := 1000.0, 100.0
			if p == "arena" {
				jct, tp = 1000*(1-red[s]), 100*thr[s]
			}
			rows = append(rows, row(p+".x", sim.Summary{Trace: "x", Cluster: "c", Timing: "exact", Rounds: 600, Density: 1,
				Estimator: "profiledb", Policy: p, Seed: int64(s + 1), SubmittedMeanJCT: jct, MeanThroughput: tp}))
		}
	}
	addSeedStats(rows)
	if err := SetBaseline(rows, "fcfs"); err != nil {
		t.Fatal(err)
	}
	return rows
}

// The verdict comes from intervals, not signs of means (hand-worked
// paired 95 % t-intervals over 5 seeds, t(0.975, 4) = 2.776):
//
//   - reductions 6, −2, 4, −1, 3 %: mean 2 %, s = 3.39 %, interval
//     [−2.2, 6.2] % — contains 0 at the centre: not resolved, whatever the
//     perturbed points say (the mean's sign is the same everywhere);
//   - throughput ratios 1.0002, 0.9999, 1.0005, 1.0001, 1.0003: mean
//     1.0002, interval [0.99992, 1.00048] — contains 1: not resolved;
//   - reductions 10, 11, 9, 10, 10 % (interval [8.8, 11.2] %) at the
//     centre and 2, −3, 5, 1, 0 % (mean 1 %, [−2.6, 4.6] %) at one point:
//     the mean keeps its sign, the interval does not exclude 0: fragile;
//   - 10, 11, 9, 10, 10 % at every point: holds.
func TestVerdictFromIntervals(t *testing.T) {
	g := Sensitivity{Overheads: []float64{1.25}, IterationTimes: []float64{1}}
	p := g.Perturbed()[0]
	flat := []float64{1.1, 1.1, 1.1, 1.1, 1.1}
	sig := []float64{0.10, 0.11, 0.09, 0.10, 0.10}
	for _, tc := range []struct {
		name                 string
		centreRed, pointRed  []float64
		centreThr            []float64
		robust               *bool
		jct, thr, robustness string
	}{
		{"tiresias-like", []float64{0.06, -0.02, 0.04, -0.01, 0.03}, []float64{0.06, -0.02, 0.04, -0.01, 0.03}, flat,
			nil, "not resolved", "holds", "JCT reduction not resolved (its interval contains 0 at the centre)"},
		{"1.0002x", sig, sig, []float64{1.0002, 0.9999, 1.0005, 1.0001, 1.0003},
			nil, "holds", "not resolved", "throughput ratio not resolved (its interval contains 1 at the centre)"},
		{"mean keeps sign", sig, []float64{0.02, -0.03, 0.05, 0.01, 0}, flat,
			ptr(false), "fragile", "holds", "JCT reduction fragile (interval contains 0 at overheads ×1.25 · iteration times ×1)"},
		{"holds", sig, sig, flat, ptr(true), "holds", "holds", "holds"},
	} {
		main := pairRows(t, tc.centreRed, tc.centreThr)
		perPoint := map[GridPoint][]SummaryRow{p: pairRows(t, tc.pointRed, flat)}
		markRobust(main, g, perPoint, nil)
		r := find(main, "x", "arena")
		if r.JCTVerdict != tc.jct || r.ThroughputVerdict != tc.thr || !strings.Contains(r.Robustness, tc.robustness) || fmt.Sprint(deb(r.Robust)) != fmt.Sprint(deb(tc.robust)) {
			iv, _ := r.Cmp("jct_reduction")
			t.Errorf("%s: jct %q thr %q robust %v %q (reduction %+v), want %q %q %v containing %q", tc.name, r.JCTVerdict, r.ThroughputVerdict, deb(r.Robust), r.Robustness, iv, tc.jct, tc.thr, deb(tc.robust), tc.robustness)
		}
	}
}

func ptr(b bool) *bool { return &b }
