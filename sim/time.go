package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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

// ErrDuration is what ParseDuration refuses.
var ErrDuration = errors.New("sim: want a duration: seconds (600, 90s), a Go duration (90m, 1h30m), days (7d, 1.5d, 6d22h40m) or weeks (2w)")

// ParseDuration reads a span of simulated time in every form arena prints
// or documents: bare seconds ("600"), seconds with a unit ("90s",
// "1e+20s"), a Go duration ("16h", "1h30m"), days ("7d", "1.5d"), days
// then a Go duration ("6d22h40m", as Duration.String prints a span of a
// day or more) or weeks ("2w"); a leading sign applies to the whole. It
// is the one duration grammar of flags, spec keys, policy options and
// faults specs (each adds its own bounds), and whatever Duration.String
// prints reads back.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !finite(f) {
			return 0, ErrDuration
		}
		return Duration(f), nil
	}
	sign, body := 1.0, s
	if rest, ok := strings.CutPrefix(body, "-"); ok {
		sign, body = -1, rest
	} else if rest, ok := strings.CutPrefix(body, "+"); ok {
		body = rest
	}
	unsigned := func(v string) (float64, bool) {
		if v == "" || v[0] == '-' || v[0] == '+' {
			return 0, false
		}
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && finite(f)
	}
	if v, ok := strings.CutSuffix(body, "w"); ok {
		if f, ok := unsigned(v); ok {
			return Duration(sign * f * 7 * 86400), nil
		}
		return 0, ErrDuration
	}
	if v, ok := strings.CutSuffix(body, "s"); ok {
		if f, ok := unsigned(v); ok {
			return Duration(sign * f), nil
		}
	}
	total, rest := 0.0, body
	if i := strings.IndexByte(body, 'd'); i >= 0 {
		f, ok := unsigned(body[:i])
		if !ok {
			return 0, ErrDuration
		}
		total, rest = f*86400, body[i+1:]
	} else if body == "" {
		return 0, ErrDuration
	}
	if rest != "" {
		if rest[0] == '-' || rest[0] == '+' {
			return 0, ErrDuration
		}
		d, err := time.ParseDuration(rest)
		if err != nil {
			return 0, ErrDuration
		}
		total += d.Seconds()
	}
	if !finite(total) {
		return 0, ErrDuration
	}
	return Duration(sign * total), nil
}
