package sweep

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// RefPolicy is the policy the ratios compare every other policy with by
// default (the paper's form: arena's JCT reduction and throughput ratio
// against each policy). A baseline (SetBaseline) turns them round: each
// policy against the baseline.
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
	{"submitted_mean_jct_s", func(r *SummaryRow) float64 { return r.SubmittedMeanJCT }, func(r *SummaryRow, iv ci.Interval) {
		r.SubmittedMeanJCTMean, r.SubmittedMeanJCTCILo, r.SubmittedMeanJCTCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
	}},
	{"mean_bounded_slowdown", func(r *SummaryRow) float64 { return r.MeanBoundedSlowdown }, func(r *SummaryRow, iv ci.Interval) {
		r.BoundedSlowdownMean, r.BoundedSlowdownCILo, r.BoundedSlowdownCIHi = iv.Mean, opt(iv.Lo), opt(iv.Hi)
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

// CellKey is every parameter of a row but its seed.
func CellKey(r *SummaryRow) string {
	k := r.Trace + "|" + r.Cluster + "|" + r.Timing + "|" + strconv.Itoa(int(r.Rounds)) + "|" +
		strconv.FormatFloat(r.Density, 'g', -1, 64) + "|" + r.Estimator
	if r.Fairness != nil {
		// Runs differing only in their tenants are different cells.
		k += "|tenants=" + r.Fairness.TenantsFrom
	}
	if r.Faults != "" {
		k += "|faults=" + r.Faults
	}
	return k
}

// cells groups rows: cell → policy → seed → row.
func cells(rows []SummaryRow) map[string]map[string]map[int64]*SummaryRow {
	out := map[string]map[string]map[int64]*SummaryRow{}
	for i := range rows {
		r := &rows[i]
		k := CellKey(r)
		if out[k] == nil {
			out[k] = map[string]map[int64]*SummaryRow{}
		}
		if out[k][r.Policy] == nil {
			out[k][r.Policy] = map[int64]*SummaryRow{}
		}
		out[k][r.Policy][r.Seed] = r
	}
	return out
}

// addSeedStats fills every row's across-seed columns from rows (padded
// means must already be set), with the paper's comparison (arena against
// each policy). Seeds are taken in increasing order, so the result does
// not depend on row order. Intervals are Student-t (ci.TInterval).
func addSeedStats(rows []SummaryRow) {
	cs := cells(rows)
	for i := range rows {
		r := &rows[i]
		mine := cs[CellKey(r)][r.Policy]
		seeds := sortedSeeds(mine)
		r.Seeds = int32(len(seeds))
		r.CIMethod = string(ci.T)
		for _, m := range seedMetrics {
			xs := make([]float64, len(seeds))
			for k, s := range seeds {
				xs[k] = m.get(mine[s])
			}
			m.set(r, ci.TInterval(xs))
		}
	}
	addFairSeedStats(rows, cs)
	setComparisons(rows, cs, "")
}

// SetBaseline recomputes rows' comparison columns against baseline: each
// policy's JCT reduction (1 − its submitted mean JCT / the baseline's) and
// throughput ratio (its / the baseline's), paired by seed, with t-intervals.
// "" restores the paper's form (arena against each). A baseline that is
// none of the rows' policies is an error naming it and them.
func SetBaseline(rows []SummaryRow, baseline string) error {
	if baseline == "" {
		return nil
	}
	var have []string
	for _, r := range rows {
		if r.Policy == baseline {
			setComparisons(rows, cells(rows), baseline)
			return nil
		}
		if !slices.Contains(have, r.Policy) {
			have = append(have, r.Policy)
		}
	}
	return fmt.Errorf("baseline %q is not among the policies run (%s)", baseline, strings.Join(have, ", "))
}

// setComparisons fills the paired comparison columns: with baseline ""
// arena against each other policy (the paper's direction), else each
// policy against baseline.
func setComparisons(rows []SummaryRow, cs map[string]map[string]map[int64]*SummaryRow, baseline string) {
	for i := range rows {
		r := &rows[i]
		c := cs[CellKey(r)]
		mine := c[r.Policy]
		r.RefPolicy, r.Comparison = RefPolicy, RefPolicy+" vs "+r.Policy
		if baseline != "" {
			r.RefPolicy, r.Comparison = baseline, r.Policy+" vs "+baseline
		}
		r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi = nil, nil, nil
		r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi = nil, nil, nil
		r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi = nil, nil, nil
		ref := c[r.RefPolicy]
		if r.Policy == r.RefPolicy || ref == nil {
			r.Comparison = ""
			continue
		}
		var red, padded, thr []float64
		if baseline == "" {
			red, padded, thr = PairedRatios(ref, mine)
		} else {
			red, padded, thr = PairedRatios(mine, ref)
		}
		iv := ci.TInterval(red)
		r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
		iv = ci.TInterval(padded)
		r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
		iv = ci.TInterval(thr)
		r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi = opt(iv.Mean), opt(iv.Lo), opt(iv.Hi)
	}
}

// PairedRatios pairs policy a's and policy b's runs by seed (the same
// workload draw) and returns, per seed both have in increasing order of
// seed, a's JCT reduction against b, 1 − a/b, of the submitted mean JCT
// (the default comparison metric) and of the artifact's padded mean JCT,
// and the throughput ratio a/b (mean throughput). A seed where b's value
// is 0 gives NaN (left out of the interval).
func PairedRatios(a, b map[int64]*SummaryRow) (reduction, paddedReduction, ratio []float64) {
	frac := func(x, y float64) float64 {
		if y > 0 {
			return x / y
		}
		return math.NaN()
	}
	for _, s := range sortedSeeds(b) {
		x, ok := a[s]
		if !ok {
			continue
		}
		y := b[s]
		reduction = append(reduction, 1-frac(x.SubmittedMeanJCT, y.SubmittedMeanJCT))
		paddedReduction = append(paddedReduction, 1-frac(x.PaddedMeanJCT, y.PaddedMeanJCT))
		ratio = append(ratio, frac(x.MeanThroughput, y.MeanThroughput))
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
