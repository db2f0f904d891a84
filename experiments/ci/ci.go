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
func Describe(m Method, n int, unit string) string {
	if m == "" {
		m = T
	}
	s := fmt.Sprintf("%.0f %% %s over %d %s", Level*100, m, n, plural(n, unit))
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
