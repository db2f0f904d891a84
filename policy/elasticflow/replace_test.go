package elasticflow

import (
	"reflect"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/sim"
)

// replaceWalk is replace's node fill as first written (each node walks the
// whole sorted list, a comparison sort, slots as lists): the oracle the
// grouped fill over the counting sort must match, job for job and slot for
// slot (property test, not a golden).
func replaceWalk(c *sim.Cluster, gpu string, share []int) ([][]int, bool) {
	capacity := c.NodeCapacity(gpu)
	order := make([]int, len(share))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return share[order[a]] > share[order[b]] })
	nodes := append([]int(nil), c.NodesOfType(gpu)...)
	used := map[int]int{}
	take := func(n, q int) []int {
		node := c.Nodes[n]
		if node.Capacity-used[n] < q {
			return nil
		}
		first := node.FirstSlot + used[n]
		used[n] += q
		out := make([]int, q)
		for k := range out {
			out[k] = first + k
		}
		return out
	}
	slots := make([][]int, len(share))
	placed, k := 0, 0
	for ; k < len(order) && share[order[k]] > capacity; k++ {
		i := order[k]
		need := share[i] / capacity
		if need > len(nodes) {
			return nil, false
		}
		for _, n := range nodes[:need] {
			got := take(n, capacity)
			if got == nil {
				return nil, false
			}
			slots[i] = append(slots[i], got...)
		}
		nodes = nodes[need:]
		placed++
	}
	for _, n := range nodes {
		for _, i := range order[k:] {
			if c.Nodes[n].Capacity == used[n] {
				break
			}
			if slots[i] != nil {
				continue
			}
			if share[i] <= c.Nodes[n].Capacity-used[n] {
				slots[i] = take(n, share[i])
				placed++
			}
		}
	}
	return slots, placed == len(share)
}

func TestReplaceMatchesWalk(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c, err := sim.NewCluster(sim.ClusterSpec{Name: "r", Pools: []sim.Pool{
			{GPU: "a100", Nodes: rapid.IntRange(1, 6).Draw(rt, "nodes8"), GPUsPerNode: 8},
			{GPU: "a100", Nodes: rapid.IntRange(1, 4).Draw(rt, "nodes4"), GPUsPerNode: 4},
		}})
		if err != nil {
			rt.Fatal(err)
		}
		n := rapid.IntRange(0, 30).Draw(rt, "jobs")
		share := make([]int, n)
		for i := range share {
			share[i] = rapid.SampledFrom([]int{0, 1, 2, 3, 4, 8, 16, 24}).Draw(rt, "share")
		}
		e := &ElasticFlow{}
		p := e.newPlan(&sim.View{Cluster: c})
		ts := e.typeOf("a100")
		p.prepare(ts)
		at, gotOK := p.replace(ts, share)
		var got [][]int
		if gotOK {
			got = make([][]int, n)
			// Cut from one buffer, as actions does: each job's slots
			// capped to its own (an append to one cannot write the next).
			total := 0
			for i := range got {
				total += at[i].slotCount(ts)
			}
			buf := make([]int, total)
			for i := range got {
				got[i], buf = p.slots(ts, at[i], buf)
				if cap(got[i]) != len(got[i]) {
					rt.Fatalf("job %d: slots %v have room for %d more", i, got[i], cap(got[i])-len(got[i]))
				}
				if !p.holds(got[i], ts, at[i]) {
					rt.Fatalf("job %d: holds(slots(%v)) is false", i, at[i])
				}
			}
		}
		want, wantOK := replaceWalk(c, "a100", share)
		if !wantOK {
			want = nil // a failed layout is not used: only its failure is compared
		}
		if gotOK != wantOK || !reflect.DeepEqual(got, want) {
			rt.Fatalf("shares %v: replace = %v, %v; the walk gives %v, %v", share, got, gotOK, want, wantOK)
		}
	})
}
