package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
)

// contentionWork runs job A (2 GPUs: slot 0 of nodes 0 and 2, so it
// crosses the uplinks of pods 0 and 1) with m sharers placed the same way
// on the other slots of nodes 0–3 (pods 0 and 1), and, on the pods
// beyond, `far` groups of four such jobs that contend among themselves,
// on a cluster of `pods` pods of 2 nodes × 4 A100 whose uplinks are
// oversubscribed 8:1 (25 GB/s: any two jobs contend). It returns the
// steps of A's updates in order (the last: when A ends, its detach) and
// the largest steps of any update of the run. With move, A runs as long as
// the others and round 1 moves it to slot 0 of nodes 1 and 3 (free when
// m < 4): other GPUs on the same two pods.
func contentionWork(t *testing.T, pods, m, far int, move bool) (aSteps []int, most int) {
	t.Helper()
	c, err := NewCluster(ClusterSpec{Name: "work", Pools: []Pool{{GPU: "a100", Nodes: 2 * pods, GPUsPerNode: 4}},
		Topology: &Topology{DomainNodes: 1, Tiers: []Tier{{Name: "pod", Nodes: 2, Oversubscription: 8}}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(c, constEstimator{})
	cfg.Rounds, cfg.Check = 20, true
	cfg.NetworkShare = func(estimator.Workload, estimator.Config) float64 { return 0.5 }
	var specs []JobSpec
	var acts []Action
	add := func(iters int64, a, b int) { // one GPU on node a, one on node b
		id := JobID(len(specs))
		specs = append(specs, JobSpec{ID: id, Name: fmt.Sprint("j", id), Workload: gpt13b(t), Iterations: iters, GPU: "a100", GPUs: 2})
		acts = append(acts, Action{Kind: Start, Job: id, GPUs: []int{a, b}})
	}
	// A and its sharers: slots i of nodes 0 and 2, then of nodes 1 and 3.
	for i := 0; i <= m; i++ {
		iters := int64(100)
		if i == 0 && !move {
			iters = 20
		}
		n := i / 4 // 0: nodes 0, 2; 1: nodes 1, 3
		add(iters, 4*n+i%4, 4*(2+n)+i%4)
	}
	for k := 1; k <= far; k++ { // pods 2k and 2k+1: nodes 4k..4k+3
		for i := 0; i < 4; i++ {
			add(100, 4*(4*k)+i, 4*(4*k+2)+i)
		}
	}
	script := map[int][]Action{0: acts}
	if move {
		script[1] = []Action{{Kind: Reallocate, Job: 0, GPUs: []int{4, 12}}}
	}
	e, err := newEngine(cfg, &scripted{byRound: script}, specs)
	if err != nil {
		t.Fatal(err)
	}
	e.net.probe = func(j JobID, steps int) {
		if j == 0 {
			aSteps = append(aSteps, steps)
		}
		most = max(most, steps)
	}
	res, err := e.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.JCTs[0] <= 0 {
		t.Fatalf("job A did not finish: JCTs %v", res.JCTs)
	}
	return aSteps, most
}

// TestContentionWork is a counting test (hand-worked, no timing): a
// contention update costs the jobs on the links whose set of jobs changed
// and their links, never the cluster. When A leaves its two uplinks with
// m sharers on them (every job contends at 25 GB/s, so each sharer's rate
// changes), the update takes 2 (A's links) + 2(m+1) (each link's job
// list searched and shifted) + 2m (the sharers marked) + 4m (each sharer's
// rate from its 2 links, its usage on them) = 4 + 8m steps, whether the
// cluster has 2 pods or 128, and whether 0 or 63 other groups of jobs
// contend elsewhere on it.
func TestContentionWork(t *testing.T) {
	for _, m := range []int{1, 3, 7} {
		want := 4 + 8*m
		mostOf := map[bool]int{} // by whether other groups contend far away
		for _, size := range []struct{ pods, far int }{{2, 0}, {4, 1}, {64, 0}, {128, 63}} {
			aSteps, most := contentionWork(t, size.pods, m, size.far, false)
			if aEnd := aSteps[len(aSteps)-1]; aEnd != want {
				t.Errorf("m=%d, %d pods, %d far groups: A's end took %d steps, want 4 + 8m = %d", m, size.pods, size.far, aEnd, want)
			}
			if m0, ok := mostOf[size.far > 0]; !ok {
				mostOf[size.far > 0] = most
			} else if most != m0 {
				t.Errorf("m=%d, %d pods, %d far groups: the largest update took %d steps, %d on the smaller cluster", m, size.pods, size.far, most, m0)
			}
		}
	}
}

// TestContentionMoveWork is a counting test (hand-worked, no timing) for
// a re-placement, ElasticFlow's commonest reconfiguration: A moves to other
// GPUs of the same two pods, so it leaves and rejoins the same two uplinks
// with the same offered load, and no sharer's rate changes. The update takes
// 2 (A's links) + 2(m+1) (each link's job list searched and shifted) + 2m
// (the sharers marked as A leaves) + 2 (A's two slots read for the
// crossing) + 2 (its slots on the crossed tier) + 2(m+1) (each link's jobs
// marked as A rejoins) + 2 + 2 (A's rate and usage on its 2 links) + 2m
// (each sharer's rate from its 2 links, unchanged) = 14 + 8m steps, on 2
// pods or 128, with 0 or 63 other groups contending elsewhere.
func TestContentionMoveWork(t *testing.T) {
	for _, m := range []int{1, 3} {
		want := 14 + 8*m
		for _, size := range []struct{ pods, far int }{{2, 0}, {4, 1}, {64, 0}, {128, 63}} {
			aSteps, _ := contentionWork(t, size.pods, m, size.far, true)
			if len(aSteps) != 3 {
				t.Fatalf("m=%d, %d pods: A had %d updates (%v), want its start, its move and its end", m, size.pods, len(aSteps), aSteps)
			}
			if aSteps[1] != want {
				t.Errorf("m=%d, %d pods, %d far groups: A's move took %d steps, want 14 + 8m = %d", m, size.pods, size.far, aSteps[1], want)
			}
		}
	}
}

// TestCrossingOfCounts: CrossingOf (sorted nodes, runs of domains and
// groups) counts what its definition says — the distinct nodes, fast
// domains and tier groups of the slots — for slots in any order with
// repeats of a node's slots, and for slots in ascending order, whose nodes
// are not sorted again (checked against a map per level).
func TestCrossingOfCounts(t *testing.T) {
	c, err := NewCluster(ClusterSpec{Name: "x", Pools: []Pool{{GPU: "h100", Nodes: 24, GPUsPerNode: 4}, {GPU: "a100", Nodes: 10, GPUsPerNode: 2}},
		Topology: &Topology{DomainNodes: 2, Tiers: []Tier{{Name: "rack", Nodes: 4, Oversubscription: 1}, {Name: "pod", Nodes: 8, Oversubscription: 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		slots := rapid.SliceOfDistinct(rapid.IntRange(0, c.NumSlots()-1), func(s int) int { return s }).Draw(rt, "slots")
		if rapid.Bool().Draw(rt, "ascending") {
			slices.Sort(slots) // the path that needs no sort of the nodes
		}
		x := c.CrossingOf(slots)
		nodes, doms := map[int]bool{}, map[int]bool{}
		groups := []map[int]bool{{}, {}}
		for _, s := range slots {
			n := c.NodeOf(s)
			nodes[n], doms[c.DomainOf(n)] = true, true
			for k := range groups {
				groups[k][c.GroupOf(k, n)] = true
			}
		}
		if x.GPUs != len(slots) || x.Nodes != len(nodes) || x.Domains != len(doms) || x.Groups[0] != len(groups[0]) || x.Groups[1] != len(groups[1]) {
			rt.Fatalf("CrossingOf(%v) = %+v; want %d nodes, %d domains, groups %d, %d", slots, x, len(nodes), len(doms), len(groups[0]), len(groups[1]))
		}
	})
}
