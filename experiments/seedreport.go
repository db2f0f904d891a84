package experiments

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
)

// Interval reads a metric's across-seed interval back from a row's
// columns (nil bounds → no interval).
func Interval(mean float64, lo, hi *float64, n int32) ci.Interval {
	iv := ci.Interval{Mean: mean, Lo: math.NaN(), Hi: math.NaN(), N: int(n)}
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

// WriteSeedTable prints, for every cell of rows (every parameter but the
// seed and the policy), one line per policy with its across-seed means and
// 95 % bootstrap intervals: jobs finished, censored mean JCT (the default
// comparison), mean throughput, and the reference policy's JCT reduction
// (censored, then the artifact's padded mean) and throughput ratio against
// it, paired by seed. It prints nothing when no cell has two seeds.
func WriteSeedTable(w io.Writer, rows []SummaryRow) error {
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1
	}
	if !multi {
		return nil
	}
	var b strings.Builder
	lastCell := ""
	done := map[string]bool{}
	const format = "  %-16s %-22s %-24s %-20s %-22s %-22s %s\n"
	for i := range rows {
		r := &rows[i]
		cell := cellKey(r)
		if done[cell+"|"+r.Policy] {
			continue
		}
		done[cell+"|"+r.Policy] = true
		if cell != lastCell {
			lastCell = cell
			fmt.Fprintf(&b, "\n%s on %s, %s timing, density %g — mean [95%% bootstrap CI] over %d seeds\n", r.Trace, r.Cluster, r.Timing, r.Density, r.Seeds)
			fmt.Fprintf(&b, format, "policy", "jobs finished", "censored mean JCT (s)", "mean thr. (sam/s)", RefPolicy+" JCT reduction", "(artifact padded)", RefPolicy+" thr. ratio")
		}
		fmt.Fprintf(&b, format, r.Policy,
			ci.Format(Interval(r.FinishedMean, r.FinishedCILo, r.FinishedCIHi, r.Seeds), 1, ""),
			ci.Format(Interval(r.CensoredMeanJCTMean, r.CensoredMeanJCTCILo, r.CensoredMeanJCTCIHi, r.Seeds), 0, ""),
			ci.Format(Interval(r.MeanThroughputMean, r.MeanThroughputCILo, r.MeanThroughputCIHi, r.Seeds), 0, ""),
			ci.Format(optInterval(r.JCTReduction, r.JCTReductionCILo, r.JCTReductionCIHi, r.Seeds), 1, "%"),
			ci.Format(optInterval(r.PaddedJCTReduction, r.PaddedJCTReductionCILo, r.PaddedJCTReductionCIHi, r.Seeds), 1, "%"),
			ci.Format(optInterval(r.ThroughputRatio, r.ThroughputRatioCILo, r.ThroughputRatioCIHi, r.Seeds), 2, "×"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
