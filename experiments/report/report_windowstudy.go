package report

import (
	"fmt"

	"github.com/arena-sim/arena/experiments/sweep"
)

// WindowsSection is the reproduce section of the windows study (not part
// of "all"): Sia-style 48-hour Philly windows drawn from philly-pollux at
// several start days, seeds within each window, the seed table with the
// two-level interval over windows (data/specs/windows.yaml;
// sweep.SetWindowIntervals).
const WindowsSection = "windows"

// windowsSection writes the study's seed table with the interval over
// windows (N = the windows, seeds nested within each), naming the
// population the windows are drawn from and why the seeds are not the
// unit.
func (w *reportWriter) windowsSection(s section) error {
	w.p("## Windows: Philly's 48-hour windows, seeds nested\n\n")
	rs := w.runsOf(s.plan, func(sweep.PlannedRun) bool { return true })
	if len(rs) == 0 {
		w.p("No registered policy.\n\n")
		return nil
	}
	rows := sweep.SummaryRowsAsPadded(padded(rs))
	if err := sweep.SetBaseline(rows, w.baselineOf(s)); err != nil {
		return fmt.Errorf("windows: %w", err)
	}
	sweep.SetLabels(rows, s.spec.Labels)
	if err := sweep.SetWindowIntervals(rows); err != nil {
		return fmt.Errorf("windows: %w", err)
	}
	sweep.SetHolm(rows)
	windows := map[string]bool{}
	var family string
	for _, r := range rows {
		if r.Window != nil {
			windows[r.Window.Window] = true
			family = r.Window.Name
		}
	}
	w.p("Workloads synthesised from %s (spec `experiments/data/specs/windows.yaml`): %d windows of its trace; each seed draws a sample of one window's jobs, ",
		family, len(windows))
	w.p("and every policy of a seed runs the same jobs. The population is the windows of that trace's period, not Philly as a whole nor other traces or clusters. ")
	w.p("The interval is two-level (`--interval windows`, docs/statistics.md): per window the mean over its seeds, then the 95 %% Student-t interval over the %d window means (N = %d windows, seeds nested within each); ", len(windows), len(windows))
	w.p("comparisons are paired by window and seed, averaged within each window, then t over the windows; ‡ marks a comparison that survives Holm's step-down. ")
	w.p("Why: the seeds of one window are not independent draws of the workload — each samples the same window's jobs, so they share many of them — ")
	w.p("and an interval over seeds speaks only for that one window.\n\n")
	w.p("```\n")
	if err := sweep.WriteSeedTable(&w.b, rows); err != nil {
		return err
	}
	w.p("```\n\n")
	return nil
}
