package report

import (
	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim/energy"
)

// EnergySection is the reproduce section of the energy study (not part of
// "all"): Arena, FCFS and the carbon- and cost-aware baselines on 48-hour
// Philly workloads, drained, priced with the built-in energy model under
// Germany's hourly carbon intensity (data/specs/energy.yaml;
// docs/energy.md).
const EnergySection = "energy"

// energySection writes, per policy, JCT beside kWh, carbon and cost, each
// the mean over seeds with its Student-t interval, then each policy's
// paired reductions against the baseline, and the published anchors.
func (w *reportWriter) energySection(s section) error {
	w.p("## Energy: what each schedule costs in kWh, $ and CO₂\n\n")
	rs := w.runsOf(s.plan, func(sweep.PlannedRun) bool { return true })
	if len(rs) == 0 || rs[0].Summary.Energy == nil {
		w.p("No run with energy accounting.\n\n")
		return nil
	}
	rows := sweep.SummaryRowsAsPadded(padded(rs))
	base := w.baselineOf(s)
	if err := sweep.SetBaseline(rows, base); err != nil {
		return err
	}
	first := firstEnergyRows(rows)
	r0 := rs[0]
	w.p("%s (%d jobs per seed) on %s, %s timing, drained (every job runs to its end: every policy does the same work); spec `experiments/data/specs/energy.yaml`. ",
		r0.Summary.Trace, r0.Summary.Submitted, r0.Summary.Cluster, r0.Summary.Timing)
	w.p("Energy model `%s` (docs/energy.md): GPU power by activity (idle; reconfiguring or held without a kernel, at the CUDA-context power; computing at the job's scaling efficiency), a server share per GPU, PUE; ", r0.Summary.Energy.Model)
	w.p("carbon at the grid's intensity hour by hour; GPU $ = GPU-hours held × the %s list price of the type. ", r0.Summary.Energy.PriceTier)
	w.p("*kWh* is the facility energy of the whole cluster until the run ends (idle GPUs included, powered on); *idle* the share of it on GPUs no job held; ")
	w.p("*jobs' kg CO₂eq* the carbon of the GPU-time jobs held, what a job's owner is charged and what shifting work in time can change. ")
	w.p("Cells are the mean over seeds [%s].\n\n", ci.Describe(ci.T, first[0].Seeds, "seed"))
	w.p("| policy | mean JCT, all submitted (h) | kWh | idle kWh | reconfiguration kWh | kg CO₂eq | jobs' kg CO₂eq | mg CO₂eq / sample | GPU $ | electricity $ |\n")
	w.p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range first {
		jct := r.Stat("submitted_mean_jct_s")
		jct.Mean, jct.Lo, jct.Hi = jct.Mean/3600, jct.Lo/3600, jct.Hi/3600
		w.p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Policy, ci.Format(jct, 2, ""),
			ci.Format(r.Stat("energy_kwh"), 0, ""), ci.Format(r.Stat("energy_idle_kwh"), 0, ""), ci.Format(r.Stat("energy_reconfig_kwh"), 0, ""),
			ci.Format(r.Stat("kg_co2"), 0, ""), ci.Format(r.Stat("jobs_kg_co2"), 0, ""), ci.Format(r.Stat("mg_co2_per_sample"), 2, ""),
			ci.Format(r.Stat("gpu_cost_usd"), 0, ""), ci.Format(r.Stat("electricity_usd"), 0, ""))
	}
	w.p("\nAgainst **%s**, paired by seed (reduction = 1 − policy's / %s's; negative: the policy costs more):\n\n", base, base)
	w.p("| policy | JCT reduction | energy reduction | carbon reduction | jobs' carbon reduction | GPU-cost reduction |\n|---|--:|--:|--:|--:|--:|\n")
	pct := func(r *sweep.SummaryRow, name string) string {
		iv, ok := r.Cmp(name)
		if !ok {
			return "–"
		}
		return ci.Format(iv, 1, "%")
	}
	for _, r := range first {
		if r.Policy == base {
			continue
		}
		w.p("| %s | %s | %s | %s | %s | %s |\n", r.Policy, pct(r, "jct_reduction"), pct(r, "energy_reduction"), pct(r, "carbon_reduction"), pct(r, "jobs_carbon_reduction"), pct(r, "cost_reduction"))
	}
	w.p("\nThe model's anchors (tests in sim/energy and experiments/runner; docs/energy.md): Llama 2's 539 tCO₂eq and BLOOM's 433,196 kWh and 24.69 t reproduced from their stated GPU-hours, power, PUE and intensity; ")
	w.p("the per-GPU power distribution of an A100 cluster under FCFS against Acme's Seren and Kalos:\n\n")
	w.p("| cluster | p25 W | p50 W | p75 W | mean W | GPU-time ≤ 100 W | near TDP (≥ 360 W) |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, a := range energy.Acme {
		w.p("| %s (Acme, measured) | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f |\n", a.Name, a.P25, a.P50, a.P75, a.Mean, a.IdleShare, a.NearTDPShare)
	}
	a := energy.SimulatedAcme
	w.p("| simulated, FCFS on %d×8 A100 (TestAcmePowerShape) | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f |\n\n", energy.AcmeLikeNodes, a.P25, a.P50, a.P75, a.Mean, a.IdleShare, a.NearTDPShare)
	return nil
}

// firstEnergyRows is one row per policy with energy figures, in row order.
func firstEnergyRows(rows []sweep.SummaryRow) []*sweep.SummaryRow {
	var out []*sweep.SummaryRow
	seen := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if r.Energy == nil || seen[sweep.CellKey(r)+"|"+r.Policy] {
			continue
		}
		seen[sweep.CellKey(r)+"|"+r.Policy] = true
		out = append(out, r)
	}
	return out
}
