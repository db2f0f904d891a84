package estimator

import (
	"math"
	"math/big"
	"strconv"
)

// PyRound reproduces Python's round(x, digits) for floats: the decimal
// nearest to the exact binary value of x, ties to even. strconv's 'f'
// formatting rounds the exact binary value the same way, so the round trip
// through text is bit-exact with CPython (math.Round(x*1000)/1000 is not:
// x*1000 is itself rounded).
func PyRound(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// powCorrect returns base**n for a small non-negative integer n, correctly
// rounded to float64, as glibc's pow (which CPython's ** calls) returns for
// these arguments. Go's math.Pow multiplies in steps and can be one ulp off.
func powCorrect(base float64, n int) float64 {
	acc := new(big.Float).SetPrec(256).SetFloat64(1)
	b := new(big.Float).SetPrec(256).SetFloat64(base)
	for i := 0; i < n; i++ {
		acc.Mul(acc, b)
	}
	f, _ := acc.Float64()
	return f
}
