package placement_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// naiveByFree is the definition NodesByFree follows (ARENA.md §7): count
// each node's idle slots, keep those with at least q, stable-sort by idle
// count, most first. The index must give the same list after any mix of
// writes (property test against this reference, not a golden).
func naiveByFree(c *sim.Cluster, occ []sim.JobID, gpu string, q int) []int {
	type nf struct{ n, f int }
	var cands []nf
	for _, n := range c.NodesOfType(gpu) {
		node, f := c.Nodes[n], 0
		for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
			if occ[s] == sim.NoJob {
				f++
			}
		}
		if f >= q {
			cands = append(cands, nf{n, f})
		}
	}
	slices.SortStableFunc(cands, func(a, b nf) int { return b.f - a.f })
	out := []int{}
	for _, c := range cands {
		out = append(out, c.n)
	}
	return out
}

func TestIndexMatchesCountAndSort(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "mixed", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 70, GPUsPerNode: 4},
		{GPU: "a40", Nodes: 5, GPUsPerNode: 2},
		{GPU: "a100", Nodes: 3, GPUsPerNode: 8}, // mixed capacities in one type
	}})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		occ := make([]sim.JobID, c.NumSlots())
		for s := range occ {
			occ[s] = sim.JobID(rapid.IntRange(-1, 3).Draw(rt, "occ"))
		}
		tb := placement.NewTable(c, occ)
		var clone *placement.Table
		for i, ops := 0, rapid.IntRange(1, 40).Draw(rt, "ops"); i < ops; i++ {
			switch rapid.IntRange(0, 6).Draw(rt, "op") {
			case 0:
				tb.Release(rapid.IntRange(0, c.NumSlots()-1).Draw(rt, "slot"))
			case 1:
				tb.Set(rapid.IntRange(0, c.NumSlots()-1).Draw(rt, "slot"), sim.JobID(rapid.IntRange(-1, 3).Draw(rt, "job")))
			case 2:
				tb.PlaceMostFree(sim.JobID(rapid.IntRange(4, 9).Draw(rt, "job")), a100(rapid.IntRange(1, 6).Draw(rt, "nodes"), rapid.IntRange(1, 4).Draw(rt, "per")))
			case 3:
				tb.Clear(sim.JobID(rapid.IntRange(0, 9).Draw(rt, "job")))
			case 4:
				clone = tb.Clone()
			case 5:
				next := slices.Clone(tb.Occupant)
				for k := rapid.IntRange(0, 10).Draw(rt, "changes"); k > 0; k-- {
					next[rapid.IntRange(0, c.NumSlots()-1).Draw(rt, "slot")] = sim.JobID(rapid.IntRange(-1, 3).Draw(rt, "job"))
				}
				tb.Refill(c, next)
			case 6: // a trial undone leaves the table as it was
				before := slices.Clone(tb.Occupant)
				tb.Begin()
				tb.Clear(sim.JobID(rapid.IntRange(0, 3).Draw(rt, "job")))
				tb.PlaceMostFree(sim.JobID(rapid.IntRange(4, 9).Draw(rt, "job")), a100(rapid.IntRange(1, 6).Draw(rt, "nodes"), rapid.IntRange(1, 4).Draw(rt, "per")))
				tb.Set(rapid.IntRange(0, c.NumSlots()-1).Draw(rt, "slot"), sim.JobID(rapid.IntRange(-1, 3).Draw(rt, "job")))
				if rapid.Bool().Draw(rt, "undo") {
					tb.Undo()
					if !slices.Equal(tb.Occupant, before) {
						rt.Fatalf("Undo: %v, want %v", tb.Occupant, before)
					}
				} else {
					tb.Keep()
				}
			}
			for _, id := range []sim.JobID{0, 1, 5} {
				if got, want := tb.SlotsOfEach([]sim.JobID{0, 1, 5})[id], tb.SlotsOf(id); !slices.Equal(got, want) {
					rt.Fatalf("SlotsOfEach[%d] = %v, want SlotsOf's %v", id, got, want)
				}
			}
			for _, gpu := range []string{"a100", "a40"} {
				for q := 0; q <= 8; q++ {
					if got, want := tb.NodesByFree(gpu, q), naiveByFree(c, tb.Occupant, gpu, q); !slices.Equal(got, want) {
						rt.Fatalf("after op %d: NodesByFree(%s, %d) = %v, want %v", i, gpu, q, got, want)
					}
				}
			}
			if clone != nil {
				if got, want := clone.NodesByFree("a100", 1), naiveByFree(c, clone.Occupant, "a100", 1); !slices.Equal(got, want) {
					rt.Fatalf("clone: NodesByFree = %v, want %v", got, want)
				}
			}
		}
	})
}
