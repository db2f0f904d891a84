package placement

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/sim"
)

// bestFitByMap is bestFit's definition as first written (a map per
// level): the group with the fewest of the nodes among those with at
// least need, ties to the lowest group; its first need nodes in order.
func bestFitByMap(c *sim.Cluster, k int, nodes []int, need int) []int {
	count := map[int]int{}
	for _, n := range nodes {
		count[groupAt(c, k, n)]++
	}
	best, bestN := -1, 0
	for g, m := range count {
		if m >= need && (best < 0 || m < bestN || m == bestN && g < best) {
			best, bestN = g, m
		}
	}
	if best < 0 {
		return nil
	}
	var pick []int
	for _, n := range nodes {
		if groupAt(c, k, n) == best && len(pick) < need {
			pick = append(pick, n)
		}
	}
	return pick
}

// TestBestFitArray: bestFit (counts in an array per group) picks what its
// definition (bestFitByMap) picks, on two pools with multi-node domains,
// racks and pods, for candidate nodes in any order.
func TestBestFitArray(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "b", Pools: []sim.Pool{{GPU: "h100", Nodes: 20, GPUsPerNode: 8}, {GPU: "a100", Nodes: 12, GPUsPerNode: 4}},
		Topology: &sim.Topology{DomainNodes: 2, Tiers: []sim.Tier{{Name: "rack", Nodes: 4, Oversubscription: 1}, {Name: "pod", Nodes: 8, Oversubscription: 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		nodes := rapid.SliceOfDistinct(rapid.IntRange(0, len(c.Nodes)-1), func(n int) int { return n }).Draw(rt, "nodes")
		need := rapid.IntRange(1, 9).Draw(rt, "need")
		for _, k := range []int{LevelDomain, 0, 1} {
			if got, want := bestFit(c, k, nodes, need), bestFitByMap(c, k, nodes, need); !slices.Equal(got, want) {
				rt.Fatalf("level %d, need %d, nodes %v: bestFit %v, by definition %v", k, need, nodes, got, want)
			}
		}
	})
}
