package sweep

import (
	"fmt"
	"io"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// Fairness in the seed table. A run with tenants (Run.Tenants) carries its
// fairness figures in summary.json (sim.Fairness); summary.parquet then
// gains the catalogue's Fairness section (sim/metrics) and, per tenant of
// any row, tenant_<name>_<metric> for each metrics.TenantMetrics, each
// with its _mean/_ci_lo/_ci_hi across seeds (table.go). A table with no
// such run has none of these columns.

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
	if !multi {
		return nil
	}
	var b strings.Builder
	const format = "  %-22s %-22s %-22s %-22s %-22s %-22s %s\n"
	vary := varyingAxes(rows)
	for _, c := range cellsInOrder(rows) {
		if c[0].Fairness == nil {
			continue
		}
		r := c[0]
		fmt.Fprintf(&b, "\nfairness, %s, tenants %s — mean [%s]\n", CellHeading(r, vary), r.Fairness.TenantsFrom, ci.Describe(ci.T, r.Seeds, "seed"))
		fmt.Fprintf(&b, format, "policy", "max ρ", "mean ρ", "ρ > 1 (%)", "Jain GPU share/weight", "Jain slowdown", "quota reclaims")
		for _, r := range c {
			iv := func(n string, digits int, scale float64) string {
				x, ok := r.Stats[n]
				if !ok {
					return "–"
				}
				x.Mean, x.Lo, x.Hi = x.Mean*scale, x.Lo*scale, x.Hi*scale
				return ci.Format(x, digits, "")
			}
			fmt.Fprintf(&b, format, vary.label(r.Policy), iv("max_rho", 2, 1), iv("mean_rho", 3, 1), iv("frac_rho_above_1", 1, 100),
				iv("jain_gpu_share", 3, 1), iv("jain_slowdown", 3, 1), iv("quota_reclaims", 0, 1))
			for _, t := range r.Fairness.Tenants {
				fmt.Fprintf(&b, "      %-16s mean JCT %s h, p95 JCT %s h, %s GPU-h\n", t.Name,
					iv(TenantColumn(t.Name, "mean_jct_s"), 2, 1.0/3600), iv(TenantColumn(t.Name, "p95_jct_s"), 2, 1.0/3600), iv(TenantColumn(t.Name, "gpu_hours"), 0, 1))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
