package placement

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// TopologyPriced prices a grid at its best place on the cluster's
// topology, on a loaded cluster (docs/topology.md): Base's iteration time
// times Cluster.PackedFactor — faster inside a multi-node NVLink domain,
// slower across oversubscribed uplinks, at each crossed tier's bandwidth
// per GPU. Share is the share of a job's iteration in cross-node
// collectives (the analytic model's NetworkShare). It prices locality per
// tier, not the contention of the jobs actually running, which a grid's
// price cannot know.
type TopologyPriced struct {
	Base    estimator.Estimator
	Cluster *sim.Cluster
	Share   func(estimator.Workload, estimator.Config) float64
}

// Name implements estimator.Estimator.
func (t TopologyPriced) Name() string { return t.Base.Name() + "+topology" }

// Estimate implements estimator.Estimator.
func (t TopologyPriced) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	e := t.Base.Estimate(w, c)
	if !e.Feasible() || c.Nodes <= 1 {
		return e
	}
	f := t.Cluster.PackedFactor(c, t.Share(w, c))
	if f == 1 {
		return e
	}
	e.IterTime *= f
	e.Throughput /= f
	return e
}

// PriceTopology returns est priced by TopologyPriced on a cluster with a
// topology, est itself otherwise (so a run without one is unchanged).
func PriceTopology(est estimator.Estimator, c *sim.Cluster, share func(estimator.Workload, estimator.Config) float64) estimator.Estimator {
	if c == nil || c.Topology() == nil || share == nil {
		return est
	}
	return TopologyPriced{Base: est, Cluster: c, Share: share}
}
