package tas_test

import (
	"context"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/tas"
	"github.com/arena-sim/arena/sim"
)

// Hand-worked: 4 H100 nodes × 8, racks of 2 nodes (3:1). Job 0 asks for
// 8 GPUs, job 1 (arriving with it) for 16. FCFS puts job 0 on node 0 and
// job 1 on the next most-free nodes, 1 and 2: across both racks. TAS puts
// job 0 on node 0 (best-fitting domain) and job 1 in the one rack with two
// free nodes, {2, 3}: nothing crosses a rack. A 32-GPU job that requires a
// rack is refused.
func TestTASPacksWhereFCFSSpreads(t *testing.T) {
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
		{ID: 0, Name: "a", Workload: w, Iterations: 100, GPU: "h100", GPUs: 8},
		{ID: 1, Name: "b", Workload: w, Iterations: 100, GPU: "h100", GPUs: 16},
		{ID: 2, Name: "c", Submit: 1, Workload: w, Iterations: 100, GPU: "h100", GPUs: 32},
	}
	run := func(p sim.Policy) *sim.Result {
		cfg := sim.DefaultConfig(c, src.View(estimator.ViewOptimal))
		cfg.Rounds, cfg.Check = 10, true
		cfg.NetworkShare = src.NetworkShare
		res, err := sim.Run(context.Background(), cfg, p, jobs)
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
	f := run(fcfs.New(src.View(estimator.ViewOptimal)))
	if got := nodesOf(f, 1); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("fcfs put job 1 on nodes %v, want [1 2]", got)
	}
	p := run(tas.New(src.View(estimator.ViewOptimal), tas.Config{Level: 0, LevelName: "rack", RequiredMaxGPUs: 1 << 20}))
	if got := nodesOf(p, 1); !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("tas put job 1 on nodes %v, want [2 3]", got)
	}
	if u, v := p.Network.Tiers[0].Utilisation, f.Network.Tiers[0].Utilisation; u != 0 || !(v > 0) {
		t.Fatalf("rack uplink utilisation: tas %v, fcfs %v; want 0 and > 0", u, v)
	}
	if p.Jobs[2].State != "dropped" {
		t.Fatalf("the 32-GPU job requiring a rack: %s, want dropped", p.Jobs[2].State)
	}
}
