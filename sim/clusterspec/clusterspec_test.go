package clusterspec

import (
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

func TestParse(t *testing.T) {
	spec, err := Parse("c.yaml", []byte("name: mine\npools:\n  - {gpu: a100, nodes: 2, gpus_per_node: 4}\n  - {gpu: A40, nodes: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
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
	artifact, err := Parse("sim_cluster_spec.json", []byte(`[{"a100": {"node_num": 80}, "v100": {"node_num": 20}, "a40": {"node_num": 160}, "a10": {"node_num": 160}}]`))
	if err != nil {
		t.Fatal(err)
	}
	ac, _ := sim.NewCluster(artifact)
	if ac.NumSlots() != 1280 || ac.Nodes[80].GPU != "v100" || ac.Nodes[80].Capacity != 16 {
		t.Errorf("artifact JSON: %d slots, node 80 %+v", ac.NumSlots(), ac.Nodes[80])
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{"name: x\npools:\n  - {gpu: b200, nodes: 2}\n", "c.yaml:3: key gpu"},
		{"name: x\npools:\n  - {gpu: a100, nodes: -1}\n", "c.yaml:3: key nodes: want a whole number ≥ 1"},
		{"name: x\npools:\n  - {gpu: a100, nodes: two}\n", "c.yaml:3: key nodes"},
		{"name: x\npools:\n  - {gpu: a100, nodes: 2, gpus: 4}\n", "c.yaml:3: key gpus: unknown key"},
		{"name: x\nnodes: 3\n", `c.yaml:2: key nodes: unknown key`},
		{"name: x\n", "at least one pool"},
		{"name: x\npools: 3\n", "c.yaml:2: key pools: want a list"},
		{`[{"a100": {"nodes": 3}}]`, "a100.node_num"},
		{`[{"tpu": {"node_num": 3}}]`, "unknown GPU type"},
	}
	for _, c := range cases {
		_, err := Parse("c.yaml", []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.body, err, c.want)
		}
	}
}

// FuzzParse: never panics; an accepted spec builds a cluster
// whose slots and nodes agree.
func FuzzParse(f *testing.F) {
	f.Add([]byte("name: x\npools:\n  - {gpu: a100, nodes: 2, gpus_per_node: 4}\n"))
	f.Add([]byte(`[{"a100": {"node_num": 3}}]`))
	f.Add([]byte("pools:\n - gpu: v100\n   nodes: 1\n"))
	f.Add([]byte(`[{"a100": {"node_num": 2}, "v100": {"node_num": 1}}, {"a40": {"node_num": 4, "x": [1]}}]`))
	f.Add([]byte("name: a\nname: b\npools:\n  - {gpu: a100, nodes: 2.5}\n---\n"))
	f.Add([]byte(`[{"a100": {"node_num": 1e9}}] x`))
	f.Add([]byte(nvlYAML))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		total, nodes := 0, 0
		for _, p := range spec.Pools {
			if p.Nodes <= 0 || p.GPUsPerNode <= 0 || p.GPUsPerNode > sim.MaxGPUsPerNode {
				t.Fatalf("accepted pool %+v", p)
			}
			nodes += p.Nodes
			if nodes > sim.MaxNodes {
				t.Fatalf("accepted %d nodes", nodes)
			}
			if p.Nodes > 1000 || p.GPUsPerNode > 64 {
				return // valid but too large to build in a fuzz loop
			}
			total += p.Nodes * p.GPUsPerNode
		}
		c, err := sim.NewCluster(spec)
		if err != nil {
			t.Fatalf("accepted spec does not build: %v", err)
		}
		if c.NumSlots() != total {
			t.Fatalf("%d slots, pools say %d", c.NumSlots(), total)
		}
	})
}

// TestClusterSpecHostile: each input a careless or hostile user might give
// is refused with file:line:key and what was expected (before: accepted,
// truncated, or built until memory ran out). Hand-written cases.
func TestClusterSpecHostile(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"fractional", "name: x\npools:\n  - {gpu: a100, nodes: 2.5, gpus_per_node: 4}\n", `x.yaml:3: key nodes: want a whole number ≥ 1, got "2.5"`},
		{"1e9 nodes", "pools:\n  - {gpu: a100, nodes: 1e9}\n", `x.yaml:2: key nodes: want a whole number`},
		{"huge nodes", "pools:\n  - {gpu: a100, nodes: 1000000000}\n", `x.yaml:2: key nodes: 1000000000 is over the limit of 131072`},
		{"huge node", "pools:\n  - {gpu: a100, nodes: 1, gpus_per_node: 2000000000}\n", `key gpus_per_node: 2000000000 is over the limit of 64`},
		{"too many GPUs", "pools:\n  - {gpu: a100, nodes: 100000, gpus_per_node: 64}\n", "more than 131072 nodes or 1048576 GPUs"},
		{"duplicate key", "name: a\nname: b\npools:\n  - {gpu: a100, nodes: 2}\n", `x.yaml:2: key name: given twice (first on line 1)`},
		{"duplicate pool key", "pools:\n  - {gpu: a100, nodes: 2, nodes: 3}\n", `x.yaml:2: key nodes: given twice`},
		{"multi-document", "pools:\n  - {gpu: a100, nodes: 2}\n---\npools:\n  - {gpu: v100, nodes: 2}\n", "x.yaml:3: a second YAML document"},
		{"json trailing garbage", `[{"a100": {"node_num": 2}}] trailing`, "x.yaml:1: content after the closing ]"},
		{"json truncated", "[\n{\"a100\": {\"node_num\": 2}},\n", "x.yaml:2: truncated JSON"},
		{"json fractional", `[{"a100": {"node_num": 2.5}}]`, `key a100.node_num: want a whole number ≥ 1, got "2.5"`},
		{"json huge", `[{"a100": {"node_num": 1000000000}}]`, "over the limit of 131072"},
		{"json duplicate gpu", `[{"a100": {"node_num": 2}, "a100": {"node_num": 3}}]`, `key a100: given twice`},
		{"json duplicate node_num", `[{"a100": {"node_num": 2, "node_num": 3}}]`, "node_num: given twice"},
		{"content not echoed", "root:x:0:0:secret-hash-0123456789abcdefghij:/root:/bin/bash\n", "want a mapping"},
	}
	for _, c := range cases {
		_, err := Parse("x.yaml", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error echoes the file: %v", c.name, err)
		}
	}
	// A YAML syntax error quotes no text of the file.
	_, err := Parse("x.yaml", []byte("pools: [\"secret-line\n"))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("syntax error: %v", err)
	}
	// sim.NewCluster refuses oversized specs built in code, too.
	if _, err := sim.NewCluster(sim.ClusterSpec{Name: "big", Pools: []sim.Pool{{GPU: "a100", Nodes: 1 << 30, GPUsPerNode: 4}}}); err == nil {
		t.Error("sim.NewCluster built 2^30 nodes")
	}
}
