package sim

import (
	"fmt"
	"math"
	"strconv"
)

// Time is an instant of simulated time in seconds on the trace's clock.
// Duration is a span of simulated seconds. They are distinct types so an
// instant cannot be passed where a span is meant; convert through Add/Sub.
type (
	Time     float64
	Duration float64
)

// Add returns t + d.
func (t Time) Add(d Duration) Time { return t + Time(d) }

// Sub returns the span t − u.
func (t Time) Sub(u Time) Duration { return Duration(t - u) }

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return float64(d) }

// MaxWholeSeconds is the largest span String renders as days, hours,
// minutes and seconds: 2^53 s (285 million years), past which float64
// seconds are no longer whole and int64 arithmetic nears its end.
const MaxWholeSeconds = 1 << 53

// String renders a duration as "3d4h5m6s" (rounded to the second). A
// span of MaxWholeSeconds or more (either sign) is rendered as its number
// of seconds ("1e+20s"), and NaN and infinities as such ("NaN", "+Inf"):
// rounding one to int64 would overflow and print nonsense ("--8s").
func (d Duration) String() string {
	f := float64(d)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'g', -1, 64)
	case math.Abs(f) >= MaxWholeSeconds:
		return strconv.FormatFloat(f, 'g', -1, 64) + "s"
	}
	s := int64(math.Round(f))
	neg := s < 0
	if neg {
		s = -s
	}
	out := ""
	if v := s / 86400; v > 0 {
		out += fmt.Sprintf("%dd", v)
	}
	if v := s % 86400 / 3600; v > 0 {
		out += fmt.Sprintf("%dh", v)
	}
	if v := s % 3600 / 60; v > 0 {
		out += fmt.Sprintf("%dm", v)
	}
	if v := s % 60; v > 0 || out == "" {
		out += fmt.Sprintf("%ds", v)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// ArtifactSecond is a trace time as the artifact's simulator reads it: its
// trace loader parses submission_time and deadline with int()
// (trace_manager.py, _parse_one_entry; the round-0 timer is the first
// row's parsed submission time), which drops the fraction of a second.
// Trace times are ≥ 0, so truncation is the floor. Artifact timing reads
// every trace time through it; exact timing keeps the decimals. On traces
// whose times are whole seconds (every trace the artifact ships) it is the
// identity.
func ArtifactSecond(t Time) Time { return Time(math.Trunc(float64(t))) }
