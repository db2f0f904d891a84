package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arena-sim/arena/sim/outdir"
)

func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", 100*v)
}

func secs(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// Markdown renders the report: the cluster, one row per replay (real vs
// simulated and calibrated mean JCT and queueing, hand-off, start-order
// agreement, placements), and the policies' ranking real vs simulated.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# arena replay: %s on %s (%d jobs, %d Slurm nodes", r.Trace, r.Cluster, r.Jobs, r.Nodes)
	if r.Emulated {
		fmt.Fprintf(&b, ", emulated: up in %.1f s, slurmd %.1f MiB RSS each, slurmctld %.1f MiB", r.StartupS, r.SlurmdRSSKiB/1024, float64(r.CtldRSSKiB)/1024)
	}
	b.WriteString(")\n\n")
	b.WriteString("Times are simulated seconds (real ones × speed). Error = real / simulated − 1; calibrated = the simulator re-run with the median measured hand-off added to every start.\n\n")
	b.WriteString("| mode | policy | speed | starts | failed | hand-off p50 / mean / p95 (s) | mean JCT sim | real | calibrated | error raw | error cal | mean queue sim / real / cal | per-job abs error (cal) | start order agrees | placements differed |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range r.Runs {
		mode := m.Mode
		if m.Deterministic {
			mode += " (deterministic)"
		}
		fmt.Fprintf(&b, "| %s | %s | %g× | %d | %d | %.3f / %.3f / %.3f | %s | %s | %s | %s | %s | %s / %s / %s | %.1f %% | %.1f %% of %d pairs | %d |\n",
			mode, m.Policy, m.Speed, m.Starts, m.Failed, m.HandoffP50, m.HandoffMean, m.HandoffP95, secs(m.SimMeanJCT), secs(m.RealMeanJCT), secs(m.CalMeanJCT),
			pct(m.RawErr), pct(m.CalErr), secs(m.SimMeanQueue), secs(m.RealMeanQueue), secs(m.CalMeanQueue), 100*m.MeanAbsJobErr,
			100*m.OrderAgreement, m.OrderPairs, m.PlacementsDiffered)
	}
	var pol []*ModeRun
	for _, m := range r.Runs {
		if m.Mode == "policy" {
			pol = append(pol, m)
		}
	}
	if len(pol) >= 2 {
		rank := func(get func(*ModeRun) float64) []string {
			s := append([]*ModeRun(nil), pol...)
			sort.SliceStable(s, func(i, j int) bool { return get(s[i]) < get(s[j]) })
			out := make([]string, len(s))
			for i, m := range s {
				out[i] = m.Policy
			}
			return out
		}
		sr := rank(func(m *ModeRun) float64 { return m.SimMeanJCT })
		rr := rank(func(m *ModeRun) float64 { return m.RealMeanJCT })
		cr := rank(func(m *ModeRun) float64 { return m.CalMeanJCT })
		fmt.Fprintf(&b, "\nRanking by mean JCT (best first): simulated %s · real %s · calibrated %s — ", strings.Join(sr, " < "), strings.Join(rr, " < "), strings.Join(cr, " < "))
		if strings.Join(sr, ",") == strings.Join(rr, ",") {
			b.WriteString("the simulated ranking holds on Slurm.\n")
		} else {
			b.WriteString("**the ranking differs on Slurm**.\n")
		}
	}
	for _, m := range r.Runs {
		if m.Mode == "policy" && m.PlacementsDiffered > 0 {
			fmt.Fprintf(&b, "\n%s: placements that differed:\n", m.Policy)
			for _, row := range m.Rows {
				if row.PlacementDiffers {
					fmt.Fprintf(&b, "- job %d: arena %s, Slurm %s\n", row.Job, row.SimNodes, row.RealNodes)
				}
			}
		}
	}
	return b.String()
}

// CSV is jobs.csv: one row per job and replay.
func (r *Report) CSV() string {
	var b strings.Builder
	b.WriteString("mode,policy,job,name,gpu,gpus,submit_s,sim_start_s,sim_end_s,sim_jct_s,real_start_s,real_end_s,real_jct_s,cal_start_s,cal_end_s,cal_jct_s,sim_queue_s,real_queue_s,cal_queue_s,handoff_s,sim_nodes,real_nodes,placement_differs\n")
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.3f", v)
	}
	for _, m := range r.Runs {
		for _, x := range m.Rows {
			fmt.Fprintf(&b, "%s,%q,%d,%q,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%q,%q,%t\n", m.Mode, m.Policy, x.Job, x.Name, x.GPU, x.GPUs,
				f(x.Submit), f(x.SimStart), f(x.SimEnd), f(x.SimJCT), f(x.RealStart), f(x.RealEnd), f(x.RealJCT), f(x.CalStart), f(x.CalEnd), f(x.CalJCT),
				f(x.SimQueue), f(x.RealQueue), f(x.CalQueue), f(x.HandoffS), x.SimNodes, x.RealNodes, x.PlacementDiffers)
		}
	}
	return b.String()
}

// Files are the replay's results directory: replay.json (the report's
// figures; NaN as null), jobs.csv and REPORT.md.
var Files = []string{"replay.json", "jobs.csv", "REPORT.md"}

// Write puts the report in dir through outdir (built aside, swapped in
// whole).
func (r *Report) Write(dir string) error {
	js, err := json.MarshalIndent(r.jsonSafe(), "", "  ")
	if err != nil {
		return err
	}
	if err := outdir.MkdirAll(filepath.Dir(filepath.Clean(dir))); err != nil {
		return err
	}
	return outdir.ReplaceDir(dir, nil, func(tmp string) error {
		for name, data := range map[string]string{"replay.json": string(js) + "\n", "jobs.csv": r.CSV(), "REPORT.md": r.Markdown()} {
			if err := outdir.WriteFile(filepath.Join(tmp, name), []byte(data)); err != nil {
				return err
			}
		}
		return nil
	})
}

// jsonSafe is the report with NaN figures as null.
func (r *Report) jsonSafe() any {
	runs := make([]map[string]any, 0, len(r.Runs))
	for _, m := range r.Runs {
		runs = append(runs, nanless(m))
	}
	return map[string]any{"cluster": r.Cluster, "trace": r.Trace, "jobs": r.Jobs, "nodes": r.Nodes, "emulated": r.Emulated,
		"startup_s": r.StartupS, "slurmd_rss_mean_kib": r.SlurmdRSSKiB, "slurmctld_rss_kib": r.CtldRSSKiB, "runs": runs}
}

// nanless is a mode run's figures by their JSON names, NaN as null.
func nanless(m *ModeRun) map[string]any {
	out := map[string]any{}
	put := func(k string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			out[k] = nil
		} else {
			out[k] = v
		}
	}
	out["mode"], out["policy"], out["deterministic"] = m.Mode, m.Policy, m.Deterministic
	out["jobs"], out["starts"], out["failed"], out["order_pairs"], out["placements_differed"] = m.Jobs, m.Starts, m.Failed, m.OrderPairs, m.PlacementsDiffered
	put("speed", m.Speed)
	put("handoff_mean_s", m.HandoffMean)
	put("handoff_p50_s", m.HandoffP50)
	put("handoff_p95_s", m.HandoffP95)
	put("handoff_max_s", m.HandoffMax)
	put("overhead_added_s", m.OverheadAdded)
	put("sim_mean_jct_s", m.SimMeanJCT)
	put("real_mean_jct_s", m.RealMeanJCT)
	put("cal_mean_jct_s", m.CalMeanJCT)
	put("sim_mean_queue_s", m.SimMeanQueue)
	put("real_mean_queue_s", m.RealMeanQueue)
	put("cal_mean_queue_s", m.CalMeanQueue)
	put("raw_error", m.RawErr)
	put("cal_error", m.CalErr)
	put("mean_abs_job_error", m.MeanAbsJobErr)
	put("order_agreement", m.OrderAgreement)
	put("wall_s", m.WallS)
	return out
}
