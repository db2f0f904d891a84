package sweep

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/metrics"
	"github.com/arena-sim/arena/traces/importers"
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
		r.Compared, r.ComparedP, r.Holm, r.Unpaired, r.Inconclusive = nil, nil, nil, nil, ""
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
		r.Compared, r.ComparedP = map[string]ci.Interval{}, map[string]float64{}
		r.Unpaired = Unpaired(a, b)
		for k := range metrics.Catalogue {
			if m := &metrics.Catalogue[k]; m.Compared != "" {
				r.Compared[m.Compared], r.ComparedP[m.Compared] = PairedInterval(m, a, b)
			}
		}
	}
}

// PairedInterval is metric m's paired comparison of policy a with policy
// b over the seeds they share (Paired) and its two-sided t-test p-value
// against no difference: for a reduction (lower is better) the Student-t
// interval of the per-seed 1 − a/b and the test that their mean is 0;
// for a ratio (higher is better) ci.LogRatioInterval of the per-seed a/b
// — their geometric mean, exp of the t-interval of the log ratios — and
// the test that the mean log ratio is 0. The interval's N is the number
// of seeds paired.
func PairedInterval(m *metrics.Metric, a, b map[int64]*SummaryRow) (ci.Interval, float64) {
	xs := Paired(m, a, b)
	if m.Better == metrics.Higher {
		return ci.LogRatioInterval(xs), ci.LogRatioP(xs)
	}
	return ci.TInterval(xs), ci.TTestP(xs)
}

// Paired pairs policy a's and policy b's runs by seed and returns, per
// seed both have in increasing order of seed, metric m's comparison of a
// with b (metrics.Metric.Pair: 1 − a/b where lower is better, a/b where
// higher is; NaN, left out of an interval, where b's value is 0). A seed
// whose two runs record different workload_hash values ran different
// jobs: it is no pair and is left out (Unpaired lists it).
func Paired(m *metrics.Metric, a, b map[int64]*SummaryRow) []float64 {
	var out []float64
	for _, s := range sortedSeeds(b) {
		if x, ok := a[s]; ok && samePair(x, b[s]) {
			out = append(out, m.Pair(&x.Summary, &b[s].Summary))
		}
	}
	return out
}

// samePair: two runs of one seed ran the same jobs, as far as their
// workload hashes say (results written before workload_hash have none and
// are taken at their seed's word).
func samePair(x, y *SummaryRow) bool {
	return x.WorkloadHash == "" || y.WorkloadHash == "" || x.WorkloadHash == y.WorkloadHash
}

// Unpaired lists, in increasing order, the seeds a and b both have whose
// runs record different workload hashes: not the same jobs, so not a
// pair.
func Unpaired(a, b map[int64]*SummaryRow) []int64 {
	var out []int64
	for _, s := range sortedSeeds(b) {
		if x, ok := a[s]; ok && !samePair(x, b[s]) {
			out = append(out, s)
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

// Population says what the seeds of a run's cell are draws of, from the
// run's description and summary, for the seed table's header:
//
//   - a synthesised trace that draws at random (synth sample, rate,
//     durations, gpu-mix or recipe): "draws of 200 jobs from philly-pollux
//     window 35d–37d" (with sample; otherwise "200 jobs of …"), then what
//     else each seed redraws ("; each seed also redraws: recipe arena's
//     labels"). The job count is the run's jobs_in_trace;
//   - otherwise every seed ran the same trace, and the seed drives only
//     the faults, job failures, or a policy's own randomness: "same trace,
//     seeded faults", "same trace, seeded policy randomness".
//
// "" when the run's description was not recorded (run.json without it).
func Population(run *runner.Run, s *sim.Summary) string {
	if run == nil {
		return ""
	}
	if st := run.Synth; st != nil && !st.Deterministic() {
		return synthPopulation(st, s.JobsInTrace)
	}
	var seeded []string
	if run.Faults != "" {
		seeded = append(seeded, "faults")
	}
	if run.JobMTBF > 0 {
		seeded = append(seeded, "job failures")
	}
	if len(seeded) == 0 {
		seeded = append(seeded, "policy randomness")
	}
	return "same trace, seeded " + strings.Join(seeded, " and ")
}

// synthSource names a synthesised trace's source: a built-in source's
// name, a file's base name without extension, or "scratch".
func synthSource(st *runner.SynthTrace) string {
	if st.From == "" {
		return "scratch"
	}
	if slices.Contains(importers.SourceNames(), st.From) {
		return st.From
	}
	return strings.TrimSuffix(filepath.Base(st.From), filepath.Ext(st.From))
}

// synthPopulation describes a synthesised trace's draws (Population).
func synthPopulation(st *runner.SynthTrace, jobs int) string {
	key := map[string]string{}
	for _, kv := range st.Keys {
		key[kv[0]] = kv[1]
	}
	src := synthSource(st)
	switch since, until := key["since"], key["until"]; {
	case since != "" && until != "":
		src += " window " + since + "–" + until
	case since != "":
		src += " from " + since + " on"
	case until != "":
		src += " up to " + until
	}
	if w := key["window"]; w != "" {
		src += " window " + w + " h"
	}
	out := fmt.Sprintf("%d jobs of %s", jobs, src)
	if key["sample"] != "" {
		out = fmt.Sprintf("draws of %d jobs from %s", jobs, src)
	}
	var also []string
	if r := key["rate"]; r != "" {
		also = append(also, "Poisson arrivals at "+r+" jobs/h")
	}
	if d := key["durations"]; d != "" {
		also = append(also, d+" durations")
	}
	if g := key["gpu-mix"]; g != "" {
		also = append(also, "GPU counts ("+g+")")
	}
	if r := key["recipe"]; r != "" {
		also = append(also, "recipe "+r+"'s labels")
	}
	if len(also) > 0 {
		verb := "each seed also redraws: "
		if key["sample"] == "" {
			verb = "each seed redraws: "
		}
		out += "; " + verb + strings.Join(also, ", ")
	}
	return out
}
