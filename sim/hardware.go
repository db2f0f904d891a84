package sim

import (
	"fmt"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim/input"
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
	// Topology is the network (docs/topology.md); nil: none, and the
	// engine prices no tier and models no contention.
	Topology *Topology `yaml:"topology,omitempty" json:"topology,omitempty"`
}

// Bounds on cluster specs. Real clusters are far inside them (the paper's
// has 420 nodes and 1,280 GPUs); they exist so that a typo or a hostile
// file ("nodes: 1e9") fails at once instead of taking gigabytes: the engine
// keeps state per node and per GPU.
const (
	MaxNodes       = 1 << 17 // per cluster
	MaxGPUsPerNode = 64
	MaxClusterGPUs = 1 << 20
)

// CheckClusterBounds refuses a spec over MaxNodes nodes or MaxClusterGPUs
// GPUs in total, as an input error of file (the spec's file, or "cluster
// NAME" for a spec built in code).
func CheckClusterBounds(file string, spec ClusterSpec) error {
	nodes, gpus := 0, 0
	for _, p := range spec.Pools {
		nodes += p.Nodes
		gpus += p.Nodes * p.GPUsPerNode
		if nodes > MaxNodes || gpus > MaxClusterGPUs {
			return &input.Error{File: file, Kind: "pool", Field: p.GPU, Err: fmt.Errorf("the cluster would have more than %d nodes or %d GPUs (the limits; the paper's cluster has 1,280 GPUs)", MaxNodes, MaxClusterGPUs)}
		}
	}
	return nil
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
	// capacity is the largest node's GPU count per type.
	capacity map[string]int
	// typeIndex is each type's position in Types.
	typeIndex map[string]int
	// net is the topology resolved onto the nodes; nil without one.
	net *netMap
}

// NewCluster builds a cluster from a spec.
func NewCluster(spec ClusterSpec) (*Cluster, error) {
	c := &Cluster{Name: spec.Name, total: map[string]int{}, nodesByType: map[string][]int{}, capacity: map[string]int{}}
	for _, p := range spec.Pools {
		if p.Nodes > MaxNodes || p.GPUsPerNode > MaxGPUsPerNode {
			return nil, fmt.Errorf("cluster %s: pool %s: %d nodes × %d GPUs is over the limits (%d nodes, %d GPUs per node)", spec.Name, p.GPU, p.Nodes, p.GPUsPerNode, MaxNodes, MaxGPUsPerNode)
		}
	}
	if err := CheckClusterBounds("cluster "+spec.Name, spec); err != nil {
		return nil, err
	}
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
		c.capacity[p.GPU] = max(c.capacity[p.GPU], p.GPUsPerNode)
	}
	if spec.Topology != nil {
		m, err := newNetMap(c, spec.Pools, spec.Topology)
		if err != nil {
			return nil, err
		}
		c.net = m
	}
	c.Types = estimator.TypeOrder(seen)
	c.typeIndex = make(map[string]int, len(c.Types))
	for i, t := range c.Types {
		c.typeIndex[t] = i
	}
	return c, nil
}

// TypeIndex returns the position of a GPU type in Types, or −1.
func (c *Cluster) TypeIndex(gpu string) int {
	if i, ok := c.typeIndex[gpu]; ok {
		return i
	}
	return -1
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
func (c *Cluster) NodeCapacity(gpu string) int { return c.capacity[gpu] }

// ShapeOf derives the Config of a set of GPU slots: one GPU type, the
// number of distinct nodes and GPUs per node. ok is false when the slots
// mix types or use nodes unevenly (not a uniform grid), or list a slot
// twice (it would count as two GPUs of its node).
//
// It checks a sorted copy of the slots (on the stack up to smallShape
// slots, every allocation a policy asks for on most clusters): a node's
// slots are consecutive, so the sorted copy lists each node's slots next
// to each other and a repeated slot next to itself, and one pass counts
// the nodes and the GPUs of each: O(s log s), no maps (an 8,192-GPU
// allocation is checked on every start).
func (c *Cluster) ShapeOf(slots []int) (estimator.Config, bool) {
	if len(slots) == 0 {
		return estimator.Config{}, false
	}
	var stack [smallShape]int
	var sorted []int
	if len(slots) <= smallShape {
		sorted = stack[:len(slots)]
	} else {
		sorted = make([]int, len(slots))
	}
	for i, s := range slots {
		if s < 0 || s >= len(c.slotNode) {
			return estimator.Config{}, false
		}
		sorted[i] = s
	}
	gpu := c.Nodes[c.slotNode[slots[0]]].GPU
	slices.Sort(sorted)
	nodes, q, run := 0, 0, 0
	for i, s := range sorted {
		n := c.slotNode[s]
		if i > 0 && s == sorted[i-1] {
			return estimator.Config{}, false
		}
		if i > 0 && n == c.slotNode[sorted[i-1]] {
			run++
			continue
		}
		if c.Nodes[n].GPU != gpu || nodes > 1 && run != q {
			return estimator.Config{}, false
		}
		if nodes == 1 {
			q = run
		}
		nodes++
		run = 1
	}
	if nodes > 1 && run != q {
		return estimator.Config{}, false
	}
	if nodes == 1 {
		q = run
	}
	return estimator.Config{GPU: gpu, Nodes: nodes, PerNode: q}, true
}

// smallShape is the longest slot list ShapeOf sorts on the stack.
const smallShape = 64
