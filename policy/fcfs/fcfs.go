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
	// admit is the view of the arrival check (est unless WithAdmission).
	admit estimator.Estimator

	// queue mirrors the engine's pending queue (job and GPU-type index, in
	// queue order) from one decision to the next, with count its jobs per
	// type, so that a decision costs O(queue) on a compact array plus the
	// jobs it actually visits rather than a walk over every pending job's
	// record. FCFS never preempts, so the queue changes only by its own
	// starts and by the arrivals it leaves pending. A View whose queue
	// disagrees with the mirror (length or last job; another caller, a
	// repeated round) makes Schedule rebuild it.
	queue   []queued
	count   []int
	typeIdx map[string]int
	round   int

	table placement.Table // Schedule's scratch copy of the slot table
}

type queued struct {
	id  sim.JobID
	typ int
}

var _ sim.Policy = (*FCFS)(nil)

// New returns FCFS deciding with est.
func New(est estimator.Estimator) *FCFS {
	return &FCFS{est: est, admit: est, typeIdx: map[string]int{}}
}

// WithAdmission makes the arrival check use admit instead of the decision
// view: the artifact's runtime admits with the DP memory filter
// (estimator.DPMemoryAdmission), its simulator without. It returns f.
func (f *FCFS) WithAdmission(admit estimator.Estimator) *FCFS {
	f.admit = admit
	return f
}

// Name implements sim.Policy.
func (*FCFS) Name() string { return "fcfs" }

func (f *FCFS) typeOf(gpu string) int {
	i, ok := f.typeIdx[gpu]
	if !ok {
		i = len(f.typeIdx)
		f.typeIdx[gpu] = i
		f.count = append(f.count, 0)
	}
	return i
}

// sync makes the mirror describe v.Pending.
func (f *FCFS) sync(v *sim.View) {
	n := len(v.Pending)
	if len(f.queue) == n && v.Round >= f.round && (n == 0 || f.queue[n-1].id == v.Pending[n-1].Spec.ID) {
		return
	}
	f.queue = f.queue[:0]
	clear(f.count)
	for _, j := range v.Pending {
		t := f.typeOf(j.Spec.GPU)
		f.queue = append(f.queue, queued{j.Spec.ID, t})
		f.count[t]++
	}
}

// IdleWhenQuiet implements sim.QuietRounds: a decision with no arrival and
// no ended job returns nothing and leaves the queue mirror as it is.
func (*FCFS) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (its slot table and queue mirror are its own copies).
func (*FCFS) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy: a restart pass over the pending queue in
// rounds where jobs ended, then the new jobs in arrival order.
func (f *FCFS) Schedule(v *sim.View) ([]sim.Action, error) {
	if v.Quiet() {
		return nil, nil
	}
	f.sync(v)
	f.round = v.Round
	// One table for the policy's life, refilled per decision: a fresh one
	// per decision was most of an FCFS run's allocations.
	table := &f.table
	table.Refill(v.Cluster, v.Occupant)
	var actions []sim.Action
	// f.count holds the pending queue's jobs per GPU type as it stands
	// during the pass (restarted jobs leave, pended arrivals join).

	// A restart pass when jobs ended, or (with faults) jobs were
	// interrupted or nodes changed: capacity may have appeared.
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		// unseen counts, per type, the queued jobs the pass has not reached;
		// open is the number of types neither blocked nor exhausted. Once
		// it is 0 no later job can start, so the pass stops there.
		blocked := make([]bool, len(f.count))
		unseen := append([]int(nil), f.count...)
		open := 0
		for _, n := range unseen {
			if n > 0 {
				open++
			}
		}
		started := 0
		for i, q := range f.queue {
			if open == 0 {
				break
			}
			if blocked[q.typ] {
				continue
			}
			unseen[q.typ]--
			j := v.Pending[i]
			slots, ok := f.place(table, j)
			if !ok {
				blocked[q.typ] = true
				open--
				continue
			}
			if unseen[q.typ] == 0 {
				open--
			}
			actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
			f.count[q.typ]--
			f.queue[i].id = sim.NoJob // leaves the queue
			started++
		}
		if started > 0 {
			kept := f.queue[:0]
			for _, q := range f.queue {
				if q.id != sim.NoJob {
					kept = append(kept, q)
				}
			}
			f.queue = kept
		}
	}

	for _, j := range v.Arrivals {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !f.admit.Estimate(j.Spec.Workload, best).Feasible() {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality"})
			continue
		}
		t := f.typeOf(j.Spec.GPU)
		if f.count[t] == 0 {
			if slots, ok := f.place(table, j); ok {
				actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
				continue
			}
		}
		f.count[t]++ // it pends
		f.queue = append(f.queue, queued{j.Spec.ID, t})
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
