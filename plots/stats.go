package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a mean over seeds with its confidence interval.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// Level is the confidence level of the seed figures' intervals.
const Level = 0.95

// TInterval is the mean of xs (NaNs left out) with its two-sided 95 %
// Student-t interval, mean ± t(0.975, n−1)·s/√n. Seeds are few (3–10), and
// the t-interval has its nominal coverage at any n for a normal metric;
// the percentile bootstrap over 3 seeds is just [min, max] (~76 %
// coverage). With fewer than two values the bounds equal the mean.
//
// experiments/ci is to gain the same interval for summary.parquet; until
// the figures can take it from there, it is computed here, with gonum's
// Student-t quantile.
func TInterval(xs []float64) Interval {
	vals := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			vals = append(vals, x)
		}
	}
	iv := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: len(vals)}
	if len(vals) == 0 {
		return iv
	}
	iv.Mean = stat.Mean(vals, nil)
	iv.Lo, iv.Hi = iv.Mean, iv.Mean
	if len(vals) < 2 {
		return iv
	}
	n := float64(len(vals))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-Level)/2)
	hw := q * stat.StdDev(vals, nil) / math.Sqrt(n)
	iv.Lo, iv.Hi = iv.Mean-hw, iv.Mean+hw
	return iv
}

// IntervalName names the seed figures' interval for legends and captions.
func IntervalName(n int) string {
	return "95 % t-interval over " + plural(n, "seed")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
