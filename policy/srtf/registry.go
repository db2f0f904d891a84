package srtf

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entry is SRTF's registry entry (no options, the full-search overhead
// class).
func Entry() registry.Entry {
	return registry.Entry{
		Name:     "srtf",
		Doc:      "shortest remaining time first with the true remaining time (oracle), preemptive; requested type and count",
		Overhead: registry.FullSearch("srtf"),
		New: func(o registry.Options) (sim.Policy, error) {
			return New(o.Source.View(estimator.ViewOptimal)), nil
		},
	}
}
