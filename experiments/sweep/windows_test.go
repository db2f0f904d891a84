package sweep

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// t975_2 is Student's t 97.5 % quantile with 2 degrees of freedom (tables).
const t975_2 = 4.303

// windowRows: arena and fcfs on 3 windows × 2 seeds. fcfs's submitted
// mean JCT is 100 and its throughput 1 everywhere; arena's JCT is 50, 70
// (window 35d), 80, 100 (45d), 110, 130 (55d) and its throughput 1, 4 /
// 2, 2 / 4, 4.
func windowRows() []SummaryRow {
	type w struct {
		trace, label string
		since        float64
		jct, thr     [2]float64
	}
	ws := []w{
		{"pp.since=35d.arena", "35d–37d", 35, [2]float64{50, 70}, [2]float64{1, 4}},
		{"pp.since=45d.arena", "45d–47d", 45, [2]float64{80, 100}, [2]float64{2, 2}},
		{"pp.since=55d.arena", "55d–57d", 55, [2]float64{110, 130}, [2]float64{4, 4}},
	}
	var rows []SummaryRow
	for _, x := range ws {
		for s := range 2 {
			for _, p := range []string{"arena", "fcfs"} {
				jct, thr := 100.0, 1.0
				if p == "arena" {
					jct, thr = x.jct[s], x.thr[s]
				}
				r := row("", sim.Summary{Trace: x.trace, Cluster: "c", Timing: "exact", Density: 1, Estimator: "profiledb",
					Policy: p, Seed: int64(s + 1), CensoredMeanJCT: jct, SubmittedMeanJCT: jct, PaddedMeanJCT: jct, MeanThroughput: thr, Finished: 10, Submitted: 10, JobsInTrace: 10})
				r.Window = &WindowInfo{Family: "pp", Name: "pp.arena", Source: "philly-pollux", Window: x.label, Since: x.since * 86400, Draws: "draws of 10 jobs from philly-pollux"}
				rows = append(rows, r)
			}
		}
	}
	addSeedStats(rows)
	return rows
}

// Hand-worked two-stage interval. arena's JCT window means are 60, 90,
// 120: mean 90, s = 30, se = 30/√3 = 17.32, 90 ± 4.303·17.32 = [15.47,
// 164.53], N = 3 windows. The paired reductions 1 − arena/fcfs are 0.5,
// 0.3 | 0.2, 0 | −0.1, −0.3: window means 0.4, 0.1, −0.2, mean 0.1, s =
// 0.3, se = 0.1732, 0.1 ± 0.7453. (Pooling the 6 seeds as independent
// would give 0.1 ± 2.571·0.1183 = ± 0.304: the narrower interval the
// windows' shared jobs do not support.) Throughput ratios 1, 4 | 2, 2 |
// 4, 4: window geometric means 2, 2, 4, i.e. 2^1, 2^1, 2^2; in units of
// ln 2 mean 4/3, s = √(1/3), se = 1/3: 2^(4/3 ± 4.303/3).
func TestWindowIntervalsHandWorked(t *testing.T) {
	rows := windowRows()
	perCell := rows[0].Stat("submitted_mean_jct_s") // window 35d's own: 60 over 2 seeds
	if perCell.Mean != 60 || perCell.N != 2 {
		t.Fatalf("per-cell interval %+v, want mean 60 over 2 seeds", perCell)
	}
	if err := SetWindowIntervals(rows); err != nil {
		t.Fatal(err)
	}
	if rows[0].Stat("submitted_mean_jct_s") != perCell {
		t.Errorf("SetWindowIntervals changed the row's own per-cell interval")
	}
	near := func(got, want, tol float64) bool { return math.Abs(got-want) < tol }
	for i := range rows {
		n := rows[i].Window.nested
		jct := n.Stats["submitted_mean_jct_s"]
		if rows[i].Policy == "fcfs" {
			if jct.Mean != 100 || jct.N != 3 {
				t.Errorf("fcfs JCT %+v, want 100 over 3 windows", jct)
			}
			red, thr := n.Compared["jct_reduction"], n.Compared["throughput_ratio"]
			if !near(red.Mean, 0.1, 1e-12) || !near(red.Lo, 0.1-t975_2*0.3/math.Sqrt(3), 1e-3) || !near(red.Hi, 0.1+t975_2*0.3/math.Sqrt(3), 1e-3) || red.N != 3 {
				t.Errorf("row %d: reduction %+v, want 0.1 ± 0.7453 over 3 windows", i, red)
			}
			if !near(thr.Mean, math.Pow(2, 4.0/3), 1e-9) || !near(thr.Lo, math.Pow(2, 4.0/3-t975_2/3), 1e-3) || !near(thr.Hi, math.Pow(2, 4.0/3+t975_2/3), 1e-3) || thr.N != 3 {
				t.Errorf("row %d: throughput ratio %+v, want 2^(4/3) = 2.520 [0.932, 6.81]", i, thr)
			}
			continue
		}
		if !near(jct.Mean, 90, 1e-9) || !near(jct.Lo, 90-t975_2*30/math.Sqrt(3), 1e-2) || !near(jct.Hi, 90+t975_2*30/math.Sqrt(3), 1e-2) || jct.N != 3 {
			t.Errorf("row %d: arena JCT %+v, want 90 [15.47, 164.53] over 3 windows", i, jct)
		}
	}
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"jobs (mean over runs)",
		"pp.arena on c, exact timing, density 1 — mean [95 % t-interval over 3 windows of philly-pollux (35d–37d, 45d–47d, 55d–57d), 2 seeds each (draws of 10 jobs from philly-pollux) (⚠ fewer than 5 windows",
		"90 [15, 165]",
		"10.0% [-64.5, 84.5]",
		"2.52× [0.93, 6.81]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if c := strings.Count(out, " — mean ["); c != 1 {
		t.Errorf("%d tables, want one for the window family:\n%s", c, out)
	}
	// Holm's family is the table's: one pair, two comparisons over 3
	// windows. Reduction t = 0.1/0.1732 = 0.577, p = 0.622 (2 df); ratio
	// t = (4/3)/(1/3) = 4, p = 0.0572, doubled by Holm to 0.114; the
	// reduction's adjusted p is max(0.114, 0.622).
	SetHolm(rows)
	if h := rows[1].Window.nested.Holm; !near(h["throughput_ratio"], 0.1144, 1e-3) || !near(h["jct_reduction"], 0.6220, 1e-3) {
		t.Errorf("Holm over the family: %v, want ratio 0.114, reduction 0.622", h)
	}
}

// Without a window family there is nothing to nest: an error, and the
// table stays per cell.
func TestWindowIntervalsNoFamily(t *testing.T) {
	rows := seedRows()
	addSeedStats(rows)
	if err := SetWindowIntervals(rows); !errors.Is(err, ErrNoWindowFamily) {
		t.Errorf("no windows: %v, want ErrNoWindowFamily", err)
	}
	one := windowRows()[:4] // window 35d alone
	if err := SetWindowIntervals(one); !errors.Is(err, ErrNoWindowFamily) {
		t.Errorf("one window: %v, want ErrNoWindowFamily", err)
	}
}

// since as a list with length: one synthesised trace per window (until =
// since + length), each run for every seed; their rows are one window
// family named without the window.
func TestSynthSpecWindows(t *testing.T) {
	spec := strings.Replace(synthSpec, "  window: 2+8\n", "  since: [35d, 45d, 55d]\n  length: 2d\n", 1)
	spec = strings.Replace(spec, "  rate: [20, 40]\n", "", 1)
	spec = strings.Replace(spec, "traces: [pai]\n", "", 1)
	s, err := ParseSpec("s.yaml", "", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var untils []string
	for _, st := range s.Synth {
		names = append(names, st.Name)
		for _, kv := range st.Keys {
			if kv[0] == "until" {
				untils = append(untils, kv[1])
			}
		}
	}
	if !reflect.DeepEqual(names, []string{"philly-pollux.since=35d.arena", "philly-pollux.since=45d.arena", "philly-pollux.since=55d.arena"}) ||
		!reflect.DeepEqual(untils, []string{"37d", "47d", "57d"}) {
		t.Fatalf("traces %v until %v", names, untils)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range plan.Runs {
		keys = append(keys, r.Key)
	}
	want := []string{
		"fcfs.philly-pollux_since_35d_arena.testbed-64.exact.r20.d1.s1.dr", "fcfs.philly-pollux_since_35d_arena.testbed-64.exact.r20.d1.s2.dr",
		"fcfs.philly-pollux_since_45d_arena.testbed-64.exact.r20.d1.s1.dr", "fcfs.philly-pollux_since_45d_arena.testbed-64.exact.r20.d1.s2.dr",
		"fcfs.philly-pollux_since_55d_arena.testbed-64.exact.r20.d1.s1.dr", "fcfs.philly-pollux_since_55d_arena.testbed-64.exact.r20.d1.s2.dr",
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("runs %v\nwant %v", keys, want)
	}
	// Each window's trace is its own: the jobs of window 35d and 45d differ.
	a, err := s.Synth[0].Build(1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Synth[1].Build(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Jobs) != 40 || reflect.DeepEqual(a.Jobs, b.Jobs) {
		t.Errorf("windows 35d and 45d: %d jobs, same jobs %v", len(a.Jobs), reflect.DeepEqual(a.Jobs, b.Jobs))
	}
	var ws []*WindowInfo
	for _, st := range s.Synth {
		ws = append(ws, windowOf(&runner.Run{Synth: st}, &sim.Summary{JobsInTrace: 40}))
	}
	for i, w := range ws {
		if w == nil || w.Family != ws[0].Family || w.Name != "philly-pollux.arena" || w.Source != "philly-pollux" || w.Window != []string{"35d–37d", "45d–47d", "55d–57d"}[i] {
			t.Errorf("window %d: %+v", i, w)
		}
	}
	if ws[0].Draws != "draws of 40 jobs from philly-pollux; each seed also redraws: recipe arena's labels" {
		t.Errorf("draws %q", ws[0].Draws)
	}
}

func TestSynthSpecLengthErrors(t *testing.T) {
	for _, body := range []string{
		"synth: {from: philly-pollux, length: 2d}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n",
		"synth: {from: philly-pollux, since: [1d, 3d], until: 9d, length: 2d}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n",
		"synth: {from: philly-pollux, since: [1d, 3d], length: 0}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n",
		"synth: {from: philly-pollux, since: [1d, 3d], length: [1d, 2d]}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n",
	} {
		_, err := ParseSpec("s.yaml", "", []byte(body))
		var se *input.Error
		if !errors.As(err, &se) || se.Field != "synth.length" {
			t.Errorf("%q: %v, want an error on key synth.length", body, err)
		}
	}
}
