package sweep

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/sim"
)

// Fairness in the summary table. A run with tenants (Run.Tenants) carries
// its fairness figures in summary.json (sim.Fairness); summary.parquet then
// gains, after its other columns, a tenants column, one column per run-level
// metric of fairMetrics with its _mean/_ci_lo/_ci_hi across seeds, and per
// tenant of any row tenant_<name>_mean_jct_s, _p95_jct_s and _gpu_hours
// with theirs. A table with no such run has none of these columns: the
// summaries of sweeps without tenants are unchanged, byte for byte.

// fairMetric is one run-level fairness figure of a summary row.
type fairMetric struct {
	name string
	get  func(*sim.Fairness) (float64, bool)
}

func always(get func(*sim.Fairness) float64) func(*sim.Fairness) (float64, bool) {
	return func(f *sim.Fairness) (float64, bool) { return get(f), true }
}

func quotaCount(get func(*sim.QuotaCounts) int) func(*sim.Fairness) (float64, bool) {
	return func(f *sim.Fairness) (float64, bool) {
		if f.Quota == nil {
			return 0, false // not under the quota wrapper: null, not 0
		}
		return float64(get(f.Quota)), true
	}
}

// fairMetrics are the run-level figures, with their summary.json names.
var fairMetrics = []fairMetric{
	{"max_rho", always(func(f *sim.Fairness) float64 { return f.MaxRho })},
	{"mean_rho", always(func(f *sim.Fairness) float64 { return f.MeanRho })},
	{"frac_rho_above_1", always(func(f *sim.Fairness) float64 { return f.FracRhoAbove1 })},
	{"jain_gpu_share", always(func(f *sim.Fairness) float64 { return f.JainShare })},
	{"jain_slowdown", always(func(f *sim.Fairness) float64 { return f.JainSlowdown })},
	{"over_cap_gpu_seconds", always(func(f *sim.Fairness) float64 { return f.OverCapSeconds })},
	{"quota_reclaims", quotaCount(func(q *sim.QuotaCounts) int { return q.Reclaims })},
	{"quota_reclaimed_gpus", quotaCount(func(q *sim.QuotaCounts) int { return q.ReclaimedGPUs })},
	{"quota_vetoed", quotaCount(func(q *sim.QuotaCounts) int { return q.Vetoed })},
	{"quota_violations", quotaCount(func(q *sim.QuotaCounts) int { return q.Violations })},
}

// tenantMetrics are the per-tenant figures of the table.
// A tenant's JCTs exist only when it finished a job (null otherwise,
// not 0).
var tenantMetrics = []struct {
	name string
	get  func(*sim.TenantFigures) (float64, bool)
}{
	{"mean_jct_s", func(t *sim.TenantFigures) (float64, bool) { return t.MeanJCT, t.Finished > 0 }},
	{"p95_jct_s", func(t *sim.TenantFigures) (float64, bool) { return t.P95JCT, t.Finished > 0 }},
	{"gpu_hours", func(t *sim.TenantFigures) (float64, bool) { return t.GPUHours, true }},
}

// TenantColumn names a tenant's metric column.
func TenantColumn(tenant, metric string) string {
	return "tenant_" + SanitizeKey(tenant) + "_" + metric
}

// fairValue is metric name's value in row r (run-level names, or a
// tenant column's name); false when r has none.
func fairValue(r *SummaryRow, name string) (float64, bool) {
	if r.Fairness == nil {
		return 0, false
	}
	for _, m := range fairMetrics {
		if m.name == name {
			return m.get(r.Fairness)
		}
	}
	for i := range r.Fairness.Tenants {
		t := &r.Fairness.Tenants[i]
		for _, m := range tenantMetrics {
			if TenantColumn(t.Name, m.name) == name {
				return m.get(t)
			}
		}
	}
	return 0, false
}

// fairNames are the fairness columns of rows (before the across-seed
// suffixes): the run-level metrics, then each tenant's, tenants in order
// of first appearance; none when no row has fairness figures.
func fairNames(rows []SummaryRow) []string {
	var tenants []string
	any := false
	for i := range rows {
		if f := rows[i].Fairness; f != nil {
			any = true
			for _, t := range f.Tenants {
				if !slices.Contains(tenants, t.Name) {
					tenants = append(tenants, t.Name)
				}
			}
		}
	}
	if !any {
		return nil
	}
	var names []string
	for _, m := range fairMetrics {
		names = append(names, m.name)
	}
	for _, t := range tenants {
		for _, m := range tenantMetrics {
			names = append(names, TenantColumn(t, m.name))
		}
	}
	return names
}

// addFairSeedStats fills each row's FairSeeds: every fairness column's
// mean and Student-t interval over the seeds of the row's cell and policy
// (seeds in increasing order; seeds without the value left out).
func addFairSeedStats(rows []SummaryRow, cs map[string]map[string]map[int64]*SummaryRow) {
	names := fairNames(rows)
	if names == nil {
		return
	}
	for i := range rows {
		r := &rows[i]
		if r.Fairness == nil {
			continue
		}
		mine := cs[CellKey(r)][r.Policy]
		r.FairSeeds = map[string]ci.Interval{}
		for _, n := range names {
			var xs []float64
			for _, s := range sortedSeeds(mine) {
				if v, ok := fairValue(mine[s], n); ok {
					xs = append(xs, v)
				}
			}
			if len(xs) > 0 {
				r.FairSeeds[n] = ci.TInterval(xs)
			}
		}
	}
}

// extraColumn is a summary.parquet column beyond SummaryRow's own.
type extraColumn struct {
	name string
	str  func(*SummaryRow) string          // a string column, or
	num  func(*SummaryRow) (float64, bool) // a double column (optional: false is null)
}

// fairColumns are the fairness columns of rows (none without fairness).
func fairColumns(rows []SummaryRow) []extraColumn {
	names := fairNames(rows)
	if names == nil {
		return nil
	}
	cols := []extraColumn{{name: "tenants", str: func(r *SummaryRow) string {
		if r.Fairness == nil {
			return ""
		}
		return r.Fairness.TenantsFrom
	}}}
	for _, n := range names {
		cols = append(cols, extraColumn{name: n, num: func(r *SummaryRow) (float64, bool) { return fairValue(r, n) }})
		seed := func(part func(ci.Interval) float64) func(r *SummaryRow) (float64, bool) {
			return func(r *SummaryRow) (float64, bool) {
				iv, ok := r.FairSeeds[n]
				if !ok {
					return 0, false
				}
				v := part(iv)
				return v, !math.IsNaN(v)
			}
		}
		cols = append(cols,
			extraColumn{name: n + "_mean", num: seed(func(iv ci.Interval) float64 { return iv.Mean })},
			extraColumn{name: n + "_ci_lo", num: seed(func(iv ci.Interval) float64 { return iv.Lo })},
			extraColumn{name: n + "_ci_hi", num: seed(func(iv ci.Interval) float64 { return iv.Hi })})
	}
	return cols
}

// structField is the reflect field of an extra column (index i).
func (c extraColumn) structField(i int) reflect.StructField {
	if c.str != nil {
		return reflect.StructField{Name: fmt.Sprintf("X%d", i), Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`parquet:"` + c.name + `"`)}
	}
	return reflect.StructField{Name: fmt.Sprintf("X%d", i), Type: reflect.TypeFor[*float64](), Tag: reflect.StructTag(`parquet:"` + c.name + `,optional"`)}
}

// set writes row r's value of the column into v.
func (c extraColumn) set(v reflect.Value, r *SummaryRow) {
	if c.str != nil {
		v.SetString(c.str(r))
		return
	}
	if x, ok := c.num(r); ok {
		v.Set(reflect.ValueOf(&x))
	}
}

// WriteFairnessSeedTable prints, for every cell of rows whose runs have
// tenants, one line per policy with the fairness figures' across-seed
// means and 95 % Student-t intervals (max and mean ρ, share of jobs with
// ρ > 1, Jain's indices, quota reclaims), then each tenant's mean and p95
// JCT and GPU-hours. Nothing when no row has fairness figures, or, as the
// seed table, when no cell has two seeds.
func WriteFairnessSeedTable(w io.Writer, rows []SummaryRow) error {
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1 && r.Fairness != nil
	}
	if !multi || fairNames(rows) == nil {
		return nil
	}
	var b strings.Builder
	done := map[string]bool{}
	lastCell := ""
	const format = "  %-22s %-22s %-22s %-22s %-22s %-22s %s\n"
	for i := range rows {
		r := &rows[i]
		if r.Fairness == nil || done[CellKey(r)+"|"+r.Policy] {
			continue
		}
		done[CellKey(r)+"|"+r.Policy] = true
		if c := CellKey(r); c != lastCell {
			lastCell = c
			fmt.Fprintf(&b, "\nfairness, %s on %s, %s timing, density %g, tenants %s — mean [%s]\n", r.Trace, r.Cluster, r.Timing, r.Density,
				r.Fairness.TenantsFrom, ci.Describe(ci.T, int(r.Seeds), "seed"))
			fmt.Fprintf(&b, format, "policy", "max ρ", "mean ρ", "ρ > 1 (%)", "Jain GPU share/weight", "Jain slowdown", "quota reclaims")
		}
		iv := func(n string, digits int, scale float64) string {
			x, ok := r.FairSeeds[n]
			if !ok {
				return "–"
			}
			x.Mean, x.Lo, x.Hi = x.Mean*scale, x.Lo*scale, x.Hi*scale
			return ci.Format(x, digits, "")
		}
		fmt.Fprintf(&b, format, r.Policy, iv("max_rho", 2, 1), iv("mean_rho", 3, 1), iv("frac_rho_above_1", 1, 100),
			iv("jain_gpu_share", 3, 1), iv("jain_slowdown", 3, 1), iv("quota_reclaims", 0, 1))
		for _, t := range r.Fairness.Tenants {
			fmt.Fprintf(&b, "      %-16s mean JCT %s h, p95 JCT %s h, %s GPU-h\n", t.Name,
				iv(TenantColumn(t.Name, "mean_jct_s"), 2, 1.0/3600), iv(TenantColumn(t.Name, "p95_jct_s"), 2, 1.0/3600), iv(TenantColumn(t.Name, "gpu_hours"), 0, 1))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
