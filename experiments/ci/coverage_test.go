package ci

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Anchored in statistics, not in this code: draw many samples of a known
// distribution, build the 95 % interval of each and count how often it
// holds the distribution's true mean. A 95 % interval must do so in about
// 95 % of draws; with 4000 draws per cell the binomial standard error at
// 95 % is 0.34 points, so the 93–97 % band is ±6 standard errors.
const coverageDraws = 4000

type dist struct {
	name     string
	draw     func(r *rand.Rand) float64
	trueMean float64
}

var (
	normal = dist{"normal(10, 2)", func(r *rand.Rand) float64 { return 10 + 2*r.NormFloat64() }, 10}
	// Lognormal with σ = 0.5 (skewness 1.75): more skewed than a sweep's
	// per-seed means (each an average over hundreds of jobs) and paired
	// ratios usually are. The asserted one.
	lognormal = dist{"lognormal(0, 0.5)", func(r *rand.Rand) float64 { return math.Exp(0.5 * r.NormFloat64()) }, math.Exp(0.125)}
	// Lognormal with σ = 1 (skewness 6.2): reported, not asserted. No
	// interval on the mean of 10–20 such values covers at 95 % (the t
	// covers about 85 %); docs/statistics.md says so.
	heavyLognormal = dist{"lognormal(0, 1)", func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()) }, math.Exp(0.5)}
)

func coverage(d dist, n, draws int, method func([]float64) Interval) float64 {
	r := rand.New(rand.NewPCG(24, uint64(n)))
	hit := 0
	xs := make([]float64, n)
	for range draws {
		for i := range xs {
			xs[i] = d.draw(r)
		}
		iv := method(xs)
		if iv.Lo <= d.trueMean && d.trueMean <= iv.Hi {
			hit++
		}
	}
	return float64(hit) / float64(draws)
}

var coverageSizes = []int{3, 5, 10, 20}

// TestCoverage: the t-interval covers the true mean in 93–97 % of draws
// from a normal distribution at every n, and in ≥ 90 % from a lognormal
// one at n ≥ 10. It prints the table (go test -v -run Coverage), with the
// percentile bootstrap's coverage beside (500 draws: 10,000 resamples
// each make it slow; only with -v).
func TestCoverage(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "%-18s %-22s", "distribution", "method")
	for _, n := range coverageSizes {
		fmt.Fprintf(&table, " n=%-5d", n)
	}
	table.WriteString("\n")
	for _, d := range []dist{normal, lognormal, heavyLognormal} {
		for _, m := range []struct {
			name  string
			f     func([]float64) Interval
			draws int
		}{{string(T), TInterval, coverageDraws}, {string(PercentileBootstrap), Bootstrap, 500}} {
			if m.draws < coverageDraws && !testing.Verbose() {
				continue // slow (10,000 resamples per interval), and only shown with -v
			}
			fmt.Fprintf(&table, "%-18s %-22s", d.name, m.name)
			for _, n := range coverageSizes {
				c := coverage(d, n, m.draws, m.f)
				fmt.Fprintf(&table, " %5.1f%%", 100*c)
				if m.name != string(T) {
					continue
				}
				if d.name == normal.name && (c < 0.93 || c > 0.97) {
					t.Errorf("t-interval, %s, n = %d: coverage %.1f %%, want 93–97 %%", d.name, n, 100*c)
				}
				if d.name == lognormal.name && n >= 10 && c < 0.90 {
					t.Errorf("t-interval, %s, n = %d: coverage %.1f %%, want ≥ 90 %%", d.name, n, 100*c)
				}
			}
			table.WriteString("\n")
		}
	}
	t.Logf("coverage of the true mean by the 95 %% interval, %d draws per cell (bootstrap 500):\n%s", coverageDraws, table.String())
}

// TestBootstrapUnderCovers documents why the percentile bootstrap was
// replaced: on normal samples of 3 and 5 it misses the 93 % floor (at 3
// seeds it is [min, max], which holds the mean with probability 1 − 2/2³
// = 75 %, minus the resampling's rounding).
func TestBootstrapUnderCovers(t *testing.T) {
	for _, n := range []int{3, 5} {
		if c := coverage(normal, n, 1000, Bootstrap); c >= 0.93 {
			t.Errorf("percentile bootstrap, n = %d: coverage %.1f %%; expected it below 93 %%", n, 100*c)
		}
	}
}

// Hand-worked: {10, 20}: mean 15, s = 7.071, se = 5, t(0.975, 1) = 12.706
// → 15 ± 63.53.
func TestTIntervalTwoPoints(t *testing.T) {
	iv := TInterval([]float64{10, 20})
	if iv.Mean != 15 || math.Abs(iv.Lo-(15-63.5310)) > 1e-3 || math.Abs(iv.Hi-(15+63.5310)) > 1e-3 || iv.N != 2 {
		t.Errorf("TInterval({10,20}) = %+v, want 15 ± 63.531", iv)
	}
	if iv := TInterval([]float64{4, math.NaN()}); iv.Mean != 4 || !math.IsNaN(iv.Lo) || iv.N != 1 {
		t.Errorf("one value: %+v, want mean 4 and no interval", iv)
	}
	if iv := TInterval([]float64{2, 2, 2}); iv.Lo != 2 || iv.Hi != 2 {
		t.Errorf("constant sample: %+v, want [2, 2]", iv)
	}
}

func TestDescribe(t *testing.T) {
	if got := Describe(T, 5, "seed"); got != "95 % t-interval over 5 seeds" {
		t.Errorf("Describe(5) = %q", got)
	}
	if got := Describe(T, 3, "seed"); !strings.Contains(got, "over 3 seeds") || !strings.Contains(got, "⚠") {
		t.Errorf("Describe(3) = %q, want a warning", got)
	}
}
