package sim

import (
	"math"
	"strconv"
	"strings"
	"testing"
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
