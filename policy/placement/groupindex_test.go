package placement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// scanWithin is PlaceWithin's choice of nodes as it was before the group
// index: every candidate counted per group at every level (bestFit), then
// the spread. The reference for TestGroupIndexMatchesScan.
func scanWithin(t *Table, c estimator.Config, max int) []int {
	cands := t.byFree(c.GPU, c.PerNode)
	if len(cands) < c.Nodes {
		return nil
	}
	nodes := make([]int, len(cands))
	for i, x := range cands {
		nodes[i] = x.node
	}
	levels := []int{LevelDomain}
	for k := range t.Cluster.Topology().Tiers {
		levels = append(levels, k)
	}
	for _, k := range levels {
		if max != LevelCluster && k > max {
			break
		}
		if pick := bestFit(t.Cluster, k, nodes, c.Nodes); pick != nil {
			return pick
		}
	}
	if max != LevelCluster {
		return nil
	}
	return PackNodes(t.Cluster, nodes, c.Nodes)
}

// TestGroupIndexMatchesScan: on a two-type cluster (pools restart the
// groups) under random placements and releases, PlaceWithin takes the
// nodes the scan chooses, at every level, and the index stays equal to
// one rebuilt from the slots (a self-checking equivalence, no golden).
func TestGroupIndexMatchesScan(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 24, GPUsPerNode: 4}, {GPU: "h100", Nodes: 20, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 2, Tiers: []sim.Tier{{Name: "rack", Nodes: 4, Oversubscription: 2}, {Name: "pod", Nodes: 8, Oversubscription: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	tab := NewTable(c, occ)
	r := rand.New(rand.NewPCG(1, 2))
	placed, tried := 0, 0
	var live []sim.JobID
	for job := sim.JobID(0); job < 3000; job++ {
		if len(live) > 0 && r.IntN(2) == 0 { // a random running job ends
			i := r.IntN(len(live))
			victim := live[i]
			live = slices.Delete(live, i, i+1)
			for _, s := range tab.SlotsOf(victim) {
				tab.Release(s)
			}
			continue
		}
		gpu, per := "a100", 1+r.IntN(4)
		if r.IntN(2) == 0 {
			gpu, per = "h100", 1+r.IntN(8)
		}
		shape := estimator.Config{GPU: gpu, Nodes: 1 + r.IntN(3), PerNode: per}
		if r.IntN(8) == 0 {
			shape.Nodes = 1 + r.IntN(12)
		}
		max := []int{LevelDomain, 0, 1, LevelCluster}[r.IntN(4)]
		want := scanWithin(tab, shape, max)
		slots, ok := tab.PlaceWithin(job, shape, max)
		tried++
		if ok != (want != nil) {
			t.Fatalf("job %d %+v max %d: placed %v, scan %v", job, shape, max, ok, want)
		}
		if !ok {
			continue
		}
		placed++
		live = append(live, job)
		var got []int
		for _, s := range slots {
			if n := c.NodeOf(s); !slices.Contains(got, n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("job %d %+v max %d: nodes %v, scan %v", job, shape, max, got, want)
		}
	}
	if placed < tried/5 || placed == tried {
		t.Fatalf("placed %d of %d: the walk should both place and fail", placed, tried)
	}
	fresh := NewTable(c, tab.Occupant)
	fresh.index().groups()
	if a, b := tab.ix.grp, fresh.ix.grp; !slices.EqualFunc(a.sets, b.sets, func(x, y [][][][]uint64) bool {
		return slices.EqualFunc(x, y, func(x, y [][][]uint64) bool {
			return slices.EqualFunc(x, y, func(x, y [][]uint64) bool {
				return slices.EqualFunc(x, y, func(x, y []uint64) bool { return slices.Equal(x, y) })
			})
		})
	}) {
		t.Fatal("the group index kept by the writes differs from one rebuilt from the slots")
	}
}

// TestGroupIndexWorkDoesNotGrow counts the work of one placement (words
// of the buckets and nodes read), not its time: a cluster with the same
// free group and 16× as many full ones costs a 1-node and a 16-node
// placement no more than a few words more (anchor: the work PlaceWithin
// is meant to have, hand-derived: the buckets' words up to the free group
// plus its nodes; the scan read every node).
func TestGroupIndexWorkDoesNotGrow(t *testing.T) {
	visits := func(pods, need int) int {
		c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "h100", Nodes: 32 * pods, GPUsPerNode: 8}},
			Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 1}, {Name: "pod", Nodes: 32, Oversubscription: 7}}}})
		if err != nil {
			t.Fatal(err)
		}
		occ := make([]sim.JobID, c.NumSlots())
		for i := range occ {
			occ[i] = 9 // every pod full but the last
		}
		for s := 8 * 32 * (pods - 1); s < len(occ); s++ {
			occ[s] = sim.NoJob
		}
		tab := NewTable(c, occ)
		gi := tab.index().groups()
		gi.visits = 0
		if _, ok := tab.PlacePacked(1, estimator.Config{GPU: "h100", Nodes: need, PerNode: 8}); !ok {
			t.Fatal("not placed")
		}
		return gi.visits
	}
	for _, need := range []int{1, 16} {
		small, large := visits(2, need), visits(32, need)
		// The bucket words grow by one per 64 groups: 32 pods have 1,024
		// domains (16 words) against 64 (1); the nodes read do not grow.
		if large > small+2*16 || large >= 32*32 {
			t.Errorf("need %d: %d visits on 2 pods, %d on 32", need, small, large)
		}
		t.Logf("need %d: %d visits on 2 pods, %d on 32", need, small, large)
	}
}

// TestGroupIndexSpreadMatchesScan: jobs larger than any group (more nodes
// than a pod) take the nodes the scan's spread takes (PackNodes on every
// node with room: fullest pods first, most idle nodes first inside), on
// the two-type cluster of TestGroupIndexMatchesScan fragmented by random
// smaller jobs and releases (a self-checking equivalence, no golden).
func TestGroupIndexSpreadMatchesScan(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 24, GPUsPerNode: 4}, {GPU: "h100", Nodes: 20, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 2, Tiers: []sim.Tier{{Name: "rack", Nodes: 4, Oversubscription: 2}, {Name: "pod", Nodes: 8, Oversubscription: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	tab := NewTable(c, occ)
	r := rand.New(rand.NewPCG(5, 6))
	spread := 0
	var live []sim.JobID
	for job := sim.JobID(0); job < 4000; job++ {
		if len(live) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(live))
			for _, s := range tab.SlotsOf(live[i]) {
				tab.Release(s)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		gpu, per := "a100", 1+r.IntN(4)
		if r.IntN(2) == 0 {
			gpu, per = "h100", 1+r.IntN(8)
		}
		shape := estimator.Config{GPU: gpu, Nodes: 1 + r.IntN(2), PerNode: per}
		if r.IntN(3) == 0 {
			shape.Nodes = 9 + r.IntN(10) // more than a pod's 8 nodes
		}
		want := scanWithin(tab, shape, LevelCluster)
		slots, ok := tab.PlaceWithin(job, shape, LevelCluster)
		if ok != (want != nil) {
			t.Fatalf("job %d %+v: placed %v, scan %v", job, shape, ok, want)
		}
		if !ok {
			continue
		}
		live = append(live, job)
		var got []int
		for _, s := range slots {
			if n := c.NodeOf(s); !slices.Contains(got, n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("job %d %+v: nodes %v, scan %v", job, shape, got, want)
		}
		if shape.Nodes > 8 {
			spread++
		}
	}
	if spread < 100 {
		t.Fatalf("only %d spread placements; the test needs more", spread)
	}
}

// TestSpreadWorkDoesNotGrow counts the work of a placement larger than any
// pod (words of the buckets and nodes read): a 48-node job on a cluster
// whose last two pods of 32 nodes are free. Hand-derived (the anchor):
// no domain, rack or pod holds 48 nodes, so the group searches read no
// bucket; the spread reads the pod level's fullest bucket (32 nodes with
// room: one word per 64 pods, 1 on 4 pods and 2 on 128) and the 32 nodes
// of each of the two pods it takes from: 65 visits on 4 pods, 66 on 128.
// The scan it replaces listed every node with room (and counted none).
func TestSpreadWorkDoesNotGrow(t *testing.T) {
	visits := func(pods int) int {
		c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "h100", Nodes: 32 * pods, GPUsPerNode: 8}},
			Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 1}, {Name: "pod", Nodes: 32, Oversubscription: 7}}}})
		if err != nil {
			t.Fatal(err)
		}
		occ := make([]sim.JobID, c.NumSlots())
		for i := range occ {
			occ[i] = 9 // every pod full but the last two
		}
		for s := 8 * 32 * (pods - 2); s < len(occ); s++ {
			occ[s] = sim.NoJob
		}
		tab := NewTable(c, occ)
		gi := tab.index().groups()
		gi.visits = 0
		slots, ok := tab.PlacePacked(1, estimator.Config{GPU: "h100", Nodes: 48, PerNode: 8})
		if !ok || len(slots) != 48*8 {
			t.Fatal("not placed")
		}
		if n := c.NodeOf(slots[0]); n != 32*(pods-2) {
			t.Errorf("%d pods: first node %d, want %d (the first free pod's first node)", pods, n, 32*(pods-2))
		}
		return gi.visits
	}
	if small, large := visits(4), visits(128); small != 65 || large != 66 {
		t.Errorf("%d visits on 4 pods, %d on 128; want 65 and 66", small, large)
	}
}
