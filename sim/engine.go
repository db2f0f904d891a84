package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/arena-sim/arena/estimator"
)

// GCPercent is the collector pace the arena command runs simulations at
// (unless GOGC is set), and the engine benchmarks measure at. A run is a
// short batch job whose heap is mostly its own jobs and results: the
// default pace (GOGC=100) spends a quarter of a Philly run's instructions
// on marking. 400 trades memory (the 82,000-job scale run peaks well under
// 1 GB) for that work.
const GCPercent = 400

// Timing selects how simulated time advances.
type Timing int

const (
	// Exact integrates progress exactly between events; a job completes at
	// its exact completion time.
	Exact Timing = iota
	// Artifact reproduces the Arena artifact's round-based simulator: 300 s
	// rounds, completion detected at the start of a round, cumulative
	// progress accounting and the overhead "time debt" (ARENA.md §6).
	Artifact
)

func (t Timing) String() string {
	if t == Artifact {
		return "artifact"
	}
	return "exact"
}

// ParseTiming accepts "exact" or "artifact".
func ParseTiming(s string) (Timing, error) {
	switch s {
	case "exact":
		return Exact, nil
	case "artifact":
		return Artifact, nil
	}
	return Exact, fmt.Errorf("timing %q: want exact or artifact", s)
}

// Config parameterises a run.
type Config struct {
	Cluster *Cluster
	// Exec is the ground-truth estimator the engine executes with (the
	// adaptive-parallelism view).
	Exec estimator.Estimator
	// Timing mode; Rounds scheduling rounds of RoundLength are simulated,
	// starting at T0: the earliest submission (exact), the first row's (artifact).
	Timing      Timing
	Rounds      int
	RoundLength Duration
	// Overhead is the policy's cost of a start or reallocation, by kind of
	// change (an OverheadProfile resolved for the policy's class).
	Overhead Overhead
	// IterationScale divides every job's iteration count at submission
	// (integer division); it is the trace's (traces.Trace.IterationScale:
	// 5 for the artifact's simulation traces, which were generated ×5; 1
	// for the testbed trace). 0 means 1. In exact timing a job the trace
	// gives work keeps at least one iteration; artifact timing keeps the
	// artifact's 0 (the job ends at the first progress update after it
	// starts, having paid its start overhead).
	IterationScale int64
	// DeadlineScale stretches a job's deadline budget: deadline = submit +
	// DeadlineScale·(trace deadline − submit); the artifact uses 5.
	DeadlineScale float64
	// ProfilingDelay, if set, is extra time before a job's first start makes
	// progress (e.g. profiling its grids, ARENA.md §3); it is added to the
	// reconfiguration overhead of the job's first start.
	ProfilingDelay func(*JobSpec) Duration
	// NetworkShare gives, on a cluster with a topology (exact timing),
	// the share of a job's iteration time on a configuration spent in
	// collectives that cross nodes (the runner takes it from the analytic
	// model's breakdown); nil: none, and the topology changes no job's
	// time. See contention.go.
	NetworkShare func(estimator.Workload, estimator.Config) float64
	// ScheduleOnEvents (exact timing only) also calls the policy right after
	// arrivals and completions (simultaneous events batched), not only at
	// the periodic rounds.
	ScheduleOnEvents bool
	// UntilDone runs past Rounds, one round at a time, until every job of
	// the trace has arrived and finished or been dropped; MaxRounds caps it
	// (0: 10 × Rounds). It also stops when the cluster has been idle with
	// a non-empty queue and no arrival left for IdleStop rounds: the policy
	// will not place those jobs (Result.Stuck).
	UntilDone bool
	MaxRounds int
	// Measure is the window of jobs the run measures (Window; the zero
	// value, every job): only they enter the summary's JCT, queueing and
	// slowdown figures and job counts; the others run all the same.
	Measure Window
	// Drain runs past Rounds, one round at a time, until every measured
	// job has ended, or the cluster has been idle for IdleStop rounds with
	// measured jobs pending, every job arrived and no cluster event to
	// come (they are stuck: Result.DrainStuck). Its cap is DrainCap
	// (MaxRounds, when positive, bounds it); reaching it is
	// Result.CapReached. Not with UntilDone.
	Drain bool
	// Check runs the invariant checker after every event.
	Check bool
	// OnRound, if set, is called after each round (for progress bars).
	OnRound func(done, total int)

	// Events are the run's cluster events, in time order (exact timing
	// only): nodes failing, coming back, drained or reclaimed with a
	// notice, added. See the package documentation's "Faults".
	Events []ClusterEvent
	// Checkpoint is every job's checkpoint model (exact timing only);
	// CheckpointOf, if set, gives each job its own instead. A run with no
	// events and the zero model is the fault-free engine, unchanged.
	Checkpoint   Checkpoint
	CheckpointOf func(*JobSpec) Checkpoint
	// FaultModel turns the fault model (its metrics and results files) on
	// even without events or checkpoints: a run given a failure preset
	// that happened to draw no event is still a run with faults.
	FaultModel bool
	// JobFailures is the seeded model of jobs failing on their own (a
	// crash, a NaN, an out-of-memory: not the cluster's fault), with
	// retries (exact timing only). The zero value is none.
	JobFailures JobFailures

	// Recorder, if set, receives the run's records (per-round state, job
	// ends, GPU holdings, cluster events, the job table) instead of the
	// default ResultRecorder: the Result then carries the summary figures
	// alone (Summarize works on it) and no records. To keep the default
	// records as well, Tee a NewResultRecorder with it and Fill the Result
	// from that after the run. See Recorder.
	Recorder Recorder
	// NoAllocations: the default recorder keeps no allocation records
	// (Result.Allocations stays empty), for a caller that reads none —
	// no results files, energy or fairness accounting, plots. A run
	// reconfiguring millions of times keeps one 56-byte record per
	// holding otherwise. Changes nothing else of the run or its Result.
	NoAllocations bool
}

// DefaultConfig returns the artifact's parameters on cluster c, with no
// overhead and iteration scale 1: the overhead comes from the policy's
// class in an OverheadProfile, the scale from the trace.
func DefaultConfig(c *Cluster, exec estimator.Estimator) Config {
	return Config{
		Cluster: c, Exec: exec, Timing: Exact, Rounds: 2000, RoundLength: 300,
		IterationScale: 1, DeadlineScale: 5,
	}
}

// ErrInvariant wraps every invariant-checker failure.
var ErrInvariant = errors.New("sim: invariant violated")

// engine is the state of one run.
type engine struct {
	cfg    Config
	policy Policy
	specs  []JobSpec
	jobs   []*Job

	occupant []JobID
	// runq and pendq are the running and pending queues (queue.go); a
	// batch of actions removes jobs from them lazily (lazyDequeue, and the
	// suspensions), compacted once at the batch's end, and completions
	// from the running queue until runExact's loop next reads it.
	runq, pendq jobQueue
	lazyDequeue bool
	now         Time
	t0          Time
	round       int

	// artifact mode: resched[id] == r+1 marks a job whose slots changed
	// in round r's decision; qclock is the pending queue's queue-time clock.
	resched []int
	qclock  queueClock

	// exact mode
	events    eventQueue
	arrivalQ  []*Job // arrivals to come, in event order (runExact)
	sorted    bool   // the specs are in submission order
	arrived   []*Job
	ended     []*Job
	roundWork float64 // samples processed in the current round window

	// A job's GPU-second counter on the type it runs on lives in the job
	// (Job.gpuSec); those of the types it left, in a row of T counters
	// (T types, Cluster.Types order) of leftRows, the job's row k-1 for
	// leftRow[id] = k (0: none, the job never left a type, as no job of
	// most policies does). nil until a job first gets GPUs (setAlloc).
	leftRow  []int32
	leftRows []float64
	// heldBy[t] is the GPUs of Cluster.Types[t] jobs hold: the sum of
	// len(j.GPUs) over the jobs of type t, kept where j.GPUs changes
	// (setAlloc, release, a suspension), so that a round's digest and busy
	// counts read it rather than walking the running jobs (every held GPU
	// is a running job's; the checker asserts the two agree).
	heldBy []int
	// arrivedJobs counts the jobs that have arrived.
	arrivedJobs int

	res        *Result
	decisionNs []int64
	// rec receives the run's records; defaultRec is it when the caller
	// gave none (its records go into res at the end).
	rec        Recorder
	defaultRec *ResultRecorder
	// batch is simulateBatch's table of the touched jobs, kept across
	// batches (no map and no allocation per action).
	batch batchState
	// costs memoizes Config.Overhead.Cost for setAlloc (see overheadCost).
	costs costMemo
	// idleScratch, busyScratch: the per-type counts a digest or timeline
	// row is reported with (the recorder copies what it keeps).
	idleScratch []int
	busyScratch []int32
	// digestRow, roundRow, holding: what the recorder is handed, reused
	// (a literal passed by pointer through an interface is allocated).
	digestRow DigestRow
	roundRow  RoundRecord
	holding   Holding
	// noHolds: no recorder keeps holdings (the default one, told to keep
	// no allocation records): none is made, and the jobs' holding fields
	// (heldSince, heldReady), which only holdings read, are not kept.
	noHolds bool
	// apply's overlay on occupant (see overlay).
	ovStamp []uint32
	ovVal   []JobID
	ovList  []int
	ovGen   uint32
	// beforeBuf holds the artifact loop's per-round "before" snapshot.
	beforeBuf []JobID
	// occGen counts writes to the slot table (release, apply's commit);
	// decidedGen and beforeGen are its value when decided and beforeBuf
	// were last copied from it. A copy of the table (10 KB on paper-1280)
	// is remade only when the table changed since: most rounds of a long
	// run change nothing, and the copies were most of a round's cost.
	occGen, decidedGen, beforeGen uint64
	// occDirty lists the slots written since decided was last brought up
	// to date (occDirtyAll: too many to list, copy it all), so that a
	// decision on a 100,000-GPU cluster copies the slots it changed, not
	// the table.
	occDirty    []int32
	occDirtyAll bool
	// wrote lists the slots written since the last decision's View was
	// built (wroteAll: too many to list), handed to the next decision's
	// View (View.Written) and then restarted in wroteSpare, the list the
	// previous View held; viewSeq numbers the decisions' Views. Nothing is
	// listed until a policy first asks (View.Written sets trackWrites), so
	// runs whose policies never ask pay nothing per write.
	wrote, wroteSpare []int32
	wroteAll          bool
	trackWrites       bool
	viewSeq           uint64
	// quiet: the policy skips decisions with no arrival and no ended job
	// (QuietRounds).
	quiet bool

	// vb are the copies of the engine's slices a View hands out, reused
	// from call to call so a policy never holds the engine's own.
	vb struct {
		occupant, before                  []JobID
		running, pending, arrivals, ended []*Job
		nodes                             []NodeAvail
		interrupted                       []*Job
	}
	// decisionView and afterView are the Views themselves, reused alike:
	// one per decision was a no-op run's most frequent allocation. (The
	// artifact's throughput check gets its own, so the decision's stays as
	// the policy saw it during the round.)
	decisionView, afterView View
	// spareArrived, spareEnded: the previous decision's event lists,
	// reused for the next (exact timing).
	spareArrived, spareEnded []*Job
	// shareView: the policy is a ViewReader, so a View holds the engine's
	// own slices (vb then keeps Check mode's copies to compare against).
	shareView bool
	// decided is the slot table right after the last decision (exact
	// timing): the BeforeRelease of the next one.
	decided []JobID
	// Check mode: what the policy saw, to catch it changing a Job.
	seen []jobSnapshot
	// Check mode: each job's remaining work at the last check, and
	// revalued[id]: the artifact's last progress update of the job ran on
	// another configuration (updCfg[id] before it) than its previous update
	// (ARENA.md §6: the cumulative exec_time is re-valued at the new speed,
	// remaining may grow). The only way remaining may grow.
	lastRemain []int64
	revalued   []bool
	updCfg     []estimator.Config

	idleRounds int // until-done: consecutive idle rounds with a queue

	// measured[id]: the run measures job id (Config.Measure); nil, every
	// job. measuredN jobs are measured, submitted from measuredFirst to
	// measuredLast. drainFrom: every job before it has ended or is not
	// measured (drained's scan starts there).
	measured                    []bool
	measuredN                   int
	measuredFirst, measuredLast Time
	drainFrom                   int

	// flt is the fault model's state (faultstate.go); nil in a run without
	// cluster events and checkpoints.
	flt *faultState
	// net is the contention model's state (contention.go); nil on a
	// cluster without topology and in artifact timing.
	net *netState

	// watch and best: stuck work and the charge of unfinished jobs
	// (stuck.go); requested: requestedIterTime's memo.
	watch     stuckWatch
	best      map[estimator.Workload]float64
	requested map[requestKey]float64
}

// Run simulates specs (in trace order; specs[i].ID must equal i) under
// policy p and returns the results. The context cancels a long run; what
// finished so far is then returned with the context's error.
func Run(ctx context.Context, cfg Config, p Policy, specs []JobSpec) (*Result, error) {
	e, err := newEngine(cfg, p, specs)
	if err != nil {
		return nil, err
	}
	return e.run(ctx)
}

// newEngine validates a run's inputs and sets up its state.
func newEngine(cfg Config, p Policy, specs []JobSpec) (*engine, error) {
	if wc, ok := p.(WorkloadChecker); ok {
		if err := wc.CheckWorkload(specs); err != nil {
			return nil, err // the caller names the policy
		}
	}
	if cfg.Cluster == nil || cfg.Exec == nil {
		return nil, errors.New("sim: Config needs a Cluster and an Exec estimator")
	}
	if cfg.Rounds <= 0 {
		return nil, fmt.Errorf("sim: Rounds must be positive, got %d", cfg.Rounds)
	}
	if cfg.RoundLength <= 0 {
		cfg.RoundLength = 300
	}
	if cfg.IterationScale <= 0 {
		cfg.IterationScale = 1
	}
	if cfg.DeadlineScale <= 0 {
		cfg.DeadlineScale = 1
	}
	if len(specs) == 0 {
		return nil, errors.New("sim: the trace has no jobs")
	}
	if cfg.UntilDone && cfg.MaxRounds <= 0 {
		cfg.MaxRounds = 10 * cfg.Rounds
	}
	if cfg.UntilDone && cfg.Drain {
		return nil, errors.New("sim: Config.UntilDone and Drain are alternatives; give one")
	}
	measured, measuredN, first, last := cfg.Measure.Select(specs)
	if measuredN == 0 {
		return nil, fmt.Errorf("sim: the measurement window %s holds none of the trace's %d jobs", cfg.Measure, len(specs))
	}
	if cfg.Drain {
		cfg.MaxRounds = DrainCap(cfg.Rounds, cfg.MaxRounds, last.Sub(first), cfg.RoundLength)
	}
	e := &engine{
		measured: measured, measuredN: measuredN, measuredFirst: first, measuredLast: last,
		cfg: cfg, policy: p, specs: specs,
		occupant: make([]JobID, cfg.Cluster.NumSlots()),
		qclock:   queueClock{step: float64(cfg.RoundLength)},
	}
	for i := range e.occupant {
		e.occupant[i] = NoJob
	}
	e.heldBy = make([]int, len(cfg.Cluster.Types))
	// The jobs and their per-type GPU-second counters live in two arrays
	// rather than one allocation each: the per-round walks over the queues
	// then read memory in trace order, and the collector has one object
	// to scan instead of tens of thousands (the counters, pointer-free,
	// are not scanned at all, nor pointed at from each Job).
	e.jobs = hugeSlice[*Job](len(specs))
	jobs := hugeSlice[Job](len(specs))
	// The pending queue can hold every job; growing it by doubling
	// copied it again and again in runs whose queue gets long.
	e.pendq.jobs = make([]*Job, 0, len(specs))
	e.pendq.seq = make([]int32, 0, len(specs))
	e.pendq.ticketOf = func(j *Job) *int32 { return &j.qpos }
	e.runq.ticketOf = func(j *Job) *int32 { return &j.rpos }
	if cfg.Check {
		e.lastRemain = make([]int64, len(specs))
		e.revalued = make([]bool, len(specs))
		e.updCfg = make([]estimator.Config, len(specs))
	}
	e.decided = append([]JobID(nil), e.occupant...)
	// One pass over the specs checks the IDs and finds T0 and whether the
	// trace is in submission order (runExact's arrivals), each of which
	// was a pass over 150-byte specs of its own. T0, the instant of round
	// 0: in exact timing the earliest submission, whatever the row order
	// (a new minimum is below its predecessor); in artifact timing, as the
	// artifact does, the first row's (rows before it in time go to round 0),
	// read as the artifact reads it (whole seconds, ArtifactSecond).
	e.t0, e.sorted = e.submitOf(&specs[0]), true
	for i := range specs {
		if specs[i].ID != JobID(i) {
			return nil, fmt.Errorf("sim: job %d has ID %d; IDs must equal trace positions", i, specs[i].ID)
		}
		if s := specs[i].Submit; i > 0 && s < specs[i-1].Submit {
			e.sorted = false
			if cfg.Timing == Exact {
				e.t0 = min(e.t0, s)
			}
		}
		// Field by field: the array is zeroed already, and a composite
		// literal would write all of the Job again.
		j := &jobs[i]
		j.Spec, j.id, j.FirstStart, j.Finish = &specs[i], JobID(i), -1, -1
		e.jobs[i] = j
	}
	if q, ok := p.(QuietRounds); ok {
		e.quiet = q.IdleWhenQuiet()
	}
	if r, ok := p.(ViewReader); ok {
		e.shareView = r.ReadsViewOnly()
	}
	if cfg.faulty() || cfg.Timing == Exact && anyCheckpoint(specs) {
		f, err := newFaultState(&e.cfg, specs)
		if err != nil {
			return nil, err
		}
		e.flt = f
	}
	if cfg.Cluster.net != nil && cfg.Timing == Exact {
		e.net = newNetState(&e.cfg, len(specs))
	}
	e.res = newResult(e)
	e.begin()
	return e, nil
}

// setType moves j to GPU type typ (a Cluster.Types index): the counter of
// the type it leaves goes to its row of leftRows (made on the first move
// with GPU-seconds to keep), the new type's counter comes from there (0 if
// it never ran on it).
func (e *engine) setType(j *Job, typ int32) {
	if typ == j.typ {
		return
	}
	row := e.leftRowOf(j, j.gpuSec != 0)
	if row != nil {
		row[j.typ] = j.gpuSec
	}
	j.typ, j.gpuSec = typ, 0
	if row != nil {
		j.gpuSec = row[typ]
	}
}

// leftRowOf returns j's row of counters of the types it left, made (zero)
// if create is set and it has none; nil otherwise.
func (e *engine) leftRowOf(j *Job, create bool) []float64 {
	T := len(e.cfg.Cluster.Types)
	k := e.leftRow[j.Spec.ID]
	if k == 0 {
		if !create {
			return nil
		}
		e.leftRows = append(e.leftRows, make([]float64, T)...)
		k = int32(len(e.leftRows) / T)
		e.leftRow[j.Spec.ID] = k
	}
	return e.leftRows[int(k-1)*T : int(k)*T]
}

// gpuSecondsBy fills buf (len(Cluster.Types)) with j's GPU-seconds by type
// and returns it: its row of the types it left, and its counter on its
// type.
func (e *engine) gpuSecondsBy(j *Job, buf []float64) []float64 {
	if row := e.leftRowOf(j, false); row != nil {
		copy(buf, row)
	} else {
		clear(buf)
	}
	buf[j.typ] = j.gpuSec
	return buf
}

// addGPUSeconds adds x to j's GPU-second counter for the type it runs on.
// That counter lives in j (j.gpuSec) while typ is j's type: setType keeps
// it in the job's row of the types it left when typ changes and takes the
// new type's from there (the same sums in the same order; a job's row
// exists only once it has left a type with GPU-seconds, so a million
// jobs that never change type keep none).
func (e *engine) addGPUSeconds(j *Job, x float64) { j.gpuSec += x }

// run simulates to the horizon and builds the result.
func (e *engine) run(ctx context.Context) (*Result, error) {
	start := time.Now()
	var err error
	if e.cfg.Timing == Artifact {
		err = e.runArtifact(ctx)
	} else {
		err = e.runExact(ctx)
	}
	e.finish(time.Since(start))
	if e.defaultRec != nil {
		e.defaultRec.Fill(e.res)
	}
	if b, ok := e.policy.(BudgetReporter); ok {
		n := b.BudgetHits()
		e.res.BudgetHits = &n
	}
	if a, ok := e.policy.(AssertionReporter); ok {
		n := a.ArtifactAssertionsFailed()
		e.res.AssertionsFailed = &n
	}
	if err == nil && e.cfg.Check {
		err = e.checkAccounted()
	}
	return e.res, err
}

// ---------------------------------------------------------------------------
// Artifact timing (ARENA.md §6)

// submitOf returns a job's submission time as the timing mode reads it:
// the trace's value in exact timing, whole seconds in artifact timing
// (ArtifactSecond). A job submitted at T0 + 300.4 s is in chunk 0 for the
// artifact, which reads 300 s, and so here.
func (e *engine) submitOf(s *JobSpec) Time {
	if e.cfg.Timing == Artifact {
		return ArtifactSecond(s.Submit)
	}
	return s.Submit
}

// chunkOf returns the artifact's submission round of a job:
// max(0, ceil((s − T0)/300) − 1).
func (e *engine) chunkOf(s Time) int {
	k := int(math.Ceil(float64(s-e.t0)/float64(e.cfg.RoundLength))) - 1
	return max(k, 0)
}

// runArtifact runs the artifact's round loop (ARENA.md §6): every round
// advances progress, ends and releases jobs, submits the round's chunk, asks
// the policy, then charges reconfiguration overheads against the round's
// throughput. Each numbered step is the artifact's own, in its order.
func (e *engine) runArtifact(ctx context.Context) error {
	L := e.cfg.RoundLength
	next, k := 0, 0 // the next trace row to submit, and the chunk it joins
	for r := 0; r < e.cfg.Rounds; r++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.round = r
		e.now = e.t0.Add(Duration(r) * L)
		e.recordDigest()
		e.res.Events++ // the round itself

		// 1. Progress update, running-queue order; jobs in time debt skip it.
		ended := e.artifactProgress()
		// 2. Ended jobs: JCT = round timer − submit round timer.
		for _, j := range ended {
			e.finishJob(j, e.now)
		}
		e.res.Events += len(ended)
		// 3. "Before" snapshot (ended jobs still hold GPUs), then release.
		if e.beforeBuf == nil || e.beforeGen != e.occGen {
			e.beforeBuf = append(e.beforeBuf[:0], e.occupant...)
			e.beforeGen = e.occGen
		}
		before := e.beforeBuf
		for _, j := range ended {
			e.release(j)
		}
		// Submissions of this round.
		first := next
		next, k = e.artifactChunkEnd(r, next, k)
		arrivals := e.jobs[first:next]
		for _, j := range arrivals {
			e.arrive(j, e.now)
		}
		e.res.Events += len(arrivals)
		// 4–5. The policy's restart and new-job passes.
		changed, err := e.decide(arrivals, ended, before)
		if err != nil {
			return err
		}
		e.watchRound()
		// 6. Timer and queue times.
		e.now = e.now.Add(L)
		e.qclock.steps++ // every pending job accrues L (QueueTime)
		// 7. Reschedule detection and per-round throughput with overhead debt.
		e.artifactThroughput(r, changed, before)
		if e.cfg.Check {
			if err := e.checkState(); err != nil {
				return err
			}
		}
		if e.cfg.OnRound != nil {
			e.cfg.OnRound(r+1, e.cfg.Rounds)
		}
		if r+1 == e.cfg.Rounds {
			e.extend()
		}
	}
	return nil
}

// artifactProgress is step 1 of an artifact round: every running job not in
// time debt runs one more round and its remaining iterations are recounted
// from its whole execution time (floor, as the artifact does). It removes the
// jobs that reached zero from the running queue and returns them, in queue
// order. Separate from the loop because it is the one place the artifact's
// progress arithmetic (and its Deadline quirk) lives.
func (e *engine) artifactProgress() []*Job {
	L := e.cfg.RoundLength
	var ended []*Job
	e.runq.filter(func(j *Job) bool {
		if j.TimeDebt == 0 {
			j.ExecTime += float64(L)
			it := j.iterTime
			if e.cfg.Check {
				id := j.Spec.ID
				e.revalued[id] = e.updCfg[id] != (estimator.Config{}) && e.updCfg[id] != j.Config
				e.updCfg[id] = j.Config
			}
			j.Remaining = j.IterNum - int64(math.Floor(j.ExecTime/it))
			if j.Remaining == j.IterNum {
				j.Deadline = 0 // the artifact's quirk
			}
			if j.Remaining <= 0 {
				ended = append(ended, j)
				return false
			}
		}
		return true
	})
	return ended
}

// artifactChunkEnd returns the end of round r's submissions: the trace rows
// from next up to (not including) the returned index are submitted in round
// r, and the chunk the last of them joined.
//
// Chunk k (submitted at the start of round k) holds, in trace order, the
// jobs with T0 + 300k < s ≤ T0 + 300(k+1). The artifact walks the file in
// order and never goes back to an earlier chunk: a row whose submission time
// is earlier than a previous row's joins the previous row's chunk (PAI rows
// 79–82 follow row 78 of chunk 168 although they were submitted in rounds
// 166–167; with the formula alone the authors' PAI digests depart at round
// 167 for every policy). So chunks never go back along the trace: round r's
// is the run of jobs from next up to the first of a later chunk.
func (e *engine) artifactChunkEnd(r, next, k int) (int, int) {
	for ; next < len(e.specs); next++ {
		kn := max(k, e.chunkOf(e.submitOf(&e.specs[next])))
		if kn > r {
			break
		}
		k = kn
	}
	return next, k
}

// artifactThroughput is step 7 of an artifact round, after the decision and
// the timer step: it marks the jobs whose slots changed since before as
// rescheduled in round r, charges each its reconfiguration overhead (as time
// debt when it exceeds a round), and records the round's throughput, busy
// GPUs and GPU-seconds. Separate because the overhead-debt accounting is
// the artifact's throughput model, read apart from the round's order of steps.
func (e *engine) artifactThroughput(r int, changed bool, before []JobID) {
	L := e.cfg.RoundLength
	// A decision that changed no allocation leaves every slot as it was
	// or idle (ended jobs released): nothing to detect.
	if changed {
		if e.resched == nil {
			e.resched = make([]int, len(e.jobs))
		}
		for s, occ := range e.occupant {
			if occ != NoJob && before[s] != occ {
				e.resched[occ] = r + 1
			}
		}
	}
	total := 0.0
	busy := make([]int, len(e.cfg.Cluster.Types))
	reporter, _ := e.policy.(ThroughputReporter)
	var after *View
	if reporter != nil {
		// The artifact's check sees the round's own timer, t_r.
		after = e.view(&e.afterView, e.now-Time(L), nil, nil, nil)
	}
	for _, j := range e.runq.jobs {
		thr := j.throughput
		if reporter != nil && !reporter.ReportsThroughput(after, j) {
			thr = 0
		}
		// The artifact keeps the debt in a dict; a job is in it exactly
		// when its TimeDebt is positive (an entry is only ever set to
		// more than L, or to d − L for d > L).
		if changed && e.resched[j.Spec.ID] == r+1 {
			j.Rescheds++
			j.Reconfigs++
			t := e.cfg.Overhead.Cost(j.change, len(j.GPUs))
			if j.Rescheds == 1 && e.cfg.ProfilingDelay != nil {
				t += e.cfg.ProfilingDelay(j.Spec)
			}
			if t <= L {
				thr *= float64(L-t) / float64(L)
				j.TimeDebt = 0
			} else {
				j.TimeDebt = t
			}
		}
		if d := j.TimeDebt; d > 0 {
			if d <= L {
				thr *= float64(L-d) / float64(L)
				j.TimeDebt = 0
			} else {
				thr = 0
				j.TimeDebt = d - L
			}
		}
		total += thr
		busy[j.typ] += len(j.GPUs)
		e.addGPUSeconds(j, float64(L)*float64(len(j.GPUs)))
	}
	e.recordRound(r, estimator.PyRound(total, 3), busy)
}

// IdleStop is how many rounds an until-done run waits with nothing
// running, jobs pending and no arrival to come before it stops.
const IdleStop = 100

// extend lengthens an until-done run by one round unless every job has
// ended, the cap is reached or the policy has left the cluster idle with
// a queue for IdleStop rounds. It reports whether it did.
func (e *engine) extend() bool {
	if e.cfg.Drain {
		return e.extendDrain()
	}
	if !e.cfg.UntilDone {
		return false
	}
	done, arrivedAll := true, true
	for _, j := range e.jobs {
		switch j.Status {
		case NotArrived:
			done, arrivedAll = false, false
		case Pending, Running:
			done = false
		}
	}
	if done {
		return false
	}
	extended, _ := e.extendUnlessStuck(len(e.runq.jobs) == 0 && len(e.pendq.jobs) > 0 && len(e.arrived) == 0 && arrivedAll)
	return extended
}

// extendUnlessStuck is the stop rule shared by until-done and draining
// runs: one more round, unless the cluster has been idle with a waiting
// queue (idleWithQueue) for IdleStop rounds — stuck, unless a cluster
// event to come may add capacity the cluster lacks now
// (eventsMayAddCapacity) — or the cap is reached (Result.CapReached).
func (e *engine) extendUnlessStuck(idleWithQueue bool) (extended, stuck bool) {
	if idleWithQueue && !e.eventsMayAddCapacity() {
		e.idleRounds++
	} else {
		e.idleRounds = 0
	}
	if e.idleRounds >= IdleStop {
		return false, true
	}
	if e.cfg.Rounds >= e.cfg.MaxRounds {
		e.res.CapReached = true
		return false, false
	}
	e.cfg.Rounds++
	return true, false
}

// arrive admits a job into the system at time t (not yet into a queue).
func (e *engine) arrive(j *Job, t Time) {
	s := j.Spec
	if e.cfg.Timing == Artifact {
		j.SubmitTime = t
	} else {
		j.SubmitTime = s.Submit
	}
	j.IterNum = s.Iterations / e.cfg.IterationScale
	if e.cfg.Timing == Exact && s.Iterations > 0 {
		j.IterNum = max(j.IterNum, 1)
	}
	j.Iterations = j.IterNum
	j.Remaining = j.IterNum
	j.remainingF = float64(j.IterNum)
	if e.cfg.Check {
		e.lastRemain[s.ID] = j.IterNum
	}
	if s.Deadline > 0 {
		dl := s.Deadline
		if e.cfg.Timing == Artifact {
			dl = ArtifactSecond(dl) // int() in the artifact's trace loader
		}
		j.Deadline = j.SubmitTime + Time(e.cfg.DeadlineScale*float64(dl-j.SubmitTime))
	} else {
		j.Deadline = Time(math.Inf(1))
	}
	j.Status = Pending
	j.pendingSince = s.Submit
	e.arrivedJobs++
	e.arriveWatch(j)
}

func (e *engine) finishJob(j *Job, t Time) {
	j.Status = Finished
	j.Finish = t
	e.recordFinish(j)
}

func (e *engine) release(j *Job) {
	if e.net != nil {
		e.netDetach(j)
	}
	e.recordHold(j, nil)
	e.occGen++
	e.heldBy[j.typ] -= len(j.GPUs)
	if e.flt != nil {
		for _, s := range j.GPUs {
			if e.occupant[s] == j.id {
				e.occupant[s] = e.freeValue(s)
				e.touch(s)
			}
		}
		j.GPUs = nil
		return
	}
	for _, s := range j.GPUs {
		if e.occupant[s] == j.id {
			e.occupant[s] = NoJob
			e.touch(s)
		}
	}
	j.GPUs = nil
}

// decide calls the policy and applies its actions. It reports whether any
// allocation changed.
func (e *engine) decide(arrivals, ended []*Job, before []JobID) (bool, error) {
	if e.quiet && len(arrivals) == 0 && len(ended) == 0 && (e.flt == nil || !e.flt.changed && len(e.flt.interrupted) == 0) {
		// The policy promised nothing would happen (QuietRounds); no slot
		// changed since its last decision, so decided stays right too.
		e.decisionNs = append(e.decisionNs, 0)
		return false, nil
	}
	v := e.view(&e.decisionView, e.now, arrivals, ended, before)
	e.viewSeq++
	v.seq, v.wrote, v.wroteAll = e.viewSeq, capped(e.wrote), e.wroteAll || !e.trackWrites
	v.trackWrites = &e.trackWrites
	e.wrote, e.wroteSpare, e.wroteAll = e.wroteSpare[:0], e.wrote, false
	if e.cfg.Check {
		e.snapshotJobs(v)
	}
	t0 := time.Now()
	actions, err := e.policy.Schedule(v)
	e.decisionNs = append(e.decisionNs, time.Since(t0).Nanoseconds())
	if err != nil {
		return false, fmt.Errorf("sim: policy %s at round %d: %w", e.policy.Name(), e.round, err)
	}
	if e.cfg.Check {
		if err := e.checkUnchanged(); err != nil {
			return false, err
		}
		if e.shareView {
			if err := e.checkSharedView(v); err != nil {
				return false, err
			}
		}
	}
	if e.flt != nil {
		e.flt.changed = false
		e.flt.interrupted, e.flt.spareInterrupted = e.flt.spareInterrupted[:0], e.flt.interrupted
	}
	changed, err := e.apply(actions, arrivals)
	if e.decidedGen != e.occGen {
		if e.occDirtyAll {
			copy(e.decided, e.occupant)
		} else {
			for _, s := range e.occDirty {
				e.decided[s] = e.occupant[s]
			}
		}
		e.decidedGen = e.occGen
	}
	e.occDirty, e.occDirtyAll = e.occDirty[:0], false
	return changed, err
}

// view builds what the policy sees, in v: copies of the engine's slot
// table and queues (in buffers reused between calls, valid during the
// call), so a policy that sorts or edits them changes nothing of the
// engine's. A ViewReader gets the engine's own slices, each capped at its
// length; under Check the copies are still made, as the record
// checkSharedView holds the policy's promise to.
func (e *engine) view(v *View, now Time, arrivals, ended []*Job, before []JobID) *View {
	*v = View{
		Now: now, Round: e.round, RoundLength: e.cfg.RoundLength, Cluster: e.cfg.Cluster,
		Occupant: capped(e.occupant), Running: capped(e.runq.jobs), Pending: capped(e.pendq.jobs),
		Arrivals: capped(arrivals), Ended: capped(ended), Timing: e.cfg.Timing, jobs: e.jobs,
	}
	if before != nil {
		v.BeforeRelease = capped(before)
	}
	if e.flt != nil {
		// Copies: a policy may keep neither. A ViewReader's copy of the
		// nodes is remade only when they changed (it leaves it alone).
		if !e.shareView || e.flt.viewStale || len(e.vb.nodes) != len(e.flt.nodes) {
			e.vb.nodes = append(e.vb.nodes[:0], e.flt.nodes...)
			e.flt.viewStale = false
		}
		e.vb.interrupted = append(e.vb.interrupted[:0], e.flt.interrupted...)
		v.Nodes, v.Interrupted, v.NodesChanged = e.vb.nodes, e.vb.interrupted, e.flt.changed
	}
	if e.shareView && !e.cfg.Check {
		return v
	}
	b := &e.vb
	b.occupant = append(b.occupant[:0], e.occupant...)
	b.running = append(b.running[:0], e.runq.jobs...)
	b.pending = append(b.pending[:0], e.pendq.jobs...)
	b.arrivals = append(b.arrivals[:0], arrivals...)
	b.ended = append(b.ended[:0], ended...)
	b.before = append(b.before[:0], before...)
	if !e.shareView {
		v.Occupant, v.Running, v.Pending, v.Arrivals, v.Ended = b.occupant, b.running, b.pending, b.arrivals, b.ended
		if before != nil {
			v.BeforeRelease = b.before
		}
	}
	return v
}

// checkSharedView (Check mode) asserts that a ViewReader policy wrote to
// none of the engine's slices it was handed.
func (e *engine) checkSharedView(v *View) error {
	b := &e.vb
	same := slices.Equal(v.Occupant, b.occupant) && slices.Equal(v.BeforeRelease, b.before) &&
		slices.Equal(v.Running, b.running) && slices.Equal(v.Pending, b.pending) &&
		slices.Equal(v.Arrivals, b.arrivals) && slices.Equal(v.Ended, b.ended)
	if !same {
		return e.invariantf("policy %s wrote to its View's slices, which it promised to leave alone (ReadsViewOnly)", e.policy.Name())
	}
	return nil
}

func capped[T any](s []T) []T { return s[:len(s):len(s)] }

// apply validates a batch of actions against the state as a whole and
// commits it, or rejects it without changing anything. Allocations are
// checked on the final state, so a policy may swap two jobs' GPUs in one
// batch.
func (e *engine) apply(actions []Action, arrivals []*Job) (bool, error) {
	state, order, err := e.simulateBatch(actions)
	if err != nil {
		return false, err
	}
	ov, err := e.batchOccupancy(state, order)
	if err != nil {
		return false, err
	}
	changed, suspended := e.commitBatch(actions, state.shapes, state.same)
	// An arrival is in no queue until here (arrive puts it in none), unless
	// the batch started and then suspended it, which put it at the pending
	// queue's end; the others the policy neither started nor dropped join
	// the end now. (No scan of the pending queue per arrival.)
	for _, j := range arrivals {
		if j.Status == Pending && !suspended[j.Spec.ID] {
			e.enqueue(j)
		}
	}
	ov.commit()
	return changed, nil
}

// tentative is a job's status and GPUs as a batch of actions leaves them,
// before anything is committed.
type tentative struct {
	status Status
	gpus   []int
	moved  bool
	// held is the job's GPUs before the batch (its GPUs when first
	// touched), which batchOccupancy clears: read once, by the first touch.
	held []int
}

// simulateBatch is apply's first pass, a job-level simulation of the batch:
// each action is checked against its job's status as the earlier actions of
// the batch leave it, and each grid for its shape and feasibility. It
// returns every touched job's final state and the order they were first
// touched in, changing nothing of the engine's. Separate so that the rules
// for which action is legal when sit in one place, apart from the commit.
func (e *engine) simulateBatch(actions []Action) (*batchState, []JobID, error) {
	b := &e.batch
	b.reset(len(e.jobs), len(actions))
	get := func(id JobID) (*tentative, bool) {
		if m := b.mark[id]; m.gen == b.gen {
			return &b.ts[m.idx], false
		}
		j := e.jobs[id]
		b.mark[id] = batchMark{b.gen, int32(len(b.ts))}
		b.ts = append(b.ts, tentative{status: j.Status, gpus: j.GPUs, held: j.GPUs})
		b.order = append(b.order, id)
		return &b.ts[len(b.ts)-1], true
	}
	for i, a := range actions {
		if a.Job < 0 || int(a.Job) >= len(e.jobs) {
			return nil, nil, e.actionError(a, "no such job")
		}
		t, first := get(a.Job)
		switch a.Kind {
		case Start:
			if t.status != Pending {
				return nil, nil, e.actionError(a, "job is %s, not pending", t.status)
			}
			t.status, t.gpus, t.moved = Running, a.GPUs, true
		case Reallocate:
			if t.status != Running {
				return nil, nil, e.actionError(a, "job is %s, not running", t.status)
			}
			t.gpus, t.moved = a.GPUs, true
		case Suspend:
			if t.status != Running {
				return nil, nil, e.actionError(a, "job is %s, not running", t.status)
			}
			t.status, t.gpus = Pending, nil
		case Drop:
			if t.status != Pending {
				return nil, nil, e.actionError(a, "job is %s, not pending", t.status)
			}
			t.status, t.gpus = Dropped, nil
		default:
			return nil, nil, e.actionError(a, "unknown action kind %d", a.Kind)
		}
		if a.Kind == Start || a.Kind == Reallocate {
			cfg, ok := e.cfg.Cluster.ShapeOf(a.GPUs)
			if !ok {
				return nil, nil, e.actionError(a, "GPUs do not form a uniform grid of one GPU type (a slot is repeated, out of range, of another type, or nodes are used unevenly)")
			}
			b.shapes[i] = cfg
			if first {
				// The job's first action of the batch: at its commit the job
				// still holds t.held (batchOccupancy reads those slots next).
				b.same[i] = sameNo
				if SameGPUs(t.held, a.GPUs) {
					b.same[i] = sameYes
				}
			}
			// A job's Config is a shape setAlloc gave it after this
			// check: the same shape again (a move) is feasible.
			if j := e.jobs[a.Job]; cfg == j.Config && cfg.GPU != "" {
				continue
			}
			if est := e.cfg.Exec.Estimate(e.jobs[a.Job].Spec.Workload, cfg); !est.Feasible() {
				return nil, nil, e.actionError(a, "grid %s is infeasible for %s: %s", cfg, e.jobs[a.Job].Spec.Workload, est.Reason)
			}
		}
	}
	return b, b.order, nil
}

// batchState is simulateBatch's result: the touched jobs' tentative
// states, ts[i] that of order[i] (the order first touched); mark[id] ==
// gen says job id is touched, at ts[mark[id].idx] (the stamp and the
// index side by side: a first touch reads one line of the table, not two).
// shapes[i] is the shape of
// action i's GPUs when it is a Start or a Reallocate (ShapeOf, computed
// once for the check and the commit; the cluster's slots do not change
// in between). same[i] says, for a Start or Reallocate that is its job's
// first action of the batch, whether its GPUs are the ones the job holds
// (what setAlloc asks, asked while simulateBatch has them at hand; the
// job's later actions in the batch leave it sameUnknown).
type batchState struct {
	gen    uint32
	mark   []batchMark
	ts     []tentative
	order  []JobID
	shapes []estimator.Config
	same   []sameness
}

// sameness is batchState.same's answer: unknown (asked at the commit),
// the GPUs held, or others.
type sameness int8

const (
	sameUnknown sameness = iota
	sameYes
	sameNo
)

// batchMark is a job's entry in batchState's table: touched in the batch
// whose generation is gen, its tentative state at ts[idx].
type batchMark struct {
	gen uint32
	idx int32
}

// reset empties the table for a batch over jobs jobs and actions actions.
func (b *batchState) reset(jobs, actions int) {
	if cap(b.shapes) < actions {
		b.shapes = make([]estimator.Config, actions)
	}
	b.shapes = b.shapes[:actions]
	if cap(b.same) < actions {
		b.same = make([]sameness, actions)
	}
	b.same = b.same[:actions]
	clear(b.same)
	if len(b.mark) != jobs {
		b.mark, b.gen = hugeSlice[batchMark](jobs), 0
	}
	b.gen++
	if b.gen == 0 { // wrapped: no stale mark may match
		clear(b.mark)
		b.gen = 1
	}
	clear(b.ts) // drop the last batch's references to its GPU lists
	b.ts, b.order = b.ts[:0], b.order[:0]
}

// actionError is the error rejecting action a of the current batch, naming
// the policy, the round and the job (alias and name when the job exists).
func (e *engine) actionError(a Action, format string, args ...any) error {
	name := fmt.Sprint(a.Job)
	if a.Job >= 0 && int(a.Job) < len(e.jobs) {
		name = e.jobs[a.Job].Spec.Alias() + " (" + e.jobs[a.Job].Spec.Name + ")"
	}
	return &ActionError{Policy: e.policy.Name(), Round: e.round, Action: a, Job: name, Msg: fmt.Sprintf(format, args...)}
}

// batchOccupancy is apply's second pass: the final occupancy, every touched
// job's slots cleared, then re-filled in first-touched order, in an overlay
// on the slot table (only the touched slots; the table itself changes at
// the commit). It rejects the batch if two jobs would end up on one GPU.
// Separate because this check is on the batch's final state as a whole,
// which is what lets a policy swap two jobs' GPUs in one batch.
func (e *engine) batchOccupancy(state *batchState, order []JobID) (overlay, error) {
	ov := e.newOverlay()
	for i, id := range order {
		for _, s := range state.ts[i].held { // the job's GPUs: the batch changed none yet
			if ov.at(s) == id {
				ov.set(s, NoJob)
			}
		}
	}
	for i, id := range order {
		t := &state.ts[i]
		for _, s := range t.gpus {
			holder := ov.at(s)
			if e.flt != nil && holder != id {
				// A job may keep the slots it holds on a draining node;
				// no job may take one of a node that is not available.
				if n := e.cfg.Cluster.NodeOf(s); e.flt.nodes[n].State != NodeAvailable && e.occupant[s] != id {
					return ov, e.actionError(e.batchAction(id, t), "GPU %d: node %d is %s and takes no new job", s, n, e.flt.nodes[n].State)
				}
				if holder == Unavailable {
					holder = NoJob // its own slot on a draining node, cleared above
				}
			}
			if holder != NoJob {
				return ov, e.actionError(e.batchAction(id, t), "GPU %d (node %d) would be held twice: %s holds it", s, e.cfg.Cluster.NodeOf(s), e.jobs[holder].Spec.Alias())
			}
			ov.set(s, id)
		}
	}
	return ov, nil
}

// batchAction is the action a rejection of job id's final state names.
func (e *engine) batchAction(id JobID, t *tentative) Action {
	a := Action{Kind: Start, Job: id, GPUs: t.gpus}
	if e.jobs[id].Status == Running {
		a.Kind = Reallocate
	}
	return a
}

// commitBatch is apply's last pass, run only on a batch already found
// valid: it carries out the actions on jobs and queues, in action order.
// It returns whether any allocation changed and the jobs the batch
// suspended (nil when none). Separate so that the state changes of each
// action kind read apart from the checks that precede them. shapes[i] is
// action i's shape as simulateBatch computed it (Start and Reallocate).
func (e *engine) commitBatch(actions []Action, shapes []estimator.Config, same []sameness) (bool, map[JobID]bool) {
	changed := false
	var suspended map[JobID]bool
	e.lazyDequeue = true
	defer func() {
		e.lazyDequeue = false
		e.pendq.compact()
		e.runq.compact()
	}()
	for i, a := range actions {
		j := e.jobs[a.Job]
		switch a.Kind {
		case Start:
			e.dequeue(j)
			e.addRunning(j)
			j.change = Restart
			if j.FirstStart < 0 {
				j.change = FirstStart
				j.FirstStart = e.now
				e.startedWatch(j)
			}
			if e.cfg.Timing == Exact {
				j.queueTime += float64(e.now - j.pendingSince)
				// Nothing to integrate while it waited: progress restarts now.
				j.lastUpdate = e.now
			}
			j.Status = Running
			to := shapes[i]
			e.setAlloc(j, a.GPUs, to, same[i])
			changed = true
		case Reallocate:
			to := shapes[i]
			j.change = ChangeOf(true, j.Config, to)
			e.setAlloc(j, a.GPUs, to, same[i])
			changed = true
		case Suspend:
			if suspended == nil {
				suspended = map[JobID]bool{}
			}
			suspended[j.Spec.ID] = true
			e.advance(j, e.now)
			e.removeRunning(j, true) // compacted at the batch's end
			e.enqueue(j)
			j.Status = Pending
			j.pendingSince = e.now
			j.IterNum = j.Remaining // artifact: iter_num ← remaining, exec_time kept
			if e.net != nil {
				e.netDetach(j)
			}
			e.recordHold(j, nil)
			e.heldBy[j.typ] -= len(j.GPUs)
			j.GPUs = nil
			e.cancelCompletion(j)
			changed = true
		case Drop:
			e.dequeue(j)
			j.Status = Dropped
			if j.FirstStart < 0 {
				e.startedWatch(j)
			}
		}
	}
	return changed, suspended
}

// overlay is apply's tentative slot table: values for the touched slots
// over the engine's table (a generation stamp per slot marks them), so a
// decision costs its own slots, not a copy of the cluster.
type overlay struct {
	e *engine
}

func (e *engine) newOverlay() overlay {
	if len(e.ovStamp) != len(e.occupant) {
		e.ovStamp = make([]uint32, len(e.occupant))
		e.ovVal = make([]JobID, len(e.occupant))
	}
	e.ovGen++
	if e.ovGen == 0 { // wrapped: forget every old stamp
		clear(e.ovStamp)
		e.ovGen = 1
	}
	e.ovList = e.ovList[:0]
	return overlay{e}
}

func (o overlay) at(s int) JobID {
	if o.e.ovStamp[s] == o.e.ovGen {
		return o.e.ovVal[s]
	}
	return o.e.occupant[s]
}

func (o overlay) set(s int, id JobID) {
	e := o.e
	if e.ovStamp[s] != e.ovGen {
		e.ovStamp[s] = e.ovGen
		e.ovList = append(e.ovList, s)
	}
	e.ovVal[s] = id
}

func (o overlay) commit() {
	e := o.e
	if len(e.ovList) > 0 {
		e.occGen++
	}
	if e.flt != nil {
		for _, s := range e.ovList {
			v := e.ovVal[s]
			if v == NoJob {
				v = e.freeValue(s)
			}
			e.occupant[s] = v
			e.touch(s)
		}
		return
	}
	for _, s := range e.ovList {
		e.occupant[s] = e.ovVal[s]
		e.touch(s)
	}
}

// touch notes that slot s of the slot table was written (occDirty).
func (e *engine) touch(s int) {
	e.watch.watchTouch(e.cfg.Cluster.NodeOf(s))
	if e.trackWrites && !e.wroteAll {
		if len(e.wrote) >= len(e.occupant)/4 {
			e.wroteAll = true
		} else {
			e.wrote = append(e.wrote, int32(s))
		}
	}
	if e.occDirtyAll {
		return
	}
	if len(e.occDirty) >= len(e.occupant)/4 {
		e.occDirtyAll = true
		return
	}
	e.occDirty = append(e.occDirty, int32(s))
}

// setAlloc gives a job new GPUs (start or reallocation); cfg is their
// shape (Cluster.ShapeOf, which the caller has computed) and same whether
// they are the GPUs the job holds, when the caller knows (batchState.same).
func (e *engine) setAlloc(j *Job, gpus []int, cfg estimator.Config, same sameness) {
	if e.leftRow == nil { // the run's first allocation
		e.leftRow = make([]int32, len(e.jobs))
	}
	moved := same == sameNo // asked once, for the overhead and the holding
	if same == sameUnknown {
		moved = !SameGPUs(j.GPUs, gpus)
	}
	if e.cfg.Timing == Exact {
		e.advance(j, e.now)
		if moved {
			j.Reconfigs++
			j.readyAt = e.now.Add(e.overheadCost(j.change, len(gpus)))
			if j.Reconfigs == 1 && e.cfg.ProfilingDelay != nil {
				j.readyAt = j.readyAt.Add(e.cfg.ProfilingDelay(j.Spec))
			}
			if e.flt != nil {
				e.faultAlloc(j, len(gpus), true)
			}
		}
		j.lastUpdate = e.now
	}
	if moved {
		e.endHold(j)
	}
	e.heldBy[j.typ] -= len(j.GPUs)
	j.GPUs = append([]int(nil), gpus...)
	sameShape := cfg == j.Config && j.Config.GPU != ""
	if sameShape && j.netLocal && cfg.Nodes <= 1 && !e.net.general {
		// A move to other GPUs of the same one-node shape, from a one-node
		// attachment: netAttach's shortcut would write the network record
		// as it is (its base time is the estimator's for the shape) and
		// return iterTime unchanged. Only its step count (and the test
		// probe) is left to do: the record is not read (a cache miss per
		// reconfiguration at 1M jobs; TestOneNodeAttachIsTheGeneralPath).
		w0 := e.net.work
		e.net.work += len(j.GPUs)
		e.netProbe(j.id, w0)
	} else if sameShape && e.net != nil && j.net != nil {
		// A move to other GPUs of the same shape with contention: the
		// estimator's time is the one this call gave netAttach for the
		// shape before (jobNet.base; only netAttach writes it, only from
		// here); the network part is the new GPUs'.
		j.iterTime = e.netAttach(j, j.net.base)
	} else if !sameShape || e.net != nil {
		// A new shape. Otherwise (a job moved to other GPUs of the same
		// shape, most of ElasticFlow's re-placements) the estimate is
		// the one this call made for the shape before: only setAlloc
		// writes Config and throughput, and iterTime without contention.
		j.Config = cfg
		est := e.cfg.Exec.Estimate(j.Spec.Workload, cfg)
		j.throughput, j.iterTime = est.Throughput, est.IterTime
		e.setType(j, int32(e.cfg.Cluster.TypeIndex(cfg.GPU))) // its GPU-second counters (addGPUSeconds)
		j.batch = float64(j.Spec.Workload.Batch)
		if e.net != nil {
			if j.net != nil {
				j.net.fracSet = false // the share was asked for the old config
			}
			j.iterTime = e.netAttach(j, est.IterTime)
		}
	}
	e.heldBy[j.typ] += len(j.GPUs) // on its type, which setType may have changed
	if e.cfg.Timing == Exact {
		e.scheduleCompletion(j)
	}
}

// costMemo holds Overhead.Cost of the changes onto up to costMemoGPUs
// GPUs, set[c][n] saying cost[c][n] is computed.
type costMemo struct {
	cost [Migration + 1][costMemoGPUs + 1]Duration
	set  [Migration + 1][costMemoGPUs + 1]bool
}

const costMemoGPUs = 64

// overheadCost is e.cfg.Overhead.Cost(c, n), computed once per change
// kind and GPU count up to costMemoGPUs (the overhead model is fixed for
// the run; Cost reads a map per call, once per reconfiguration).
func (e *engine) overheadCost(c Change, n int) Duration {
	if c < 0 || c > Migration || n < 0 || n > costMemoGPUs {
		return e.cfg.Overhead.Cost(c, n)
	}
	m := &e.costs
	if !m.set[c][n] {
		m.cost[c][n], m.set[c][n] = e.cfg.Overhead.Cost(c, n), true
	}
	return m.cost[c][n]
}

// SameGPUs reports whether a and b hold the same GPU slots, in any order
// (each slot at most once, as in a valid allocation). Policies use it to
// tell a real reallocation from an unchanged one.
func SameGPUs(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) <= smallShape { // no map for the allocations policies make
		for _, s := range b {
			found := false
			for _, t := range a {
				if s == t {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	in := make(map[int]bool, len(a))
	for _, s := range a {
		in[s] = true
	}
	for _, s := range b {
		if !in[s] {
			return false
		}
	}
	return true
}

// enqueue appends j to the pending queue; in artifact timing its queue
// time accrues from here on the queue's clock.
func (e *engine) enqueue(j *Job) {
	e.pendq.push(j)
	j.queued = true
	if e.cfg.Timing == Artifact {
		j.queue, j.queuedAt = &e.qclock, int32(e.qclock.steps)
	}
}

// dequeue removes j from the pending queue, settling its queue time;
// during a batch (lazyDequeue) the queue is compacted at the batch's end.
func (e *engine) dequeue(j *Job) {
	if j.queued { // else an arrival started or dropped in its first decision
		j.queued = false
		e.pendq.remove(j)
		if !e.lazyDequeue {
			e.pendq.compact()
		}
	}
	j.queueTime, j.queue = j.QueueTime(), nil
}

// addRunning appends j to the running queue.
func (e *engine) addRunning(j *Job) { e.runq.push(j) }

// removeRunning takes j off the running queue, keeping the others' order;
// lazily (until compactRunning) when lazy.
func (e *engine) removeRunning(j *Job, lazy bool) {
	e.runq.remove(j)
	if !lazy {
		e.runq.compact()
	}
}

// compactRunning squeezes out the running queue's removed jobs, keeping
// the order of the others.
func (e *engine) compactRunning() { e.runq.compact() }
