package elasticflow

import (
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// checkOverhead is the overhead class ElasticFlow's deadline test
// anticipates for a job submitted within the last round (the artifact
// prices it with Arena's pruned constants).
var checkOverhead = sim.OverheadClass{"elasticflow-check", "pruned", "arena"}

// maxFitsOption bounds a decision's work in counted steps (WithMaxFits).
var maxFitsOption = registry.Option{Name: "max_fits", Type: registry.Int, Default: "0", Min: "0",
	Help: "at most this many admission attempts (fits) per decision, each up to O(running jobs of the type); later arrivals wait unfitted for the next restart pass (a round with departures); 0 = no bound (the published algorithm, used for parity)"}

// keepOption turns on the keeping re-placement (WithKeep).
var keepOption = registry.Option{Name: "keep", Type: registry.Bool, Default: "false",
	Help: "re-place only the jobs that must move: the shares are the published algorithm's, but a running job whose share did not change keeps its GPUs and the others are packed on the GPUs left (the whole type is re-placed as published when they do not fit); false = the published re-placement of every job of the type (used for parity)"}

// Entries are the registry entries of ElasticFlow: with deadlines relaxed
// (the paper's ElasticFlow-LS) and with the jobs' own. Both pay the
// full-search reconfiguration overhead, as the artifact's baselines do.
func Entries() []registry.Entry {
	return []registry.Entry{
		{
			Name: "elasticflow-ls", Aliases: []string{"elasticflow-l"},
			Doc:      "ElasticFlow with deadlines relaxed by 1e9 s (the paper's ElasticFlow-LS): per-type admission by minimum DP share, greedy doubling, full re-placement",
			Overhead: registry.FullSearch("elasticflow-ls", "elasticflow"), Cost: 3,
			Options: []registry.Option{maxFitsOption, keepOption},
			New: func(o registry.Options) (sim.Policy, error) {
				return newFromOptions(o, LongSlack)
			},
		},
		{
			Name:     "elasticflow",
			Doc:      "ElasticFlow with the jobs' own deadlines (submit + 5·budget); pending jobs past their deadline are never restarted",
			Overhead: registry.FullSearch("elasticflow"), Cost: 3,
			Options: []registry.Option{maxFitsOption, keepOption},
			New: func(o registry.Options) (sim.Policy, error) {
				return newFromOptions(o, Deadlines)
			},
		},
	}
}

// newFromOptions builds ElasticFlow with its own overhead and the cost its
// deadline test anticipates, both from the run's profile.
func newFromOptions(o registry.Options, v Variant) (sim.Policy, error) {
	check, err := o.Resolve(checkOverhead)
	if err != nil {
		return nil, err
	}
	return New(o.Cluster, o.Source, v, o.Overhead, check).WithMaxFits(o.Values.Int("max_fits")).WithKeep(o.Values.Bool("keep")), nil
}
