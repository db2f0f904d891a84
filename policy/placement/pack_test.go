package placement

import (
	"slices"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// Hand-worked (anchors: the layout counted by hand), on TestPlacePacked's
// 8 nodes in racks of 2 and pods of 4: PackNodes picks from the idle
// nodes given what PlaceWithin picks from the table.
func TestPackNodes(t *testing.T) {
	c := topoTable(t).Cluster
	cases := []struct {
		name string
		idle []int
		need int
		want []int
	}{
		{"a whole rack, not node 0 with another", []int{0, 2, 3, 4, 5, 6, 7}, 2, []int{2, 3}},
		{"no free rack: the pod with the fewest that fit", []int{0, 2, 4, 6}, 2, []int{0, 2}},
		{"a free rack beats a best-fitting pod", []int{0, 2, 4, 6, 7}, 2, []int{6, 7}},
		{"spread when no pod fits: fullest pod first", []int{0, 3, 4, 6, 7}, 4, []int{4, 6, 7, 0}},
		{"one node: the first", []int{5, 2}, 1, []int{5}},
		{"too few: nothing", []int{0, 2}, 3, nil},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			in := slices.Clone(k.idle)
			if got := PackNodes(c, in, k.need); !slices.Equal(got, k.want) {
				t.Fatalf("PackNodes(%v, %d) = %v, want %v", k.idle, k.need, got, k.want)
			}
			if !slices.Equal(in, k.idle) {
				t.Fatalf("PackNodes modified its input: %v", in)
			}
		})
	}
	// Without a topology: the first need nodes, as given.
	flat, _ := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 8, GPUsPerNode: 4}}})
	if got := PackNodes(flat, []int{1, 2, 3, 5}, 3); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("without a topology: %v, want [1 2 3]", got)
	}
}
