package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMinFloatIsMathMin: minFloat is math.Min bit for bit (the reference),
// on the special values (signed zeros, infinities, NaN, subnormals) in
// every pair and on random pairs, equal ones included. Fails if the
// ordered cases were decided wrong or if signed zeros or NaN took them.
func TestMinFloatIsMathMin(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324, math.MaxFloat64, 0.1, 300}
	check := func(x, y float64) {
		if got, want := minFloat(x, y), math.Min(x, y); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("minFloat(%v, %v) = %v (%016x), math.Min %v (%016x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	for _, x := range special {
		for _, y := range special {
			check(x, y)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		x := math.Float64frombits(r.Uint64())
		y := x
		if r.IntN(4) > 0 {
			y = math.Float64frombits(r.Uint64())
		}
		check(x, y)
	}
}
