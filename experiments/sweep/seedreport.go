package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// Interval reads a metric's across-seed interval back from a row's
// columns (nil bounds → no interval).
func Interval(mean float64, lo, hi *float64, n int32) ci.Interval {
	iv := ci.Interval{Mean: mean, Lo: math.NaN(), Hi: math.NaN(), N: int(n), Method: ci.T}
	if lo != nil && hi != nil {
		iv.Lo, iv.Hi = *lo, *hi
	}
	return iv
}

func optInterval(mean, lo, hi *float64, n int32) ci.Interval {
	if mean == nil {
		return ci.Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	return Interval(*mean, lo, hi, n)
}

// CheckBaseline reports an error naming baseline when no run of plan has
// that policy ("" = the paper's form, always fine): a sweep should fail
// before it runs, not after.
func CheckBaseline(plan *Plan, baseline string) error {
	if baseline == "" {
		return nil
	}
	var have []string
	for _, r := range plan.Runs {
		if r.Run.Policy == baseline {
			return nil
		}
		if !strings.Contains(","+strings.Join(have, ",")+",", ","+r.Run.Policy+",") {
			have = append(have, r.Run.Policy)
		}
	}
	return fmt.Errorf("baseline %q is not among the policies run (%s)", baseline, strings.Join(have, ", "))
}

// Accounting is "828 finished · 158 unfinished · 0 dropped" for a policy's
// rows of one cell, averaged over its seeds: what stands behind its mean
// JCT, printed beside it.
func Accounting(rs []*SummaryRow) string {
	var f, u, d float64
	for _, r := range rs {
		f += float64(r.Finished)
		u += float64(r.Running + r.Pending)
		d += float64(r.Dropped)
	}
	n := float64(len(rs))
	g := func(v float64) string { return strconv.FormatFloat(math.Round(v/n*10)/10, 'f', -1, 64) }
	return g(f) + " fin · " + g(u) + " unfin · " + g(d) + " drop"
}

// Neglected says whether any of rs dropped jobs or left a queue on an
// idle cluster: the policy's means get a ⚠.
func Neglected(rs []*SummaryRow) bool {
	for _, r := range rs {
		if r.Dropped > 0 || r.StuckPending > 0 {
			return true
		}
	}
	return false
}

// WriteSeedTable prints, for every cell of rows (every parameter but the
// seed and the policy), one line per policy with its across-seed means and
// 95 % t-intervals: jobs finished / unfinished / dropped, submitted mean
// JCT (the default comparison: every submitted job, unfinished and dropped
// ones at their age at the horizon), mean throughput, and the comparison
// columns, paired by seed: arena's JCT reduction (submitted, then the
// artifact's padded mean) and throughput ratio against each policy, or
// each policy's against the baseline (SetBaseline). A policy that dropped
// or stranded jobs is marked ⚠. It prints nothing when no cell has two
// seeds.
func WriteSeedTable(w io.Writer, rows []SummaryRow) error {
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1
	}
	if !multi {
		return nil
	}
	byPolicy := map[string][]*SummaryRow{}
	for i := range rows {
		k := CellKey(&rows[i]) + "|" + rows[i].Policy
		byPolicy[k] = append(byPolicy[k], &rows[i])
	}
	var b strings.Builder
	lastCell := ""
	done := map[string]bool{}
	var flagged []string
	format, robustHead := "  %-18s %-34s %-24s %-20s %-24s %-24s %s%s\n", ""
	if rows[0].SensitivityGrid != "" { // a robustness column (sensitivity.go)
		format, robustHead = "  %-18s %-34s %-24s %-20s %-24s %-24s %-24s %s\n", "under model error"
	}
	for i := range rows {
		r := &rows[i]
		cell := CellKey(r)
		if done[cell+"|"+r.Policy] {
			continue
		}
		done[cell+"|"+r.Policy] = true
		if cell != lastCell {
			lastCell = cell
			fmt.Fprintf(&b, "\n%s on %s, %s timing, density %g — mean [%s]\n", r.Trace, r.Cluster, r.Timing, r.Density, ci.Describe(ci.Method(r.CIMethod), int(r.Seeds), "seed"))
			red, thr := RefPolicy+" JCT reduction", RefPolicy+" thr. ratio"
			if baselineMode(rows) {
				red, thr = "JCT reduction vs "+r.RefPolicy, "thr. ratio vs "+r.RefPolicy
			}
			fmt.Fprintf(&b, format, "policy", "jobs (mean over seeds)", "submitted mean JCT (s)", "mean thr. (sam/s)", red, "(artifact padded)", thr, robustHead)
		}
		rs := byPolicy[cell+"|"+r.Policy]
		name := r.Policy
		if Neglected(rs) {
			name += " ⚠"
			flagged = append(flagged, r.Policy)
		}
		fmt.Fprintf(&b, format, name, Accounting(rs),
			ci.Format(Interval(r.SubmittedMeanJCTMean, r.SubmittedMeanJCTCILo, r.SubmittedMeanJCTCIHi, r.Seeds), 0, ""),
			ci.Format(Interval(r.MeanThroughputMean, r.MeanThroughputCILo, r.MeanThroughputCIHi, r.Seeds), 0, ""),
			ci.Format(optInterval(r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi, r.Seeds), 1, "%"),
			ci.Format(optInterval(r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi, r.Seeds), 1, "%"),
			ci.Format(optInterval(r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi, r.Seeds), 2, "×"), RobustCell(r))
	}
	if len(flagged) > 0 {
		fmt.Fprintf(&b, "\n⚠ %s dropped jobs or left them queued on an idle cluster: such jobs count in the submitted mean at their age at the horizon; the mean over finished jobs alone would flatter them.\n", strings.Join(dedupe(flagged), ", "))
	}
	if err := WriteRobustness(&b, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// baselineMode: the rows compare each policy with a baseline (SetBaseline)
// rather than arena with each.
func baselineMode(rows []SummaryRow) bool {
	for _, r := range rows {
		if r.Comparison != "" {
			return strings.HasSuffix(r.Comparison, " vs "+r.RefPolicy)
		}
	}
	return false
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// RowsAgainst flattens runs already padded within their groups (PadGroups)
// into summary rows with their across-seed columns, compared with
// baseline ("" = the paper's form; SetBaseline).
func RowsAgainst(rs []*Results, baseline string) ([]SummaryRow, error) {
	rows := SummaryRowsAsPadded(rs)
	return rows, SetBaseline(rows, baseline)
}

// WriteCaptions writes, for each comparison group of rows in order, a
// caption line a figure of the group can carry: each policy's mean JCT
// over all submitted jobs beside its jobs finished / unfinished / dropped
// (⚠ for a policy that dropped or stranded jobs) and, where the row has
// one, its comparison (arena against it, or it against the baseline).
func WriteCaptions(w io.Writer, rows []SummaryRow) error {
	var b strings.Builder
	var order []string
	byGroup := map[string][]*SummaryRow{}
	for i := range rows {
		g := rows[i].Group
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], &rows[i])
	}
	for _, g := range order {
		fmt.Fprintf(&b, "%s:", g)
		for k, r := range byGroup[g] {
			if k > 0 {
				b.WriteString(";")
			}
			writeCaption(&b, r)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCaption(b *strings.Builder, r *SummaryRow) {
	name := r.Policy
	if r.Dropped > 0 || r.StuckPending > 0 {
		name += " ⚠"
	}
	fmt.Fprintf(b, " %s: mean JCT over all %d submitted jobs %.0f s (%d finished, %d unfinished, %d dropped)",
		name, r.Submitted, r.SubmittedMeanJCT, r.Finished, r.Running+r.Pending, r.Dropped)
	if r.Comparison != "" && r.JCTReduction != nil && r.Seeds == 1 {
		fmt.Fprintf(b, ", %s: JCT reduction %.1f %%", r.Comparison, 100**r.JCTReduction)
	}
}
