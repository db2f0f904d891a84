package policy

import (
	"github.com/arena-sim/arena/policy/gavel"
	"github.com/arena-sim/arena/policy/sia"
	"github.com/arena-sim/arena/sim"
)

// ilpEntries registers the integer-programming baselines (policy/gavel,
// policy/sia); see docs/ilp-baselines.md.
func ilpEntries() []Entry {
	return []Entry{
		{
			Name: "gavel", Doc: "Gavel max-sum-throughput: integer program over job × GPU type, ≤3 type changes per decision",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return gavel.New(o.Cluster, o.Source), nil
			},
		},
		{
			Name: "sia", Doc: "Sia: goodput integer program over job × (GPU type, count), ≤3 changes per decision",
			Overhead: FullSearchOverhead,
			New: func(o Options) (sim.Policy, error) {
				return sia.New(o.Cluster, o.Source, o.Timing == sim.Artifact), nil
			},
		},
	}
}
