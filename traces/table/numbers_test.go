package table

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// sameAsStrconv fails t unless parseFloat(s) is strconv.ParseFloat(s, 64)
// bit for bit, error or not (the reference is strconv, not this code).
func sameAsStrconv(t *testing.T, s string) {
	t.Helper()
	got, gerr := parseFloat(s)
	want, werr := strconv.ParseFloat(s, 64)
	if (gerr != nil) != (werr != nil) || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseFloat(%q) = %v (%016x), %v; strconv.ParseFloat: %v (%016x), %v",
			s, got, math.Float64bits(got), gerr, want, math.Float64bits(want), werr)
	}
}

// TestParseFloatIsStrconv: the shortcut's edges (2^53 and one past it,
// signed zeros, 19 and 20 digits, a point at either end, exponents, text)
// and a quarter of a million trace-like numbers (the synthesised traces'
// submission times and deadlines: up to 17 significant digits, a point
// anywhere) against strconv.ParseFloat.
func TestParseFloatIsStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "-0.0", "0.", ".0", ".5", "5.", ".", "", "-", "+", "+.", "1.2.3",
		"9007199254740992", "9007199254740993", "-9007199254740993", "900719925474099.3", "90071992547409.93",
		"1234567890123456789", "12345678901234567890", "00000000000000000001", "0.0000000000000000001",
		"0.1", "0.3", "2.5", "1e5", "1E5", "1e-5", "inf", "-Inf", "NaN", "0x10", "1_000", " 1", "1 ",
		"0.9819012899637041", "4884068.48190129", "3360291", "2240194", "1e400", "4.9e-324"} {
		sameAsStrconv(t, s)
	}
	if _, ok := fastFloat("9007199254740993"); ok {
		t.Error("the shortcut took 2^53+1, which a float64 cannot hold")
	}
	if _, ok := fastFloat("4884068.48190129"); !ok {
		t.Error("the shortcut refused a trace's deadline: it would never be taken")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 250_000 {
		var s string
		switch r.IntN(4) {
		case 0: // a submission time: seconds with the shortest digits
			s = strconv.FormatFloat(r.Float64()*2e6, 'f', -1, 64)
		case 1: // a whole number of seconds
			s = strconv.FormatInt(r.Int64N(1<<54), 10)
		case 2: // digits with a point anywhere
			d := strconv.FormatUint(r.Uint64N(1e17), 10)
			p := r.IntN(len(d) + 1)
			s = d[:p] + "." + d[p:]
		default: // few digits, negative
			s = "-" + strconv.FormatFloat(float64(r.IntN(1e6))/float64(r.IntN(1e4)+1), 'f', r.IntN(8), 64)
		}
		sameAsStrconv(t, s)
	}
}

// FuzzParseFloat: parseFloat is strconv.ParseFloat bit for bit on any
// text.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", ".5", "5.", "9007199254740993", "0.9819012899637041", "1e5", "12345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameAsStrconv(t, s) })
}

// sameIntAsStrconv fails t unless parseInt(s) is strconv.ParseInt(s, 10,
// 64): the same value, an error exactly when it errs.
func sameIntAsStrconv(t *testing.T, s string) {
	t.Helper()
	got, gerr := parseInt(s)
	want, werr := strconv.ParseInt(s, 10, 64)
	if (gerr != nil) != (werr != nil) || got != want {
		t.Fatalf("parseInt(%q) = %d, %v; strconv.ParseInt: %d, %v", s, got, gerr, want, werr)
	}
}

// TestParseIntIsStrconv: the shortcut's edges (18 and 19 digits, the
// int64 limits, signs alone, leading zeros, underscores, spaces) and
// random integers of every length against strconv.ParseInt.
func TestParseIntIsStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "7", "-7", "+7", "", "-", "+", "--1", "1-", "007", "1_000", " 1", "1 ", "1.0", "0x10",
		"999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		sameIntAsStrconv(t, s)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		v := r.Int64() >> r.IntN(64)
		if r.IntN(2) == 0 {
			v = -v
		}
		sameIntAsStrconv(t, strconv.FormatInt(v, 10))
	}
}

// FuzzParseInt: parseInt is strconv.ParseInt(s, 10, 64) on any text.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-7", "+7", "999999999999999999", "9223372036854775808", "1_0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameIntAsStrconv(t, s) })
}
