package runner

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
)

// networkShare is the engine's sim.Config.NetworkShare on a cluster with a
// topology: the analytic model's share of a job's iteration time spent in
// cross-node collectives under its best plan (docs/topology.md), whatever
// estimator times the run — the database has no breakdown. The shared
// default source searches each plan once per process.
func networkShare() (func(estimator.Workload, estimator.Config) float64, error) {
	src, err := analytic.DefaultSource()
	if err != nil {
		return nil, err
	}
	return src.NetworkShare, nil
}
