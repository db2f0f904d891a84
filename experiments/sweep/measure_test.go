package sweep

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// drainSpec measures jobs 5–29 of a small synthesised window under two
// policies and three run lengths, drained (the default in exact timing).
const drainSpec = `name: d
synth:
  from: philly-pollux
  window: 2+8
  sample: 40
  recipe: arena
  iteration-scale: 1
clusters: [paper-1280]
policies: [fcfs, srtf]
density: 0.3
timing: exact
rounds: [30, 60, 100]
measure: "#5..30"
seeds: [1, 2]
`

// TestDrainedJCTsDoNotDependOnTheRounds: drained, every measured job's
// JCT is the same whether the run was asked for 30, 60 or 100 rounds (the
// stop no longer decides them), so is each cell's ranking, and the seed
// table has one table per run length.
func TestDrainedJCTsDoNotDependOnTheRounds(t *testing.T) {
	s, err := ParseSpec("d.yaml", "", []byte(drainSpec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 12 || !strings.HasSuffix(plan.Runs[0].Key, ".exact.r30.d0.3.s1.m-i5-30.dr") {
		t.Fatalf("%d runs, first %s; want 12, keyed on rounds, window and drain", len(plan.Runs), plan.Runs[0].Key)
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	rows, err := MergeSweep(plan, MergeOptions{Out: out, Baseline: "fcfs"})
	if err != nil {
		t.Fatal(err)
	}
	// measured JCTs by policy and seed, per rounds asked
	jcts := map[string]map[int]string{}
	stops := map[int]bool{}
	for _, pr := range plan.Runs {
		r, err := LoadResults(RunDir(out, pr.Key), true)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := pr.Run.Synth.Build(pr.Run.Seed)
		if err != nil {
			t.Fatal(err)
		}
		w := sim.Window{ByIndex: true, From: 5, To: 30}
		measured, n, _, _ := w.Select(tr.Jobs)
		if r.Summary.JobsMeasured != n || r.Summary.Submitted != n || r.Summary.Finished != n || r.Summary.DrainCapReached || !r.Summary.Drain {
			t.Errorf("%s: measured %d, submitted %d, finished %d, cap reached %v; want %d drained", pr.Key, r.Summary.JobsMeasured, r.Summary.Submitted, r.Summary.Finished, r.Summary.DrainCapReached, n)
		}
		var b strings.Builder
		for _, j := range r.Jobs {
			if measured[j.ID] {
				fmt.Fprintf(&b, "%d:%v ", j.ID, j.JCT)
			}
		}
		k := pr.Run.Policy + fmt.Sprint(pr.Run.Seed)
		if jcts[k] == nil {
			jcts[k] = map[int]string{}
		}
		jcts[k][pr.Run.Rounds] = b.String()
		stops[r.Summary.Rounds] = true
	}
	for k, by := range jcts {
		if by[30] != by[60] || by[30] != by[100] {
			t.Errorf("%s: measured JCTs differ by rounds asked:\n30:  %s\n60:  %s\n100: %s", k, by[30], by[60], by[100])
		}
	}
	if len(stops) < 2 {
		t.Errorf("every run stopped at the same round %v: the test does not exercise the stop", stops)
	}
	// Same ranking in every table: the comparison's sign per run length.
	sign := map[int]string{}
	for _, r := range rows {
		if iv, ok := r.Cmp("jct_reduction"); ok && r.Policy == "srtf" {
			sign[r.AskedRounds()] = fmt.Sprint(iv.Mean > 0, iv.Mean)
		}
	}
	if len(sign) != 3 || sign[30] != sign[60] || sign[30] != sign[100] {
		t.Errorf("comparisons by rounds asked: %v", sign)
	}
	var buf bytes.Buffer
	if err := WriteSeedTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"density 0.3, 30 rounds, jobs #5..30, drained —", "density 0.3, 60 rounds, jobs #5..30, drained —", "density 0.3, 100 rounds, jobs #5..30, drained —"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("seed table lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestStuckPolicyChargedAtTheCellsHorizon: two drained runs of one cell
// (30 rounds asked) stop at different rounds — a policy that left a
// queue on an idle cluster is stopped early (3000 s), the other drains
// to 9000 s. They share a cell (keyed on the rounds asked, not the stop),
// and the early one's 2 jobs charged at its horizon are charged at the
// cell's 9000 s: its submitted mean of 500 s over 10 jobs becomes
// 500 + 2 × (9000 − 3000)/10 = 1700 s. A run at its drain cap makes the
// comparisons with it inconclusive.
func TestStuckPolicyChargedAtTheCellsHorizon(t *testing.T) {
	mk := func(policy string, seed int64, stop float64, mean float64, charged int, capped bool) SummaryRow {
		r := row(policy+fmt.Sprint(seed), sim.Summary{Trace: "t", Cluster: "c", Policy: policy, Timing: "exact", Density: 1, Seed: seed, Estimator: "profiledb",
			Rounds: int(stop / 300), RoundsAsked: 30, HorizonS: stop, Drain: true, Submitted: 10, SubmittedMeanJCT: mean,
			JobsChargedAtHorizon: charged, DrainCapReached: capped, DrainStuck: charged > 0 && !capped})
		return r
	}
	rows := []SummaryRow{
		mk("arena", 1, 9000, 400, 0, false), mk("stuck", 1, 3000, 500, 2, false),
		mk("arena", 2, 9000, 400, 0, false), mk("stuck", 2, 3000, 500, 2, false),
	}
	if CellKey(&rows[0]) != CellKey(&rows[1]) {
		t.Fatalf("cells %q and %q: drained runs stopping apart are one cell", CellKey(&rows[0]), CellKey(&rows[1]))
	}
	recharge(rows)
	addSeedStats(rows)
	if got := rows[1].SubmittedMeanJCT; got != 1700 || rows[1].ChargedAtS != 9000 || rows[0].SubmittedMeanJCT != 400 || rows[0].ChargedAtS != 0 {
		t.Errorf("stuck mean %v charged at %v, arena %v at %v; want 1700 at 9000, 400 at its own", got, rows[1].ChargedAtS, rows[0].SubmittedMeanJCT, rows[0].ChargedAtS)
	}
	if iv, ok := rows[1].Cmp("jct_reduction"); !ok || iv.Mean != 1-400.0/1700 || rows[1].Inconclusive != "" {
		t.Errorf("arena vs stuck: %+v, inconclusive %q; want 1 − 400/1700", iv, rows[1].Inconclusive)
	}
	rows[2].DrainCapReached = true
	addSeedStats(rows)
	if rows[1].Inconclusive != "drain cap reached: arena2" || rows[3].Inconclusive == "" {
		t.Errorf("inconclusive %q, %q; want arena2 named", rows[1].Inconclusive, rows[3].Inconclusive)
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "inconclusive") || !strings.Contains(buf.String(), "stuck1 (stopped at 3000 s, 2 jobs charged at 9000 s)") {
		t.Errorf("report:\n%s", buf.String())
	}
}

// A fixed-horizon run length and a drained one of the same rounds are
// different cells, and so are two windows.
func TestCellKeyOfTheWindow(t *testing.T) {
	a := row("a", sim.Summary{Trace: "t", Rounds: 300})
	b := row("b", sim.Summary{Trace: "t", Rounds: 700, RoundsAsked: 300, Drain: true})
	c := row("c", sim.Summary{Trace: "t", Rounds: 700, RoundsAsked: 300, Drain: true, Measure: "1d..2d"})
	if CellKey(&a) == CellKey(&b) || CellKey(&b) == CellKey(&c) || b.AskedRounds() != 300 {
		t.Errorf("cells %q %q %q", CellKey(&a), CellKey(&b), CellKey(&c))
	}
}

// A warning names at most listedRuns runs and points to the column that
// has them all.
func TestWarningListsAreShort(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e", "f", "g"}
	got := firstLines(lines, "charged_at_s")
	if strings.Count(got, "\n") != listedRuns || !strings.HasSuffix(got, "… and 2 more (summary.parquet's charged_at_s column has every run)") || strings.Contains(got, "f") {
		t.Errorf("firstLines of 7: %q", got)
	}
	if got := firstLines(lines[:5], "x"); got != "a\n  b\n  c\n  d\n  e" {
		t.Errorf("firstLines of 5: %q", got)
	}
}
