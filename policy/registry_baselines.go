package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/elasticflow"
	"github.com/arena-sim/arena/policy/srtf"
	"github.com/arena-sim/arena/policy/tiresias"
	"github.com/arena-sim/arena/sim"
)

// baselineEntries registers ElasticFlow and the classic single-type
// policies (policy/elasticflow, policy/tiresias, policy/srtf). All of them
// pay the full-search reconfiguration overhead, as the artifact's
// baselines do.
func baselineEntries() []Entry {
	return []Entry{
		{
			Name: "elasticflow-ls", Aliases: []string{"elasticflow-l"},
			Doc:      "ElasticFlow with deadlines relaxed by 1e9 s (the paper's ElasticFlow-LS): per-type admission by minimum DP share, greedy doubling, full re-placement",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return elasticflow.New(o.Cluster, o.Source, elasticflow.LongSlack, FullSearchOverhead), nil
			},
		},
		{
			Name:     "elasticflow",
			Doc:      "ElasticFlow with the jobs' own deadlines (submit + 5·budget); pending jobs past their deadline are never restarted",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return elasticflow.New(o.Cluster, o.Source, elasticflow.Deadlines, FullSearchOverhead), nil
			},
		},
		{
			Name:     "tiresias",
			Doc:      "Tiresias 2D-LAS: discretised queues by attained GPU-seconds (2 queues at 16 GPU-h), FIFO within a queue, preemptive; requested type and count",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return tiresias.New(o.Source.View(estimator.ViewOptimal), tiresias.DefaultConfig()), nil
			},
		},
		{
			Name:     "srtf",
			Doc:      "shortest remaining time first with the true remaining time (oracle), preemptive; requested type and count",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return srtf.New(o.Source.View(estimator.ViewOptimal)), nil
			},
		},
	}
}
