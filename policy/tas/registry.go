package tas

import (
	"fmt"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entry is the policy's registry entry: its level and the size up to which
// a job requires it, the full-search overhead class of the baselines.
func Entry() registry.Entry {
	return registry.Entry{
		Name:     "tas",
		Doc:      "Kueue-style topology-aware FIFO: each job requires (up to required_max_gpus GPUs) or prefers one group of a topology level; requested type and count, no preemption",
		Overhead: registry.FullSearch("tas"),
		Options: []registry.Option{
			{Name: "level", Type: registry.String, Default: "rack", Help: "topology level: domain (a fast domain), a tier name of the cluster's topology (rack, pod, …) or cluster; rack on a cluster without one is the fast domain (the node)"},
			{Name: "required_max_gpus", Type: registry.Int, Default: "0", Min: "0", Max: "1048576", Help: "jobs of at most this many GPUs require the level (wait for room in one group; refused if larger than a group); larger ones prefer it (0: every job prefers)"},
		},
		New: func(o registry.Options) (sim.Policy, error) {
			cfg, err := configOf(o.Cluster, o.Values)
			if err != nil {
				return nil, err
			}
			return New(o.Source.View(estimator.ViewOptimal), cfg), nil
		},
	}
}

// configOf resolves the level on the run's cluster.
func configOf(c *sim.Cluster, v registry.Values) (Config, error) {
	name := v.String("level")
	cfg := Config{LevelName: name, RequiredMaxGPUs: v.Int("required_max_gpus")}
	if c == nil {
		return cfg, nil
	}
	lvl, ok := placement.LevelOf(c, name)
	switch {
	case ok:
	case name == "rack" && c.Topology() == nil:
		lvl = placement.LevelDomain // the default on a cluster without topology
	default:
		tiers := "none"
		if top := c.Topology(); top != nil {
			tiers = ""
			for i, t := range top.Tiers {
				if i > 0 {
					tiers += ", "
				}
				tiers += t.Name
			}
		}
		return cfg, registry.NewOptionError("tas", "level", fmt.Errorf("%s: not a level of cluster %s (domain, cluster, or a tier: %s)", sim.ShowValue(name), c.Name, tiers))
	}
	cfg.Level = lvl
	return cfg, nil
}
