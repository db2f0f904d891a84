package tiresias

import (
	"fmt"
	"math"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entry is Tiresias's registry entry: its options (queues, threshold,
// growth, promote) and the full-search overhead class.
func Entry() registry.Entry {
	return registry.Entry{
		Name:     "tiresias",
		Doc:      "Tiresias 2D-LAS: discretised queues by attained GPU-seconds (2 queues at 16 GPU-h), FIFO within a queue, preemptive; requested type and count",
		Overhead: registry.FullSearch("tiresias"),
		Options: []registry.Option{
			{Name: "queues", Type: registry.Int, Default: "2", Min: "1", Max: "64", Help: "number of priority queues (1 = plain FIFO by arrival)"},
			{Name: "threshold", Type: registry.Duration, Default: "16h", Min: "0", Max: "1e10", Help: "attained service (GPU-time: 16h = 16 GPU-hours) at which a job leaves queue 0"},
			{Name: "growth", Type: registry.Float, Default: "2", Min: "1", MinOpen: true, Help: "each further queue's limit is growth × the previous one"},
			{Name: "promote", Type: registry.Float, Default: "0", Min: "0", Help: "STARVELIMIT: promote a job to queue 0 once its wait reaches promote × its executed time (0 = never)"},
		},
		New: func(o registry.Options) (sim.Policy, error) {
			cfg, err := configOf(o.Values)
			if err != nil {
				return nil, err
			}
			return New(o.Source.View(estimator.ViewOptimal), cfg), nil
		},
	}
}

// configOf turns the entry's options into a Config; the defaults give
// DefaultConfig.
func configOf(v registry.Values) (Config, error) {
	k, first, growth := v.Int("queues"), float64(v.Duration("threshold")), v.Float("growth")
	switch {
	case k < 1:
		return Config{}, registry.NewOptionError("tiresias", "queues", fmt.Errorf("%d: want at least 1", k))
	case k > 1 && !(first > 0):
		return Config{}, registry.NewOptionError("tiresias", "threshold", fmt.Errorf("%v: want a positive duration", first))
	case k > 2 && !(growth > 1):
		return Config{}, registry.NewOptionError("tiresias", "growth", fmt.Errorf("%v: want more than 1 so that the limits increase", growth))
	case v.Float("promote") < 0:
		return Config{}, registry.NewOptionError("tiresias", "promote", fmt.Errorf("%v: want 0 or more", v.Float("promote")))
	}
	cfg := Config{PromoteKnob: v.Float("promote")}
	for i := 0; i < k-1; i++ {
		cfg.Thresholds = append(cfg.Thresholds, first*math.Pow(growth, float64(i)))
	}
	return cfg, nil
}
