package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/arena-sim/arena/experiments/runner"
)

// The measurement window and draining in a sweep (docs/statistics.md,
// "The measurement window"):
//
//   - a run's key names its window (".m-1d-3d", ".m-i4000-5000") and its
//     draining (".dr"); a sweep drains its exact-timing runs unless the
//     spec says drain (Expand);
//   - a cell is keyed on the rounds asked (SummaryRow.AskedRounds), not
//     on where each of its runs stopped, with its window and draining;
//   - every job a cell's run charges at its horizon (unfinished, dropped,
//     failed) is re-charged at the cell's common horizon, the latest stop
//     of its runs (recharge): a policy stuck with a queue, stopped early,
//     gains nothing by it;
//   - a comparison with a run that reached its drain cap is inconclusive
//     (SummaryRow.Inconclusive).

// measureKey is the window part of a run's key ("" for every job).
func measureKey(r runner.Run) string {
	if r.Measure == "" {
		return ""
	}
	m := strings.TrimSpace(r.Measure)
	if after, ok := strings.CutPrefix(m, "#"); ok {
		m = "i" + after
	}
	return ".m-" + SanitizeKey(strings.ReplaceAll(m, "..", "-"))
}

// AskedRounds is the run length the row's run was asked for: where a
// drained (or until-done) run went on past it, the rounds it was given,
// not where it stopped.
func (r *SummaryRow) AskedRounds() int {
	if r.RoundsAsked > 0 {
		return r.RoundsAsked
	}
	return r.Rounds
}

// measureCellKey is the window and drain part of a row's cell key.
func measureCellKey(r *SummaryRow) string {
	var k string
	if r.Drain {
		k += "|drain"
	}
	if r.Measure != "" {
		k += "|measure=" + r.Measure
	}
	return k
}

// recharge charges, in every cell, each run's jobs charged at its
// horizon (unfinished, dropped, failed: sim.Summary.JobsChargedAtHorizon)
// at the cell's common horizon instead, the latest stop (horizon_s) of
// its runs. Each such charge grows one for one with the horizon, so the
// submitted mean JCT at the common horizon H is
//
//	(Σ finished JCT + Σ_u (H + (charge_u − H_run))) / N
//	  = submitted_mean_jct_s + n_u · (H − H_run) / N,
//
// N the jobs submitted, n_u those charged at the horizon. The row keeps
// H in ChargedAtS (0: its own horizon). The percentiles of the same list
// stay at the run's own horizon.
func recharge(rows []SummaryRow) {
	common := map[string]float64{}
	for i := range rows {
		k := CellKey(&rows[i])
		common[k] = max(common[k], rows[i].HorizonS)
	}
	for i := range rows {
		r := &rows[i]
		h := common[CellKey(r)]
		if h <= r.HorizonS || r.JobsChargedAtHorizon == 0 || r.Submitted == 0 {
			continue
		}
		r.SubmittedMeanJCT += float64(r.JobsChargedAtHorizon) * (h - r.HorizonS) / float64(r.Submitted)
		r.ChargedAtS = h
	}
}

// inconclusive names the runs of a and b (one policy's and another's,
// by seed) that reached their drain cap: the comparison of the two is
// inconclusive ("" when none did).
func inconclusive(a, b map[int64]*SummaryRow) string {
	var keys []string
	for _, m := range []map[int64]*SummaryRow{a, b} {
		for _, s := range sortedSeeds(m) {
			if m[s].DrainCapReached {
				keys = append(keys, m[s].Key)
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return "drain cap reached: " + strings.Join(keys, ", ")
}

// writeMeasureWarnings names, after a sweep's tables, the comparisons
// marked inconclusive and the runs whose fixed horizon may decide their
// figures (sim.Summary.HorizonWarning), with what to do.
func writeMeasureWarnings(w io.Writer, rows []SummaryRow) {
	var inc, short, stuck []string
	for i := range rows {
		r := &rows[i]
		if r.Inconclusive != "" && !slices.Contains(inc, r.Comparison+" ("+r.Inconclusive+")") {
			inc = append(inc, r.Comparison+" ("+r.Inconclusive+")")
		}
		if r.HorizonWarning != "" {
			short = append(short, r.Key+": "+r.HorizonWarning)
		}
		if r.ChargedAtS > 0 {
			stuck = append(stuck, fmt.Sprintf("%s (stopped at %.0f s, %d jobs charged at %.0f s)", r.Key, r.HorizonS, r.JobsChargedAtHorizon, r.ChargedAtS))
		}
	}
	if len(inc) > 0 {
		fmt.Fprintf(w, "\n⚠ %d comparison(s) are inconclusive: a run reached its drain cap with measured jobs unfinished (raise max_rounds, or measure an earlier window):\n  %s\n", len(inc), firstLines(inc, "inconclusive"))
	}
	if len(short) > 0 {
		fmt.Fprintf(w, "\n⚠ %d run(s) with a fixed horizon may be ranked by where they stop (drain: true runs until the measured jobs end):\n  %s\n", len(short), firstLines(short, "horizon_warning"))
	}
	if len(stuck) > 0 {
		fmt.Fprintf(w, "\n%d run(s) stopped before the latest run of their cell: their unfinished jobs are charged at the cell's common horizon (submitted_mean_jct_s):\n  %s\n", len(stuck), firstLines(stuck, "charged_at_s"))
	}
}

// listedRuns is how many runs a warning names before it points to the
// column of summary.parquet that has them all.
const listedRuns = 5

// firstLines joins the first listedRuns of lines, one per line, and says
// how many more there are and which summary.parquet column lists them.
func firstLines(lines []string, column string) string {
	if len(lines) <= listedRuns {
		return strings.Join(lines, "\n  ")
	}
	return strings.Join(lines[:listedRuns], "\n  ") + fmt.Sprintf("\n  … and %d more (summary.parquet's %s column has every run)", len(lines)-listedRuns, column)
}

// measureHeading is the window and drain part of a cell's heading:
// ", jobs 1d..3d, drained" ("" for every job, a fixed horizon).
func measureHeading(r *SummaryRow) string {
	var h string
	if r.Measure != "" {
		h += ", jobs " + r.Measure
	}
	if r.Drain {
		h += ", drained"
	}
	return h
}
