package sia

import (
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entries are Sia's registry entries (docs/ilp-baselines.md): one name is
// one algorithm in every timing mode; the versions behind the authors'
// stored results have their own names (sia-stored, sia-glpk).
func Entries() []registry.Entry {
	return []registry.Entry{
		{
			Name:     "sia",
			Doc:      "Sia: goodput integer program over job × (GPU type, count), ≤3 changes per decision; the artifact's head rules, running jobs taking the program's GPU count",
			Overhead: registry.FullSearch("sia"), Cost: 30,
			Options: []registry.Option{{Name: "max_fits", Type: registry.Int, Default: "0", Min: "0",
				Help: "at most this many programs fitted per decision; later arrivals wait unfitted for the next restart pass (a round with departures); 0 = no bound (the published algorithm, used for parity)"}},
			New: func(o registry.Options) (sim.Policy, error) {
				return NewVersion(o.Cluster, o.Source, Head, false).WithMaxFits(o.Values.Int("max_fits")), nil
			},
		},
		{
			Name:     "sia-head",
			Doc:      "sia exactly as the artifact's ae-eurosys head, including its quirk that running jobs keep the previous decision's GPU count",
			Overhead: registry.FullSearch("sia-head", "sia"), Cost: 30,
			New: func(o registry.Options) (sim.Policy, error) {
				return NewVersion(o.Cluster, o.Source, Head, true).Named("sia-head"), nil
			},
		},
		{
			Name:     "sia-stored",
			Doc:      "sia as the version behind the authors' stored Philly results (restart pass blocks a failed job's type; the artifact's GPU-count quirk)",
			Overhead: registry.FullSearch("sia-stored", "sia"), Cost: 30,
			New: func(o registry.Options) (sim.Policy, error) {
				return NewVersion(o.Cluster, o.Source, StoredRun, true).Named("sia-stored"), nil
			},
		},
		{
			Name:     "sia-glpk",
			Doc:      "sia-stored solving its programs with GLPK, the artifact's solver; needs python3-cvxopt",
			Overhead: registry.FullSearch("sia-glpk", "sia"), Cost: 30,
			New: func(o registry.Options) (sim.Policy, error) {
				g, err := StartGLPK()
				if err != nil {
					return nil, err
				}
				return NewVersion(o.Cluster, o.Source, StoredRun, true).Named("sia-glpk").WithGLPK(g), nil
			},
		},
	}
}
