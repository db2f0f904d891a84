package table

import "strconv"

// parseFloat is strconv.ParseFloat(s, 64) with a shortcut for the forms a
// trace's numbers nearly always take: an optional sign, decimal digits
// and at most one decimal point, no exponent. When those digits, read as
// an integer m, satisfy m ≤ 2^53 and the point leaves k ≤ 22 digits after
// it, the value is m / 10^k with both operands exact in a float64, so the
// one rounding of the division is the correctly rounded result
// ParseFloat returns too (Clinger's fast path, which ParseFloat takes
// itself after its general scan). Everything else — more digits,
// exponents, "inf", hex, errors — goes to ParseFloat.
// FuzzParseFloat checks the two bit for bit.
func parseFloat(s string) (float64, error) {
	if f, ok := fastFloat(s); ok {
		return f, nil
	}
	return strconv.ParseFloat(s, 64)
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat is parseFloat's shortcut; ok is false when s is not of its
// form (the caller then asks strconv).
func fastFloat(s string) (f float64, ok bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > 19 { // m could overflow
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || m > 1<<53 || frac >= len(pow10) {
		return 0, false
	}
	f = float64(m)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}

// parseInt is strconv.ParseInt(s, 10, 64) with a shortcut for an optional
// sign and 1 to 18 decimal digits (which cannot overflow an int64);
// anything else — more digits, underscores, errors — goes to ParseInt.
// FuzzParseInt checks the two against each other.
func parseInt(s string) (int64, error) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	if n := len(s) - i; n < 1 || n > 18 {
		return strconv.ParseInt(s, 10, 64)
	}
	var v int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return strconv.ParseInt(s, 10, 64)
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, nil
}
