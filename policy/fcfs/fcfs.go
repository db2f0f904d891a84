// Package fcfs is first-come-first-served as the Arena artifact implements
// it (ARENA.md §7): each job runs on exactly the GPU type and count its user
// asked for, at the best locality, on the nodes with the most idle GPUs; a
// job that cannot run even there is dropped on arrival; a waiting job blocks
// every later job of its GPU type (head-of-line blocking per type); nothing
// is ever preempted, resized or moved.
package fcfs

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// FCFS is the policy. Create it with New.
type FCFS struct {
	// est is the view FCFS decides with: the artifact passes force_opt,
	// so feasibility is the adaptive-parallelism one (no DP memory filter).
	est estimator.Estimator
}

var _ sim.Policy = (*FCFS)(nil)

// New returns FCFS deciding with est.
func New(est estimator.Estimator) *FCFS { return &FCFS{est: est} }

// Name implements sim.Policy.
func (*FCFS) Name() string { return "fcfs" }

// Schedule implements sim.Policy: a restart pass over the pending queue in
// rounds where jobs ended, then the new jobs in arrival order.
func (f *FCFS) Schedule(v *sim.View) ([]sim.Action, error) {
	if len(v.Ended) == 0 && len(v.Arrivals) == 0 {
		return nil, nil
	}
	table := placement.NewTable(v.Cluster, v.Occupant)
	var actions []sim.Action
	// pendingTypes counts the pending queue's jobs per GPU type as it
	// stands during the pass (restarted jobs leave, pended arrivals join).
	pendingTypes := map[string]int{}
	for _, j := range v.Pending {
		pendingTypes[j.Spec.GPU]++
	}

	if len(v.Ended) > 0 {
		blocked := map[string]bool{}
		for _, j := range v.Pending {
			gpu := j.Spec.GPU
			if blocked[gpu] {
				continue
			}
			slots, ok := f.place(table, j)
			if !ok {
				blocked[gpu] = true
				continue
			}
			actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
			pendingTypes[gpu]--
		}
	}

	for _, j := range v.Arrivals {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !f.est.Estimate(j.Spec.Workload, best).Feasible() {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality"})
			continue
		}
		if pendingTypes[j.Spec.GPU] == 0 {
			if slots, ok := f.place(table, j); ok {
				actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
				continue
			}
		}
		pendingTypes[j.Spec.GPU]++ // it pends
	}
	return actions, nil
}

// place puts j on its requested type and count at best locality.
func (f *FCFS) place(t *placement.Table, j *sim.Job) ([]int, bool) {
	best := placement.Best(t.Cluster, j.Spec.GPU, j.Spec.GPUs)
	if best.PerNode == 0 || !f.est.Estimate(j.Spec.Workload, best).Feasible() {
		return nil, false
	}
	return t.PlaceMostFree(j.Spec.ID, best)
}
