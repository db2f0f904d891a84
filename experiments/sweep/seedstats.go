package sweep

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/sim/metrics"
)

// RefPolicy is the policy the ratios compare every other policy with by
// default (the paper's form: arena's JCT reduction and throughput ratio
// against each policy). A baseline (SetBaseline) turns them round: each
// policy against the baseline.
const RefPolicy = "arena"

// SeedMetricNames lists the metrics with _mean/_ci_lo/_ci_hi columns in
// every table (the catalogue's core metrics with Stats).
func SeedMetricNames() []string {
	var out []string
	for _, m := range metrics.Catalogue {
		if m.Stats && m.Section == metrics.Core {
			out = append(out, m.Key)
		}
	}
	return out
}

// CellKey is every parameter of a row but its seed (the rounds asked, not
// where a drained run stopped).
func CellKey(r *SummaryRow) string {
	k := r.Trace + "|" + r.Cluster + "|" + r.Timing + "|" + strconv.Itoa(r.AskedRounds()) + "|" +
		strconv.FormatFloat(r.Density, 'g', -1, 64) + "|" + r.Estimator + measureCellKey(r)
	if r.Fairness != nil {
		// Runs differing only in their tenants are different cells.
		k += "|tenants=" + r.Fairness.TenantsFrom
	}
	if r.FaultsKey != "" {
		k += "|faults=" + r.FaultsKey
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

// addSeedStats fills every row's across-seed intervals from rows (padded
// means must already be set): each catalogue metric with Stats, and each
// tenant column, over the seeds of the row's cell and policy that have a
// value (increasing seed order, so the result does not depend on row
// order; Student-t, ci.TInterval). Then the paper's comparison (arena
// against each policy).
func addSeedStats(rows []SummaryRow) {
	cs := cells(rows)
	tenants := tenantNames(rows)
	for i := range rows {
		r := &rows[i]
		mine := cs[CellKey(r)][r.Policy]
		seeds := sortedSeeds(mine)
		r.Seeds = len(seeds)
		r.Stats = map[string]ci.Interval{}
		over := func(key string, get func(*SummaryRow) (float64, bool)) {
			var xs []float64
			for _, s := range seeds {
				if v, ok := get(mine[s]); ok {
					xs = append(xs, v)
				}
			}
			if len(xs) > 0 {
				r.Stats[key] = ci.TInterval(xs)
			}
		}
		for k := range metrics.Catalogue {
			if m := &metrics.Catalogue[k]; m.Stats && m.Section.Has(&r.Summary) {
				over(m.Key, func(x *SummaryRow) (float64, bool) { return m.Value(&x.Summary) })
			}
		}
		if r.Fairness != nil {
			for _, t := range tenants {
				for k := range metrics.TenantMetrics {
					tm := &metrics.TenantMetrics[k]
					over(TenantColumn(t, tm.Key), func(x *SummaryRow) (float64, bool) { return tenantValue(x, t, tm) })
				}
			}
		}
	}
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

// setComparisons fills the paired comparisons of every catalogue metric
// with Compared: with baseline "" arena against each other policy (the
// paper's direction), else each policy against baseline.
func setComparisons(rows []SummaryRow, cs map[string]map[string]map[int64]*SummaryRow, baseline string) {
	for i := range rows {
		r := &rows[i]
		c := cs[CellKey(r)]
		mine := c[r.Policy]
		r.RefPolicy, r.Comparison = RefPolicy, RefPolicy+" vs "+r.Policy
		if baseline != "" {
			r.RefPolicy, r.Comparison = baseline, r.Policy+" vs "+baseline
		}
		r.Compared, r.Inconclusive = nil, ""
		ref := c[r.RefPolicy]
		if r.Policy == r.RefPolicy || ref == nil {
			r.Comparison = ""
			continue
		}
		a, b := ref, mine
		if baseline != "" {
			a, b = mine, ref
		}
		r.Inconclusive = inconclusive(a, b)
		r.Compared = map[string]ci.Interval{}
		for k := range metrics.Catalogue {
			if m := &metrics.Catalogue[k]; m.Compared != "" {
				r.Compared[m.Compared] = ci.TInterval(Paired(m, a, b))
			}
		}
	}
}

// Paired pairs policy a's and policy b's runs by seed (the same workload
// draw) and returns, per seed both have in increasing order of seed,
// metric m's comparison of a with b (metrics.Metric.Pair: 1 − a/b where
// lower is better, a/b where higher is; NaN, left out of an interval,
// where b's value is 0).
func Paired(m *metrics.Metric, a, b map[int64]*SummaryRow) []float64 {
	var out []float64
	for _, s := range sortedSeeds(b) {
		if x, ok := a[s]; ok {
			out = append(out, m.Pair(&x.Summary, &b[s].Summary))
		}
	}
	return out
}

func sortedSeeds(m map[int64]*SummaryRow) []int64 {
	out := make([]int64, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}
