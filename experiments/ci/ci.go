package ci

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

const (
	// Resamples is the bootstrap's fixed resample count.
	Resamples = 10000
	// Level is the interval's confidence level.
	Level = 0.95
	// FewSeeds is the sample size below which an interval is flagged: with
	// fewer than 5 values a t-interval's coverage rests wholly on the
	// values being near normal, and it is very wide (t(0.975, 2) = 4.30).
	FewSeeds = 5
	// seed fixes the resampling generator (any constant would do).
	seed = 0x5eed_c1
)

// Method names how an interval was computed.
type Method string

const (
	// T is the Student-t interval mean ± t(0.975, n−1)·s/√n: exact
	// coverage for normal values, close to it for the mildly skewed
	// per-seed means and paired differences of a sweep (measured in
	// TestCoverage and docs/statistics.md).
	T Method = "t-interval"
	// PercentileBootstrap is the percentile bootstrap, kept to show how
	// it under-covers at few seeds (it is [min, max] at 3 seeds).
	PercentileBootstrap Method = "percentile bootstrap"
)

// Interval is a mean with its confidence interval over N values.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
	Method       Method
}

// Describe names an interval method and sample size for an output line:
// "95 % t-interval over 5 seeds", with a warning appended when fewer than
// FewSeeds values support it.
func Describe(m Method, n int, unit string) string { return DescribeOver(m, n, unit, "") }

// DescribeOver is Describe naming what the values are draws of: "95 %
// t-interval over 5 seeds (draws of 200 jobs from philly-pollux window
// 35d–37d)"; population "" names nothing.
func DescribeOver(m Method, n int, unit, population string) string {
	if m == "" {
		m = T
	}
	s := fmt.Sprintf("%.0f %% %s over %d %s", Level*100, m, n, plural(n, unit))
	if population != "" {
		s += " (" + population + ")"
	}
	if n >= 2 && n < FewSeeds {
		s += fmt.Sprintf(" (⚠ fewer than %d %ss: a wide interval that assumes near-normal values)", FewSeeds, unit)
	}
	return s
}

func plural(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}

// finite drops NaN values.
func finite(xs []float64) []float64 {
	vals := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			vals = append(vals, x)
		}
	}
	return vals
}

// TInterval returns the mean of xs and its 95 % Student-t interval.
// NaN values are ignored; with fewer than two values left the bounds are
// NaN (and the mean NaN when none is left). For paired comparisons pass
// the per-seed differences or ratios: the interval is then the paired one.
func TInterval(xs []float64) Interval {
	vals := finite(xs)
	iv := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: len(vals), Method: T}
	if len(vals) == 0 {
		return iv
	}
	iv.Mean = mean(vals)
	n := len(vals)
	if n < 2 {
		return iv
	}
	ss := 0.0
	for _, v := range vals {
		ss += (v - iv.Mean) * (v - iv.Mean)
	}
	se := math.Sqrt(ss / float64(n-1) / float64(n))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-Level)/2)
	iv.Lo, iv.Hi = iv.Mean-q*se, iv.Mean+q*se
	return iv
}

// Bootstrap returns the mean of xs and its 95 % percentile-bootstrap
// interval. NaN values are ignored; with fewer than two values left the
// bounds are NaN (and the mean NaN when none is left). It under-covers at
// the usual 3–10 seeds (TestCoverage); reports use TInterval.
func Bootstrap(xs []float64) Interval {
	vals := finite(xs)
	iv := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: len(vals), Method: PercentileBootstrap}
	if len(vals) == 0 {
		return iv
	}
	iv.Mean = mean(vals)
	if len(vals) < 2 {
		return iv
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(vals))))
	means := make([]float64, Resamples)
	n := len(vals)
	for b := range means {
		sum := 0.0
		for range n {
			sum += vals[r.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	alpha := (1 - Level) / 2
	iv.Lo, iv.Hi = quantile(means, alpha), quantile(means, 1-alpha)
	return iv
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile of sorted xs with linear interpolation (numpy's default).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Format renders an interval for a report cell: "49.1% [46.3, 51.8]" with
// percent (values are fractions, shown ×100), "1.55× [1.49, 1.61]" with
// unit "×", or "41648 [40120, 43310]" with unit "" — digits after the
// point. Without an interval (one seed) only the value is printed.
func Format(iv Interval, digits int, unit string) string {
	if math.IsNaN(iv.Mean) {
		return "–"
	}
	scale := 1.0
	if unit == "%" {
		scale = 100
	}
	f := func(v float64) string { return strconv.FormatFloat(v*scale, 'f', digits, 64) }
	s := f(iv.Mean) + unit
	if !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) {
		s += fmt.Sprintf(" [%s, %s]", f(iv.Lo), f(iv.Hi))
	}
	return s
}

// LogRatioInterval is the interval for ratios (a paired throughput ratio
// a_s/b_s per seed): the Student-t interval of their logarithms, mapped
// back with exp. Mean is then the geometric mean exp(mean ln x), and the
// interval [exp(lo), exp(hi)] is symmetric on the log scale: a ratio of
// 2 in one seed and 1/2 in another averages to 1, not to 1.25 as the
// arithmetic mean of the ratios would have it. NaN and non-positive
// ratios (no log) are left out, as NaN values are by TInterval.
func LogRatioInterval(ratios []float64) Interval {
	logs := make([]float64, 0, len(ratios))
	for _, x := range ratios {
		if x > 0 && !math.IsInf(x, 1) {
			logs = append(logs, math.Log(x))
		}
	}
	iv := TInterval(logs)
	iv.Mean, iv.Lo, iv.Hi = math.Exp(iv.Mean), math.Exp(iv.Lo), math.Exp(iv.Hi)
	return iv
}

// TTestP is the two-sided p-value of the one-sample Student-t test that
// the mean of xs is 0 (NaN values ignored): 2·(1 − F(|t|)), F the
// Student-t CDF with n−1 degrees of freedom and t = mean / (s/√n). It is
// below 1 − Level exactly when TInterval(xs) excludes 0. For ratios pass
// their logarithms (the test that the geometric mean is 1). NaN with
// fewer than two values; 0 when every value is the same non-zero number,
// 1 when every value is 0.
func TTestP(xs []float64) float64 {
	vals := finite(xs)
	n := len(vals)
	if n < 2 {
		return math.NaN()
	}
	m := mean(vals)
	ss := 0.0
	for _, v := range vals {
		ss += (v - m) * (v - m)
	}
	se := math.Sqrt(ss / float64(n-1) / float64(n))
	switch {
	case se == 0 && m == 0:
		return 1
	case se == 0:
		return 0
	}
	t := math.Abs(m / se)
	return 2 * (1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.CDF(t))
}

// LogRatioP is TTestP of the logarithms of ratios (non-positive ones left
// out, as in LogRatioInterval): the test that their geometric mean is 1.
func LogRatioP(ratios []float64) float64 {
	logs := make([]float64, 0, len(ratios))
	for _, x := range ratios {
		if x > 0 && !math.IsInf(x, 1) {
			logs = append(logs, math.Log(x))
		}
	}
	return TTestP(logs)
}

// Holm returns Holm's step-down adjusted p-values of a family of tests,
// in the order given: sort the m p-values ascending, p(1) ≤ … ≤ p(m);
// the adjusted p(i) is max over j ≤ i of min(1, (m − j + 1)·p(j)). A test
// is significant at family-wise error rate α when its adjusted p-value is
// ≤ α: the step-down rejects p(1) ≤ α/m, then p(2) ≤ α/(m−1), … and
// stops at the first that fails. NaN p-values (no test) are not part of
// the family and stay NaN.
func Holm(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(ps[a], ps[b]) })
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m, running := len(idx), 0.0
	for j, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-j)*ps[i]))
		out[i] = running
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FalsePositives is the expected number of intervals of a family of n
// that exclude no effect when there is none, each at Level: n·(1 − Level).
func FalsePositives(n int) float64 { return float64(n) * (1 - Level) }

// GroupMeans is the first stage of a two-stage (cluster-means) interval:
// the mean of each group's values (a window's seeds), NaN ones left out;
// a group with none left gives no mean. With geometric set, each group's
// geometric mean exp(mean ln x) over its positive finite values (ratios,
// as LogRatioInterval takes them). In group order.
func GroupMeans(groups [][]float64, geometric bool) []float64 {
	var out []float64
	for _, g := range groups {
		var vals []float64
		for _, x := range g {
			switch {
			case math.IsNaN(x):
			case !geometric:
				vals = append(vals, x)
			case x > 0 && !math.IsInf(x, 1):
				vals = append(vals, math.Log(x))
			}
		}
		if len(vals) == 0 {
			continue
		}
		m := mean(vals)
		if geometric {
			m = math.Exp(m)
		}
		out = append(out, m)
	}
	return out
}

// TwoStage is the interval over groups whose members are not independent
// draws (the seeds of one synthesised window share its source jobs): the
// Student-t interval of the group means (GroupMeans), N the number of
// groups. For ratios (geometric) the group geometric means go through
// LogRatioInterval.
func TwoStage(groups [][]float64, geometric bool) Interval {
	if geometric {
		return LogRatioInterval(GroupMeans(groups, true))
	}
	return TInterval(GroupMeans(groups, false))
}

// TwoStageP is the two-sided p-value of TwoStage's test against no
// difference: TTestP of the group means (LogRatioP of the geometric ones).
func TwoStageP(groups [][]float64, geometric bool) float64 {
	if geometric {
		return LogRatioP(GroupMeans(groups, true))
	}
	return TTestP(GroupMeans(groups, false))
}

// DescribeNested names a two-stage interval for an output line: "95 %
// t-interval over 3 windows of philly-pollux (35d–37d, 45d–47d,
// 55d–57d), 5 seeds each", of being what follows "of"; with the warning
// of DescribeOver when fewer than FewSeeds groups support it.
func DescribeNested(n int, unit, of string) string {
	s := fmt.Sprintf("%.0f %% %s over %d %s", Level*100, T, n, plural(n, unit))
	if of != "" {
		s += " of " + of
	}
	if n >= 2 && n < FewSeeds {
		s += fmt.Sprintf(" (⚠ fewer than %d %ss: a wide interval that assumes near-normal %s means)", FewSeeds, unit, unit)
	}
	return s
}
