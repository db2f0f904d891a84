package sim

import (
	"strings"
	"testing"
)

func TestParseClusterSpec(t *testing.T) {
	spec, err := ParseClusterSpec("c.yaml", []byte("name: mine\npools:\n  - {gpu: a100, nodes: 2, gpus_per_node: 4}\n  - {gpu: A40, nodes: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "mine" || c.NumSlots() != 2*4+3*2 || c.TotalGPUs("a40") != 6 || c.NodeCapacity("a40") != 2 {
		t.Errorf("cluster %s: %d slots, %d a40", c.Name, c.NumSlots(), c.TotalGPUs("a40"))
	}
	// Node order follows the file; slots are numbered node by node.
	if c.NodeOf(7) != 1 || c.NodeOf(8) != 2 || c.Nodes[2].GPU != "a40" || c.Nodes[2].FirstSlot != 8 {
		t.Errorf("node layout: %+v", c.Nodes)
	}
	artifact, err := ParseClusterSpec("sim_cluster_spec.json", []byte(`[{"a100": {"node_num": 80}, "v100": {"node_num": 20}, "a40": {"node_num": 160}, "a10": {"node_num": 160}}]`))
	if err != nil {
		t.Fatal(err)
	}
	ac, _ := NewCluster(artifact)
	if ac.NumSlots() != 1280 || ac.Nodes[80].GPU != "v100" || ac.Nodes[80].Capacity != 16 {
		t.Errorf("artifact JSON: %d slots, node 80 %+v", ac.NumSlots(), ac.Nodes[80])
	}
}

func TestParseClusterSpecErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{"name: x\npools:\n  - {gpu: b200, nodes: 2}\n", "c.yaml:3: key gpu"},
		{"name: x\npools:\n  - {gpu: a100, nodes: -1}\n", "c.yaml:3: key nodes: want a positive integer"},
		{"name: x\npools:\n  - {gpu: a100, nodes: two}\n", "c.yaml:3: key nodes"},
		{"name: x\npools:\n  - {gpu: a100, nodes: 2, gpus: 4}\n", "c.yaml:3: key gpus: unknown key"},
		{"name: x\nnodes: 3\n", `c.yaml:2: unknown key "nodes"`},
		{"name: x\n", "at least one pool"},
		{"name: x\npools: 3\n", "c.yaml:2: key pools: want a list"},
		{`[{"a100": {"nodes": 3}}]`, "a100.node_num"},
		{`[{"tpu": {"node_num": 3}}]`, "unknown GPU type"},
	}
	for _, c := range cases {
		_, err := ParseClusterSpec("c.yaml", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.body, err, c.want)
		}
	}
}

// FuzzParseClusterSpec: never panics; an accepted spec builds a cluster
// whose slots and nodes agree.
func FuzzParseClusterSpec(f *testing.F) {
	f.Add([]byte("name: x\npools:\n  - {gpu: a100, nodes: 2, gpus_per_node: 4}\n"))
	f.Add([]byte(`[{"a100": {"node_num": 3}}]`))
	f.Add([]byte("pools:\n - gpu: v100\n   nodes: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := ParseClusterSpec("fuzz.yaml", data)
		if err != nil {
			return
		}
		total := 0
		for _, p := range spec.Pools {
			if p.Nodes <= 0 || p.GPUsPerNode <= 0 {
				t.Fatalf("accepted pool %+v", p)
			}
			if p.Nodes > 1000 || p.GPUsPerNode > 64 {
				return // valid but too large to build in a fuzz loop
			}
			total += p.Nodes * p.GPUsPerNode
		}
		c, err := NewCluster(spec)
		if err != nil {
			t.Fatalf("accepted spec does not build: %v", err)
		}
		if c.NumSlots() != total {
			t.Fatalf("%d slots, pools say %d", c.NumSlots(), total)
		}
	})
}
