// Package srtf is shortest-remaining-time-first, preemptive, with an
// oracle: a job's remaining time is its remaining iterations times its
// true iteration time under the engine's estimator (the adaptive-
// parallelism view) on the GPUs it holds, or on its request at the best
// locality if it is waiting. Jobs keep the GPU type and count their users
// asked for. With exact knowledge of job lengths it is the classic lower
// bound on mean JCT among policies that do not resize jobs (up to the
// reconfiguration overhead it pays on every preemption and restart).
//
// Every round the jobs are ordered by remaining time (ties: submission,
// then trace order) and handed to policy/preemptive: per GPU type the
// shortest jobs that fit are admitted, running jobs that lost their place
// are suspended, newly admitted jobs are placed at the best locality, else
// relaxed.
package srtf

import (
	"slices"
	"sort"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/preemptive"
	"github.com/arena-sim/arena/sim"
)

// SRTF is the policy. Create it with New.
type SRTF struct {
	est estimator.Estimator

	sched preemptive.Scheduler

	// orderLive's state: per job ID, and the last decision's order.
	jobs        []jobState
	sorted      []sim.JobID
	fresh, kept []keyed
	decisions   int

	// The incremental decision's state: the View's last pending queue
	// (each job stamped mirror == gen), heaps of the waiting jobs and
	// this decision's arrivals per GPU type (gpus) and count, and dirty
	// when they no longer follow the View (rebuilt from it).
	pend    []*sim.Job
	gen     uint32
	dirty   bool
	seq     uint64
	seqBase uint64 // entries numbered below it were dropped by a rebuild
	gpus    []string
	byType  [][]pbucket
	arrived []*sim.Job
	// The running jobs (running.go): the mirror of the View's running
	// list, each with its key (a job in it is marked jobState.rmir ==
	// rgen); per GPU type (index of gpus) their order, as indices in
	// rmir; runDirty when the mirror is to be made afresh.
	rmir                []rjob
	runBy               [][]int32
	rgen                uint32
	runDirty            bool
	remap               []int32
	rseq, rkept, rfresh []rkey // sortRunning's and keptRun's
	tails, prev         []int32
	// The admission walk's.
	starts []keyed
	taken  []entry
	fast   int // decisions taken incrementally (tests)
	// checkRunBy's (tests): the first order found wrong, orders checked;
	// and the running jobs sortRunning had to sort, over all decisions.
	orderErr    error
	orderChecks int
	resorted    int
}

// sortWhole makes orderLive sort all the live jobs at every decision (the
// tests' oracle).
var sortWhole = false

// noIncremental makes every decision take the whole-View path (tests).
var noIncremental = false

var _ sim.Policy = (*SRTF)(nil)

// New returns SRTF with est as its oracle (pass the engine's view).
func New(est estimator.Estimator) *SRTF { return &SRTF{est: est, dirty: true, runDirty: true} }

// Name implements sim.Policy.
func (*SRTF) Name() string { return "srtf" }

// RemainingTime is the oracle's remaining time of j, seconds.
func (s *SRTF) RemainingTime(c *sim.Cluster, j *sim.Job) float64 {
	cfg := j.Config
	if j.Status != sim.Running {
		cfg = placement.Best(c, j.Spec.GPU, j.Spec.GPUs)
	}
	return float64(j.Remaining) * s.est.Estimate(j.Spec.Workload, cfg).IterTime
}

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (preemptive.Live and Schedule copy what they order and edit).
func (*SRTF) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy.
//
// A decision takes one of two paths with the same result. The whole-View
// path orders every job of the View (orderLive) and hands the order to
// preemptive.Scheduler: a step per live job. The incremental path keeps
// the waiting jobs in heaps by key, one per GPU type and count, across
// decisions: a waiting job's remaining time does not change while it
// waits, so its key is computed once, when it joins the pending queue.
// Only the running jobs are keyed afresh, in a mirror of the View's
// running list that keeps each type's order from the last decision and
// sorts again only the jobs out of place (running.go). The admission
// walk then merges, per GPU type, the running jobs with the heaps of at
// most the GPUs left, and visits the waiting jobs it admits only. The heaps
// follow the View's pending queue by comparing it with the last one
// (pointers, in order): the jobs missing left, the jobs at its end
// joined. A remaining time that is NaN, or a job twice in the View, takes
// the whole-View path.
func (s *SRTF) Schedule(v *sim.View) ([]sim.Action, error) {
	s.decisions++
	if n := v.NumJobs(); cap(s.jobs) < n {
		// Sized once for every job ID rather than grown as IDs arrive.
		s.jobs = slices.Grow(s.jobs, n-len(s.jobs))
	}
	if !noIncremental && !sortWhole {
		if actions, ok := s.incremental(v); ok {
			s.fast++
			return actions, nil
		}
	}
	s.dirty = true // the heaps are rebuilt at the next incremental decision
	order, actions := preemptive.Live(v, s.est)
	if len(order) == 0 {
		return actions, nil
	}
	s.orderLive(v.Cluster, order)
	return append(actions, s.sched.Schedule(v, s.est, order)...), nil
}

// keyed is a live job with its remaining time.
type keyed struct {
	r   float64
	job *sim.Job
}

// less is the order of the package comment: remaining time, then
// submission, then trace order.
func less(a, b keyed) bool {
	if a.r != b.r {
		return a.r < b.r
	}
	if a.job.SubmitTime != b.job.SubmitTime {
		return a.job.SubmitTime < b.job.SubmitTime
	}
	return a.job.Spec.ID < b.job.Spec.ID
}

// byKey sorts keyed jobs with less (sort.Stable: the algorithm
// sort.SliceStable runs, so the same comparisons give the same order).
type byKey []keyed

func (k byKey) Len() int           { return len(k) }
func (k byKey) Less(a, b int) bool { return less(k[a], k[b]) }
func (k byKey) Swap(a, b int)      { k[a], k[b] = k[b], k[a] }

// jobState is what SRTF remembers of a job between decisions (72 bytes:
// one per job of the trace).
type jobState struct {
	// orderLive's: the decision the job was last live and last kept at,
	// its place in that decision's order (as Live built it), its
	// remaining time then and in the last order.
	inOrder, keptAt, pos int32
	// mirror == SRTF.gen while the job is in SRTF.pend (the incremental
	// decision's mirror of the pending queue).
	mirror     uint32
	r, sortedR float64
	submit     sim.Time
	// The incremental decision's: seq names the job's current heap entry
	// (0: none) and key is its remaining time there (kept while the job
	// runs: a job leaving the pending queue loses its entry, seq 0).
	// job is the View's job. rmir == SRTF.rgen while the job is in
	// SRTF.rmir (the mirror of the running list).
	seq  uint64
	key  float64
	job  *sim.Job
	rmir uint32
}

// orderLive sorts order by less. Only the running jobs' remaining times
// change between decisions (a pending job's is its remaining iterations
// at its best locality until it runs again), so the jobs that keep the
// key they had in the last decision's order keep that order among
// themselves, and only the others are sorted, then merged in: less is a
// strict total order (IDs are unique), so this is the order a stable sort
// of everything gives. A remaining time that is NaN would make less no
// order at all; the decision then sorts everything as before. Sorting the
// whole queue every decision was most of SRTF's time on a long queue.
func (s *SRTF) orderLive(c *sim.Cluster, order []*sim.Job) {
	s.decisions++
	now := s.decisions
	s.fresh, s.kept = s.fresh[:0], s.kept[:0]
	whole := sortWhole
	for i, j := range order {
		id := int(j.Spec.ID)
		if id >= len(s.jobs) {
			s.jobs = append(s.jobs, make([]jobState, id+1-len(s.jobs))...)
		}
		st := &s.jobs[id]
		st.inOrder, st.pos, st.r = int32(now), int32(i), s.RemainingTime(c, j)
		if st.r != st.r {
			whole = true
		}
	}
	if whole {
		all := s.fresh
		for _, j := range order {
			all = append(all, keyed{s.jobs[j.Spec.ID].r, j})
		}
		sort.Stable(byKey(all))
		for i, k := range all {
			order[i] = k.job
		}
		s.fresh = all
		s.remember(order, now)
		return
	}
	for _, id := range s.sorted {
		st := &s.jobs[id]
		if st.inOrder != int32(now) || st.keptAt == int32(now) {
			continue
		}
		if j := order[st.pos]; st.r == st.sortedR && st.submit == j.SubmitTime {
			st.keptAt = int32(now)
			s.kept = append(s.kept, keyed{st.r, j})
		}
	}
	for _, j := range order {
		if st := &s.jobs[j.Spec.ID]; st.keptAt != int32(now) {
			s.fresh = append(s.fresh, keyed{st.r, j})
		}
	}
	slices.SortFunc(s.fresh, func(a, b keyed) int {
		if less(a, b) {
			return -1
		}
		return 1 // a ≠ b: no two jobs are equal under less
	})
	kept, fresh := s.kept, s.fresh
	for i := range order {
		if len(fresh) == 0 || (len(kept) > 0 && less(kept[0], fresh[0])) {
			order[i], kept = kept[0].job, kept[1:]
		} else {
			order[i], fresh = fresh[0].job, fresh[1:]
		}
	}
	s.remember(order, now)
}

// remember keeps order as the last decision's, with each job's key.
func (s *SRTF) remember(order []*sim.Job, now int) {
	s.sorted = s.sorted[:0]
	for _, j := range order {
		st := &s.jobs[j.Spec.ID]
		st.sortedR, st.submit = st.r, j.SubmitTime
		s.sorted = append(s.sorted, j.Spec.ID)
	}
}
