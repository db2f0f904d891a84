package sim

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Duration.String at its bounds: whole spans up to 2^53 s as days, hours,
// minutes and seconds; past that (either sign) the number of seconds, and
// NaN and infinities as themselves. Before, a span past 2^63 s rounded to
// int64 overflowed and printed "--8s" (quota's grace=1e20 echoed so).
func TestDurationStringAtBounds(t *testing.T) {
	for d, want := range map[Duration]string{
		0: "0s", 1: "1s", 59.4: "59s", 59.5: "1m", 86399: "23h59m59s", 86400: "1d", -90: "-1m30s",
		MaxWholeSeconds - 1:    "104249991374d7h36m31s",
		MaxWholeSeconds:        "9.007199254740992e+15s",
		-MaxWholeSeconds:       "-9.007199254740992e+15s",
		1 << 63:                "9.223372036854776e+18s",
		1e20:                   "1e+20s",
		-1e20:                  "-1e+20s",
		math.MaxFloat64:        "1.7976931348623157e+308s",
		Duration(math.Inf(1)):  "+Inf",
		Duration(math.Inf(-1)): "-Inf",
		Duration(math.NaN()):   "NaN",
	} {
		got := d.String()
		if got != want {
			t.Errorf("Duration(%v).String() = %q, want %q", float64(d), got, want)
		}
		if strings.Contains(got, "--") {
			t.Errorf("Duration(%v).String() = %q: a double sign", float64(d), got)
		}
	}
	// Past the whole range the seconds read back exactly.
	for _, d := range []Duration{MaxWholeSeconds, 1 << 63, 1e20, -1e300} {
		s := strings.TrimSuffix(d.String(), "s")
		if f, err := strconv.ParseFloat(s, 64); err != nil || Duration(f) != d {
			t.Errorf("%v: %q reads back as %v, %v", float64(d), d.String(), f, err)
		}
	}
}

// ParseDuration is the one duration grammar: every span Duration.String
// prints reads back (property over whole seconds up to 400 days, both
// signs), every documented form of flags, specs, policy options and
// faults specs keeps its meaning, and malformed text is refused.
func TestParseDurationReadsWhatStringPrints(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := Duration(rapid.Int64Range(-400*86400, 400*86400).Draw(t, "seconds"))
		got, err := ParseDuration(d.String())
		if err != nil || got != d {
			t.Fatalf("%v printed %q reads back as %v, %v", float64(d), d.String(), got, err)
		}
	})
	for in, want := range map[string]Duration{
		"600": 600, " 600 ": 600, "90s": 90, "1.5s": 1.5, "1e+20s": 1e20, "16h": 57600, "1h30m": 5400, "30m": 1800,
		"7d": 604800, "1.5d": 129600, "6d22h40m": 600000, "2d12h": 216000, "2w": 1209600, "-1d2h": -93600, "-90s": -90,
	} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "w", "s", "1d-2h", "1d+2h", "xd1h", "1dd", "7 d", "1d2", "NaN", "NaNd", "Infw", "--1d", "1w2d", "h"} {
		if got, err := ParseDuration(bad); err == nil {
			t.Errorf("%q: accepted as %v", bad, got)
		}
	}
}
