package placement

import (
	"slices"

	"github.com/arena-sim/arena/sim"
)

// PackNodes chooses need of the candidate nodes (distinct, each able to
// take a job's share, in the caller's order of preference) on as few fast
// domains and switch groups as PlacePacked would: from the innermost level
// out, the first level with a group holding need candidates wins, the
// group with the fewest of them (best fit), its candidates in the order
// given; with no group anywhere large enough, the outermost tier's
// fullest groups first. It is for policies that keep their own tables
// (policy/arena); on a cluster without a topology it returns nodes[:need].
// nil when there are fewer than need candidates. nodes is not modified.
func PackNodes(c *sim.Cluster, nodes []int, need int) []int {
	if len(nodes) < need {
		return nil
	}
	top := c.Topology()
	if top == nil || need <= 1 {
		return nodes[:need]
	}
	if pick := bestFit(c, LevelDomain, nodes, need); pick != nil {
		return pick
	}
	for k := range top.Tiers {
		if pick := bestFit(c, k, nodes, need); pick != nil {
			return pick
		}
	}
	k := LevelDomain
	if len(top.Tiers) > 0 {
		k = len(top.Tiers) - 1
	}
	count := map[int]int{}
	for _, n := range nodes {
		count[groupAt(c, k, n)]++
	}
	out := slices.Clone(nodes)
	slices.SortStableFunc(out, func(a, b int) int {
		ga, gb := groupAt(c, k, a), groupAt(c, k, b)
		if count[ga] != count[gb] {
			return count[gb] - count[ga]
		}
		return ga - gb
	})
	return out[:need]
}
