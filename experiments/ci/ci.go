package ci

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

const (
	// Resamples is the bootstrap's fixed resample count.
	Resamples = 10000
	// Level is the interval's confidence level.
	Level = 0.95
	// seed fixes the resampling generator (any constant would do).
	seed = 0x5eed_c1
)

// Interval is a mean with its bootstrap confidence interval.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// Bootstrap returns the mean of xs and its 95 % percentile-bootstrap
// interval. NaN values are ignored; with fewer than two values left the
// bounds are NaN (and the mean NaN when none is left).
func Bootstrap(xs []float64) Interval {
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
