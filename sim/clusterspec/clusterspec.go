package clusterspec

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/input"
)

// MaxBytes bounds a cluster spec file.
const MaxBytes = 1 << 20

// builtinClusters are the specs a user can name with --cluster.
var builtinClusters = map[string]sim.ClusterSpec{
	"paper-1280": {Name: "paper-1280", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 80, GPUsPerNode: 4},
		{GPU: "v100", Nodes: 20, GPUsPerNode: 16},
		{GPU: "a40", Nodes: 160, GPUsPerNode: 2},
		{GPU: "a10", Nodes: 160, GPUsPerNode: 2},
	}},
	"testbed-64": {Name: "testbed-64", Pools: []sim.Pool{
		{GPU: "a40", Nodes: 16, GPUsPerNode: 2},
		{GPU: "a10", Nodes: 16, GPUsPerNode: 2},
	}},
	"h100-l20": {Name: "h100-l20", Pools: []sim.Pool{
		{GPU: "h100", Nodes: 16, GPUsPerNode: 8},
		{GPU: "l20", Nodes: 16, GPUsPerNode: 16},
	}},
	// Clusters with a topology (docs/topology.md).
	//
	// h100-24k is the layout of Meta's 24K-GPU RoCE cluster that trained
	// Llama 3 (The Llama 3 Herd of Models, 2024, §3.3.1): racks of 2
	// servers × 8 H100 under one ToR, pods of 192 racks (3,072 GPUs) with
	// full bisection bandwidth, 8 pods joined by an aggregation layer
	// oversubscribed 1:7; 400 Gb/s (50 GB/s) per GPU.
	"h100-24k": {Name: "h100-24k", Pools: []sim.Pool{{GPU: "h100", Nodes: 3072, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, NetworkGBs: 50, Tiers: []sim.Tier{
			{Name: "rack", Nodes: 2, Oversubscription: 1},
			{Name: "pod", Nodes: 384, Oversubscription: 7},
		}}},
	// h100-98k is h100-24k with 32 pods instead of 8 (98,304 GPUs; the
	// same racks, pods and 1:7 aggregation uplinks per pod): the 100k-GPU
	// cluster of the one-million-job benchmark (BenchmarkScalingTopology,
	// bench/scale-1m-topology.md). No published cluster has exactly this
	// shape; it is the Llama 3 cluster's layout grown by pods.
	"h100-98k": {Name: "h100-98k", Pools: []sim.Pool{{GPU: "h100", Nodes: 12288, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, NetworkGBs: 50, Tiers: []sim.Tier{
			{Name: "rack", Nodes: 2, Oversubscription: 1},
			{Name: "pod", Nodes: 384, Oversubscription: 7},
		}}},
	// nvl72-h100 has the shape of a GB200 NVL72 cluster — 16 racks, each
	// one NVLink domain of 18 nodes × 4 GPUs at 900 GB/s per GPU, 50 GB/s
	// per GPU to a non-blocking network — with H100s standing in for the
	// GB200 superchips, which the GPU catalog does not have.
	"nvl72-h100": {Name: "nvl72-h100", Pools: []sim.Pool{{GPU: "h100", Nodes: 288, GPUsPerNode: 4}},
		Topology: &sim.Topology{DomainNodes: 18, DomainGBs: 900, NetworkGBs: 50, Tiers: []sim.Tier{
			{Name: "rack", Nodes: 18, Oversubscription: 1},
		}}},
	// h100-racks is a small cluster for today's jobs of ≤ 16 GPUs: 32
	// nodes × 8 H100, racks of 2 nodes whose uplinks are oversubscribed
	// 3:1 (an illustrative enterprise leaf-spine ratio, not a published
	// cluster's), so 2-node jobs in different racks contend.
	"h100-racks": {Name: "h100-racks", Pools: []sim.Pool{{GPU: "h100", Nodes: 32, GPUsPerNode: 8}},
		Topology: &sim.Topology{DomainNodes: 1, Tiers: []sim.Tier{
			{Name: "rack", Nodes: 2, Oversubscription: 3},
		}}},
}

// BuiltinNames lists the built-in cluster specs, sorted.
func BuiltinNames() []string {
	var out []string
	for k := range builtinClusters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Load resolves a --cluster argument: a built-in name, or a path
// to a YAML spec or to the artifact's JSON spec.
func Load(nameOrPath string) (sim.ClusterSpec, error) {
	spec, _, err := LoadWithEnergy(nameOrPath)
	return spec, err
}

// LoadWithEnergy is Load that also returns the spec's energy section: the
// built-in energy model (energy.Default) with the section's overrides, nil
// when the spec has none (the built-in clusters and JSON specs have none).
func LoadWithEnergy(nameOrPath string) (sim.ClusterSpec, *energy.Model, error) {
	if s, ok := builtinClusters[nameOrPath]; ok {
		return s, nil, nil
	}
	f, err := os.Open(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return sim.ClusterSpec{}, nil, fmt.Errorf("cluster %q: not a built-in cluster (%s) and no such file", nameOrPath, strings.Join(BuiltinNames(), ", "))
		}
		return sim.ClusterSpec{}, nil, fmt.Errorf("cluster: %w", err)
	}
	defer f.Close()
	// Read at most one byte past the limit: a huge or endless file
	// (/dev/zero) fails without being read whole.
	data, err := input.ReadAll(nameOrPath, f)
	if err != nil {
		return sim.ClusterSpec{}, nil, fmt.Errorf("cluster %s: %w", nameOrPath, err)
	}
	return ParseWithEnergy(nameOrPath, data)
}

// Parse parses a cluster spec. YAML form:
//
//	name: my-cluster
//	pools:
//	  - {gpu: a100, nodes: 80, gpus_per_node: 4}
//
// The artifact's JSON form ([{"a100": {"node_num": 80}, ...}]) is accepted
// too; its node sizes come from the GPU catalog. Parsing is strict: one
// YAML document, no duplicate keys, whole numbers only, nothing after the
// JSON, sizes within sim.MaxNodes, sim.MaxGPUsPerNode and sim.MaxClusterGPUs. Errors
// name file, line and key, and never quote the file's content beyond a
// key or a short value.
func Parse(file string, data []byte) (sim.ClusterSpec, error) {
	spec, _, err := ParseWithEnergy(file, data)
	return spec, err
}

// ParseWithEnergy is Parse that also returns the YAML spec's energy
// section (LoadWithEnergy), given inline or as an energy file's name
// relative to file:
//
//	energy:                      # the keys of an energy file (docs/energy.md)
//	  pue: 1.3
//	  gpus: {h100: {idle: 70}}
//	energy: site-energy.yaml     # or an energy file
func ParseWithEnergy(file string, data []byte) (sim.ClusterSpec, *energy.Model, error) {
	if len(data) > MaxBytes {
		return sim.ClusterSpec{}, nil, &input.Error{File: file, Err: fmt.Errorf("%d bytes; a cluster spec is at most %d", len(data), MaxBytes)}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		spec, err := parseArtifactClusterJSON(file, data)
		if err != nil {
			return spec, nil, err
		}
		return spec, nil, sim.CheckClusterBounds(file, spec)
	}
	spec, em, err := parseClusterYAML(file, data)
	if err != nil {
		return spec, nil, err
	}
	return spec, em, sim.CheckClusterBounds(file, spec)
}

// parseEnergy reads a spec's energy section v: a mapping of energy-file
// keys over the built-in model, or an energy file's name relative to file.
func parseEnergy(file string, v *yaml.Node) (*energy.Model, error) {
	if v.Kind == yaml.ScalarNode {
		p := v.Value
		if p == "" {
			return nil, input.At(file, v, "energy", "want an energy file's name or a mapping of its keys")
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		m, err := energy.Load(p)
		if err != nil {
			return nil, input.At(file, v, "energy", "%w", err)
		}
		return m, nil
	}
	m := energy.Default()
	m.Name = filepath.Base(file) + " energy"
	if err := energy.Apply(m, file, "energy.", v); err != nil {
		return nil, err
	}
	return m, nil
}

func parseClusterYAML(file string, data []byte) (sim.ClusterSpec, *energy.Model, error) {
	var spec sim.ClusterSpec
	var em *energy.Model
	doc, err := input.OneDocument(file, "a cluster spec", data)
	if err != nil {
		return spec, nil, err
	}
	if doc == nil || doc.Kind != yaml.MappingNode {
		return spec, nil, &input.Error{File: file, Err: errors.New("want a mapping with keys name and pools")}
	}
	err = input.Mapping(file, "", doc, []string{"name", "pools", "topology", "energy"}, nil, func(key string, k, v *yaml.Node) error {
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" || len(v.Value) > 200 || strings.ContainsFunc(v.Value, unicode.IsControl) || !utf8.ValidString(v.Value) {
				return input.At(file, v, "name", "want a short one-line name")
			}
			// Tables, logs and results print it: the one rule for names
			// (no bidi override, zero-width or other format character).
			if err := input.Name(v.Value); err != nil {
				return input.At(file, v, "name", "%w", err)
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
		case "topology":
			t, err := parseTopology(file, v)
			if err != nil {
				return err
			}
			spec.Topology = t
		case "energy":
			m, err := parseEnergy(file, v)
			if err != nil {
				return err
			}
			em = m
		}
		return nil
	})
	if err != nil {
		return spec, nil, err
	}
	if len(spec.Pools) == 0 {
		return spec, nil, &input.Error{File: file, Kind: "key", Field: "pools", Err: errors.New("at least one pool is required")}
	}
	if spec.Topology != nil {
		if err := spec.Topology.Validate(); err != nil {
			return spec, nil, &input.Error{File: file, Kind: "key", Field: "topology", Err: err}
		}
	}
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(file, ".yaml")
		if err := input.Name(spec.Name); err != nil {
			return spec, nil, &input.Error{File: file, Err: fmt.Errorf("no name: key, and the file's name cannot name the cluster: %w", err)}
		}
	}
	if em != nil {
		for _, p := range spec.Pools {
			if _, err := em.Power(p.GPU); err != nil {
				return spec, nil, &input.Error{File: file, Kind: "key", Field: "energy", Err: err}
			}
		}
	}
	return spec, em, nil
}

func parsePool(file string, item *yaml.Node) (sim.Pool, error) {
	var p sim.Pool
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
			p.Nodes, err = wholeNumber(pv, sim.MaxNodes)
		case "gpus_per_node":
			p.GPUsPerNode, err = wholeNumber(pv, sim.MaxGPUsPerNode)
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

// parseArtifactClusterJSON reads [{"a100": {"node_num": 80}, …}] token by
// token, keeping key order (the artifact builds nodes in the JSON's key
// order) and refusing what Python's json module would silently accept or
// truncate: duplicate keys, fractional counts, trailing content.
func parseArtifactClusterJSON(file string, data []byte) (sim.ClusterSpec, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	spec := sim.ClusterSpec{Name: file}
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
			spec.Pools = append(spec.Pools, sim.Pool{GPU: g.Name, Nodes: n, GPUsPerNode: g.GPUsPerNode})
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
		if v > sim.MaxNodes {
			return 0, at(gpu+".node_num", "%d is over the limit of %d", v, sim.MaxNodes)
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

func shortValue(s string) string { return input.ShowValue(s) }
