package input

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClipBytes is how much of a value an error message echoes at most.
const ClipBytes = 64

// Clip renders a value for an error message: cut to ClipBytes (on a rune
// boundary, the full length said), quoted, with control, bidi and
// zero-width characters escaped (strconv.Quote escapes every rune that is
// not printable, and Unicode's format characters — bidi overrides,
// zero-width joiners — are not). Every error that echoes what a user or a
// file gave goes through it, so no message grows with its input or drives
// the terminal.
func Clip(s string) string { return ClipTo(s, ClipBytes) }

// ShowBytes is how much of a longer value a user must read to judge it
// (a command a spec would run, a message a policy sent) is shown.
const ShowBytes = 300

// ClipTo is Clip cut to max bytes instead of ClipBytes.
func ClipTo(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// MaxTime bounds times in seconds (submission, deadline) in every trace
// and table: about 317 years, above Unix timestamps in seconds (≈1.7e9,
// Helios uses them) and below timestamps in milliseconds, the usual
// mistake. Above it float64 seconds lose sub-second precision and
// shifted times silently change JCTs.
const MaxTime = 1e10

// ErrName is what a bad id or name unwraps to.
var ErrName = errors.New("input: bad name")

// Name checks an id or a name read from an input (job id, model, user,
// virtual cluster, GPU type): UTF-8, at most FieldCap bytes, and no
// control, bidi-override or zero-width characters (Unicode categories Cc
// and Cf), which would reach terminals, logs and file names. The artifact
// CSV and the canonical table both call it: one rule for names.
func Name(s string) error {
	if max := FieldCap.Value(); int64(len(s)) > max {
		return nameError(fmt.Sprintf("%d bytes, over the field cap of %d (raise it with %s=N)", len(s), max, FieldCap.Env))
	}
	if !utf8.ValidString(s) {
		return nameError(Clip(s) + " is not UTF-8 text")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.In(r, unicode.Cc, unicode.Cf) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return nameError(fmt.Sprintf("%s holds %U (a control, bidi or zero-width character); ids and names appear in results, logs and terminals", Clip(s), r))
	}
	return nil
}

type nameError string

func (e nameError) Error() string        { return string(e) }
func (e nameError) Is(target error) bool { return target == ErrName }

// Time checks a time in seconds: finite, ≥ 0 and at most MaxTime.
func Time(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return errors.New("not finite")
	case v < 0:
		return errors.New("negative time")
	case v > MaxTime:
		return fmt.Errorf("over %g s (317 years; milliseconds instead of seconds?)", float64(MaxTime))
	}
	return nil
}

// Count is the one rule for a count a user or a file names (copies, jobs,
// queues, runs, parallelism …): at least min and at most cap's value,
// checked before anything is allocated; nil cap is CountCap. what names
// the count ("--jobs", "tile copies"). Above the cap the error is a
// *LimitError saying how to raise it.
func Count(what string, n, min int64, cap *Cap) error {
	if cap == nil {
		cap = CountCap
	}
	if n < min {
		return fmt.Errorf("%s %d: want at least %d", what, n, min)
	}
	if max := cap.Value(); n > max {
		return &LimitError{Cap: cap, Max: max, What: what + " " + strconv.FormatInt(n, 10)}
	}
	return nil
}

// CountRange is Count with fixed bounds (no environment variable raises
// them): parallelism, queues, sizes whose ceiling is a design limit.
func CountRange(what string, n, min, max int64) error {
	if n < min || n > max {
		return fmt.Errorf("%s %d: want %d to %d", what, n, min, max)
	}
	return nil
}

// Product is a*b, or math.MaxInt64 when it overflows: a count that is a
// product (copies × jobs, runs × seeds) is checked without wrapping.
func Product(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Sum is a+b for counts ≥ 0, or math.MaxInt64 when it overflows.
func Sum(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Range checks a real value a user names: finite and in [lo, hi] (either
// bound NaN for none). NaN and ±Inf are always refused.
func Range(what string, v, lo, hi float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s %v: want a finite number", what, v)
	}
	if !math.IsNaN(lo) && v < lo || !math.IsNaN(hi) && v > hi {
		switch {
		case math.IsNaN(hi):
			return fmt.Errorf("%s %v: want at least %v", what, v, lo)
		case math.IsNaN(lo):
			return fmt.Errorf("%s %v: want at most %v", what, v, hi)
		}
		return fmt.Errorf("%s %v: want a value in [%v, %v]", what, v, lo, hi)
	}
	return nil
}

// ClipError renders an error from elsewhere (a library, a child process)
// for a message: at most 4×ClipBytes, control and format characters
// escaped, no quotes added.
func ClipError(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	n := len(s)
	if n > 4*ClipBytes {
		cut := 4 * ClipBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	q = strings.ReplaceAll(q, `\"`, `"`)
	if n > len(s) {
		q += fmt.Sprintf("… (%d bytes)", n)
	}
	return q
}

// Errorf is fmt.Errorf for messages that echo input: every string
// argument is clipped — %q as Clip does (quoted, cut to ClipBytes), %s and
// %v escaped and cut to 16×ClipBytes, enough for a list of known names —
// so an error path need not remember which of its values came from a
// user or a file.
func Errorf(format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = clipped(s)
		}
	}
	return fmt.Errorf(format, args...)
}

type clipped string

func (c clipped) Format(f fmt.State, verb rune) {
	s := string(c)
	if verb == 'q' {
		io.WriteString(f, Clip(s))
		return
	}
	max := 16 * ClipBytes
	n := len(s)
	if n > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	q = strings.ReplaceAll(q, `\\`, `\`)
	io.WriteString(f, q)
	if n > len(s) {
		fmt.Fprintf(f, "… (%d bytes)", n)
	}
}
