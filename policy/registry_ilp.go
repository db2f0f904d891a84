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
			Name: "gavel", Doc: "Gavel max-sum-throughput: integer program over job × GPU type, ≤3 type changes per decision (artifact timing: the version behind the authors' stored results)",
			Overhead: FullSearch("gavel"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				v := gavel.Head
				if o.Timing == sim.Artifact {
					v = gavel.StoredRun
				}
				return gavel.NewVersion(o.Cluster, o.Source, v), nil
			},
		},
		{
			Name: "sia-glpk", Doc: "sia (artifact timing: the stored run's version) solving its programs with GLPK, the artifact's solver; needs python3-cvxopt",
			Overhead: FullSearch("sia-glpk", "sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				g, err := sia.StartGLPK()
				if err != nil {
					return nil, err
				}
				v := sia.Head
				if o.Timing == sim.Artifact {
					v = sia.StoredRun
				}
				return sia.NewVersion(o.Cluster, o.Source, v, o.Timing == sim.Artifact).Named("sia-glpk").WithGLPK(g), nil
			},
		},
		{
			Name: "gavel-head", Doc: "gavel as the artifact's ae-eurosys head (placements checked with the DP memory filter), in every timing",
			Overhead: FullSearch("gavel-head", "gavel"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return gavel.NewVersion(o.Cluster, o.Source, gavel.Head).Named("gavel-head"), nil
			},
		},
		{
			Name: "sia", Doc: "Sia: goodput integer program over job × (GPU type, count), ≤3 changes per decision (artifact timing: the version behind the authors' stored results)",
			Overhead: FullSearch("sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				v := sia.Head
				if o.Timing == sim.Artifact {
					v = sia.StoredRun
				}
				return sia.NewVersion(o.Cluster, o.Source, v, o.Timing == sim.Artifact), nil
			},
		},
		{
			Name: "sia-head", Doc: "sia as the artifact's ae-eurosys head (restart pass without type blocking), in every timing",
			Overhead: FullSearch("sia-head", "sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return sia.NewVersion(o.Cluster, o.Source, sia.Head, o.Timing == sim.Artifact).Named("sia-head"), nil
			},
		},
	}
}
