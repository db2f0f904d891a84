package exec

import (
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
)

// topologyOf: the hello's topology of h100-racks, worked by hand: node 3
// is its own fast domain and in rack 1 (racks of 2 nodes).
func TestHelloTopology(t *testing.T) {
	spec, err := clusterspec.Load("h100-racks")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	top := topologyOf(c)
	if top == nil || top.DomainNodes != 1 || len(top.Tiers) != 1 || top.Tiers[0].Name != "rack" || top.Domain[3] != 3 || top.Groups[0][3] != 1 || len(top.Groups[0]) != 32 {
		t.Fatalf("topology %+v", top)
	}
	if plain, _ := clusterspec.Load("testbed-64"); plain.Topology != nil {
		t.Fatal("testbed-64 has a topology")
	}
}
