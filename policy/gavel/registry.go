package gavel

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// gapOptions let Gavel answer like a solver stopping at a relative gap.
var gapOptions = []registry.Option{
	{Name: "gap", Type: registry.Float, Default: "0", Min: "0", Max: "1", Help: "relative MIP gap: answer with a seeded draw among assignments within gap·|optimum| of the optimum (CPLEX's default, behind the stored run, is 1e-4); 0 = the exact optimum"},
	{Name: "seed", Type: registry.Int, Default: "0", Help: "seed of the draw among assignments within the gap"},
}

// maxFitsOption bounds a decision's work in counted steps (WithMaxFits).
var maxFitsOption = registry.Option{Name: "max_fits", Type: registry.Int, Default: "0", Min: "0",
	Help: "at most this many programs solved per decision; later arrivals wait unfitted for the next restart pass (a round with departures); 0 = no bound (the published algorithm, used for parity)"}

// Entries are Gavel's registry entries (docs/ilp-baselines.md): one name
// is one algorithm in every timing mode; the version behind the authors'
// stored results has its own name (gavel-stored).
func Entries() []registry.Entry {
	return []registry.Entry{
		{
			Name: "gavel", Aliases: []string{"gavel-head"},
			Doc:      "Gavel max-sum-throughput: integer program over job × GPU type, ≤3 type changes per decision; the artifact's ae-eurosys head (placements checked with the DP memory filter)",
			Overhead: registry.FullSearch("gavel"), Cost: 30,
			Options: append([]registry.Option{registry.AdmissionOption, maxFitsOption}, gapOptions...),
			New: func(o registry.Options) (sim.Policy, error) {
				return withGap(withAdmission(NewVersion(o.Cluster, o.Source, Head), o), o).WithMaxFits(o.Values.Int("max_fits")), nil
			},
		},
		{
			Name:     "gavel-stored",
			Doc:      "gavel as the version behind the authors' stored Philly results (placements checked without the DP memory filter)",
			Overhead: registry.FullSearch("gavel-stored", "gavel"), Cost: 30,
			Options: append([]registry.Option{registry.AdmissionOption, maxFitsOption}, gapOptions...),
			New: func(o registry.Options) (sim.Policy, error) {
				return withGap(withAdmission(NewVersion(o.Cluster, o.Source, StoredRun).Named("gavel-stored"), o), o).WithMaxFits(o.Values.Int("max_fits")), nil
			},
		},
	}
}

func withGap(g *Gavel, o registry.Options) *Gavel {
	if gap := o.Values.Float("gap"); gap > 0 {
		return g.WithGap(gap, uint64(o.Values.Int("seed")))
	}
	return g
}

// withAdmission applies the admission option: dp-memory adds the DP
// memory filter to Gavel's memory-blind arrival pre-filter.
func withAdmission(g *Gavel, o registry.Options) *Gavel {
	if o.Values.String("admission") == registry.AdmissionDPMemory {
		g.WithAdmission(estimator.DPMemoryAdmission{Est: o.Source.View(estimator.ViewDataParallelNoMemCheck), DP: o.Source.View(estimator.ViewDataParallel)})
	}
	return g
}
