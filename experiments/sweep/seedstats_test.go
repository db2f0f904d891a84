package sweep

import (
	"math"

	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// t975_1 is Student's t 97.5 % quantile with 1 degree of freedom (tables).
const t975_1 = 12.7062

// Hand-worked: arena's submitted mean JCT is 50 and 60 on seeds 0 and 1,
// fcfs's 100 and 100, so the paired reductions are 0.5 and 0.4: mean
// 0.45, s = 0.0707, se = s/√2 = 0.05, 95 % t-interval 0.45 ± 12.706·0.05.
// The padded means (the artifact's metric) are 40 and 60 against 80 and
// 80: 0.5 and 0.25, mean 0.375, se 0.125. Throughputs 10/5 and 12/6 give
// the ratio 2 on both seeds: [2, 2].
func TestSeedStatsPairedBySeed(t *testing.T) {
	rows := seedRows()
	addSeedStats(rows)
	f := rows[1]
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-3 }
	if f.Seeds != 2 || !near(cmpPtr(f, "jct_reduction", "mean"), 0.45) || !near(cmpPtr(f, "jct_reduction", "lo"), 0.45-t975_1*0.05) || !near(cmpPtr(f, "jct_reduction", "hi"), 0.45+t975_1*0.05) {
		t.Errorf("fcfs reduction %v [%v, %v] over %d seeds, want 0.45 ± 0.635 over 2", deref(cmpPtr(f, "jct_reduction", "mean")), deref(cmpPtr(f, "jct_reduction", "lo")), deref(cmpPtr(f, "jct_reduction", "hi")), f.Seeds)
	}
	if !near(cmpPtr(f, "padded_jct_reduction", "mean"), 0.375) || !near(cmpPtr(f, "padded_jct_reduction", "lo"), 0.375-t975_1*0.125) {
		t.Errorf("fcfs padded reduction %v [%v, %v], want 0.375 ± 1.588", deref(cmpPtr(f, "padded_jct_reduction", "mean")), deref(cmpPtr(f, "padded_jct_reduction", "lo")), deref(cmpPtr(f, "padded_jct_reduction", "hi")))
	}
	if f.Stat("submitted_mean_jct_s").Mean != 100 || *statPtr(f, "submitted_mean_jct_s", "lo") != 100 || f.Stat("censored_mean_jct_s").Mean != 100 {
		t.Errorf("fcfs submitted mean %v [%v, …], want 100 [100, 100]", f.Stat("submitted_mean_jct_s").Mean, deref(statPtr(f, "submitted_mean_jct_s", "lo")))
	}
	if *cmpPtr(f, "throughput_ratio", "mean") != 2 || *cmpPtr(f, "throughput_ratio", "lo") != 2 || *cmpPtr(f, "throughput_ratio", "hi") != 2 {
		t.Errorf("fcfs throughput ratio %v [%v, %v], want 2 [2, 2]", *cmpPtr(f, "throughput_ratio", "mean"), *cmpPtr(f, "throughput_ratio", "lo"), *cmpPtr(f, "throughput_ratio", "hi"))
	}
	if f.Comparison != "arena vs fcfs" {
		t.Errorf("fcfs row: comparison %q", f.Comparison)
	}
	a := rows[2] // arena, seed 1: same cell values as seed 0's row
	// finished 8 and 10: mean 9, s = 1.414, se = 1, t-interval 9 ± 12.706.
	if cmpPtr(a, "jct_reduction", "mean") != nil || a.Stat("jobs_finished").Mean != 9 || !near(statPtr(a, "jobs_finished", "lo"), 9-t975_1) || a.Stat("padded_mean_jct_s").Mean != 50 || a.Stat("submitted_mean_jct_s").Mean != 55 {
		t.Errorf("arena row: reduction %v, finished %v [%v, %v], padded %v, submitted %v; want none, 9 ± 12.7, 50, 55",
			deref(cmpPtr(a, "jct_reduction", "mean")), a.Stat("jobs_finished").Mean, deref(statPtr(a, "jobs_finished", "lo")), deref(statPtr(a, "jobs_finished", "hi")), a.Stat("padded_mean_jct_s").Mean, a.Stat("submitted_mean_jct_s").Mean)
	}
	one := rows[4]
	if one.Seeds != 1 || one.Stat("padded_mean_jct_s").Mean != 7 || statPtr(one, "padded_mean_jct_s", "lo") != nil || cmpPtr(one, "jct_reduction", "mean") != nil {
		t.Errorf("single-seed cell: %+v", one)
	}
}

func seedRows() []SummaryRow {
	mk := func(policy string, seed int64, jct, padded, thr float64, finished int) SummaryRow {
		return row("", sim.Summary{Trace: "t", Cluster: "c", Timing: "exact", Density: 1, Estimator: "profiledb",
			Policy: policy, Seed: seed, CensoredMeanJCT: jct, SubmittedMeanJCT: jct, PaddedMeanJCT: padded, MeanThroughput: thr, Finished: finished})
	}
	return []SummaryRow{
		mk("arena", 0, 50, 40, 10, 8), mk("fcfs", 0, 100, 80, 5, 6),
		mk("arena", 1, 60, 60, 12, 10), mk("fcfs", 1, 100, 80, 6, 6),
		// another cell (density 2) with one seed: no interval
		row("", sim.Summary{Trace: "t", Cluster: "c", Timing: "exact", Density: 2, Estimator: "profiledb", Policy: "fcfs", PaddedMeanJCT: 7, Finished: 1}),
	}
}

// Hand-worked, against a baseline: fcfs as the baseline turns the
// comparison round — arena's reduction against fcfs is 1 − 50/100 and
// 1 − 60/100 (the same numbers as the paper's form, now on arena's row),
// its throughput ratio 10/5 and 12/6; fcfs's own row has none. A baseline
// no row has is an error naming it and the policies there are.
func TestSeedStatsBaseline(t *testing.T) {
	rows := seedRows()
	addSeedStats(rows)
	if err := SetBaseline(rows, "fcfs"); err != nil {
		t.Fatal(err)
	}
	a, f := rows[0], rows[1]
	if cmpPtr(a, "jct_reduction", "mean") == nil || math.Abs(*cmpPtr(a, "jct_reduction", "mean")-0.45) > 1e-12 || *cmpPtr(a, "throughput_ratio", "mean") != 2 || a.Comparison != "arena vs fcfs" || a.RefPolicy != "fcfs" {
		t.Errorf("arena against fcfs: reduction %v, ratio %v, comparison %q, ref %q", deref(cmpPtr(a, "jct_reduction", "mean")), deref(cmpPtr(a, "throughput_ratio", "mean")), a.Comparison, a.RefPolicy)
	}
	if cmpPtr(f, "jct_reduction", "mean") != nil || f.Comparison != "" {
		t.Errorf("the baseline's own row has a comparison: %v %q", deref(cmpPtr(f, "jct_reduction", "mean")), f.Comparison)
	}
	if err := SetBaseline(rows, "arena"); err != nil {
		t.Fatal(err)
	}
	// fcfs against arena: 1 − 100/50 = −1 and 1 − 100/60 = −0.667.
	if f := rows[1]; cmpPtr(f, "jct_reduction", "mean") == nil || math.Abs(*cmpPtr(f, "jct_reduction", "mean")-(-1-2.0/3)/2) > 1e-12 || f.Comparison != "fcfs vs arena" {
		t.Errorf("fcfs against arena: %v %q, want −0.833", deref(cmpPtr(f, "jct_reduction", "mean")), f.Comparison)
	}
	err := SetBaseline(rows, "sia")
	if err == nil || !strings.Contains(err.Error(), `"sia"`) || !strings.Contains(err.Error(), "arena, fcfs") {
		t.Errorf("unknown baseline: %v, want an error naming sia and the policies", err)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// The seed table names its interval and seed count, warns under 5 seeds,
// shows finished / unfinished / dropped beside the mean and marks a policy
// that dropped jobs.
func TestSeedTableNamesIntervalAndAccounting(t *testing.T) {
	rows := seedRows()[:4]
	rows[1].Dropped, rows[3].Pending = 2, 1
	addSeedStats(rows)
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"95 % t-interval over 2 seeds", "⚠ fewer than 5 seeds", "9 fin · 0 unfin · 0 drop", "fcfs ⚠", "6 fin · 0.5 unfin · 1 drop", "arena JCT reduction"} {
		if !strings.Contains(out, want) {
			t.Errorf("seed table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "arena ⚠") {
		t.Errorf("arena dropped nothing but is flagged:\n%s", out)
	}
}
