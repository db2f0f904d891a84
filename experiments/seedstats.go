package experiments

import (
	"math"
	"sort"
	"strconv"

	"github.com/arena-sim/arena/experiments/ci"
)

// RefPolicy is the policy the ratios compare every other policy with.
const RefPolicy = "arena"

// seedMetrics are the headline metrics summarised across seeds.
var seedMetrics = []struct {
	name string
	get  func(*SummaryRow) float64
	set  func(*SummaryRow, ci.Interval)
}{
	{"jobs_finished", func(r *SummaryRow) float64 { return float64(r.Finished) }, func(r *SummaryRow, iv ci.Interval) {
		r.FinishedMean, r.FinishedCILo, r.FinishedCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"mean_jct_s", func(r *SummaryRow) float64 { return float64(r.MeanJCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.MeanJCTMean, r.MeanJCTCILo, r.MeanJCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"median_jct_s", func(r *SummaryRow) float64 { return float64(r.MedianJCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.MedianJCTMean, r.MedianJCTCILo, r.MedianJCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"p95_jct_s", func(r *SummaryRow) float64 { return float64(r.P95JCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.P95JCTMean, r.P95JCTCILo, r.P95JCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"p99_jct_s", func(r *SummaryRow) float64 { return float64(r.P99JCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.P99JCTMean, r.P99JCTCILo, r.P99JCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"censored_mean_jct_s", func(r *SummaryRow) float64 { return float64(r.CensoredMeanJCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.CensoredMeanJCTMean, r.CensoredMeanJCTCILo, r.CensoredMeanJCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"padded_mean_jct_s", func(r *SummaryRow) float64 { return float64(r.PaddedMeanJCT) }, func(r *SummaryRow, iv ci.Interval) {
		r.PaddedMeanJCTMean, r.PaddedMeanJCTCILo, r.PaddedMeanJCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"makespan_s", func(r *SummaryRow) float64 { return float64(r.Makespan) }, func(r *SummaryRow, iv ci.Interval) {
		r.MakespanMean, r.MakespanCILo, r.MakespanCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"mean_queueing_s", func(r *SummaryRow) float64 { return float64(r.MeanQueueing) }, func(r *SummaryRow, iv ci.Interval) {
		r.MeanQueueingMean, r.MeanQueueingCILo, r.MeanQueueingCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"mean_throughput", func(r *SummaryRow) float64 { return float64(r.MeanThroughput) }, func(r *SummaryRow, iv ci.Interval) {
		r.MeanThroughputMean, r.MeanThroughputCILo, r.MeanThroughputCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"peak_throughput", func(r *SummaryRow) float64 { return float64(r.PeakThroughput) }, func(r *SummaryRow, iv ci.Interval) {
		r.PeakThroughputMean, r.PeakThroughputCILo, r.PeakThroughputCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
}

// SeedMetricNames lists the metrics with _mean/_ci_lo/_ci_hi columns.
func SeedMetricNames() []string {
	out := make([]string, len(seedMetrics))
	for i, m := range seedMetrics {
		out[i] = m.name
	}
	return out
}

// cellKey is every parameter of a row but its seed.
func cellKey(r *SummaryRow) string {
	return r.Trace + "|" + r.Cluster + "|" + r.Timing + "|" + strconv.Itoa(int(r.Rounds)) + "|" +
		strconv.FormatFloat(r.Density, 'g', -1, 64) + "|" + r.Estimator
}

// addSeedStats fills every row's across-seed columns from rows (padded means must
// already be set). Seeds are taken in increasing order, so the result does
// not depend on row order.
func addSeedStats(rows []SummaryRow) {
	cells := map[string]map[string]map[int64]*SummaryRow{} // cell → policy → seed → row
	for i := range rows {
		r := &rows[i]
		k := cellKey(r)
		if cells[k] == nil {
			cells[k] = map[string]map[int64]*SummaryRow{}
		}
		if cells[k][r.Policy] == nil {
			cells[k][r.Policy] = map[int64]*SummaryRow{}
		}
		cells[k][r.Policy][r.Seed] = r
	}
	for i := range rows {
		r := &rows[i]
		c := cells[cellKey(r)]
		mine := c[r.Policy]
		seeds := sortedSeeds(mine)
		r.Seeds = int32(len(seeds))
		for _, m := range seedMetrics {
			xs := make([]float64, len(seeds))
			for k, s := range seeds {
				xs[k] = m.get(mine[s])
			}
			m.set(r, ci.Bootstrap(xs))
		}
		r.RefPolicy = RefPolicy
		r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi = nil, nil, nil
		r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi = nil, nil, nil
		r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi = nil, nil, nil
		ref := c[RefPolicy]
		if r.Policy == RefPolicy || ref == nil {
			continue
		}
		red, padded, thr := PairedRatios(ref, mine)
		iv := ci.Bootstrap(red)
		r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
		iv = ci.Bootstrap(padded)
		r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
		iv = ci.Bootstrap(thr)
		r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
	}
}

// PairedRatios pairs the reference's and another policy's runs by seed and
// returns, per common seed in increasing order, the JCT reduction 1 −
// ref/other of the censored mean JCT (the default comparison) and of the
// artifact's padded mean JCT, and the throughput ratio ref/other (mean
// throughput). A seed where the other's value is 0 gives NaN.
func PairedRatios(ref, other map[int64]*SummaryRow) (reduction, paddedReduction, ratio []float64) {
	frac := func(a, b float64) float64 {
		if b > 0 {
			return a / b
		}
		return math.NaN()
	}
	for _, s := range sortedSeeds(other) {
		a, ok := ref[s]
		if !ok {
			continue
		}
		b := other[s]
		reduction = append(reduction, 1-frac(a.CensoredMeanJCT, b.CensoredMeanJCT))
		paddedReduction = append(paddedReduction, 1-frac(a.PaddedMeanJCT, b.PaddedMeanJCT))
		ratio = append(ratio, frac(a.MeanThroughput, b.MeanThroughput))
	}
	return reduction, paddedReduction, ratio
}

func sortedSeeds(m map[int64]*SummaryRow) []int64 {
	out := make([]int64, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// opt is nil for NaN: summary.parquet stores an absent value as null.
func opt(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}
