package sim

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

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
	f, err := os.Open(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ClusterSpec{}, fmt.Errorf("cluster %q: not a built-in cluster (%s) and no such file", nameOrPath, strings.Join(BuiltinClusterNames(), ", "))
		}
		return ClusterSpec{}, fmt.Errorf("cluster: %w", err)
	}
	defer f.Close()
	// Read at most one byte past the limit: a huge or endless file
	// (/dev/zero) fails without being read whole.
	data, err := input.ReadAll(nameOrPath, f)
	if err != nil {
		return ClusterSpec{}, fmt.Errorf("cluster %s: %w", nameOrPath, err)
	}
	return ParseClusterSpec(nameOrPath, data)
}

// Bounds on cluster specs. Real clusters are far inside them (the paper's
// has 420 nodes and 1,280 GPUs); they exist so that a typo or a hostile
// file ("nodes: 1e9") fails at once instead of taking gigabytes: the engine
// keeps state per node and per GPU.
const (
	MaxNodes       = 1 << 17 // per cluster
	MaxGPUsPerNode = 64
	MaxClusterGPUs = 1 << 20
	// MaxSpecBytes bounds a cluster spec file.
	MaxSpecBytes = 1 << 20
)

// ParseClusterSpec parses a cluster spec. YAML form:
//
//	name: my-cluster
//	pools:
//	  - {gpu: a100, nodes: 80, gpus_per_node: 4}
//
// The artifact's JSON form ([{"a100": {"node_num": 80}, ...}]) is accepted
// too; its node sizes come from the GPU catalog. Parsing is strict: one
// YAML document, no duplicate keys, whole numbers only, nothing after the
// JSON, sizes within MaxNodes, MaxGPUsPerNode and MaxClusterGPUs. Errors
// name file, line and key, and never quote the file's content beyond a
// key or a short value.
func ParseClusterSpec(file string, data []byte) (ClusterSpec, error) {
	if len(data) > MaxSpecBytes {
		return ClusterSpec{}, &input.Error{File: file, Err: fmt.Errorf("%d bytes; a cluster spec is at most %d", len(data), MaxSpecBytes)}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		spec, err := parseArtifactClusterJSON(file, data)
		if err != nil {
			return spec, err
		}
		return spec, checkClusterBounds(file, spec)
	}
	spec, err := parseClusterYAML(file, data)
	if err != nil {
		return spec, err
	}
	return spec, checkClusterBounds(file, spec)
}

func parseClusterYAML(file string, data []byte) (ClusterSpec, error) {
	var spec ClusterSpec
	doc, err := input.OneDocument(file, "a cluster spec", data)
	if err != nil {
		return spec, err
	}
	if doc == nil || doc.Kind != yaml.MappingNode {
		return spec, &input.Error{File: file, Err: errors.New("want a mapping with keys name and pools")}
	}
	err = input.Mapping(file, "", doc, []string{"name", "pools"}, nil, func(key string, k, v *yaml.Node) error {
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" || len(v.Value) > 200 || strings.ContainsFunc(v.Value, unicode.IsControl) || !utf8.ValidString(v.Value) {
				return input.At(file, v, "name", "want a short one-line name")
			}
			spec.Name = v.Value
		case "pools":
			if v.Kind != yaml.SequenceNode {
				return input.At(file, v, "pools", "want a list of {gpu, nodes, gpus_per_node}")
			}
			for _, item := range v.Content {
				p, err := parsePool(file, item)
				if err != nil {
					return err
				}
				spec.Pools = append(spec.Pools, p)
			}
		}
		return nil
	})
	if err != nil {
		return spec, err
	}
	if len(spec.Pools) == 0 {
		return spec, &input.Error{File: file, Kind: "key", Field: "pools", Err: errors.New("at least one pool is required")}
	}
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(file, ".yaml")
	}
	return spec, nil
}

func parsePool(file string, item *yaml.Node) (Pool, error) {
	var p Pool
	if item.Kind != yaml.MappingNode {
		return p, &input.Error{File: file, Line: item.Line, Kind: "pools", Field: "entry", Err: errors.New("want a mapping {gpu, nodes, gpus_per_node}")}
	}
	err := input.Mapping(file, "", item, []string{"gpu", "nodes", "gpus_per_node"}, nil, func(key string, pk, pv *yaml.Node) error {
		var err error
		switch key {
		case "gpu":
			p.GPU = strings.ToLower(pv.Value)
			if _, e := estimator.LookupGPU(p.GPU); e != nil || pv.Kind != yaml.ScalarNode {
				err = fmt.Errorf("unknown GPU type %s; want one of %s", shortValue(pv.Value), strings.Join(estimator.GPUNames(), ", "))
			}
		case "nodes":
			p.Nodes, err = wholeNumber(pv, MaxNodes)
		case "gpus_per_node":
			p.GPUsPerNode, err = wholeNumber(pv, MaxGPUsPerNode)
		}
		if err != nil {
			return &input.Error{File: file, Line: pk.Line, Kind: "key", Field: pk.Value, Err: err}
		}
		return nil
	})
	if err != nil {
		return p, err
	}
	if p.GPU == "" || p.Nodes == 0 {
		return p, &input.Error{File: file, Line: item.Line, Kind: "pools", Field: "entry", Err: errors.New("gpu and nodes are required")}
	}
	if p.GPUsPerNode == 0 {
		g, _ := estimator.LookupGPU(p.GPU)
		p.GPUsPerNode = g.GPUsPerNode
	}
	return p, nil
}

// wholeNumber reads a YAML scalar as an integer in [1, limit]: "2.5",
// "1e9" and "0x10" are refused, not truncated or widened.
func wholeNumber(v *yaml.Node, limit int) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n <= 0 {
		return 0, fmt.Errorf("want a whole number ≥ 1, got %s", shortValue(v.Value))
	}
	if n > limit {
		return 0, fmt.Errorf("%d is over the limit of %d", n, limit)
	}
	return n, nil
}

func shortValue(s string) string { return ShowValue(s) }

// ShowValue renders a value read from an input file for an error message
// without echoing the file (input.ShowValue).
func ShowValue(s string) string { return input.ShowValue(s) }

func yamlErrorText(err error) string { return input.YAMLErrorText(err) }

func checkClusterBounds(file string, spec ClusterSpec) error {
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

// parseArtifactClusterJSON reads [{"a100": {"node_num": 80}, …}] token by
// token, keeping key order (the artifact builds nodes in the JSON's key
// order) and refusing what Python's json module would silently accept or
// truncate: duplicate keys, fractional counts, trailing content.
func parseArtifactClusterJSON(file string, data []byte) (ClusterSpec, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	spec := ClusterSpec{Name: file}
	// at is an input.Error at the decoder's line, for key ("" = none).
	at := func(key, format string, args ...any) error {
		e := &input.Error{File: file, Line: 1 + bytes.Count(data[:dec.InputOffset()], []byte("\n")), Err: fmt.Errorf(format, args...)}
		if key != "" {
			e.Kind, e.Field = "key", key
		}
		return e
	}
	token := func(what string) (json.Token, error) {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				end := 1 + bytes.Count(bytes.TrimRight(data, " \t\r\n"), []byte("\n"))
				return nil, &input.Error{File: file, Line: end, Err: fmt.Errorf("truncated JSON (the file ends early): want %s", what)}
			}
			return nil, at("", "not valid JSON: want %s", what)
		}
		return tok, nil
	}
	expect := func(want json.Delim) error {
		tok, err := token(string(want))
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return at("", "want %q", string(want))
		}
		return nil
	}
	if err := expect('['); err != nil {
		return spec, err
	}
	seen := map[string]bool{}
	for dec.More() {
		if err := expect('{'); err != nil {
			return spec, err
		}
		for dec.More() {
			tok, err := token("a GPU type")
			if err != nil {
				return spec, err
			}
			name, _ := tok.(string)
			g, lerr := estimator.LookupGPU(name)
			if lerr != nil {
				return spec, at(name, "unknown GPU type; want one of %s", strings.Join(estimator.GPUNames(), ", "))
			}
			if seen[g.Name] {
				return spec, at(name, "given twice")
			}
			seen[g.Name] = true
			n, err := nodeNum(dec, token, expect, at, name)
			if err != nil {
				return spec, err
			}
			spec.Pools = append(spec.Pools, Pool{GPU: g.Name, Nodes: n, GPUsPerNode: g.GPUsPerNode})
		}
		if err := expect('}'); err != nil {
			return spec, err
		}
	}
	if err := expect(']'); err != nil {
		return spec, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return spec, at("", "content after the closing ]")
	}
	if len(spec.Pools) == 0 {
		return spec, &input.Error{File: file, Err: errors.New("no GPU pools")}
	}
	return spec, nil
}

// nodeNum reads {"node_num": N} (other keys are ignored, as the artifact
// does; node_num twice is refused).
func nodeNum(dec *json.Decoder, token func(string) (json.Token, error), expect func(json.Delim) error, at func(key, format string, args ...any) error, gpu string) (int, error) {
	if err := expect('{'); err != nil {
		return 0, err
	}
	n := 0
	for dec.More() {
		tok, err := token("a key")
		if err != nil {
			return 0, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, at(gpu+"."+key, "not valid JSON")
		}
		if key != "node_num" {
			continue
		}
		if n != 0 {
			return 0, at(gpu+".node_num", "given twice")
		}
		v, err := strconv.Atoi(string(raw))
		if err != nil || v <= 0 {
			return 0, at(gpu+".node_num", "want a whole number ≥ 1, got %s", shortValue(string(raw)))
		}
		if v > MaxNodes {
			return 0, at(gpu+".node_num", "%d is over the limit of %d", v, MaxNodes)
		}
		n = v
	}
	if err := expect('}'); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, at(gpu+".node_num", "missing; want a whole number ≥ 1")
	}
	return n, nil
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
}

// NewCluster builds a cluster from a spec.
func NewCluster(spec ClusterSpec) (*Cluster, error) {
	c := &Cluster{Name: spec.Name, total: map[string]int{}, nodesByType: map[string][]int{}, capacity: map[string]int{}}
	for _, p := range spec.Pools {
		if p.Nodes > MaxNodes || p.GPUsPerNode > MaxGPUsPerNode {
			return nil, fmt.Errorf("cluster %s: pool %s: %d nodes × %d GPUs is over the limits (%d nodes, %d GPUs per node)", spec.Name, p.GPU, p.Nodes, p.GPUsPerNode, MaxNodes, MaxGPUsPerNode)
		}
	}
	if err := checkClusterBounds("cluster "+spec.Name, spec); err != nil {
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
// mix types or use nodes unevenly (not a uniform grid).
func (c *Cluster) ShapeOf(slots []int) (estimator.Config, bool) {
	if len(slots) == 0 || slots[0] < 0 || slots[0] >= len(c.slotNode) {
		return estimator.Config{}, false
	}
	if len(slots) > smallShape {
		return c.shapeOfLarge(slots)
	}
	// Up to smallShape slots (every allocation a policy can ask for on the
	// built-in clusters): quadratic scans of arrays on the stack, no maps.
	gpu := c.Nodes[c.slotNode[slots[0]]].GPU
	var nodes [smallShape]int32
	var count [smallShape]int
	k := 0
	for i, s := range slots {
		if s < 0 || s >= len(c.slotNode) {
			return estimator.Config{}, false
		}
		n := c.slotNode[s]
		if c.Nodes[n].GPU != gpu {
			return estimator.Config{}, false
		}
		for _, t := range slots[:i] {
			if t == s { // a slot listed twice would count as two GPUs
				return estimator.Config{}, false
			}
		}
		x := 0
		for x < k && nodes[x] != n {
			x++
		}
		if x == k {
			nodes[k] = n
			k++
		}
		count[x]++
	}
	for x := 1; x < k; x++ {
		if count[x] != count[0] {
			return estimator.Config{}, false
		}
	}
	return estimator.Config{GPU: gpu, Nodes: k, PerNode: count[0]}, true
}

// smallShape is the largest slot list ShapeOf checks without maps.
const smallShape = 64

func (c *Cluster) shapeOfLarge(slots []int) (estimator.Config, bool) {
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
	seen := map[int]bool{}
	for _, s := range slots {
		if seen[s] {
			return estimator.Config{}, false
		}
		seen[s] = true
	}
	q := perNode[order[0]]
	for _, n := range order {
		if perNode[n] != q {
			return estimator.Config{}, false
		}
	}
	return estimator.Config{GPU: gpu, Nodes: len(order), PerNode: q}, true
}
