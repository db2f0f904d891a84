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

// jobState is what Tiresias remembers about a job (80 bytes: one per job
// of the trace).
type jobState struct {
	// entry orders jobs within a queue: a counter taken when the job
	// entered its current queue (0: in no queue yet).
	entry int64
	// service (GPU-seconds) and executed (seconds) since the job entered
	// queue 0 (arrival or last promotion).
	service, executed float64
	// waited is the time pending since the job last ran.
	waited float64
	// job is the View's job (the engine's, the same at every decision).
	job *sim.Job
	// For Schedule's ordering: the decision at which the job was last in
	// the live order and its position there.
	inOrder int64
	// started is the decision that last started the job (the incremental
	// decision lets it leave the pending queue).
	started int64
	queue   int32
	pos     int32
	gpu     int32 // the requested type, an index of Tiresias.gpus
	// mirror == Tiresias.mirrorGen while the job is in Tiresias.pend.
	mirror uint32
	// live: the job has arrived and has not ended or been dropped.
	live bool
}

// key is the job's place in the order: (queue, entry) packed into one
// integer, queue above bit entryBits, entry below. Entries are unique, so
// the key orders the jobs totally and any sort gives the same order.
func (s *jobState) key() uint64 { return uint64(s.queue)<<entryBits | uint64(s.entry) }

// queueOf is s's queue as an index.
func (s *jobState) queueOf() int { return int(s.queue) }

// Tiresias is the policy. Create it with New.
type Tiresias struct {
	cfg Config
	est estimator.Estimator
	// sched keeps preemptive.Schedule's slot table and scratch across decisions.
	sched preemptive.Scheduler
	// jobs by ID (the engine's IDs are the trace positions 0…n−1): a
	// slice, since every decision reads the state of every live job.
	jobs  []jobState
	nlive int // live jobs in jobs
	// dense is what the admission walk reads of each job, by ID, apart
	// from jobs (16 of their 80 bytes: the walk's look-ups stay in cache).
	dense   []dense
	entries int64
	// queues[q] is queue q in entry order: the jobs that entered it, with
	// the entry they took (a job that has since left the queue, ended or
	// been dropped no longer has that entry, and is skipped and dropped
	// when met).
	queues []fifo
	// byType[q][g] is queue q's jobs asking for type gpus[g], one FIFO
	// per GPU count, by increasing count: the incremental decision's
	// admission walks it.
	byType    [][][]bucket
	gpus      []string
	decisions int64
	merged    []*sim.Job
	last      sim.Time
	started   bool

	// The incremental decision's view of the pending queue: pend is the
	// last View's Pending (stamped mirror == mirrorGen), broken says a job
	// of it ended or was dropped since.
	pend      []*sim.Job
	mirrorGen uint32
	broken    bool
	// Scratch of the admission walk.
	starts []*sim.Job
	heads  []int64
	fast   int64 // decisions taken incrementally (tests)
}

// dense is a job's current entry (0: none; the job is not live) and the
// decision at which it was last among the View's running jobs.
type dense struct {
	entry, ran int64
}

// queued is a job as it entered a queue.
type queued struct {
	entry int64
	id    sim.JobID
}

// fifo is a queue's entries in entry order; dead counts those no longer
// their job's (compacted away once they are half of it).
type fifo struct {
	es   []queued
	dead int
}

// bucket is the entries of one queue, GPU type and GPU count.
type bucket struct {
	gpus int
	fifo
}

// current reports whether e is still its job's entry.
func (t *Tiresias) current(e queued) bool { return t.dense[e.id].entry == e.entry }

// kill counts one entry of f as no longer current, compacting f once the
// dead entries are half of it.
func (t *Tiresias) kill(f *fifo) {
	f.dead++
	if f.dead > 32 && 2*f.dead > len(f.es) {
		kept := f.es[:0]
		for _, e := range f.es {
			if t.current(e) {
				kept = append(kept, e)
			}
		}
		clear(f.es[len(kept):])
		f.es, f.dead = kept, 0
	}
}

var _ sim.Policy = (*Tiresias)(nil)

// New returns Tiresias judging feasibility with est.
func New(est estimator.Estimator, cfg Config) *Tiresias {
	return &Tiresias{cfg: cfg, est: est, mirrorGen: 1}
}

// Name implements sim.Policy.
func (*Tiresias) Name() string { return "tiresias" }

// Queue returns the queue job id is in (−1 if unknown), for tests and logs.
func (t *Tiresias) Queue(id sim.JobID) int {
	if int(id) < len(t.jobs) && t.jobs[id].live {
		return t.jobs[id].queueOf()
	}
	return -1
}

// state returns job j's record, creating it in queue 0 if new.
func (t *Tiresias) state(j *sim.Job) *jobState {
	id := j.Spec.ID
	if int(id) >= len(t.jobs) {
		t.jobs = append(t.jobs, make([]jobState, int(id)+1-len(t.jobs))...)
		t.dense = append(t.dense, make([]dense, len(t.jobs)-len(t.dense))...)
	}
	s := &t.jobs[id]
	if !s.live {
		*s = jobState{live: true, job: j, gpu: int32(t.gpuIndex(j.Spec.GPU))}
		t.nlive++
		t.enter(id, s, 0)
	}
	return s
}

// gpuIndex returns the index of GPU type name in t.gpus, adding it.
func (t *Tiresias) gpuIndex(name string) int {
	if g := slices.Index(t.gpus, name); g >= 0 {
		return g
	}
	t.gpus = append(t.gpus, name)
	return len(t.gpus) - 1
}

// placed is state for a job of this decision's live order, at position
// pos of that order.
func (t *Tiresias) placed(j *sim.Job, pos int) *jobState {
	s := t.state(j)
	s.inOrder, s.pos, s.job = t.decisions, int32(pos), j
	return s
}

// forget drops job id's record (it ended or was dropped).
func (t *Tiresias) forget(id sim.JobID) {
	if int(id) >= len(t.jobs) || !t.jobs[id].live {
		return
	}
	s := &t.jobs[id]
	left := s.mirror == t.mirrorGen && s.started == t.decisions-1
	if s.mirror == t.mirrorGen && !left {
		t.broken = true // a waiting job of the last View is gone
	}
	q, b := s.queueOf(), t.bucketOf(s)
	*s = jobState{}
	t.dense[id] = dense{}
	if left { // started by the last decision, then ended: samePending lets it go
		s.mirror, s.started = t.mirrorGen, t.decisions-1
	}
	t.nlive--
	t.kill(&t.queues[q])
	t.kill(&b.fifo)
}

// bucketOf returns the bucket of s's queue, type and GPU count, adding it
// (the buckets of a queue and type stay ordered by GPU count).
func (t *Tiresias) bucketOf(s *jobState) *bucket {
	q, g := s.queueOf(), int(s.gpu)
	for len(t.byType) <= q {
		t.byType = append(t.byType, nil)
	}
	for len(t.byType[q]) <= g {
		t.byType[q] = append(t.byType[q], nil)
	}
	bs := &t.byType[q][g]
	n := s.job.Spec.GPUs
	i, found := slices.BinarySearchFunc(*bs, n, func(b bucket, n int) int { return cmp.Compare(b.gpus, n) })
	if !found {
		*bs = slices.Insert(*bs, i, bucket{gpus: n})
	}
	return &(*bs)[i]
}

// sortWhole makes orderLive sort all of order at every decision (tests).
var sortWhole = false

// noIncremental makes every decision take the whole-View path (tests).
var noIncremental = false

// entryBits is the width of the entry counter in a sort key (2^48 queue
// entries: beyond any trace).
const entryBits = 48

// enter puts the job in queue at the newest entry (its old entry, if any,
// is no longer current).
func (t *Tiresias) enter(id sim.JobID, s *jobState, queue int) {
	if s.entry != 0 {
		t.kill(&t.queues[s.queueOf()])
		t.kill(&t.bucketOf(s).fifo)
	}
	t.entries++
	if t.entries >= 1<<entryBits || queue >= 1<<(64-entryBits) {
		panic("tiresias: queue or entry counter overflows the sort key")
	}
	s.queue, s.entry = int32(queue), t.entries
	t.dense[id].entry = t.entries
	for len(t.queues) <= queue {
		t.queues = append(t.queues, fifo{})
	}
	e := queued{t.entries, id}
	t.queues[queue].es = append(t.queues[queue].es, e)
	b := t.bucketOf(s)
	b.es = append(b.es, e)
}

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (preemptive.Live and Schedule copy what they order and edit).
func (*Tiresias) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy.
//
// A decision takes one of two paths with the same result. The whole-View
// path orders every job of the View (preemptive.Live's order, sorted by
// orderLive) and hands the order to preemptive.Scheduler: a step per live
// job. The incremental path needs no step per waiting job: without
// promotion a waiting job's key never changes, so when the View's jobs
// are exactly the live jobs Tiresias follows, the order restricted to a
// GPU type is its queues' buckets (one FIFO per GPU count) merged by
// entry, and the admission walk visits only the jobs it admits (a bucket
// of more GPUs than the type has left is not looked at). It checks that
// the View is what it follows by comparing the View's pending queue with
// the last one (pointers, in order): the jobs it started may have left,
// and the jobs at the end must be ones it does not already hold; with the
// running jobs and the arrivals, the count must be that of the live jobs.
// Anything else (a wrapper that hides jobs, a job the policy did not
// start that left, promotion on) takes the whole-View path.
func (t *Tiresias) Schedule(v *sim.View) ([]sim.Action, error) {
	dt := 0.0
	if t.started {
		dt = float64(v.Now.Sub(t.last))
	}
	t.started, t.last = true, v.Now
	t.decisions++
	if n := v.NumJobs(); cap(t.jobs) < n {
		// Sized once for every job ID rather than grown as IDs arrive.
		t.jobs = slices.Grow(t.jobs, n-len(t.jobs))
		t.dense = slices.Grow(t.dense, n-len(t.dense))
	}
	now := t.decisions
	for _, j := range v.Ended {
		t.forget(j.Spec.ID)
	}
	fast := !noIncremental && !sortWhole && t.cfg.PromoteKnob <= 0 && !t.broken && t.samePending(v.Pending)
	if !fast {
		t.resetMirror()
	}

	// Running jobs held their GPUs since the last decision. Each job of
	// preemptive.Live's order (running, pending, arrivals) is marked with
	// its position there as it is met.
	for i, j := range v.Running {
		id := int(j.Spec.ID)
		twice := id < len(t.jobs) && t.jobs[id].live && t.jobs[id].inOrder == now
		s := t.placed(j, i)
		if fast && (s.mirror == t.mirrorGen || twice || j.Status != sim.Running) {
			fast = false // also pending, twice in the View, or not running
			t.resetMirror()
		}
		t.dense[id].ran = now
		s.service += dt * float64(len(j.GPUs))
		s.executed += dt
		s.waited = 0
		for s.queueOf() < len(t.cfg.Thresholds) && s.service >= t.cfg.Thresholds[s.queue] {
			t.enter(j.Spec.ID, s, s.queueOf()+1)
		}
	}
	var actions []sim.Action
	if fast {
		actions, fast = t.arrive(v)
		if !fast {
			t.resetMirror()
		}
	}
	if fast {
		t.fast++
		actions = append(actions, t.admit(v)...)
	} else {
		actions = t.whole(v, dt)
	}
	for _, a := range actions {
		if a.Kind == sim.Start {
			t.jobs[a.Job].started = now
		}
	}
	return actions, nil
}

// resetMirror empties t.pend (whole makes it the View's pending queue).
func (t *Tiresias) resetMirror() {
	t.mirrorGen++
	t.pend = t.pend[:0]
	t.broken = false
}

// samePending reports whether pend, the View's pending queue, is the last
// decision's with some of the jobs started then removed and jobs the
// policy holds live but not in it appended; it makes t.pend pend.
func (t *Tiresias) samePending(pend []*sim.Job) bool {
	old := t.pend
	if len(t.jobs) == 0 {
		return false
	}
	n := min(len(old), len(pend))
	k := 0
	for k < n && old[k] == pend[k] {
		k++
	}
	i, w := k, k
	left := func(j *sim.Job) bool { // a job the last decision started
		id := int(j.Spec.ID)
		if id >= len(t.jobs) {
			return false
		}
		s := &t.jobs[id]
		if s.mirror != t.mirrorGen || s.started != t.decisions-1 {
			return false
		}
		s.mirror = 0
		return true
	}
	for i < len(old) {
		if k < len(pend) && pend[k] == old[i] {
			old[w] = old[i]
			w, i, k = w+1, i+1, k+1
			continue
		}
		if !left(old[i]) {
			return false
		}
		i++
	}
	t.pend = old[:w]
	for _, j := range pend[k:] {
		id := int(j.Spec.ID)
		if id >= len(t.jobs) {
			return false
		}
		s := &t.jobs[id]
		if !s.live || s.mirror == t.mirrorGen {
			return false
		}
		s.mirror, s.job = t.mirrorGen, j
		t.pend = append(t.pend, j)
	}
	return true
}

// arrive takes in the arrivals on the incremental path: drops for those
// that can never run, the others live. It reports false if the View's
// jobs are not exactly the live ones.
func (t *Tiresias) arrive(v *sim.View) ([]sim.Action, bool) {
	var drops []sim.Action
	ok := true
	accepted := 0
	for _, j := range v.Arrivals {
		if id := int(j.Spec.ID); id < len(t.jobs) && t.jobs[id].live {
			ok = false // a job the policy holds, handed over again
		}
		t.state(j)
		if !preemptive.Runnable(v.Cluster, t.est, j) {
			drops = append(drops, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality on the requested GPUs"})
			t.forget(j.Spec.ID)
			continue
		}
		accepted++
	}
	if t.nlive != len(v.Running)+len(v.Pending)+accepted {
		ok = false
	}
	return drops, ok
}

// admit is the incremental decision's admission: per GPU type of the
// cluster, the queues in order, each queue's buckets of at most the GPUs
// left merged by entry; every job met is admitted.
func (t *Tiresias) admit(v *sim.View) []sim.Action {
	t.sched.Begin()
	starts := t.starts[:0]
	for _, name := range v.Cluster.Types {
		left := v.UsableGPUs(name)
		g := slices.Index(t.gpus, name)
		if left <= 0 || g < 0 {
			continue
		}
		for q := 0; q < len(t.byType) && left > 0; q++ {
			if g >= len(t.byType[q]) {
				continue
			}
			bs := t.byType[q][g]
			nb := 0 // the buckets of at most left GPUs
			for nb < len(bs) && bs[nb].gpus <= left {
				nb++
			}
			heads := t.heads[:0]
			for b := range bs[:nb] {
				heads = append(heads, t.nextLive(&bs[b], 0))
			}
			t.heads = heads
			for left > 0 {
				best := -1
				for b := range bs[:nb] {
					if h := heads[b]; h >= 0 && (best < 0 || bs[b].es[h].entry < bs[best].es[heads[best]].entry) {
						best = b
					}
				}
				if best < 0 {
					break
				}
				e := bs[best].es[heads[best]]
				heads[best] = t.nextLive(&bs[best], int(heads[best])+1)
				left -= bs[best].gpus
				for nb > 0 && bs[nb-1].gpus > left {
					nb--
				}
				if t.dense[e.id].ran == t.decisions {
					t.sched.Keep(e.id)
				} else {
					starts = append(starts, t.jobs[e.id].job)
				}
			}
		}
	}
	// Each type's starts are in priority order; the types' are merged.
	slices.SortFunc(starts, func(a, b *sim.Job) int {
		return cmp.Compare(t.jobs[a.Spec.ID].key(), t.jobs[b.Spec.ID].key())
	})
	t.starts = starts
	return t.sched.Act(v, t.est, starts)
}

// nextLive returns the position of b's first current entry from i on (−1
// if none), dropping the dead entries at b's head.
func (t *Tiresias) nextLive(b *bucket, i int) int64 {
	for i < len(b.es) {
		if t.current(b.es[i]) {
			return int64(i)
		}
		if i == 0 {
			b.es[0] = queued{}
			b.es = b.es[1:]
			b.dead--
			continue
		}
		i++
	}
	return -1
}

// whole is the whole-View decision: every job of the View ordered and
// handed to preemptive.Scheduler; t.pend becomes the View's pending queue.
func (t *Tiresias) whole(v *sim.View, dt float64) []sim.Action {
	for i, j := range v.Pending {
		s := t.placed(j, len(v.Running)+i)
		if s.mirror == t.mirrorGen {
			t.broken = true // twice in the pending queue
		}
		s.mirror = t.mirrorGen
		t.pend = append(t.pend, j)
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
		t.placed(j, len(v.Running)+len(v.Pending)+i)
	}
	for _, j := range v.Arrivals {
		t.state(j)
	}
	for _, a := range actions { // dropped arrivals
		t.forget(a.Job)
	}
	t.orderLive(order)
	return append(actions, t.sched.Schedule(v, t.est, order)...)
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
	for q := range t.queues {
		queue := t.queues[q].es
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
		t.queues[q] = fifo{es: kept}
	}
	if len(t.merged) != len(order) {
		panic("tiresias: a job of the live order is in no queue")
	}
	copy(order, t.merged)
}
