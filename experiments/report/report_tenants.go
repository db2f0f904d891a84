package report

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/arena-sim/arena/experiments/sweep"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/sim"
)

// TenantsSection is the reproduce section of the tenants study (not part
// of "all"): Philly's 15 VCs with their real job mix under FCFS, Arena and
// Gavel's fairness policy, each alone and under the quota wrapper
// (data/specs/tenants.yaml; docs/tenants.md).
const TenantsSection = "tenants"

// tenantsSection writes the study's fairness tables — per policy the
// run-level figures, per tenant and policy the mean JCT, each the mean
// over seeds with its Student-t interval — and its figures.
func (w *reportWriter) tenantsSection(s section) error {
	w.p("## Tenants: Philly's virtual clusters\n\n")
	w.p("Every run with tenants carries its fairness figures (summary.json's `fairness`; docs/tenants.md): finish-time fairness ρ ")
	w.p("(Themis: a job's JCT over its JCT with a 1/N share of its GPU type, N the jobs in the system), Jain's index of the tenants' GPU share ")
	w.p("per weight and of their mean ρ, and the quota wrapper's reclaims. Cells are the mean over seeds [95 %% Student-t interval].\n\n")
	for _, timing := range s.spec.Timings {
		rs := w.runsOf(s.plan, func(r sweep.PlannedRun) bool { return r.Run.Timing == timing })
		w.p("### %s timing\n\n", timing)
		if !HasTenants(rs) {
			w.p("No run with tenants.\n\n")
			continue
		}
		rows := sweep.SummaryRowsAsPadded(padded(rs))
		w.fairnessTables(rows)
		figs, err := w.tenantFigures(s.name+"."+timing.String()+".", rs, s.spec.Labels)
		if err != nil {
			return err
		}
		w.embed(figs)
	}
	return nil
}

// firstRows is one row per policy (its cell's first), in row order.
func firstRows(rows []sweep.SummaryRow) []*sweep.SummaryRow {
	var out []*sweep.SummaryRow
	seen := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Fairness == nil || seen[sweep.CellKey(r)+"|"+r.Policy] {
			continue
		}
		seen[sweep.CellKey(r)+"|"+r.Policy] = true
		out = append(out, r)
	}
	return out
}

// fairnessTables writes the run-level table and the per-tenant mean-JCT
// table of rows (runs with tenants).
func (w *reportWriter) fairnessTables(rows []sweep.SummaryRow) {
	first := firstRows(rows)
	if len(first) == 0 {
		return
	}
	iv := func(r *sweep.SummaryRow, name string, digits int, scale float64) string {
		x, ok := r.Stats[name]
		if !ok {
			return "–"
		}
		x.Mean, x.Lo, x.Hi = x.Mean*scale, x.Lo*scale, x.Hi*scale
		return ci.Format(x, digits, "")
	}
	w.p("Tenants from %s; each cell the mean [%s].\n\n", first[0].Fairness.TenantsFrom, ci.Describe(ci.T, first[0].Seeds, "seed"))
	w.p("| policy | jobs finished | mean JCT, all submitted (h) | max ρ | mean ρ | ρ > 1 (%%) | Jain: GPU share/weight | Jain: slowdown | quota reclaims |\n")
	w.p("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range first {
		jct := r.Stat("submitted_mean_jct_s")
		jct.Mean, jct.Lo, jct.Hi = jct.Mean/3600, jct.Lo/3600, jct.Hi/3600
		w.p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Policy, ci.Format(r.Stat("jobs_finished"), 0, ""),
			ci.Format(jct, 2, ""), iv(r, "max_rho", 1, 1), iv(r, "mean_rho", 2, 1), iv(r, "frac_rho_above_1", 1, 100),
			iv(r, "jain_gpu_share", 3, 1), iv(r, "jain_slowdown", 3, 1), iv(r, "quota_reclaims", 0, 1))
	}
	// Per tenant: its mean JCT (finished jobs) under each policy, tenants
	// by their GPU-hours under the first policy.
	tenants := slices.Clone(first[0].Fairness.Tenants)
	slices.SortStableFunc(tenants, func(a, b sim.TenantFigures) int {
		switch {
		case a.GPUHours > b.GPUHours:
			return -1
		case a.GPUHours < b.GPUHours:
			return 1
		}
		return 0
	})
	w.p("\nMean JCT of each tenant's finished jobs (h; – where it finished none), tenants by GPU-hours:\n\n")
	w.p("| tenant | GPU-h (%s) |", first[0].Policy)
	for _, r := range first {
		w.p(" %s |", r.Policy)
	}
	w.p("\n|---|--:|%s\n", strings.Repeat("--:|", len(first)))
	for _, t := range tenants {
		w.p("| %s | %s |", t.Name, iv(first[0], sweep.TenantColumn(t.Name, "gpu_hours"), 0, 1))
		for _, r := range first {
			w.p(" %s |", iv(r, sweep.TenantColumn(t.Name, "mean_jct_s"), 2, 1.0/3600))
		}
		w.p("\n")
	}
	w.p("\n")
}

// tenantFigures draws the tenant figures of rs (by seed cell when the
// runs have several seeds, else by group) under prefix.
func (w *reportWriter) tenantFigures(prefix string, rs []*sweep.Results, labels map[string]string) ([]FigureFile, error) {
	dir := filepath.Join(w.out, "figures")
	o := w.figOpts()
	o.Labels = labels
	if cells := SeedCells(rs); len(cells) > 0 {
		var out []FigureFile
		for _, c := range cells {
			var runs []*sweep.Results
			for _, p := range c.Policies {
				runs = append(runs, c.Runs[p]...)
			}
			figs, err := WriteTenantFigures(dir, prefix, runs, TenantKinds, o)
			if err != nil {
				return out, err
			}
			out = append(out, figs...)
		}
		return out, nil
	}
	return WriteTenantFigures(dir, prefix, rs, TenantKinds, o)
}
