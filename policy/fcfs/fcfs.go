// Package fcfs is first-come-first-served as the Arena artifact implements
// it (ARENA.md §7): each job runs on exactly the GPU type and count its user
// asked for, at the best locality, on the nodes with the most idle GPUs; a
// job that cannot run even there is dropped on arrival; a waiting job blocks
// every later job of its GPU type (head-of-line blocking per type); nothing
// is ever preempted, resized or moved.
package fcfs

import (
	"cmp"
	"slices"

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
	// admitIsEst: admit is est (no WithAdmission), so an arrival that
	// passed the check is feasible at best locality for est too: the
	// estimators are deterministic (memoised, no state that changes an
	// answer), and place need not ask again.
	admitIsEst bool

	// queues mirrors the engine's pending queue from one decision to the
	// next, split by GPU type (index typeIdx): queues[t] is the type's
	// jobs in queue order, each with its place in the whole queue (seq,
	// increasing). Head-of-line blocking is per type, so a restart pass
	// walks each type's queue from its head and stops at its first job
	// that cannot be placed: the jobs it starts are a prefix of the
	// type's queue and leave by reslicing. A decision thus costs the jobs
	// it visits, not a step per pending job. FCFS never preempts, so the
	// queue changes only by its own starts and by the arrivals it leaves
	// pending. A View whose queue disagrees with the mirror (length or
	// last job; another caller, a repeated round) makes Schedule rebuild
	// it.
	queues  [][]queued
	n       int // jobs in queues
	seq     int64
	typeIdx map[string]int
	round   int
	starts  []start

	// table is Schedule's copy of the slot table, refilled at each
	// decision from the slots the engine wrote since the previous one and
	// those FCFS's plan wrote (RefillView), or whole when it missed one.
	table placement.Table
	// refilled, when set (tests), is called with the table and the View
	// right after the refill.
	refilled func(*placement.Table, *sim.View)
}

type queued struct {
	seq int64
	job *sim.Job
}

// start is a restart pass's start, with its job's place in the queue.
type start struct {
	seq int64
	a   sim.Action
}

var _ sim.Policy = (*FCFS)(nil)

// New returns FCFS deciding with est.
func New(est estimator.Estimator) *FCFS {
	return &FCFS{est: est, admit: est, admitIsEst: true, typeIdx: map[string]int{}}
}

// WithAdmission makes the arrival check use admit instead of the decision
// view: the artifact's runtime admits with the DP memory filter
// (estimator.DPMemoryAdmission), its simulator without. It returns f.
func (f *FCFS) WithAdmission(admit estimator.Estimator) *FCFS {
	f.admit, f.admitIsEst = admit, false
	return f
}

// Name implements sim.Policy.
func (*FCFS) Name() string { return "fcfs" }

func (f *FCFS) typeOf(gpu string) int {
	i, ok := f.typeIdx[gpu]
	if !ok {
		i = len(f.typeIdx)
		f.typeIdx[gpu] = i
		f.queues = append(f.queues, nil)
	}
	return i
}

// enqueue puts j at the pending queue's end.
func (f *FCFS) enqueue(j *sim.Job, t int) {
	f.seq++
	f.queues[t] = append(f.queues[t], queued{f.seq, j})
	f.n++
}

// last is the job at the pending queue's end (nil if it is empty).
func (f *FCFS) last() *sim.Job {
	var q queued
	for _, tq := range f.queues {
		if n := len(tq); n > 0 && tq[n-1].seq > q.seq {
			q = tq[n-1]
		}
	}
	return q.job
}

// sync makes the mirror describe v.Pending.
func (f *FCFS) sync(v *sim.View) {
	n := len(v.Pending)
	if f.n == n && v.Round >= f.round && (n == 0 || f.last().Spec.ID == v.Pending[n-1].Spec.ID) {
		return
	}
	for t := range f.queues {
		clear(f.queues[t])
		f.queues[t] = f.queues[t][:0]
	}
	f.n = 0
	for _, j := range v.Pending {
		f.enqueue(j, f.typeOf(j.Spec.GPU))
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
	table.RefillView(v)
	if f.refilled != nil {
		f.refilled(table, v)
	}
	var actions []sim.Action

	// A restart pass when jobs ended, or (with faults) jobs were
	// interrupted or nodes changed: capacity may have appeared. Each
	// type's queue from its head, up to its first job that cannot be
	// placed (it blocks the type's later jobs). The types' GPUs are
	// disjoint, so the starts are those of one walk of the whole queue
	// that skips the blocked types' jobs, put back in its order.
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		starts := f.starts[:0]
		for t, tq := range f.queues {
			k := 0
			for ; k < len(tq); k++ {
				j := tq[k].job
				slots, ok := f.place(table, j)
				if !ok {
					break
				}
				starts = append(starts, start{tq[k].seq, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots}})
			}
			if k > 0 { // they leave the queue
				clear(tq[:k])
				f.queues[t] = tq[k:]
				f.n -= k
			}
		}
		slices.SortFunc(starts, func(a, b start) int { return cmp.Compare(a.seq, b.seq) })
		for _, st := range starts {
			actions = append(actions, st.a)
		}
		clear(starts)
		f.starts = starts[:0]
	}

	// Arrivals in order: a job whose type has nobody waiting starts if it
	// fits; otherwise it joins the queue (and blocks its type's later
	// arrivals of this decision).
	for _, j := range v.Arrivals {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !f.admit.Estimate(j.Spec.Workload, best).Feasible() {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality"})
			continue
		}
		t := f.typeOf(j.Spec.GPU)
		if len(f.queues[t]) == 0 {
			var slots []int
			var ok bool
			if f.admitIsEst {
				slots, ok = table.PlaceMostFree(j.Spec.ID, best) // place, its estimate just made
			} else {
				slots, ok = f.place(table, j)
			}
			if ok {
				actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
				continue
			}
		}
		f.enqueue(j, t) // it pends
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
