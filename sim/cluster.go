package sim

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/estimator"
)

// Pool is a homogeneous group of nodes in a cluster spec.
type Pool struct {
	GPU         string `yaml:"gpu" json:"gpu"`
	Nodes       int    `yaml:"nodes" json:"nodes"`
	GPUsPerNode int    `yaml:"gpus_per_node" json:"gpus_per_node"`
}

// ClusterSpec is a cluster description: a name and node pools in order.
// Node order (pool by pool, nodes in order) is the tie-break order policies
// use, as in the artifact.
type ClusterSpec struct {
	Name  string `yaml:"name" json:"name"`
	Pools []Pool `yaml:"pools" json:"pools"`
}

// builtinClusters are the specs a user can name with --cluster.
var builtinClusters = map[string]ClusterSpec{
	"paper-1280": {Name: "paper-1280", Pools: []Pool{
		{GPU: "a100", Nodes: 80, GPUsPerNode: 4},
		{GPU: "v100", Nodes: 20, GPUsPerNode: 16},
		{GPU: "a40", Nodes: 160, GPUsPerNode: 2},
		{GPU: "a10", Nodes: 160, GPUsPerNode: 2},
	}},
	"testbed-64": {Name: "testbed-64", Pools: []Pool{
		{GPU: "a40", Nodes: 16, GPUsPerNode: 2},
		{GPU: "a10", Nodes: 16, GPUsPerNode: 2},
	}},
	"h100-l20": {Name: "h100-l20", Pools: []Pool{
		{GPU: "h100", Nodes: 16, GPUsPerNode: 8},
		{GPU: "l20", Nodes: 16, GPUsPerNode: 16},
	}},
}

// BuiltinClusterNames lists the built-in cluster specs, sorted.
func BuiltinClusterNames() []string {
	var out []string
	for k := range builtinClusters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LoadClusterSpec resolves a --cluster argument: a built-in name, or a path
// to a YAML spec or to the artifact's JSON spec.
func LoadClusterSpec(nameOrPath string) (ClusterSpec, error) {
	if s, ok := builtinClusters[nameOrPath]; ok {
		return s, nil
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ClusterSpec{}, fmt.Errorf("cluster %q: not a built-in cluster (%s) and no such file", nameOrPath, strings.Join(BuiltinClusterNames(), ", "))
		}
		return ClusterSpec{}, fmt.Errorf("cluster: %w", err)
	}
	return ParseClusterSpec(nameOrPath, data)
}

// ParseClusterSpec parses a cluster spec. YAML form:
//
//	name: my-cluster
//	pools:
//	  - {gpu: a100, nodes: 80, gpus_per_node: 4}
//
// The artifact's JSON form ([{"a100": {"node_num": 80}, ...}]) is accepted
// too; its node sizes come from the GPU catalog. Errors name file, line and key.
func ParseClusterSpec(file string, data []byte) (ClusterSpec, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return parseArtifactClusterJSON(file, trimmed)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return ClusterSpec{}, fmt.Errorf("%s: %w", file, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return ClusterSpec{}, fmt.Errorf("%s: want a mapping with keys name and pools", file)
	}
	var spec ClusterSpec
	doc := root.Content[0]
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		switch k.Value {
		case "name":
			spec.Name = v.Value
		case "pools":
			if v.Kind != yaml.SequenceNode {
				return spec, fmt.Errorf("%s:%d: key pools: want a list of {gpu, nodes, gpus_per_node}", file, v.Line)
			}
			for _, item := range v.Content {
				var p Pool
				if item.Kind != yaml.MappingNode {
					return spec, fmt.Errorf("%s:%d: pools entry: want a mapping {gpu, nodes, gpus_per_node}", file, item.Line)
				}
				for j := 0; j+1 < len(item.Content); j += 2 {
					pk, pv := item.Content[j], item.Content[j+1]
					var err error
					switch pk.Value {
					case "gpu":
						p.GPU = strings.ToLower(pv.Value)
						if _, e := estimator.LookupGPU(p.GPU); e != nil {
							err = e
						}
					case "nodes":
						err = pv.Decode(&p.Nodes)
						if err == nil && p.Nodes <= 0 {
							err = fmt.Errorf("want a positive integer, got %d", p.Nodes)
						}
					case "gpus_per_node":
						err = pv.Decode(&p.GPUsPerNode)
						if err == nil && p.GPUsPerNode <= 0 {
							err = fmt.Errorf("want a positive integer, got %d", p.GPUsPerNode)
						}
					default:
						err = fmt.Errorf("unknown key (want gpu, nodes, gpus_per_node)")
					}
					if err != nil {
						return spec, fmt.Errorf("%s:%d: key %s: %w", file, pk.Line, pk.Value, err)
					}
				}
				if p.GPU == "" || p.Nodes == 0 {
					return spec, fmt.Errorf("%s:%d: pools entry: gpu and nodes are required", file, item.Line)
				}
				if p.GPUsPerNode == 0 {
					g, _ := estimator.LookupGPU(p.GPU)
					p.GPUsPerNode = g.GPUsPerNode
				}
				spec.Pools = append(spec.Pools, p)
			}
		default:
			return spec, fmt.Errorf("%s:%d: unknown key %q (want name, pools)", file, k.Line, k.Value)
		}
	}
	if len(spec.Pools) == 0 {
		return spec, fmt.Errorf("%s: key pools: at least one pool is required", file)
	}
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(file, ".yaml")
	}
	return spec, nil
}

func parseArtifactClusterJSON(file string, data []byte) (ClusterSpec, error) {
	// Decode keeping key order: the artifact builds nodes in the JSON's key order.
	dec := json.NewDecoder(bytes.NewReader(data))
	spec := ClusterSpec{Name: file}
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("%s: offset %d: want %q", file, dec.InputOffset(), want)
		}
		return nil
	}
	if err := expect('['); err != nil {
		return spec, err
	}
	for dec.More() {
		if err := expect('{'); err != nil {
			return spec, err
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return spec, fmt.Errorf("%s: %w", file, err)
			}
			name, _ := tok.(string)
			var v struct {
				NodeNum *int `json:"node_num"`
			}
			if err := dec.Decode(&v); err != nil {
				return spec, fmt.Errorf("%s: key %s: %w", file, name, err)
			}
			g, err := estimator.LookupGPU(name)
			if err != nil {
				return spec, fmt.Errorf("%s: key %s: %w", file, name, err)
			}
			if v.NodeNum == nil || *v.NodeNum <= 0 {
				return spec, fmt.Errorf("%s: key %s.node_num: want a positive integer", file, name)
			}
			spec.Pools = append(spec.Pools, Pool{GPU: g.Name, Nodes: *v.NodeNum, GPUsPerNode: g.GPUsPerNode})
		}
		if err := expect('}'); err != nil {
			return spec, err
		}
	}
	if len(spec.Pools) == 0 {
		return spec, fmt.Errorf("%s: no GPU pools", file)
	}
	return spec, nil
}

// Node is one machine: a GPU type and Capacity GPU slots numbered
// FirstSlot … FirstSlot+Capacity−1 in the cluster's global slot numbering.
type Node struct {
	Index     int
	GPU       string
	Capacity  int
	FirstSlot int
}

// Cluster is the immutable hardware of a run: nodes in build order and a
// global numbering of GPU slots (node by node, slot by slot).
type Cluster struct {
	Name     string
	Nodes    []Node
	slotNode []int32
	// Types lists the GPU types present, in the artifact's type order.
	Types []string
	// total GPUs by type
	total map[string]int
	// nodesByType lists node indices per type, in node order.
	nodesByType map[string][]int
}

// NewCluster builds a cluster from a spec.
func NewCluster(spec ClusterSpec) (*Cluster, error) {
	c := &Cluster{Name: spec.Name, total: map[string]int{}, nodesByType: map[string][]int{}}
	var seen []string
	for _, p := range spec.Pools {
		if _, err := estimator.LookupGPU(p.GPU); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", spec.Name, err)
		}
		if p.Nodes <= 0 || p.GPUsPerNode <= 0 {
			return nil, fmt.Errorf("cluster %s: pool %s: nodes and gpus_per_node must be positive", spec.Name, p.GPU)
		}
		if _, ok := c.total[p.GPU]; !ok {
			seen = append(seen, p.GPU)
		}
		for i := 0; i < p.Nodes; i++ {
			n := Node{Index: len(c.Nodes), GPU: p.GPU, Capacity: p.GPUsPerNode, FirstSlot: len(c.slotNode)}
			c.Nodes = append(c.Nodes, n)
			c.nodesByType[p.GPU] = append(c.nodesByType[p.GPU], n.Index)
			for s := 0; s < p.GPUsPerNode; s++ {
				c.slotNode = append(c.slotNode, int32(n.Index))
			}
		}
		c.total[p.GPU] += p.Nodes * p.GPUsPerNode
	}
	c.Types = estimator.TypeOrder(seen)
	return c, nil
}

// NumSlots is the number of GPUs in the cluster.
func (c *Cluster) NumSlots() int { return len(c.slotNode) }

// NodeOf returns the node index holding GPU slot s.
func (c *Cluster) NodeOf(slot int) int { return int(c.slotNode[slot]) }

// TotalGPUs returns the number of GPUs of a type.
func (c *Cluster) TotalGPUs(gpu string) int { return c.total[gpu] }

// NodesOfType lists node indices of a GPU type in node order.
func (c *Cluster) NodesOfType(gpu string) []int { return c.nodesByType[gpu] }

// NodeCapacity returns the GPUs per node of a type (the largest node's, if mixed).
func (c *Cluster) NodeCapacity(gpu string) int {
	m := 0
	for _, i := range c.nodesByType[gpu] {
		m = max(m, c.Nodes[i].Capacity)
	}
	return m
}

// ShapeOf derives the Config of a set of GPU slots: one GPU type, the
// number of distinct nodes and GPUs per node. ok is false when the slots
// mix types or use nodes unevenly (not a uniform grid).
func (c *Cluster) ShapeOf(slots []int) (estimator.Config, bool) {
	if len(slots) == 0 || slots[0] < 0 || slots[0] >= len(c.slotNode) {
		return estimator.Config{}, false
	}
	gpu := c.Nodes[c.slotNode[slots[0]]].GPU
	perNode := map[int32]int{}
	var order []int32
	for _, s := range slots {
		if s < 0 || s >= len(c.slotNode) {
			return estimator.Config{}, false
		}
		n := c.slotNode[s]
		if c.Nodes[n].GPU != gpu {
			return estimator.Config{}, false
		}
		if perNode[n] == 0 {
			order = append(order, n)
		}
		perNode[n]++
	}
	// A slot listed twice would count as two GPUs of its node.
	if len(perNode) > 0 {
		seen := map[int]bool{}
		for _, s := range slots {
			if seen[s] {
				return estimator.Config{}, false
			}
			seen[s] = true
		}
	}
	q := perNode[order[0]]
	for _, n := range order {
		if perNode[n] != q {
			return estimator.Config{}, false
		}
	}
	return estimator.Config{GPU: gpu, Nodes: len(order), PerNode: q}, true
}
