package runner

import (
	"fmt"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/sim"
)

// EstimatorNames lists the performance models a run can use:
//
//   - profiledb: the artifact's measured database with its fallback rules;
//   - analytic: the calibrated analytic model (estimator/analytic) for
//     every configuration, including GPU types and sizes the database lacks;
//   - hybrid: the database where it holds the exact entry, the analytic
//     model elsewhere.
func EstimatorNames() []string { return []string{"profiledb", "analytic", "hybrid"} }

// SourceFor returns the estimator source named by a run ("" = profiledb).
func SourceFor(name string) (estimator.Source, error) {
	switch name {
	case "", "profiledb":
		return estimator.DefaultProfileDB()
	case "analytic":
		return analytic.DefaultSource()
	case "hybrid":
		db, err := estimator.DefaultProfileDB()
		if err != nil {
			return nil, err
		}
		an, err := analytic.DefaultSource()
		if err != nil {
			return nil, err
		}
		return &analytic.Hybrid{DB: db, Analytic: an}, nil
	}
	return nil, fmt.Errorf("estimator %q: unknown (known: %s)", name, strings.Join(EstimatorNames(), ", "))
}

// ProfilingDelay returns the engine option (sim.Config.ProfilingDelay) that
// delays a job's first start by the elapsed time of Arena's disaggregated
// profiling of its grids on its requested GPU type (ARENA.md §3), as the
// analytic profiling-cost model computes it. Jobs whose model has no
// architecture entry get no delay.
func ProfilingDelay() (func(*sim.JobSpec) sim.Duration, error) {
	src, err := analytic.DefaultSource()
	if err != nil {
		return nil, err
	}
	pl := src.Planner()
	return func(j *sim.JobSpec) sim.Duration {
		c, err := pl.ProfilingCost(j.Workload, j.GPU, j.GPUs)
		if err != nil {
			return 0
		}
		return sim.Duration(c.DisaggregatedElapsed)
	}, nil
}
