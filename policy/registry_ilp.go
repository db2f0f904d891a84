package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/gavel"
	"github.com/arena-sim/arena/policy/sia"
	"github.com/arena-sim/arena/sim"
)

// ilpEntries registers the integer-programming baselines (policy/gavel,
// policy/sia); see docs/ilp-baselines.md. One name is one algorithm in
// every timing mode: the versions behind the authors' stored results have
// their own names (gavel-stored, sia-stored, sia-glpk).
// gapOptions let Gavel answer like a solver stopping at a relative gap.
var gapOptions = []Option{
	{Name: "gap", Type: Float, Default: "0", Min: "0", Max: "1", Help: "relative MIP gap: answer with a seeded draw among assignments within gap·|optimum| of the optimum (CPLEX's default, behind the stored run, is 1e-4); 0 = the exact optimum"},
	{Name: "seed", Type: Int, Default: "0", Help: "seed of the draw among assignments within the gap"},
}

func withGap(g *gavel.Gavel, o Options) *gavel.Gavel {
	if gap := o.Values.Float("gap"); gap > 0 {
		return g.WithGap(gap, uint64(o.Values.Int("seed")))
	}
	return g
}

func ilpEntries() []Entry {
	return []Entry{
		{
			Name: "gavel", Aliases: []string{"gavel-head"},
			Doc:      "Gavel max-sum-throughput: integer program over job × GPU type, ≤3 type changes per decision; the artifact's ae-eurosys head (placements checked with the DP memory filter)",
			Overhead: FullSearch("gavel"), Cost: 30,
			Options: append([]Option{AdmissionOption}, gapOptions...),
			New: func(o Options) (sim.Policy, error) {
				return withGap(gavelAdmission(gavel.NewVersion(o.Cluster, o.Source, gavel.Head), o), o), nil
			},
		},
		{
			Name:     "gavel-stored",
			Doc:      "gavel as the version behind the authors' stored Philly results (placements checked without the DP memory filter)",
			Overhead: FullSearch("gavel-stored", "gavel"), Cost: 30,
			Options: append([]Option{AdmissionOption}, gapOptions...),
			New: func(o Options) (sim.Policy, error) {
				return withGap(gavelAdmission(gavel.NewVersion(o.Cluster, o.Source, gavel.StoredRun).Named("gavel-stored"), o), o), nil
			},
		},
		{
			Name:     "sia",
			Doc:      "Sia: goodput integer program over job × (GPU type, count), ≤3 changes per decision; the artifact's head rules, running jobs taking the program's GPU count",
			Overhead: FullSearch("sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return sia.NewVersion(o.Cluster, o.Source, sia.Head, false), nil
			},
		},
		{
			Name:     "sia-head",
			Doc:      "sia exactly as the artifact's ae-eurosys head, including its quirk that running jobs keep the previous decision's GPU count",
			Overhead: FullSearch("sia-head", "sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return sia.NewVersion(o.Cluster, o.Source, sia.Head, true).Named("sia-head"), nil
			},
		},
		{
			Name:     "sia-stored",
			Doc:      "sia as the version behind the authors' stored Philly results (restart pass blocks a failed job's type; the artifact's GPU-count quirk)",
			Overhead: FullSearch("sia-stored", "sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return sia.NewVersion(o.Cluster, o.Source, sia.StoredRun, true).Named("sia-stored"), nil
			},
		},
		{
			Name:     "sia-glpk",
			Doc:      "sia-stored solving its programs with GLPK, the artifact's solver; needs python3-cvxopt",
			Overhead: FullSearch("sia-glpk", "sia"), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				g, err := sia.StartGLPK()
				if err != nil {
					return nil, err
				}
				return sia.NewVersion(o.Cluster, o.Source, sia.StoredRun, true).Named("sia-glpk").WithGLPK(g), nil
			},
		},
	}
}

// gavelAdmission applies the admission option: dp-memory adds the DP
// memory filter to Gavel's memory-blind arrival pre-filter.
func gavelAdmission(g *gavel.Gavel, o Options) *gavel.Gavel {
	if o.Values.String("admission") == AdmissionDPMemory {
		g.WithAdmission(estimator.DPMemoryAdmission{Est: o.Source.View(estimator.ViewDataParallelNoMemCheck), DP: o.Source.View(estimator.ViewDataParallel)})
	}
	return g
}
