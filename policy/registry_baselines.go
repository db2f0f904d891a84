package policy

import (
	"fmt"
	"math"

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
			Overhead: FullSearch("elasticflow-ls", "elasticflow"), Cost: 3,
			New: func(o Options) (sim.Policy, error) {
				return newElasticFlow(o, elasticflow.LongSlack)
			},
		},
		{
			Name:     "elasticflow",
			Doc:      "ElasticFlow with the jobs' own deadlines (submit + 5·budget); pending jobs past their deadline are never restarted",
			Overhead: FullSearch("elasticflow"), Cost: 3,
			New: func(o Options) (sim.Policy, error) {
				return newElasticFlow(o, elasticflow.Deadlines)
			},
		},
		{
			Name:     "tiresias",
			Doc:      "Tiresias 2D-LAS: discretised queues by attained GPU-seconds (2 queues at 16 GPU-h), FIFO within a queue, preemptive; requested type and count",
			Overhead: FullSearch("tiresias"),
			Options: []Option{
				{Name: "queues", Type: Int, Default: "2", Min: "1", Max: "64", Help: "number of priority queues (1 = plain FIFO by arrival)"},
				{Name: "threshold", Type: Duration, Default: "16h", Help: "attained service (GPU-time: 16h = 16 GPU-hours) at which a job leaves queue 0"},
				{Name: "growth", Type: Float, Default: "2", Min: "1", MinOpen: true, Help: "each further queue's limit is growth × the previous one"},
				{Name: "promote", Type: Float, Default: "0", Min: "0", Help: "STARVELIMIT: promote a job to queue 0 once its wait reaches promote × its executed time (0 = never)"},
			},
			New: func(o Options) (sim.Policy, error) {
				cfg, err := tiresiasConfig(o.Values)
				if err != nil {
					return nil, err
				}
				return tiresias.New(o.Source.View(estimator.ViewOptimal), cfg), nil
			},
		},
		{
			Name:     "srtf",
			Doc:      "shortest remaining time first with the true remaining time (oracle), preemptive; requested type and count",
			Overhead: FullSearch("srtf"),
			New: func(o Options) (sim.Policy, error) {
				return srtf.New(o.Source.View(estimator.ViewOptimal)), nil
			},
		},
	}
}

// newElasticFlow builds ElasticFlow with its own overhead and the cost its
// deadline test anticipates, both from the run's profile.
func newElasticFlow(o Options, v elasticflow.Variant) (sim.Policy, error) {
	check, err := o.Resolve(ElasticFlowCheckOverhead)
	if err != nil {
		return nil, err
	}
	return elasticflow.New(o.Cluster, o.Source, v, o.Overhead, check), nil
}

// tiresiasConfig turns the tiresias entry's options into its Config; the
// defaults give tiresias.DefaultConfig.
func tiresiasConfig(v Values) (tiresias.Config, error) {
	k, first, growth := v.Int("queues"), float64(v.Duration("threshold")), v.Float("growth")
	switch {
	case k < 1:
		return tiresias.Config{}, optionError("tiresias", "queues", fmt.Errorf("%d: want at least 1", k))
	case k > 1 && !(first > 0):
		return tiresias.Config{}, optionError("tiresias", "threshold", fmt.Errorf("%v: want a positive duration", first))
	case k > 2 && !(growth > 1):
		return tiresias.Config{}, optionError("tiresias", "growth", fmt.Errorf("%v: want more than 1 so that the limits increase", growth))
	case v.Float("promote") < 0:
		return tiresias.Config{}, optionError("tiresias", "promote", fmt.Errorf("%v: want 0 or more", v.Float("promote")))
	}
	cfg := tiresias.Config{PromoteKnob: v.Float("promote")}
	for i := 0; i < k-1; i++ {
		cfg.Thresholds = append(cfg.Thresholds, first*math.Pow(growth, float64(i)))
	}
	return cfg, nil
}
