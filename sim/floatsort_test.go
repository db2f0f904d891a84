package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSortFloatsIsFloat64s checks the mechanism of sortFloats (a radix sort
// on the values' bits) against sort.Float64s, its reference, bit for bit:
// lists long enough for the radix path, of values drawn from pools with
// duplicates, negatives, infinities, subnormals and large exponents, and
// lists holding a NaN or a negative zero (which take sort.Float64s). Not a
// golden: sort.Float64s is the reference.
func TestSortFloatsIsFloat64s(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, 1, -1, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64,
		-math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1e-300, 300, 300.5, 86400}
	for trial := range 60 {
		n := []int{0, 1, 5, radixMin - 1, radixMin, radixMin + 1, 3 * radixMin, 50000}[trial%8]
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(4) {
			case 0:
				x[i] = special[rng.IntN(len(special))]
			case 1:
				x[i] = float64(rng.IntN(1000)) // many equal values
			case 2:
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			default:
				x[i] = rng.ExpFloat64() * 1e5 // JCT-like
			}
		}
		if n > 0 && trial%5 == 4 {
			x[rng.IntN(n)] = []float64{math.NaN(), math.Copysign(0, -1)}[trial%2]
		}
		want := slices.Clone(x)
		sort.Float64s(want)
		sortFloats(x)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(want[i]) && !(math.IsNaN(x[i]) && math.IsNaN(want[i])) {
				t.Fatalf("trial %d (n %d): [%d] = %v, sort.Float64s has %v", trial, n, i, x[i], want[i])
			}
		}
	}
}
