package clusterspec

import (
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

const nvlYAML = `name: nvl
pools:
  - {gpu: h100, nodes: 36, gpus_per_node: 4}
topology:
  domain_nodes: 18
  domain_gbs: 900
  network_gbs: 50
  tiers:
    - {name: rack, nodes: 18, oversubscription: 1}
    - {name: pod, nodes: 36, oversubscription: 4}
`

// TestParseTopology: the YAML form builds the layout worked by hand: 36
// nodes, 2 NVLink domains of 18, 2 racks, 1 pod; a 2-node job inside the
// first domain crosses nothing, one on nodes 0 and 18 crosses the racks.
func TestParseTopology(t *testing.T) {
	spec, err := Parse("nvl.yaml", []byte(nvlYAML))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	top := c.Topology()
	if top == nil || top.DomainNodes != 18 || len(top.Tiers) != 2 || top.Tiers[1].Oversubscription != 4 {
		t.Fatalf("topology %+v", top)
	}
	if c.DomainOf(17) != 0 || c.DomainOf(18) != 1 || c.GroupOf(0, 18) != 1 || c.GroupOf(1, 35) != 0 {
		t.Fatalf("domains/groups wrong")
	}
	in := c.CrossingOfNodes([]int{0, 1}, 4)
	across := c.CrossingOfNodes([]int{0, 18}, 4)
	if in.Crosses() || in.Domains != 1 || !across.Crosses() || across.Groups[0] != 2 || across.Groups[1] != 1 {
		t.Fatalf("crossings %+v %+v", in, across)
	}
}

func TestParseTopologyErrors(t *testing.T) {
	pre := "name: x\npools:\n  - {gpu: h100, nodes: 4}\ntopology:\n"
	cases := []struct{ body, want string }{
		{pre + "  domain_nodes: 0\n", "c.yaml:5: key topology.domain_nodes: want a whole number ≥ 1"},
		{pre + "  domain: 2\n", "c.yaml:5: key topology.domain: unknown key"},
		{pre + "  network_gbs: -3\n", "c.yaml:5: key topology.network_gbs: want a bandwidth > 0"},
		{pre + "  tiers: 3\n", "c.yaml:5: key topology.tiers: want a list"},
		{pre + "  tiers:\n    - {name: rack, nodes: 2, oversubscription: 0.5}\n", "c.yaml:6: key topology.tiers[0].oversubscription: want a ratio in [1, 1000]"},
		{pre + "  tiers:\n    - {name: rack, nodes: 2, over: 2}\n", "c.yaml:6: key topology.tiers[0].over: unknown key"},
		{pre + "  tiers:\n    - {name: rack}\n", "topology.tiers[0]: name and nodes are required"},
		{pre + "  domain_nodes: 2\n  tiers:\n    - {name: rack, nodes: 3}\n", "key topology: tiers[0].nodes: want a multiple of 2"},
	}
	for _, c := range cases {
		_, err := Parse("c.yaml", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.body, err, c.want)
		}
	}
}

// TestBuiltinTopologies: the built-in clusters with a topology build, and
// today's have none (their runs stay the same).
func TestBuiltinTopologies(t *testing.T) {
	for name, gpus := range map[string]int{"h100-24k": 24576, "h100-98k": 98304, "nvl72-h100": 1152, "h100-racks": 256} {
		spec, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sim.NewCluster(spec)
		if err != nil {
			t.Fatal(err)
		}
		if c.NumSlots() != gpus || c.Topology() == nil {
			t.Errorf("%s: %d GPUs, topology %v", name, c.NumSlots(), c.Topology())
		}
	}
	for _, name := range []string{"paper-1280", "testbed-64", "h100-l20"} {
		spec, _ := Load(name)
		if spec.Topology != nil {
			t.Errorf("%s has a topology", name)
		}
	}
}
