package sim

import (
	"math"
	"sort"
)

// radixMin is the length from which sortFloats sorts by radix: below it
// sort.Float64s is as fast.
const radixMin = 1 << 12

// sortFloats sorts x ascending into exactly the order sort.Float64s gives:
// a long list without NaN or negative zero (the values a run's JCT and
// slowdown lists hold) by an LSD radix sort on the values' bits, six
// passes of 11 bits (a million-job run's lists took 0.3 s of comparison
// sorting); anything else by sort.Float64s. The two agree because, on
// such values, the order of the bits mapped as below is the order of the
// numbers and equal numbers have equal bits.
func sortFloats(x []float64) {
	if len(x) < radixMin {
		sort.Float64s(x)
		return
	}
	keys := make([]uint64, len(x))
	for i, v := range x {
		b := math.Float64bits(v)
		if v != v || b == 1<<63 { // NaN, -0
			sort.Float64s(x)
			return
		}
		if b>>63 == 1 {
			b = ^b // negative: larger magnitude first
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	const bits, passes = 11, 6
	var count [passes][1 << bits]int
	for _, k := range keys {
		for p := range passes {
			count[p][k>>(p*bits)&(1<<bits-1)]++
		}
	}
	tmp := make([]uint64, len(x))
	for p := range passes {
		c := &count[p]
		if c[keys[0]>>(p*bits)&(1<<bits-1)] == len(keys) {
			continue // one digit value: the pass moves nothing
		}
		sum := 0
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, k := range keys {
			d := k >> (p * bits) & (1<<bits - 1)
			tmp[c[d]] = k
			c[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		x[i] = math.Float64frombits(b)
	}
}
