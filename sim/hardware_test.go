package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestShapeOfSmallMatchesMapVersion: ShapeOf on up to 12 slots (sorted on
// the stack, no allocation) agrees with the map-based check (shapeOfMap)
// on random slot lists — repeated slots, mixed types,
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
			want, wok = c.shapeOfMap(slots)
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

// shapeOfMap is the map-based ShapeOf (the original code), the definition
// ShapeOf's sorted copy is checked against.
func (c *Cluster) shapeOfMap(slots []int) (estimator.Config, bool) {
	gpu := c.Nodes[c.slotNode[slots[0]]].GPU
	perNode := map[int32]int{}
	var order []int32
	for _, s := range slots {
		if s < 0 || s >= len(c.slotNode) {
			return estimator.Config{}, false
		}
		n := c.slotNode[s]
		if c.Nodes[n].GPU != gpu {
			return estimator.Config{}, false
		}
		if perNode[n] == 0 {
			order = append(order, n)
		}
		perNode[n]++
	}
	seen := map[int]bool{}
	for _, s := range slots {
		if seen[s] {
			return estimator.Config{}, false
		}
		seen[s] = true
	}
	q := perNode[order[0]]
	for _, n := range order {
		if perNode[n] != q {
			return estimator.Config{}, false
		}
	}
	return estimator.Config{GPU: gpu, Nodes: len(order), PerNode: q}, true
}

// TestShapeOfLargeMatchesMapVersion: the sorted-copy check of lists longer
// than 64 slots agrees with the map-based definition on random lists of 65
// to 400 slots (whole nodes, so often a grid; repeated slots, mixed types,
// a node short of a GPU, out-of-range slots).
func TestShapeOfLargeMatchesMapVersion(t *testing.T) {
	c, err := NewCluster(ClusterSpec{Name: "mix", Pools: []Pool{{GPU: "h100", Nodes: 40, GPUsPerNode: 8}, {GPU: "a100", Nodes: 30, GPUsPerNode: 4}, {GPU: "a40", Nodes: 20, GPUsPerNode: 8}}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	valid, invalid := 0, 0
	for range 5000 {
		per := []int{1, 2, 4, 8}[rng.IntN(4)]
		nodes := 65/per + 1 + rng.IntN(20)
		first := rng.IntN(len(c.Nodes))
		var slots []int
		for k := range nodes {
			n := c.Nodes[(first+k)%len(c.Nodes)]
			for g := range min(per, n.Capacity) {
				slots = append(slots, n.FirstSlot+g)
			}
		}
		switch rng.IntN(6) {
		case 0:
			slots[rng.IntN(len(slots))] = slots[rng.IntN(len(slots))] // a repeat (or nothing)
		case 1:
			slots = slots[:len(slots)-1] // the last node one short
		case 2:
			slots[rng.IntN(len(slots))] = rng.IntN(c.NumSlots()+4) - 2
		}
		rng.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
		if slots[0] < 0 || slots[0] >= c.NumSlots() {
			continue
		}
		got, gok := c.ShapeOf(slots)
		want, wok := c.shapeOfMap(slots)
		if got != want || gok != wok {
			t.Fatalf("ShapeOf(%v) = %v %v, map version %v %v", slots, got, gok, want, wok)
		}
		if gok {
			valid++
		} else {
			invalid++
		}
	}
	if valid < 300 || invalid < 1000 {
		t.Errorf("%d grids and %d non-grids of 5000 lists; the test needs more of both", valid, invalid)
	}
}

func BenchmarkShapeOf(b *testing.B) {
	c, err := NewCluster(ClusterSpec{Name: "b", Pools: []Pool{{GPU: "h100", Nodes: 1024, GPUsPerNode: 8}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 8, 64, 8192} {
		slots := make([]int, n)
		for i := range slots {
			slots[i] = 8*(i%max(1, n/8)) + i/max(1, n/8)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				if _, ok := c.ShapeOf(slots); !ok {
					b.Fatal("not a grid")
				}
			}
		})
	}
}
