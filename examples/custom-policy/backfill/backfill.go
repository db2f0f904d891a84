// Package backfill is an example policy written outside the arena
// repository: first-come-first-served on each job's requested GPU type and
// count, without head-of-line blocking — every waiting job that fits now
// starts, in queue order or smallest request first. It never preempts,
// resizes or moves a job.
package backfill

import (
	"cmp"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entry registers the policy: its name, options and constructor.
func Entry() registry.Entry {
	return registry.Entry{
		Name: "backfill",
		Doc:  "example from examples/custom-policy: FCFS on the requested GPUs without head-of-line blocking",
		Options: []registry.Option{
			{Name: "order", Type: registry.Enum, Values: []string{"fifo", "smallest"}, Default: "fifo",
				Help: "which waiting job is tried first: queue order, or the fewest GPUs requested"},
		},
		// The policy pays the baselines' reconfiguration cost, whatever
		// the run's overhead profile (--overheads) says that is.
		Overhead: registry.FullSearch("backfill"),
		New: func(o registry.Options) (sim.Policy, error) {
			return &Backfill{est: o.Source.View(estimator.ViewOptimal), smallest: o.Values.String("order") == "smallest"}, nil
		},
	}
}

// Backfill is the policy.
type Backfill struct {
	est      estimator.Estimator
	smallest bool
}

// Name implements sim.Policy.
func (*Backfill) Name() string { return "backfill" }

// Schedule implements sim.Policy. It reads the View and never modifies it:
// placement happens on a scratch copy of the slot table.
func (b *Backfill) Schedule(v *sim.View) ([]sim.Action, error) {
	table := placement.NewTable(v.Cluster, v.Occupant)
	var actions []sim.Action
	waiting := append(slices.Clone(v.Pending), v.Arrivals...)
	if b.smallest {
		slices.SortStableFunc(waiting, func(x, y *sim.Job) int { return cmp.Compare(x.Spec.GPUs, y.Spec.GPUs) })
	}
	for _, j := range waiting {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || best.GPUs() > v.Cluster.TotalGPUs(j.Spec.GPU) || !b.est.Estimate(j.Spec.Workload, best).Feasible() {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "cannot run on its request in this cluster"})
			continue
		}
		if slots, ok := table.PlaceMostFree(j.Spec.ID, best); ok {
			actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
		}
	}
	return actions, nil
}
