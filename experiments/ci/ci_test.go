package ci

import (
	"math"
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
