package cost

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
)

// Entry is the cost-aware baseline's registry entry: its price tier and
// premium, and the full-search overhead class (as FCFS).
func Entry() registry.Entry {
	return registry.Entry{
		Name:     "cost-aware",
		Doc:      "each job on the GPU type with the lowest $ per sample it can start on now (price table of docs/energy.md), waiting rather than paying over a premium; no blocking, no preemption",
		Overhead: registry.FullSearch("cost-aware"),
		Options: []registry.Option{
			{Name: "tier", Type: registry.Enum, Values: energy.Tiers, Default: energy.TierOnDemand, Help: "price tier of the $/GPU-hour table"},
			{Name: "premium", Type: registry.Float, Default: "0.5", Min: "0", Max: "100", Help: "start now on a type up to (1 + premium) × the job's cheapest $ per sample; else wait"},
		},
		New: func(o registry.Options) (sim.Policy, error) {
			m := energy.Default()
			m.Tier = o.Values.String("tier")
			return New(o.Source.View(estimator.ViewOptimal), Config{Price: m.Price, Premium: o.Values.Float("premium")}), nil
		},
	}
}
