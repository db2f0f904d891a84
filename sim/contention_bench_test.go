package sim

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// spreader starts pending jobs in order on whole free nodes, even nodes
// first (so a multi-node job crosses rack uplinks), until none is left.
type spreader struct{}

func (spreader) Name() string { return "spreader" }
func (spreader) Schedule(v *View) ([]Action, error) {
	var free []int
	for parity := 0; parity < 2; parity++ {
		for n := parity; n < len(v.Cluster.Nodes); n += 2 {
			if v.Occupant[v.Cluster.Nodes[n].FirstSlot] == NoJob {
				free = append(free, n)
			}
		}
	}
	var acts []Action
	for _, q := range [][]*Job{v.Pending, v.Arrivals} {
		for _, j := range q {
			need := j.Spec.GPUs / 8
			if need > len(free) {
				return acts, nil
			}
			var slots []int
			for _, n := range free[:need] {
				for s := v.Cluster.Nodes[n].FirstSlot; s < v.Cluster.Nodes[n].FirstSlot+8; s++ {
					slots = append(slots, s)
				}
			}
			free = free[need:]
			acts = append(acts, Action{Kind: Start, Job: j.Spec.ID, GPUs: slots})
		}
	}
	return acts, nil
}

// BenchmarkContention runs 5,000 jobs of 16–64 GPUs on 4,096 H100 (512
// nodes, racks of 2, pods of 64 with 4:1 uplinks) with and without the
// topology: the difference per event is the contention model's cost
// (events: arrivals, completions, rounds; every start and end is a
// contention update).
func BenchmarkContention(b *testing.B) {
	m, _ := estimator.ParseModel("gpt-1.3b")
	specs := make([]JobSpec, 5000)
	for i := range specs {
		specs[i] = JobSpec{ID: JobID(i), Submit: Time(20 * i), Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(300 + i%7*200), GPU: "h100", GPUs: 16 << (i % 3)}
	}
	for _, topo := range []*Topology{nil, {DomainNodes: 1, Tiers: []Tier{{Name: "rack", Nodes: 2, Oversubscription: 1}, {Name: "pod", Nodes: 64, Oversubscription: 4}}}} {
		name := "none"
		if topo != nil {
			name = "racks+pods"
		}
		b.Run(name, func(b *testing.B) {
			c, err := NewCluster(ClusterSpec{Name: "bench", Pools: []Pool{{GPU: "h100", Nodes: 512, GPUsPerNode: 8}}, Topology: topo})
			if err != nil {
				b.Fatal(err)
			}
			cfg := DefaultConfig(c, fixedIter(2))
			cfg.Rounds, cfg.ScheduleOnEvents = 400, true
			cfg.NetworkShare = func(estimator.Workload, estimator.Config) float64 { return 0.3 }
			var events int
			var upd int
			for b.Loop() {
				res, err := Run(context.Background(), cfg, spreader{}, specs)
				if err != nil {
					b.Fatal(err)
				}
				events = res.Events
				if res.Network != nil {
					upd = res.Network.Updates
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
			b.ReportMetric(float64(upd), "updates")
		})
	}
}

// BenchmarkCrossingOf: where an 8,192-GPU job's traffic goes on
// h100-98k's layout (1,024 nodes of 8 H100, racks of 2, pods of 384), the
// first step of every contention update for it.
func BenchmarkCrossingOf(b *testing.B) {
	c, err := NewCluster(ClusterSpec{Name: "bench", Pools: []Pool{{GPU: "h100", Nodes: 12288, GPUsPerNode: 8}},
		Topology: &Topology{DomainNodes: 1, Tiers: []Tier{{Name: "rack", Nodes: 2, Oversubscription: 1}, {Name: "pod", Nodes: 384, Oversubscription: 7}}}})
	if err != nil {
		b.Fatal(err)
	}
	slots := make([]int, 8192)
	for i := range slots {
		slots[i] = 1000*8 + i // nodes 1000–2023: pods 2–5
	}
	for b.Loop() {
		if x := c.CrossingOf(slots); x.Nodes != 1024 {
			b.Fatal(x)
		}
	}
}
