// Package tiresias is Tiresias's discretised two-dimensional least-attained-
// service scheduler (2D-LAS; Gu et al., NSDI'19) for jobs that keep the GPU
// type and count their users asked for.
//
// The model. A job's attained service is GPUs × time it has run (GPU-
// seconds, counted from the rounds it held its GPUs, reconfiguration time
// included, as Tiresias counts wall time). Jobs live in K priority queues:
// a new job enters queue 0 and is demoted to queue k+1 once its attained
// service reaches Thresholds[k]. Within a queue jobs are served first come,
// first served by the time they entered the queue, so queues are
// discretised LAS: no reshuffling among jobs of similar service. To avoid
// starvation, a job that has run before and has waited in a lower queue for
// at least PromoteKnob × its executed time since its last promotion is
// promoted back to queue 0 with its service counter reset (Tiresias's
// STARVELIMIT; 0 disables it).
//
// Every round the jobs are ordered by (queue, entry order) and handed to
// policy/preemptive: per GPU type the highest-priority jobs that fit are
// admitted, running jobs that lost their place are suspended (Tiresias
// preempts), and newly admitted jobs are placed at the best locality, else
// relaxed. Feasibility is judged with the estimator the policy is given.
package tiresias

import (
	"cmp"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/preemptive"
	"github.com/arena-sim/arena/sim"
)

// Config holds Tiresias's knobs.
type Config struct {
	// Thresholds are the attained-service limits (GPU-seconds) of queues
	// 0 … K−2, increasing; K = len(Thresholds)+1 queues.
	Thresholds []float64
	// PromoteKnob is STARVELIMIT: a waiting job is promoted to queue 0 once
	// its wait since it last ran is ≥ PromoteKnob × its executed time since
	// its last promotion. 0 disables promotion.
	PromoteKnob float64
}

// DefaultConfig: two queues split at 16 GPU-hours, promotion off — the
// setting of the Tiresias baseline in the Pollux artifact.
func DefaultConfig() Config {
	return Config{Thresholds: []float64{16 * 3600}}
}

// jobState is what Tiresias remembers about a job.
type jobState struct {
	queue int
	// entry orders jobs within a queue: a counter taken when the job
	// entered its current queue.
	entry int64
	// service (GPU-seconds) and executed (seconds) since the job entered
	// queue 0 (arrival or last promotion).
	service, executed float64
	// waited is the time pending since the job last ran.
	waited float64
	// live: the job has arrived and has not ended or been dropped.
	live bool
	// For Schedule's ordering: the decision at which the job was last in
	// the live order and its position there.
	inOrder int64
	pos     int
}

// key is the job's place in the order: (queue, entry) packed into one
// integer, queue above bit entryBits, entry below. Entries are unique, so
// the key orders the jobs totally and any sort gives the same order.
func (s *jobState) key() uint64 { return uint64(s.queue)<<entryBits | uint64(s.entry) }

// Tiresias is the policy. Create it with New.
type Tiresias struct {
	cfg Config
	est estimator.Estimator
	// sched keeps preemptive.Schedule's slot table and scratch across decisions.
	sched preemptive.Scheduler
	// jobs by ID (the engine's IDs are the trace positions 0…n−1): a
	// slice, since every decision reads the state of every live job.
	jobs    []jobState
	entries int64
	// queues[q] is queue q in entry order: the jobs that entered it, with
	// the entry they took (a job that has since left the queue, ended or
	// been dropped no longer has that entry, and orderLive drops it).
	queues    [][]queued
	decisions int64
	merged    []*sim.Job
	last      sim.Time
	started   bool
}

// queued is a job as it entered a queue.
type queued struct {
	entry int64
	id    sim.JobID
}

var _ sim.Policy = (*Tiresias)(nil)

// New returns Tiresias judging feasibility with est.
func New(est estimator.Estimator, cfg Config) *Tiresias {
	return &Tiresias{cfg: cfg, est: est}
}

// Name implements sim.Policy.
func (*Tiresias) Name() string { return "tiresias" }

// Queue returns the queue job id is in (−1 if unknown), for tests and logs.
func (t *Tiresias) Queue(id sim.JobID) int {
	if int(id) < len(t.jobs) && t.jobs[id].live {
		return t.jobs[id].queue
	}
	return -1
}

// state returns job id's record, creating it in queue 0 if new.
func (t *Tiresias) state(id sim.JobID) *jobState {
	if int(id) >= len(t.jobs) {
		t.jobs = append(t.jobs, make([]jobState, int(id)+1-len(t.jobs))...)
	}
	s := &t.jobs[id]
	if !s.live {
		*s = jobState{live: true}
		t.enter(id, s, 0)
	}
	return s
}

// placed is state for a job of this decision's live order, at position
// pos of that order.
func (t *Tiresias) placed(id sim.JobID, pos int) *jobState {
	s := t.state(id)
	s.inOrder, s.pos = t.decisions, pos
	return s
}

// forget drops job id's record (it ended or was dropped).
func (t *Tiresias) forget(id sim.JobID) {
	if int(id) < len(t.jobs) {
		t.jobs[id] = jobState{}
	}
}

// sortWhole makes orderLive sort all of order at every decision (tests).
var sortWhole = false

// entryBits is the width of the entry counter in a sort key (2^48 queue
// entries: beyond any trace).
const entryBits = 48

func (t *Tiresias) enter(id sim.JobID, s *jobState, queue int) {
	t.entries++
	if t.entries >= 1<<entryBits || queue >= 1<<(64-entryBits) {
		panic("tiresias: queue or entry counter overflows the sort key")
	}
	s.queue, s.entry = queue, t.entries
	for len(t.queues) <= queue {
		t.queues = append(t.queues, nil)
	}
	t.queues[queue] = append(t.queues[queue], queued{t.entries, id})
}

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (preemptive.Live and Schedule copy what they order and edit).
func (*Tiresias) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy.
func (t *Tiresias) Schedule(v *sim.View) ([]sim.Action, error) {
	dt := 0.0
	if t.started {
		dt = float64(v.Now.Sub(t.last))
	}
	t.started, t.last = true, v.Now
	t.decisions++
	for _, j := range v.Ended {
		t.forget(j.Spec.ID)
	}

	// Running jobs held their GPUs since the last decision. Each job of
	// preemptive.Live's order (running, pending, arrivals) is marked with
	// its position there as it is met.
	for i, j := range v.Running {
		s := t.placed(j.Spec.ID, i)
		s.service += dt * float64(len(j.GPUs))
		s.executed += dt
		s.waited = 0
		for s.queue < len(t.cfg.Thresholds) && s.service >= t.cfg.Thresholds[s.queue] {
			t.enter(j.Spec.ID, s, s.queue+1)
		}
	}
	for i, j := range v.Pending {
		s := t.placed(j.Spec.ID, len(v.Running)+i)
		if s.executed == 0 || t.cfg.PromoteKnob <= 0 {
			// Never ran: still in queue 0. Without promotion the wait is
			// never read.
			continue
		}
		s.waited += dt
		if s.queue > 0 && s.waited >= t.cfg.PromoteKnob*s.executed {
			t.enter(j.Spec.ID, s, 0)
			s.service, s.executed, s.waited = 0, 0, 0
		}
	}

	order, actions := preemptive.Live(v, t.est)
	for i, j := range order[len(v.Running)+len(v.Pending):] {
		t.placed(j.Spec.ID, len(v.Running)+len(v.Pending)+i)
	}
	for _, j := range v.Arrivals {
		t.state(j.Spec.ID)
	}
	for _, a := range actions { // dropped arrivals
		t.forget(a.Job)
	}
	t.orderLive(order)
	return append(actions, t.sched.Schedule(v, t.est, order)...), nil
}

// orderLive sorts order, the live jobs, by key. A job's key changes only
// when it enters a queue (arrival, demotion, promotion), and it then takes
// the newest entry: so each queue, in the order its jobs entered it, is
// already sorted, and the order is queue 0's jobs, then queue 1's, and so
// on. orderLive walks the queues, skips the jobs that have left one (their
// entry is no longer theirs) and drops those for good. No sorting: a
// decision costs a step per live job and per job that left a queue since
// the last decision. (Sorting the whole queue at every decision was most
// of Tiresias's time on a long trace; then a merge of the changed keys
// into the last order, which still compared every key.)
func (t *Tiresias) orderLive(order []*sim.Job) {
	if sortWhole {
		// The oracle the tests compare with: every job sorted afresh.
		slices.SortFunc(order, func(a, b *sim.Job) int {
			return cmp.Compare(t.jobs[a.Spec.ID].key(), t.jobs[b.Spec.ID].key())
		})
		return
	}
	now := t.decisions
	t.merged = t.merged[:0]
	for q, queue := range t.queues {
		kept := queue[:0]
		for _, e := range queue {
			s := &t.jobs[e.id]
			if !s.live || s.entry != e.entry {
				continue // left the queue, ended or dropped
			}
			kept = append(kept, e)
			if s.inOrder == now {
				t.merged = append(t.merged, order[s.pos])
			}
		}
		clear(queue[len(kept):])
		t.queues[q] = kept
	}
	if len(t.merged) != len(order) {
		panic("tiresias: a job of the live order is in no queue")
	}
	copy(order, t.merged)
}
