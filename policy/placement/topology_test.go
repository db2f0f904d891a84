package placement

import (
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Hand-worked cases on 8 A100 nodes × 4 GPUs: racks of 2 nodes, pods of 4
// (racks {0,1} {2,3} {4,5} {6,7}; pods {0–3} {4–7}).
func topoTable(t *testing.T, busyNodes ...int) *Table {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 8, GPUsPerNode: 4}},
		Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 2}, {Name: "pod", Nodes: 4, Oversubscription: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	for _, n := range busyNodes {
		for s := 4 * n; s < 4*n+4; s++ {
			occ[s] = 99
		}
	}
	return NewTable(c, occ)
}

func nodesOf(slots []int) []int {
	var ns []int
	for _, s := range slots {
		if n := s / 4; !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

func TestPlacePacked(t *testing.T) {
	two := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}
	four := estimator.Config{GPU: "a100", Nodes: 4, PerNode: 4}
	cases := []struct {
		name  string
		busy  []int
		shape estimator.Config
		max   int
		want  []int
	}{
		// Node 1 busy: rack {0,1} has one free node; the best-fitting whole
		// rack is the first of {2,3} {4,5} {6,7}.
		{"a 2-node job takes one whole rack, not node 0 with another", []int{1}, two, LevelCluster, []int{2, 3}},
		// Nodes 1, 3, 5, 7 busy: no rack has 2 free nodes; pods {0–3}
		// and {4–7} have 2 each (0, 2 and 4, 6): the first in node order.
		{"no free rack: a pod with the fewest free nodes that fit", []int{1, 3, 5, 7}, two, LevelCluster, []int{0, 2}},
		// Nodes 1, 3, 5 busy: pod {4–7} has 3 free nodes, pod {0–3} 2,
		// but rack {6,7} is whole: the rack level wins.
		{"a free rack beats a best-fitting pod", []int{1, 3, 5}, two, LevelCluster, []int{6, 7}},
		{"required rack with no free rack: nothing", []int{1, 3, 5, 7}, two, 0, nil},
		// Nodes 1, 2, 5 busy: no pod has 4 free; spread over the fullest
		// pod (4–7: 3 free) first, then the other.
		{"spread when no pod fits: fullest pod first", []int{1, 2, 5}, four, LevelCluster, []int{0, 4, 6, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			slots, ok := topoTable(t, c.busy...).PlaceWithin(1, c.shape, c.max)
			if got := nodesOf(slots); ok != (c.want != nil) || !slices.Equal(got, c.want) {
				t.Fatalf("nodes %v (%v), want %v", got, ok, c.want)
			}
		})
	}
}

// TestPlacePackedWithoutTopology: on a cluster without a topology it is
// PlaceMostFree, slot for slot.
func TestPlacePackedWithoutTopology(t *testing.T) {
	c, _ := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 4, GPUsPerNode: 4}}})
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	occ[0], occ[5], occ[6] = 7, 7, 7
	shape := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 2}
	a, okA := NewTable(c, occ).PlacePacked(1, shape)
	b, okB := NewTable(c, occ).PlaceMostFree(1, shape)
	if okA != okB || !slices.Equal(a, b) {
		t.Fatalf("packed %v, most free %v", a, b)
	}
}
