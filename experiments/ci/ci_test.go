package ci

import (
	"math"
	"strings"
	"testing"
)

// Hand-worked: the mean is exact; the bounds of a two-point sample {a, b}
// can only be means of resamples {a,a}, {a,b}, {b,b} = a, (a+b)/2, b, each
// with probability 1/4, 1/2, 1/4, so the 2.5 % and 97.5 % quantiles of
// 10,000 resample means are a and b.
func TestBootstrapTwoPoints(t *testing.T) {
	iv := Bootstrap([]float64{10, 20})
	if iv.Mean != 15 || iv.Lo != 10 || iv.Hi != 20 || iv.N != 2 {
		t.Errorf("Bootstrap({10,20}) = %+v, want mean 15 in [10, 20]", iv)
	}
}

// Properties: the interval holds the mean, stays in the sample's range,
// is deterministic, and shrinks as the sample grows (same spread).
func TestBootstrapProperties(t *testing.T) {
	small := []float64{3, 7, 4, 9, 5}
	var large []float64
	for range 20 {
		large = append(large, small...)
	}
	a, b := Bootstrap(small), Bootstrap(small)
	if a != b {
		t.Fatalf("not deterministic: %+v vs %+v", a, b)
	}
	if !(a.Lo <= a.Mean && a.Mean <= a.Hi && a.Lo >= 3 && a.Hi <= 9) {
		t.Errorf("interval %+v: want 3 ≤ lo ≤ mean ≤ hi ≤ 9", a)
	}
	l := Bootstrap(large)
	if math.Abs(l.Mean-a.Mean) > 1e-12 || !(l.Hi-l.Lo < (a.Hi-a.Lo)/2) {
		t.Errorf("100 values %+v should have the same mean and a much narrower interval than 5 values %+v", l, a)
	}
	// Normal theory for n = 100, sd ≈ 2.15: half-width ≈ 1.96·2.15/10 ≈ 0.42.
	if hw := (l.Hi - l.Lo) / 2; hw < 0.3 || hw > 0.55 {
		t.Errorf("half-width %.3f for 100 values, want ≈ 0.42 (normal approximation)", hw)
	}
}

func TestBootstrapDegenerate(t *testing.T) {
	if iv := Bootstrap([]float64{4}); iv.Mean != 4 || !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) {
		t.Errorf("one value: %+v, want mean 4 and NaN bounds", iv)
	}
	if iv := Bootstrap([]float64{math.NaN()}); !math.IsNaN(iv.Mean) || iv.N != 0 {
		t.Errorf("only NaN: %+v", iv)
	}
	if iv := Bootstrap([]float64{2, 2, 2}); iv.Lo != 2 || iv.Hi != 2 {
		t.Errorf("constant sample: %+v, want [2, 2]", iv)
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		iv     Interval
		digits int
		unit   string
		want   string
	}{
		{Interval{Mean: 0.491, Lo: 0.463, Hi: 0.518}, 1, "%", "49.1% [46.3, 51.8]"},
		{Interval{Mean: 1.554, Lo: 1.49, Hi: 1.61}, 2, "×", "1.55× [1.49, 1.61]"},
		{Interval{Mean: 41648, Lo: math.NaN(), Hi: math.NaN()}, 0, "", "41648"},
		{Interval{Mean: math.NaN()}, 0, "", "–"},
	}
	for _, c := range cases {
		if got := Format(c.iv, c.digits, c.unit); got != c.want {
			t.Errorf("Format(%+v) = %q, want %q", c.iv, got, c.want)
		}
	}
}

// Hand-worked (anchored outside the code): ratios {1/2, 2} have logs
// {−ln 2, ln 2}, mean 0: the geometric mean is exactly 1 (the arithmetic
// mean of the ratios would say 1.25). Ratios {2, 8}: logs ln 2 and 3 ln 2,
// mean 2 ln 2, s = √2 ln 2, s/√n = ln 2; t(0.975, 1) = 12.7062, so the
// interval is 4 · 2^(±12.7062).
func TestLogRatioInterval(t *testing.T) {
	if iv := LogRatioInterval([]float64{0.5, 2}); math.Abs(iv.Mean-1) > 1e-12 || iv.N != 2 {
		t.Errorf("LogRatioInterval({1/2, 2}) = %+v, want geometric mean 1 over 2 values", iv)
	}
	iv := LogRatioInterval([]float64{2, 8})
	lo, hi := 4/math.Pow(2, 12.7062), 4*math.Pow(2, 12.7062)
	if math.Abs(iv.Mean-4) > 1e-12 || math.Abs(iv.Lo/lo-1) > 1e-4 || math.Abs(iv.Hi/hi-1) > 1e-4 {
		t.Errorf("LogRatioInterval({2, 8}) = %+v, want 4 [%.6g, %.6g]", iv, lo, hi)
	}
	// A non-positive ratio has no logarithm: left out, and N says so.
	if iv := LogRatioInterval([]float64{0, 2, 8, math.NaN()}); iv.N != 2 || math.Abs(iv.Mean-4) > 1e-12 {
		t.Errorf("LogRatioInterval with 0 and NaN = %+v, want the {2, 8} interval over 2 values", iv)
	}
}

// Hand-worked: {1, 3} has mean 2, s = √2, s/√2 = 1, t = 2 on 1 degree of
// freedom, where Student's t is the Cauchy distribution: F(2) = 1/2 +
// atan(2)/π, so p = 1 − 2·atan(2)/π = 0.29517. It agrees with the
// interval: p < 0.05 exactly when TInterval excludes 0.
func TestTTestP(t *testing.T) {
	want := 1 - 2*math.Atan(2)/math.Pi
	if p := TTestP([]float64{1, 3}); math.Abs(p-want) > 1e-9 {
		t.Errorf("TTestP({1, 3}) = %.6f, want %.6f", p, want)
	}
	for _, xs := range [][]float64{{1, 3}, {0.1, 0.12, 0.09, 0.11}, {-1, 2, 0.5}, {5, 6, 7, 5.5, 6.5}} {
		iv, p := TInterval(xs), TTestP(xs)
		if excl := iv.Lo > 0 || iv.Hi < 0; excl != (p < 1-Level) {
			t.Errorf("%v: interval [%g, %g] excludes 0: %t, but p = %g", xs, iv.Lo, iv.Hi, excl, p)
		}
	}
	if p := TTestP([]float64{2}); !math.IsNaN(p) {
		t.Errorf("one value: p = %g, want NaN", p)
	}
	if p := TTestP([]float64{0, 0}); p != 1 {
		t.Errorf("all zero: p = %g, want 1", p)
	}
	if p := LogRatioP([]float64{0.5, 2}); math.Abs(p-1) > 1e-12 {
		t.Errorf("LogRatioP({1/2, 2}) = %g, want 1 (logs ±ln 2, mean 0)", p)
	}
}

// Hand-worked Holm: p = {0.01, 0.04, 0.03, 0.005}, m = 4. Sorted 0.005,
// 0.01, 0.03, 0.04 against α/4 = 0.0125, α/3 = 0.0167, α/2 = 0.025, α/1:
// the first two pass, 0.03 fails and the step-down stops, so 0.04 is not
// significant either though it is below α. Adjusted: 4·0.005 = 0.02,
// max(0.02, 3·0.01) = 0.03, max(0.03, 2·0.03) = 0.06, max(0.06, 0.04) =
// 0.06. A NaN is no test: outside the family (m stays 4).
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	var sig []bool
	for _, p := range got {
		sig = append(sig, p <= 1-Level)
	}
	if !(sig[0] && !sig[1] && !sig[3] && sig[4]) {
		t.Errorf("significant after Holm: %v, want 0.01 and 0.005 only", sig)
	}
	// Capped at 1.
	if got := Holm([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm({0.6, 0.7}) = %v, want [1 1]", got)
	}
}

func TestDescribeOver(t *testing.T) {
	if got, want := DescribeOver(T, 5, "seed", "draws of 200 jobs from philly-pollux window 35d–37d"), "95 % t-interval over 5 seeds (draws of 200 jobs from philly-pollux window 35d–37d)"; got != want {
		t.Errorf("DescribeOver = %q, want %q", got, want)
	}
}

// Hand-worked: groups {1, 3}, {5, NaN}, {} and {8, 10}: means 2, 5, 9
// (NaN left out, the empty group gives none); mean 16/3, s = √(37/3)
// = 3.5119, se = 2.0276, t(0.975, 2) = 4.303. Geometric: {1, 4}
// and {2, 8} have geometric means 2 and 4.
func TestTwoStage(t *testing.T) {
	groups := [][]float64{{1, 3}, {5, math.NaN()}, {}, {8, 10}}
	if got := GroupMeans(groups, false); len(got) != 3 || got[0] != 2 || got[1] != 5 || got[2] != 9 {
		t.Errorf("group means %v, want [2 5 9]", got)
	}
	iv := TwoStage(groups, false)
	s := math.Sqrt(((2-16.0/3)*(2-16.0/3) + (5-16.0/3)*(5-16.0/3) + (9-16.0/3)*(9-16.0/3)) / 2)
	half := 4.303 * s / math.Sqrt(3)
	if iv.N != 3 || math.Abs(iv.Mean-16.0/3) > 1e-12 || math.Abs(iv.Lo-(16.0/3-half)) > 1e-2 || math.Abs(iv.Hi-(16.0/3+half)) > 1e-2 {
		t.Errorf("two-stage %+v, want 5.333 ± %.3f over 3", iv, half)
	}
	if g := GroupMeans([][]float64{{1, 4}, {2, 8}}, true); len(g) != 2 || math.Abs(g[0]-2) > 1e-12 || math.Abs(g[1]-4) > 1e-12 {
		t.Errorf("geometric group means %v, want [2 4]", g)
	}
	if r := TwoStage([][]float64{{1, 4}, {2, 8}}, true); math.Abs(r.Mean-math.Sqrt(8)) > 1e-12 || r.N != 2 {
		t.Errorf("two-stage ratio %+v, want √8 over 2", r)
	}
	if d := DescribeNested(3, "window", "x (a, b, c), 2 seeds each"); !strings.HasPrefix(d, "95 % t-interval over 3 windows of x (a, b, c), 2 seeds each (⚠ fewer than 5 windows") {
		t.Errorf("describe %q", d)
	}
}
