package faults

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/arena-sim/arena/sim"
)

// parseDuration reads a duration of a faults spec: sim.ParseDuration's
// grammar ("90s", "30m", "6h", "14d", "2w", "1h30m", "600"). It refuses
// negative, NaN and infinite values.
func parseDuration(s string) (float64, error) { return ParseDuration(s) }

// ParseDuration reads a duration as a faults spec writes it, in
// sim.ParseDuration's grammar ("90s", "6h", "14d", "2w", "600"), at
// least 0, for the CLI's flags too.
func ParseDuration(s string) (float64, error) {
	d, err := sim.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want a duration: seconds, or a number with s, m, h, d or w (\"90s\", \"6h\", \"14d\")")
	}
	if d < 0 {
		return 0, fmt.Errorf("%v: want a duration ≥ 0", float64(d))
	}
	return float64(d), nil
}

// distKind is a repair, maintenance or return-time distribution.
type distKind int

const (
	distConstant distKind = iota
	distExponential
	distLognormal
)

var distNames = []string{"constant", "exponential", "lognormal"}

// dist is a distribution of durations (seconds), given by its mean; sigma
// is the lognormal's shape (the standard deviation of the log).
type dist struct {
	kind  distKind
	mean  float64
	sigma float64
}

// sample draws one duration. Every draw uses exactly the generator's
// next values, in a fixed order, so a stream replays.
func (d dist) sample(r *rand.Rand) float64 {
	switch d.kind {
	case distExponential:
		return d.mean * r.ExpFloat64()
	case distLognormal:
		// mean = exp(mu + sigma²/2)
		mu := math.Log(d.mean) - d.sigma*d.sigma/2
		return math.Exp(mu + d.sigma*r.NormFloat64())
	}
	return d.mean
}

func (d dist) String() string {
	switch d.kind {
	case distExponential:
		return fmt.Sprintf("exponential, mean %s", showDur(d.mean))
	case distLognormal:
		return fmt.Sprintf("lognormal, mean %s, sigma %g", showDur(d.mean), d.sigma)
	}
	return showDur(d.mean)
}

// showDur renders seconds in the largest whole unit, for messages and
// the preset listing.
func showDur(s float64) string {
	for _, u := range []struct {
		n string
		s float64
	}{{"d", 86400}, {"h", 3600}, {"m", 60}} {
		if s >= u.s && math.Mod(s, u.s) == 0 {
			return strconv.FormatFloat(s/u.s, 'f', -1, 64) + u.n
		}
	}
	if s >= 3600 {
		return strconv.FormatFloat(s/3600, 'g', 4, 64) + "h"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "s"
}

// weibull draws a Weibull(shape k, scale) time by inversion:
// scale·(−ln U)^(1/k). k = 1 is the exponential.
func weibull(r *rand.Rand, k, scale float64) float64 {
	if k == 1 {
		return scale * r.ExpFloat64()
	}
	u := 1 - r.Float64() // in (0, 1]: ln never sees 0
	return scale * math.Pow(-math.Log(u), 1/k)
}
