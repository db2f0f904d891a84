package arena

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Overhead classes of Arena (registry.FullSearch explains how a class is
// priced in the run's overhead profile).
var (
	// prunedOverhead: Arena's pruned adaptive-parallelism search.
	prunedOverhead = sim.OverheadClass{"arena", "pruned"}
	// noPruneOverhead: the arena-noprune ablation's unpruned search.
	noPruneOverhead = sim.OverheadClass{"arena-noprune", "noprune"}
)

// Entries are the registry entries of Arena and its ablations
// (docs/arena.md), one per Variants name.
func Entries() []registry.Entry {
	variants := []struct {
		name     string
		aliases  []string
		view     estimator.View // the view the policy decides with
		overhead sim.OverheadClass
		doc      string
	}{
		{"arena", []string{"crius"}, estimator.ViewOptimal, prunedOverhead,
			"Arena: grid scheduling with adaptive-parallelism throughput; migration, shrink, GPU-type change, growth and opportunistic backfill"},
		{"arena-ns", nil, estimator.ViewOptimal, prunedOverhead, "Arena without scaling (no shrink, no growth)"},
		{"arena-nh", nil, estimator.ViewOptimal, prunedOverhead, "Arena without hardware (GPU type) changes"},
		{"arena-no", nil, estimator.ViewOptimal, prunedOverhead,
			"Arena without opportunistic execution: a job waits while a job of its GPU type is pending"},
		{"arena-dp", nil, estimator.ViewDataParallel, prunedOverhead,
			"Arena deciding with data-parallel data (DP memory filter, unscaled fallbacks)"},
		{"arena-ddl", nil, estimator.ViewOptimal, prunedOverhead,
			"deadline-aware Arena: a config is feasible only if the job still meets its deadline; timed-out pending jobs are never restarted"},
		{"arena-noprune", nil, estimator.ViewOptimal, noPruneOverhead,
			"Arena paying an unpruned adaptive-parallelism search on every reallocation (artifact: 300 s/GPU, at most 1200 s)"},
	}
	var out []registry.Entry
	for _, v := range variants {
		out = append(out, registry.Entry{
			Name: v.name, Aliases: v.aliases, Doc: v.doc, Overhead: append(sim.OverheadClass{v.name}, v.overhead...), Cost: 30,
			Options: []registry.Option{topologyOption, packOption, maxUpgradesOption},
			New: func(o registry.Options) (sim.Policy, error) {
				decide, opt := o.Source.View(v.view), o.Source.View(estimator.ViewOptimal)
				if o.Values.Bool("topology") {
					decide, opt = priceTopology(o.Cluster, decide), priceTopology(o.Cluster, opt)
				}
				p := New(Variants[v.name], o.Cluster, decide, opt).WithMaxUpgrades(o.Values.Int("max_upgrades"))
				p.tp.packed = p.tp.packed && o.Values.Bool("pack")
				return p.Engine(), nil
			},
		})
	}
	return out
}

// topologyOption turns the grid search's pricing of locality per tier on
// or off (on a cluster without a topology it changes nothing).
var topologyOption = registry.Option{Name: "topology", Type: registry.Bool, Default: "true",
	Help: "on a cluster with a network topology, price each grid at its best place on it: faster inside an NVLink domain, slower across oversubscribed uplinks (docs/topology.md)"}

// packOption turns the packing of multi-node grids on a cluster with a
// topology on or off (packedIdle; without a topology it changes nothing).
var packOption = registry.Option{Name: "pack", Type: registry.Bool, Default: "true",
	Help: "on a cluster with a network topology, put a multi-node grid on idle nodes in the fewest fast domains and switch groups (placement.PackNodes) instead of the first idle nodes (docs/topology.md)"}

// maxUpgradesOption bounds the upgrade trial's work in counted steps
// (Policy.WithMaxUpgrades, bound.go).
var maxUpgradesOption = registry.Option{Name: "max_upgrades", Type: registry.Int, Default: "0", Min: "0",
	Help: "the upgrade trial's steps examine at most this many running jobs, a window round-robin over the running queue from where the last decision's stopped; 0 = no bound (every running job, the published algorithm, used for parity)"}

// priceTopology prices est's grids by the cluster's topology with the
// analytic model's cross-node share (placement.TopologyPriced); est itself
// on a cluster without one, so runs without a topology are unchanged.
func priceTopology(c *sim.Cluster, est estimator.Estimator) estimator.Estimator {
	if c == nil || c.Topology() == nil {
		return est
	}
	src, err := analytic.DefaultSource()
	if err != nil {
		return est
	}
	return placement.PriceTopology(est, c, src.NetworkShare)
}
