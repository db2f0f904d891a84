package placement

import (
	"math"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

type flat struct{}

func (flat) Name() string { return "flat" }
func (flat) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: 10, IterTime: 1}
}

// Hand-worked prices (anchors, not goldens) of a 1-s iteration with half of it in cross-node
// collectives (share 0.5), on H100 nodes of 8 GPUs (catalog inter-node 50
// GB/s): racks of 2 nodes with 3:1 uplinks; NVLink domains of 2 nodes at
// 500 GB/s.
func TestTopologyPriced(t *testing.T) {
	half := func(estimator.Workload, estimator.Config) float64 { return 0.5 }
	racks, _ := sim.NewCluster(sim.ClusterSpec{Name: "r", Pools: []sim.Pool{{GPU: "h100", Nodes: 8, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 3}}}})
	nvl, _ := sim.NewCluster(sim.ClusterSpec{Name: "n", Pools: []sim.Pool{{GPU: "h100", Nodes: 8, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 2, DomainGBs: 500, Tiers: []sim.Tier{{Name: "rack", Nodes: 2, Oversubscription: 1}}}})
	plain, _ := sim.NewCluster(sim.ClusterSpec{Name: "p", Pools: []sim.Pool{{GPU: "h100", Nodes: 8, GPUsPerNode: 8}}})
	for _, c := range []struct {
		name    string
		cluster *sim.Cluster
		shape   estimator.Config
		want    float64
	}{
		{"one node: unchanged", racks, estimator.Config{GPU: "h100", Nodes: 1, PerNode: 8}, 1},
		{"two nodes in one rack: unchanged", racks, estimator.Config{GPU: "h100", Nodes: 2, PerNode: 8}, 1},
		// Across 3:1 rack uplinks each GPU gets 50/3 GB/s: r = 1/3.
		{"four nodes across two 3:1 racks: 0.5 + 0.5·3", racks, estimator.Config{GPU: "h100", Nodes: 4, PerNode: 8}, 2},
		{"half nodes across racks: the same per-GPU share", racks, estimator.Config{GPU: "h100", Nodes: 4, PerNode: 4}, 2},
		// κ = 50/500 inside the domain.
		{"inside a 2-node NVLink domain: 0.5 + 0.5·0.1", nvl, estimator.Config{GPU: "h100", Nodes: 2, PerNode: 8}, 0.55},
		{"no topology: unchanged", plain, estimator.Config{GPU: "h100", Nodes: 4, PerNode: 8}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := PriceTopology(flat{}, c.cluster, half).Estimate(estimator.Workload{Batch: 10}, c.shape)
			if math.Abs(e.IterTime-c.want) > 1e-12 || math.Abs(e.Throughput-10/c.want) > 1e-9 {
				t.Fatalf("iteration %v s, throughput %v; want %v s", e.IterTime, e.Throughput, c.want)
			}
		})
	}
}
