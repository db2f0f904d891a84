package placement

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Topology-aware placement (docs/topology.md). A level of a cluster's
// topology is its fast domains (LevelDomain) or one of its switch tiers
// (0, 1, … innermost first); LevelCluster is the whole cluster.
const (
	LevelDomain  = -1
	LevelCluster = 1 << 20
)

// LevelOf returns the level a name denotes on cluster c: "domain", a
// tier's name, or "cluster"; ok is false for another name.
func LevelOf(c *sim.Cluster, name string) (int, bool) {
	switch name {
	case "domain":
		return LevelDomain, true
	case "cluster":
		return LevelCluster, true
	}
	if top := c.Topology(); top != nil {
		for k, t := range top.Tiers {
			if t.Name == name {
				return k, true
			}
		}
	}
	return 0, false
}

// groupAt is node n's group at level k.
func groupAt(c *sim.Cluster, k, n int) int {
	switch {
	case k == LevelDomain:
		return c.DomainOf(n)
	case k == LevelCluster:
		return 0
	}
	return c.GroupOf(k, n)
}

// PlacePacked places shape c on as few fast domains and switch groups as
// the idle GPUs allow: from the innermost level out, the first level with
// a group holding c.Nodes nodes of c.PerNode idle GPUs wins, and of its
// groups the one with the fewest such nodes (best fit: large groups stay
// whole for large jobs; ties in node order); inside it, the nodes with the
// most idle GPUs, as PlaceMostFree. With no group anywhere large enough it
// takes nodes group by group, the outermost tier's fullest groups first.
// On a cluster without a topology it is PlaceMostFree, unchanged.
func (t *Table) PlacePacked(job sim.JobID, c estimator.Config) ([]int, bool) {
	return t.PlaceWithin(job, c, LevelCluster)
}

// PlaceWithin is PlacePacked confined to one group of level max (Kueue's
// required topology level): it fails rather than span two groups of that
// level. LevelCluster: no confinement.
func (t *Table) PlaceWithin(job sim.JobID, c estimator.Config, max int) ([]int, bool) {
	top := t.Cluster.Topology()
	if top == nil {
		if max != LevelCluster && max != LevelDomain || max == LevelDomain && c.Nodes > 1 {
			return nil, false // without a topology every node is its own domain
		}
		return t.PlaceMostFree(job, c)
	}
	if c.Nodes < 1 || c.PerNode < 1 || t.countFree(c.GPU, c.PerNode) < c.Nodes {
		return nil, false
	}
	// From the innermost level out, bestFit's group read off the group
	// index (groupindex.go): the work is the buckets' words up to the
	// first group with room and that group's nodes, not every candidate.
	ix := t.index()
	gi := ix.groups()
	ty := ix.shape.types[c.GPU]
	for lv, k := range gi.levels {
		if max != LevelCluster && k > max {
			break
		}
		if g := gi.bestGroup(ty, lv, c.PerNode, c.Nodes); g >= 0 {
			return t.takeNodes(job, gi.pick(ix, lv, g, c.PerNode, c.Nodes), c.PerNode)
		}
	}
	if max != LevelCluster {
		return nil, false
	}
	// Spread: fullest outermost groups first (lowest first among equals),
	// each group's nodes in most-free order, read off the outermost
	// level's buckets: the work is the buckets' words and the nodes of
	// the groups taken, not every node with room.
	nodes := gi.spread(ix, len(gi.levels)-1, ty, c.PerNode, c.Nodes)
	return t.takeNodes(job, nodes[:c.Nodes], c.PerNode)
}

// bestFit returns the first need nodes (in the order given) of the group
// of level k with the fewest of the nodes among those with at least need
// (ties: the lowest group); nil when no group has need. The nodes are
// counted per group in an array indexed by group (O(nodes + groups), no
// map: it runs for every level of every packed placement); a level whose
// groups hold fewer than need nodes is not counted (the nodes are
// distinct: no group of it can have need).
func bestFit(c *sim.Cluster, k int, nodes []int, need int) []int {
	if need > groupNodes(c, k) {
		return nil
	}
	count := make([]int32, groupsAt(c, k))
	for _, n := range nodes {
		count[groupAt(c, k, n)]++
	}
	best, bestN := -1, int32(0)
	for g, m := range count {
		if int(m) >= need && (best < 0 || m < bestN) {
			best, bestN = g, m
		}
	}
	if best < 0 {
		return nil
	}
	pick := make([]int, 0, need)
	for _, n := range nodes {
		if groupAt(c, k, n) == best {
			pick = append(pick, n)
			if len(pick) == need {
				break
			}
		}
	}
	return pick
}

// groupsAt is the number of groups of level k (a fast domain or a tier;
// groups are numbered from 0 in node order).
func groupsAt(c *sim.Cluster, k int) int {
	switch {
	case k == LevelDomain:
		return c.DomainOf(len(c.Nodes)-1) + 1
	case k == LevelCluster:
		return 1
	}
	return c.TierLinks(k)
}

// groupNodes is the most nodes a group of level k holds.
func groupNodes(c *sim.Cluster, k int) int {
	switch top := c.Topology(); {
	case k == LevelCluster:
		return len(c.Nodes)
	case top == nil:
		return 1 // every node its own domain
	case k == LevelDomain:
		return top.DomainNodes
	default:
		return top.Tiers[k].Nodes
	}
}

// takeNodes takes perNode idle slots on each node, or nothing.
func (t *Table) takeNodes(job sim.JobID, nodes []int, perNode int) ([]int, bool) {
	var slots []int
	for _, n := range nodes {
		got, ok := t.Take(job, n, perNode)
		if !ok {
			for _, s := range slots {
				t.Release(s)
			}
			return nil, false
		}
		slots = append(slots, got...)
	}
	return slots, true
}
