package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestShapeOfSmallMatchesMapVersion: the allocation-free ShapeOf used for
// up to 64 slots agrees with the map-based check (the original code, kept
// for longer lists) on random slot lists — repeated slots, mixed types,
// uneven nodes, out-of-range slots included; SameGPUs likewise agrees with
// its map-based definition.
func TestShapeOfSmallMatchesMapVersion(t *testing.T) {
	c, err := NewCluster(ClusterSpec{Name: "mix", Pools: []Pool{{GPU: "a100", Nodes: 3, GPUsPerNode: 4}, {GPU: "v100", Nodes: 2, GPUsPerNode: 8}, {GPU: "a40", Nodes: 4, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sameMap := func(a, b []int) bool {
		if len(a) != len(b) {
			return false
		}
		in := map[int]bool{}
		for _, s := range a {
			in[s] = true
		}
		for _, s := range b {
			if !in[s] {
				return false
			}
		}
		return true
	}
	valid := 0
	for range 20000 {
		n := 1 + rng.IntN(12)
		slots := make([]int, n)
		base := rng.IntN(c.NumSlots())
		for i := range slots {
			switch rng.IntN(10) {
			case 0:
				slots[i] = rng.IntN(c.NumSlots()+4) - 2 // sometimes out of range
			default:
				slots[i] = (base + rng.IntN(9)) % c.NumSlots() // clustered: often a grid
			}
		}
		got, gok := c.ShapeOf(slots)
		want, wok := estimator.Config{}, false
		if slots[0] >= 0 && slots[0] < c.NumSlots() {
			want, wok = c.shapeOfLarge(slots)
		}
		if got != want || gok != wok {
			t.Fatalf("ShapeOf(%v) = %v %v, map version %v %v", slots, got, gok, want, wok)
		}
		if gok {
			valid++
		}
		other := append([]int(nil), slots...)
		rng.Shuffle(len(other), func(i, j int) { other[i], other[j] = other[j], other[i] })
		if rng.IntN(2) == 0 {
			other[rng.IntN(n)] = rng.IntN(c.NumSlots())
		}
		if SameGPUs(slots, other) != sameMap(slots, other) {
			t.Fatalf("SameGPUs(%v, %v) = %v, map version %v", slots, other, SameGPUs(slots, other), sameMap(slots, other))
		}
	}
	if valid < 1000 {
		t.Errorf("only %d of 20000 random lists were grids; the test needs more", valid)
	}
}
