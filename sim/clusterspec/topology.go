package clusterspec

import (
	"errors"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// parseTopology reads a cluster spec's topology key (docs/topology.md):
//
//	topology:
//	  domain_nodes: 18        # nodes per fast (NVLink) domain
//	  domain_gbs: 900         # per-GPU bandwidth inside it, GB/s (default: the GPU's intra-node)
//	  network_gbs: 50         # per-GPU scale-out bandwidth, GB/s (default: the GPU's inter-node)
//	  tiers:                  # switch tiers, innermost first
//	    - {name: rack, nodes: 18, oversubscription: 1}
//	    - {name: pod, nodes: 288, oversubscription: 4}
//
// Errors name the file, line and key; the whole is checked by
// sim.Topology.Validate after parsing.
func parseTopology(file string, v *yaml.Node) (*sim.Topology, error) {
	t := &sim.Topology{DomainNodes: 1}
	err := input.Mapping(file, "topology.", v, []string{"domain_nodes", "domain_gbs", "network_gbs", "tiers"}, nil, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "domain_nodes":
			t.DomainNodes, err = wholeNumber(v, sim.MaxNodes)
		case "domain_gbs":
			t.DomainGBs, err = bandwidth(v)
		case "network_gbs":
			t.NetworkGBs, err = bandwidth(v)
		case "tiers":
			if v.Kind != yaml.SequenceNode || len(v.Content) > 8 {
				return input.At(file, v, "topology.tiers", "want a list of at most 8 {name, nodes, oversubscription}, innermost first")
			}
			for i, item := range v.Content {
				tr, err := parseTier(file, i, item)
				if err != nil {
					return err
				}
				t.Tiers = append(t.Tiers, tr)
			}
		}
		if err != nil {
			return input.At(file, k, "topology."+key, "%w", err)
		}
		return nil
	})
	return t, err
}

func parseTier(file string, i int, item *yaml.Node) (sim.Tier, error) {
	tr := sim.Tier{Oversubscription: 1}
	prefix := fmt.Sprintf("topology.tiers[%d].", i)
	if item.Kind != yaml.MappingNode {
		return tr, input.At(file, item, prefix[:len(prefix)-1], "want a mapping {name, nodes, oversubscription}")
	}
	err := input.Mapping(file, prefix, item, []string{"name", "nodes", "oversubscription"}, nil, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || input.Name(v.Value) != nil || len(v.Value) > 32 {
				err = errors.New("want a short name (rack, pod)")
			}
			tr.Name = v.Value
		case "nodes":
			tr.Nodes, err = wholeNumber(v, sim.MaxNodes)
		case "oversubscription":
			tr.Oversubscription, err = number(v)
			if err == nil && (tr.Oversubscription < 1 || tr.Oversubscription > 1000) {
				err = fmt.Errorf("want a ratio in [1, 1000] (1: non-blocking), got %s", shortValue(v.Value))
			}
		}
		if err != nil {
			return input.At(file, k, prefix+key, "%w", err)
		}
		return nil
	})
	if err == nil && (tr.Name == "" || tr.Nodes == 0) {
		err = input.At(file, item, prefix[:len(prefix)-1], "name and nodes are required")
	}
	return tr, err
}

// number reads a finite decimal scalar.
func number(v *yaml.Node) (float64, error) {
	x, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || err != nil || x != x || x > 1e6 || x < -1e6 {
		return 0, fmt.Errorf("want a number, got %s", shortValue(v.Value))
	}
	return x, nil
}

// bandwidth reads a per-GPU bandwidth in GB/s, > 0.
func bandwidth(v *yaml.Node) (float64, error) {
	x, err := number(v)
	if err == nil && x <= 0 {
		err = fmt.Errorf("want a bandwidth > 0 GB/s, got %s", shortValue(v.Value))
	}
	return x, err
}
