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
	// the live order and its position there; the decision at which it was
	// kept in place from the previous order; its key in that order.
	inOrder, keptAt int64
	pos             int
	sortedKey       uint64
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
	// sorted is the live jobs in order at the last decision; decisions
	// counts the decisions; kept, fresh and merged are orderLive's scratch.
	sorted      []sim.JobID
	decisions   int64
	kept, fresh []keyed
	merged      []*sim.Job
	last        sim.Time
	started     bool
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
		t.enter(s, 0)
	}
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

// keyed is a live job with its key.
type keyed struct {
	key uint64
	job *sim.Job
}

// entryBits is the width of the entry counter in a sort key (2^48 queue
// entries: beyond any trace).
const entryBits = 48

func (t *Tiresias) enter(s *jobState, queue int) {
	t.entries++
	if t.entries >= 1<<entryBits || queue >= 1<<(64-entryBits) {
		panic("tiresias: queue or entry counter overflows the sort key")
	}
	s.queue, s.entry = queue, t.entries
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
	for _, j := range v.Ended {
		t.forget(j.Spec.ID)
	}

	// Running jobs held their GPUs since the last decision.
	for _, j := range v.Running {
		s := t.state(j.Spec.ID)
		s.service += dt * float64(len(j.GPUs))
		s.executed += dt
		s.waited = 0
		for s.queue < len(t.cfg.Thresholds) && s.service >= t.cfg.Thresholds[s.queue] {
			t.enter(s, s.queue+1)
		}
	}
	for _, j := range v.Pending {
		s := t.state(j.Spec.ID)
		if s.executed == 0 {
			continue // never ran: still in queue 0
		}
		s.waited += dt
		if t.cfg.PromoteKnob > 0 && s.queue > 0 && s.waited >= t.cfg.PromoteKnob*s.executed {
			t.enter(s, 0)
			s.service, s.executed, s.waited = 0, 0, 0
		}
	}

	order, actions := preemptive.Live(v, t.est)
	for _, j := range v.Arrivals {
		t.state(j.Spec.ID)
	}
	for _, a := range actions { // dropped arrivals
		t.forget(a.Job)
	}
	t.orderLive(order)
	return append(actions, t.sched.Schedule(v, t.est, order)...), nil
}

// orderLive sorts order, the live jobs, by key. A decision changes few
// keys: a job's key changes only when it enters a queue (arrival,
// demotion, promotion), and then takes the newest entry. So the jobs
// still live with the key they had in the last decision's order keep
// that order among themselves, and only the others (their keys all newer)
// need sorting; a merge of the two sorted runs gives what sorting all of
// order gives, since keys are unique. Sorting the whole queue at every
// decision was most of Tiresias's time on a long trace.
func (t *Tiresias) orderLive(order []*sim.Job) {
	if sortWhole {
		// The oracle the tests compare with: every job sorted afresh.
		t.sorted = t.sorted[:0]
		slices.SortFunc(order, func(a, b *sim.Job) int {
			return cmp.Compare(t.jobs[a.Spec.ID].key(), t.jobs[b.Spec.ID].key())
		})
		return
	}
	t.decisions++
	now := t.decisions
	for i, j := range order {
		s := &t.jobs[j.Spec.ID]
		s.inOrder, s.pos = now, i
	}
	t.kept, t.fresh = t.kept[:0], t.fresh[:0]
	for _, id := range t.sorted {
		s := &t.jobs[id]
		if s.live && s.inOrder == now && s.keptAt != now && s.sortedKey == s.key() {
			s.keptAt = now
			t.kept = append(t.kept, keyed{s.sortedKey, order[s.pos]})
		}
	}
	for _, j := range order {
		if s := &t.jobs[j.Spec.ID]; s.keptAt != now {
			t.fresh = append(t.fresh, keyed{s.key(), j})
		}
	}
	slices.SortFunc(t.fresh, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	t.merged = t.merged[:0]
	kept, fresh := t.kept, t.fresh
	for len(kept) > 0 || len(fresh) > 0 {
		var k keyed
		if len(fresh) == 0 || (len(kept) > 0 && kept[0].key < fresh[0].key) {
			k, kept = kept[0], kept[1:]
		} else {
			k, fresh = fresh[0], fresh[1:]
		}
		t.merged = append(t.merged, k.job)
	}
	copy(order, t.merged)
	t.sorted = t.sorted[:0]
	for _, j := range order {
		s := &t.jobs[j.Spec.ID]
		s.sortedKey = s.key()
		t.sorted = append(t.sorted, j.Spec.ID)
	}
}
