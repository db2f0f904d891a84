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
	"sort"

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
}

// Tiresias is the policy. Create it with New.
type Tiresias struct {
	cfg     Config
	est     estimator.Estimator
	jobs    map[sim.JobID]*jobState
	entries int64
	last    sim.Time
	started bool
}

var _ sim.Policy = (*Tiresias)(nil)

// New returns Tiresias judging feasibility with est.
func New(est estimator.Estimator, cfg Config) *Tiresias {
	return &Tiresias{cfg: cfg, est: est, jobs: map[sim.JobID]*jobState{}}
}

// Name implements sim.Policy.
func (*Tiresias) Name() string { return "tiresias" }

// Queue returns the queue job id is in (−1 if unknown), for tests and logs.
func (t *Tiresias) Queue(id sim.JobID) int {
	if s, ok := t.jobs[id]; ok {
		return s.queue
	}
	return -1
}

// state returns job id's record, creating it in queue 0 if new.
func (t *Tiresias) state(id sim.JobID) *jobState {
	s, ok := t.jobs[id]
	if !ok {
		s = &jobState{}
		t.enter(s, 0)
		t.jobs[id] = s
	}
	return s
}

func (t *Tiresias) enter(s *jobState, queue int) {
	t.entries++
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
		delete(t.jobs, j.Spec.ID)
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
		delete(t.jobs, a.Job)
	}
	sort.SliceStable(order, func(a, b int) bool {
		sa, sb := t.jobs[order[a].Spec.ID], t.jobs[order[b].Spec.ID]
		if sa.queue != sb.queue {
			return sa.queue < sb.queue
		}
		return sa.entry < sb.entry
	})
	return append(actions, preemptive.Schedule(v, t.est, order)...), nil
}
