package arena

import (
	"context"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Hand-worked (an anchor outside the code: the layout is counted by hand,
// as policy/tas's TestTASPacksWhereFCFSSpreads): 4 H100 nodes × 8, racks
// of 2 nodes with 3:1 uplinks (racks {0,1} {2,3}), arena-ns (Arena
// without scaling, so that job 0 keeps its 8 GPUs). Job 0 (8 GPUs) arrives
// first and takes node 0; job 1 (16 GPUs) arrives a second later. Arena
// as the artifact places it on the first idle nodes, 1 and 2: across both
// racks, on their uplinks. Packed (the default on a cluster with a
// topology) it takes the one whole free rack, {2, 3}: nothing crosses a
// rack. Its grid and gain are the same either way; only the nodes differ.
func TestArenaPacksMultiNodeGrids(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "h100", Nodes: 4, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := analytic.DefaultSource()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := estimator.ParseModel("gpt-1.3b")
	w := estimator.Workload{Model: m, Batch: 128}
	jobs := []sim.JobSpec{
		{ID: 0, Name: "a", Workload: w, Iterations: 100000, GPU: "h100", GPUs: 8},
		{ID: 1, Name: "b", Submit: 1, Workload: w, Iterations: 100, GPU: "h100", GPUs: 16},
	}
	run := func(packed bool) *sim.Result {
		est := src.View(estimator.ViewOptimal)
		p := New(Variants["arena-ns"], c, est, est)
		if !p.tp.packed {
			t.Fatal("packing is off on a cluster with a topology")
		}
		p.tp.packed = packed
		cfg := sim.DefaultConfig(c, est)
		cfg.Rounds, cfg.Check = 10, true
		cfg.NetworkShare = src.NetworkShare
		res, err := sim.Run(context.Background(), cfg, p.Engine(), jobs)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	nodesOf := func(res *sim.Result, job int32) []int {
		var ns []int
		for _, a := range res.Allocations {
			if a.Job == job {
				for s := a.FirstSlot; s < a.FirstSlot+a.Slots; s++ {
					if n := c.NodeOf(int(s)); !slices.Contains(ns, n) {
						ns = append(ns, n)
					}
				}
			}
		}
		slices.Sort(ns)
		return ns
	}
	first, packed := run(false), run(true)
	if got := nodesOf(first, 0); !slices.Equal(got, []int{0}) {
		t.Fatalf("job 0 on nodes %v, want [0]", got)
	}
	if got := nodesOf(first, 1); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("arena(pack=false) put job 1 on nodes %v, want [1 2]", got)
	}
	if got := nodesOf(packed, 1); !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("arena put job 1 on nodes %v, want [2 3]", got)
	}
	if u, v := packed.Network.Tiers[0].Utilisation, first.Network.Tiers[0].Utilisation; u != 0 || !(v > 0) {
		t.Fatalf("rack uplink utilisation: packed %v, first idle %v; want 0 and > 0", u, v)
	}
}

// Without a topology packing is never on: Arena's choice stays the
// artifact's (go test ./experiments/regress checks the results).
func TestArenaNoPackingWithoutTopology(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "h100", Nodes: 4, GPUsPerNode: 8}}})
	if err != nil {
		t.Fatal(err)
	}
	if New(Variants["arena"], c, nil, nil).tp.packed {
		t.Fatal("packing on without a topology")
	}
}

// packedIdle lists every idle node of the type for placement.PackNodes at
// each packed placement; the lists are kept from call to call, so a
// placement allocates only what PackNodes does (its group counts and its
// pick), not a list of the cluster's idle nodes (made afresh, it was most
// of Arena's allocation at 1M jobs with tiers). Self-generated: the
// answer is checked against PackNodes on a list scanned here.
func TestPackedIdleReusesItsLists(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "h100", Nodes: 64, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 8, Oversubscription: 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := New(Variants["arena"], c, nil, nil)
	occ := make([]sim.JobID, c.NumSlots())
	for s := range occ {
		occ[s] = empty
		if n := c.NodeOf(s); n < 5 || n%3 == 0 { // racks 0 and some nodes of the others held
			occ[s] = 7
		}
	}
	tb := newTable(p.tp, occ)
	var idle []int
	for n := range 64 {
		if n >= 5 && n%3 != 0 {
			idle = append(idle, n)
		}
	}
	want := placement.PackNodes(c, idle, 4)
	if got := packedIdle(tb, 4, idle[:4]); !slices.Equal(got, want) {
		t.Fatalf("packedIdle = %v, want PackNodes' %v", got, want)
	}
	allocs := testing.AllocsPerRun(20, func() { packedIdle(tb, 4, idle[:4]) })
	if allocs > 2 {
		t.Fatalf("packedIdle allocates %v times a placement, want at most PackNodes' 2", allocs)
	}
}
