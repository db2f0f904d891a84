package experiments

import (
	"math"
	"testing"
)

// Hand-worked: arena's censored mean JCT is 50 and 60 on seeds 0 and 1,
// fcfs's 100 and 100, so the paired reductions are 0.5 and 0.4 (mean
// 0.45) and, for two values, the percentile bootstrap's bounds are the two
// values themselves (see ci.TestBootstrapTwoPoints). The padded means (the
// artifact's metric) are 40 and 60 against 80 and 80: 0.5 and 0.25, mean
// 0.375 [0.25, 0.5]. Throughputs 10/5 and 12/6 give the ratio 2 on both
// seeds: [2, 2].
func TestSeedStatsPairedBySeed(t *testing.T) {
	row := func(policy string, seed int64, censored, padded, thr float64, finished int32) SummaryRow {
		return SummaryRow{Trace: "t", Cluster: "c", Timing: "exact", Density: 1, Estimator: "profiledb",
			Policy: policy, Seed: seed, CensoredMeanJCT: censored, PaddedMeanJCT: padded, MeanThroughput: thr, Finished: finished}
	}
	rows := []SummaryRow{
		row("arena", 0, 50, 40, 10, 8), row("fcfs", 0, 100, 80, 5, 6),
		row("arena", 1, 60, 60, 12, 10), row("fcfs", 1, 100, 80, 6, 6),
		// another cell (density 2) with one seed: no interval
		{Trace: "t", Cluster: "c", Timing: "exact", Density: 2, Estimator: "profiledb", Policy: "fcfs", PaddedMeanJCT: 7},
	}
	addSeedStats(rows)
	f := rows[1]
	if f.Seeds != 2 || f.JCTReduction == nil || math.Abs(*f.JCTReduction-0.45) > 1e-12 ||
		*f.JCTReductionCILo != 0.4 || *f.JCTReductionCIHi != 0.5 {
		t.Errorf("fcfs reduction %v [%v, %v] over %d seeds, want 0.45 [0.4, 0.5] over 2", deref(f.JCTReduction), deref(f.JCTReductionCILo), deref(f.JCTReductionCIHi), f.Seeds)
	}
	if f.PaddedJCTReduction == nil || math.Abs(*f.PaddedJCTReduction-0.375) > 1e-12 ||
		*f.PaddedJCTReductionCILo != 0.25 || *f.PaddedJCTReductionCIHi != 0.5 {
		t.Errorf("fcfs padded reduction %v [%v, %v], want 0.375 [0.25, 0.5]", deref(f.PaddedJCTReduction), deref(f.PaddedJCTReductionCILo), deref(f.PaddedJCTReductionCIHi))
	}
	if f.CensoredMeanJCTMean != 100 || *f.CensoredMeanJCTCILo != 100 {
		t.Errorf("fcfs censored mean %v [%v, …], want 100 [100, 100]", f.CensoredMeanJCTMean, deref(f.CensoredMeanJCTCILo))
	}
	if *f.ThroughputRatio != 2 || *f.ThroughputRatioCILo != 2 || *f.ThroughputRatioCIHi != 2 {
		t.Errorf("fcfs throughput ratio %v [%v, %v], want 2 [2, 2]", *f.ThroughputRatio, *f.ThroughputRatioCILo, *f.ThroughputRatioCIHi)
	}
	a := rows[2] // arena, seed 1: same cell values as seed 0's row
	if a.JCTReduction != nil || a.FinishedMean != 9 || *a.FinishedCILo != 8 || *a.FinishedCIHi != 10 || a.PaddedMeanJCTMean != 50 || a.CensoredMeanJCTMean != 55 {
		t.Errorf("arena row: reduction %v, finished %v [%v, %v], padded %v, censored %v; want none, 9 [8, 10], 50, 55",
			deref(a.JCTReduction), a.FinishedMean, deref(a.FinishedCILo), deref(a.FinishedCIHi), a.PaddedMeanJCTMean, a.CensoredMeanJCTMean)
	}
	one := rows[4]
	if one.Seeds != 1 || one.PaddedMeanJCTMean != 7 || one.PaddedMeanJCTCILo != nil || one.JCTReduction != nil {
		t.Errorf("single-seed cell: %+v", one)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
