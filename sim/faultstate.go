package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Unavailable marks, in the slot table and a View's Occupant, a GPU slot no
// job holds that cannot be given to one: its node is down, absent (not yet
// added), or draining/reclaimed (taking no new job until its notice ends).
// A policy that looks for NoJob slots avoids it without knowing of faults.
const Unavailable JobID = -2

// NodeState is a node's availability.
type NodeState int

const (
	// NodeAvailable: the node runs jobs and takes new ones.
	NodeAvailable NodeState = iota
	// NodeDraining: planned maintenance announced; the node's jobs run on
	// until Until, when the node goes down, and it takes no new job.
	NodeDraining
	// NodeReclaiming: spot capacity being taken back, as NodeDraining.
	NodeReclaiming
	// NodeOffline: the node is down (failed, in maintenance, reclaimed) or
	// not yet added; it holds no job.
	NodeOffline
)

func (s NodeState) String() string {
	if s < NodeAvailable || s > NodeOffline {
		return fmt.Sprintf("NodeState(%d)", int(s))
	}
	return [...]string{"up", "draining", "reclaiming", "down"}[s]
}

// NodeAvail is one node's availability as a View shows it.
type NodeAvail struct {
	State NodeState
	// Until is, for a draining or reclaiming node, when its notice expires
	// and it goes down (its jobs still on it then are interrupted); 0
	// otherwise (a down node's repair time is not known in advance).
	Until Time
	// Since is when the node entered State.
	Since Time
}

// Checkpoint is a job's checkpoint model (exact timing). While running, a
// job writes a checkpoint after every Interval of progress time; writing
// takes Cost, during which the job makes no progress, and the checkpoint
// holds the progress made up to the start of the write once the write
// completes. A job interrupted by a cluster event restarts from its last
// completed checkpoint, or from the start of its current configuration if
// that is later (a start, a reallocation and a suspension save the job's
// state, as they always have in arena); its restart pays the overhead
// profile's restart cost plus Restore. Interval 0 means no periodic
// checkpoint.
type Checkpoint struct {
	Interval Duration
	Cost     Duration
	Restore  Duration
}

// Validate reports a checkpoint model that cannot be: negative or
// non-finite spans, or a cost without an interval.
func (c Checkpoint) Validate() error {
	for _, f := range []struct {
		name string
		v    Duration
	}{{"interval", c.Interval}, {"cost", c.Cost}, {"restore", c.Restore}} {
		if f.v < 0 || math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
			return fmt.Errorf("checkpoint %s %v: want a finite number of seconds ≥ 0", f.name, float64(f.v))
		}
	}
	if c.Cost > 0 && c.Interval == 0 {
		return fmt.Errorf("checkpoint cost %v s without an interval: set the interval too", float64(c.Cost))
	}
	return nil
}

// work is the progress time a job on this model makes in the first x
// seconds after its configuration became ready: cycles of Interval of work
// then Cost of writing.
func (c Checkpoint) work(x float64) float64 {
	if x <= 0 {
		return 0
	}
	tau := float64(c.Interval)
	if tau == 0 {
		return x
	}
	cyc := tau + float64(c.Cost)
	k := math.Floor(x / cyc)
	return k*tau + math.Min(x-k*cyc, tau)
}

// elapsed is work's inverse: the time after ready at which y seconds of
// progress are done. A job that finishes on a checkpoint boundary does
// not write that last checkpoint.
func (c Checkpoint) elapsed(y float64) float64 {
	tau := float64(c.Interval)
	if tau == 0 || y <= 0 {
		return math.Max(y, 0)
	}
	k := math.Max(math.Ceil(y/tau)-1, 0)
	return k*(tau+float64(c.Cost)) + (y - k*tau)
}

// saved is the progress time the checkpoints completed within the first x
// seconds after ready hold.
func (c Checkpoint) saved(x float64) float64 {
	tau := float64(c.Interval)
	if tau == 0 || x <= 0 {
		return 0
	}
	return math.Floor(x/(tau+float64(c.Cost))) * tau
}

// jobFault is a job's fault accounting (faultState.jobs, by ID).
type jobFault struct {
	ck Checkpoint
	// segRemain is the job's remaining iterations when its current
	// configuration was set (the last save point but periodic checkpoints).
	segRemain float64
	// restore: the job was interrupted and its next start pays Restore;
	// recovering: its current configuration is such a restart (its
	// overhead counts as recovery time).
	restore, recovering bool
	interruptions       int
	// GPU-seconds: of progress made (kept or not), of progress lost, of
	// restart overhead and restore after interruptions.
	workGPUs, lostGPUs, recoveryGPUs float64
	// lostSamples: samples of lost progress (goodput).
	lostSamples float64
	// lastCause: the cause of the job's last interruption.
	lastCause string
	// failLeft is the running time, seconds, until the job's next failure
	// of its own (JobFailures; counted down while it holds GPUs);
	// failures counts them; failEv is the pending failure event.
	failLeft float64
	failures int
	failEv   *event
}

// causeStat is the damage of one cause.
type causeStat struct {
	events, interruptions  int
	lostGPUs, recoveryGPUs float64
}

// AvailRecord is one row of availability.parquet: a cluster event as
// applied, with the GPUs of the node's type available right after it.
type AvailRecord struct {
	Time  float64 `parquet:"time_s"`
	Node  int32   `parquet:"node"`
	GPU   string  `parquet:"gpu_type"`
	Event string  `parquet:"event"` // down, up, drain, reclaim, add, expire
	Cause string  `parquet:"cause"`
	// Available GPUs of the node's type after the event (up nodes only:
	// draining and down nodes take no job).
	Available int32 `parquet:"available_gpus"`
	Total     int32 `parquet:"total_gpus"`
	// Jobs interrupted by the event and the GPU-seconds of progress they
	// lost.
	Interrupted int32   `parquet:"interrupted_jobs"`
	LostGPUSecs float64 `parquet:"lost_gpu_seconds"`
}

// faultState is the engine's state for cluster events and checkpoints; nil
// in a run with neither (every hook is behind one nil test).
type faultState struct {
	nodes []NodeAvail
	// expiry[n] is the pending notice-expiry event of node n (nil: none).
	expiry []*event
	// cause[n] is the cause of node n's current drain or outage.
	cause []string
	jobs  []jobFault
	// interrupted lists the jobs interrupted since the last decision.
	interrupted, spareInterrupted []*Job
	// changed: availability changed since the last decision.
	changed bool
	// availBy[t]: GPUs of type t on available nodes.
	availBy []int
	byCause map[string]*causeStat
	// toCome: the run's events not applied yet.
	toCome int
	// noticed counts the nodes draining or reclaiming (the only ones not
	// available whose GPUs jobs may hold).
	noticed int
	// viewStale: nodes changed since the View's copy was made.
	viewStale bool
	// samples: samples processed, kept or not (goodput).
	samples  float64
	timeline []AvailRecord
	events   []ClusterEvent
	// jobFailures is the run's model of jobs failing on their own.
	jobFailures JobFailures
	// gaveUp counts the jobs failed for good (Status Failed).
	gaveUp int
}

// faulty reports whether a configuration asks for the fault model.
func (c *Config) faulty() bool {
	return c.FaultModel || len(c.Events) > 0 || c.Checkpoint != (Checkpoint{}) || c.CheckpointOf != nil || c.JobFailures.MTBF > 0
}

// anyCheckpoint reports whether a job brings its own checkpoint model
// (JobSpec.Checkpoint): exact timing then runs the fault model. Artifact
// timing, which reproduces the artifact's fault-free rounds, ignores it.
func anyCheckpoint(specs []JobSpec) bool {
	for i := range specs {
		if specs[i].Checkpoint != (Checkpoint{}) {
			return true
		}
	}
	return false
}

// with is c with the nonzero fields of own (a job's own model) in place
// of c's.
func (c Checkpoint) with(own Checkpoint) Checkpoint {
	if own.Interval != 0 {
		c.Interval = own.Interval
	}
	if own.Cost != 0 {
		c.Cost = own.Cost
	}
	if own.Restore != 0 {
		c.Restore = own.Restore
	}
	return c
}

// newFaultState validates the run's events and checkpoint model and sets up
// the node table: every node up, but those whose first event is of a kind
// that Joins (NodeAdd).
func newFaultState(cfg *Config, specs []JobSpec) (*faultState, error) {
	if cfg.Timing != Exact {
		return nil, fmt.Errorf("sim: cluster events and checkpoints need exact timing (artifact timing reproduces the artifact's fault-free rounds)")
	}
	if err := cfg.Checkpoint.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if err := cfg.JobFailures.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	c := cfg.Cluster
	f := &faultState{
		nodes: make([]NodeAvail, len(c.Nodes)), expiry: make([]*event, len(c.Nodes)),
		cause: make([]string, len(c.Nodes)), jobs: make([]jobFault, len(specs)),
		availBy: make([]int, len(c.Types)), byCause: map[string]*causeStat{},
	}
	seen := make([]bool, len(c.Nodes))
	for i, ev := range cfg.Events {
		if ev.Node < 0 || ev.Node >= len(c.Nodes) {
			return nil, fmt.Errorf("sim: cluster event %d (t=%v, %s): node %d does not exist (cluster %s has nodes 0–%d)", i, float64(ev.Time), ev.Kind, ev.Node, c.Name, len(c.Nodes)-1)
		}
		if !ev.Kind.Valid() {
			return nil, fmt.Errorf("sim: cluster event %d (t=%v, node %d): unknown kind %d", i, float64(ev.Time), ev.Node, int(ev.Kind))
		}
		if ev.Notice < 0 || math.IsNaN(float64(ev.Notice)) || math.IsInf(float64(ev.Notice), 0) {
			return nil, fmt.Errorf("sim: cluster event %d (t=%v, node %d): notice %v: want a finite number of seconds ≥ 0", i, float64(ev.Time), ev.Node, float64(ev.Notice))
		}
		if math.IsNaN(float64(ev.Time)) || math.IsInf(float64(ev.Time), 0) {
			return nil, fmt.Errorf("sim: cluster event %d (node %d): time %v is not finite", i, ev.Node, float64(ev.Time))
		}
		if i > 0 && ev.Time < cfg.Events[i-1].Time {
			return nil, fmt.Errorf("sim: cluster event %d (node %d): time %v is before event %d's %v; events must be in time order", i, ev.Node, float64(ev.Time), i-1, float64(cfg.Events[i-1].Time))
		}
		if !seen[ev.Node] {
			seen[ev.Node] = true
			if ev.Kind.Info().Joins {
				f.nodes[ev.Node] = NodeAvail{State: NodeOffline, Since: math.MinInt64}
				f.cause[ev.Node] = "absent"
			}
		}
	}
	f.events, f.toCome = cfg.Events, len(cfg.Events)
	for n, node := range c.Nodes {
		if f.nodes[n].State == NodeAvailable {
			f.availBy[c.TypeIndex(node.GPU)] += node.Capacity
		}
	}
	for i := range specs {
		ck := cfg.Checkpoint
		if cfg.CheckpointOf != nil {
			ck = cfg.CheckpointOf(&specs[i])
			if err := ck.Validate(); err != nil {
				return nil, fmt.Errorf("sim: job %s (%s): %w", specs[i].Alias(), specs[i].Name, err)
			}
		}
		if own := specs[i].Checkpoint; own != (Checkpoint{}) {
			ck = ck.with(own)
			if err := ck.Validate(); err != nil {
				return nil, fmt.Errorf("sim: job %s (%s): its checkpoint model: %w", specs[i].Alias(), specs[i].Name, err)
			}
		}
		f.jobs[i].ck = ck
		if cfg.JobFailures.MTBF > 0 {
			f.jobs[i].failLeft = cfg.JobFailures.draw(specs[i].ID, 0)
		}
	}
	f.jobFailures = cfg.JobFailures
	return f, nil
}

// initFaults puts the run's events in the event heap and marks the slots
// of absent nodes. Called once, before the loop.
func (e *engine) initFaults() {
	f := e.flt
	for i := range f.events {
		e.events.push(&event{at: f.events[i].Time, kind: evCluster, round: i})
	}
	for n := range f.nodes {
		if f.nodes[n].State != NodeAvailable {
			e.markNode(n)
		}
	}
}

// freeValue is what a slot no job holds reads: NoJob, or Unavailable on a
// node that is not available.
func (e *engine) freeValue(s int) JobID {
	if e.flt != nil && e.flt.nodes[e.cfg.Cluster.NodeOf(s)].State != NodeAvailable {
		return Unavailable
	}
	return NoJob
}

// markNode rewrites node n's free slots after its availability changed.
func (e *engine) markNode(n int) {
	node := e.cfg.Cluster.Nodes[n]
	v := e.freeValue(node.FirstSlot)
	for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
		if o := e.occupant[s]; o == NoJob || o == Unavailable {
			e.occupant[s] = v
			e.touch(s)
		}
	}
	e.occGen++
}

// setNode moves node n to state st (with notice end until), keeping the
// per-type availability counts and the free slots' marks.
func (e *engine) setNode(n int, st NodeState, until Time, cause string) {
	f := e.flt
	node := e.cfg.Cluster.Nodes[n]
	t := e.cfg.Cluster.TypeIndex(node.GPU)
	was := f.nodes[n].State
	if was == NodeAvailable && st != NodeAvailable {
		f.availBy[t] -= node.Capacity
	} else if was != NodeAvailable && st == NodeAvailable {
		f.availBy[t] += node.Capacity
	}
	if was == NodeDraining || was == NodeReclaiming {
		f.noticed--
	}
	if st == NodeDraining || st == NodeReclaiming {
		f.noticed++
	}
	f.nodes[n] = NodeAvail{State: st, Until: until, Since: e.now}
	f.viewStale = true
	f.cause[n] = cause
	if ex := f.expiry[n]; ex != nil && (st == NodeAvailable || st == NodeOffline) {
		e.events.remove(ex)
		f.expiry[n] = nil
	}
	f.changed = true
	e.markNode(n)
}

// clusterEvent applies one cluster event (ev.round indexes the run's
// events; an expiry event carries the node as ^node).
func (e *engine) clusterEvent(ev *event) {
	f := e.flt
	if ev.round < 0 { // a drain's or reclaim's notice expires
		n := ^ev.round
		f.expiry[n] = nil
		cause := f.cause[n]
		lost, k := e.nodeDown(n, cause)
		e.recordAvail(n, "expire", cause, k, lost)
		return
	}
	ce := f.events[ev.round]
	f.toCome--
	n := ce.Node
	cause := ce.Cause
	if cause == "" {
		cause = ce.Kind.String()
	}
	cs := f.stat(cause)
	cs.events++
	var lost float64
	var k int
	switch kind := ce.Kind.Info(); {
	case kind.Up:
		if f.nodes[n].State != NodeAvailable {
			e.setNode(n, NodeAvailable, 0, "")
		}
	case kind.Notice:
		switch st := f.nodes[n].State; {
		case st == NodeOffline:
			// Already down: the notice changes nothing.
		case ce.Notice == 0:
			lost, k = e.nodeDown(n, cause)
		default:
			until := e.now.Add(ce.Notice)
			if st != NodeAvailable && f.nodes[n].Until <= until {
				break // an earlier notice stands
			}
			e.setNode(n, kind.NoticeState, until, cause)
			if ex := f.expiry[n]; ex != nil {
				e.events.remove(ex)
			}
			ex := &event{at: until, kind: evCluster, round: ^n}
			f.expiry[n] = ex
			e.events.push(ex)
		}
	case kind.Down:
		lost, k = e.nodeDown(n, cause)
	}
	e.recordAvail(n, ce.Kind.String(), cause, k, lost)
}

// nodeDown takes node n down: every job holding a GPU on it is interrupted.
// It returns the GPU-seconds of progress lost and the jobs interrupted.
func (e *engine) nodeDown(n int, cause string) (float64, int) {
	e.setNode(n, NodeOffline, 0, cause)
	node := e.cfg.Cluster.Nodes[n]
	var victims []*Job
	for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
		if id := e.occupant[s]; id >= 0 && !slices.Contains(victims, e.jobs[id]) {
			victims = append(victims, e.jobs[id])
		}
	}
	// Running-queue order, so the pending queue's order does not depend
	// on slot numbering.
	slices.SortFunc(victims, func(a, b *Job) int {
		return cmp.Compare(slices.Index(e.runq.jobs, a), slices.Index(e.runq.jobs, b))
	})
	lost := 0.0
	for _, j := range victims {
		lost += e.interrupt(j, cause)
	}
	return lost, len(victims)
}

// interrupt stops running job j at once, as a failure does: it loses the
// progress since its last checkpoint (or its configuration's start, if
// later) and goes to the end of the pending queue. It returns the
// GPU-seconds of progress lost.
func (e *engine) interrupt(j *Job, cause string) float64 {
	f := e.flt
	jf := &f.jobs[j.Spec.ID]
	e.advance(j, e.now)
	gpus := float64(len(j.GPUs))
	// What the job keeps: its configuration's starting point plus what its
	// completed checkpoints since then hold.
	keep := jf.segRemain
	if j.iterTime > 0 {
		keep -= jf.ck.saved(float64(e.now.Sub(j.readyAt))) / j.iterTime
	}
	keep = math.Max(keep, j.remainingF)
	lostIters := keep - j.remainingF
	lost := lostIters * j.iterTime * gpus
	jf.lostGPUs += lost
	jf.lostSamples += lostIters * float64(j.Spec.Workload.Batch)
	cs := f.stat(cause)
	cs.interruptions++
	cs.lostGPUs += lost
	if jf.recovering && e.now < j.readyAt {
		// The restart it was recovering from is cut short: only the
		// part spent counts.
		unspent := float64(j.readyAt.Sub(e.now)) * gpus
		jf.recoveryGPUs -= unspent
		f.stat(jf.lastCause).recoveryGPUs -= unspent
	}
	jf.recovering = false
	jf.restore = true
	jf.interruptions++
	j.remainingF = keep
	j.Remaining = int64(math.Ceil(keep - 1e-9))
	if e.cfg.Check {
		e.lastRemain[j.Spec.ID] = j.Remaining
	}
	e.removeRunning(j, false)
	e.enqueue(j)
	j.Status = Pending
	j.pendingSince = e.now
	j.IterNum = j.Remaining
	e.release(j)
	e.cancelCompletion(j)
	f.interrupted = append(f.interrupted, j)
	jf.lastCause = cause
	return lost
}

func (f *faultState) stat(cause string) *causeStat {
	cs := f.byCause[cause]
	if cs == nil {
		cs = &causeStat{}
		f.byCause[cause] = cs
	}
	return cs
}

// recordAvail appends an availability.parquet row for an event on node n,
// and writes node n's slots into the slot table of the last decision
// (View.BeforeRelease) as they are now: a policy comparing against it
// (Arena's node-swap fix-up) must not see the GPUs of a node that went
// down as its jobs' still.
func (e *engine) recordAvail(n int, kind, cause string, interrupted int, lost float64) {
	node := e.cfg.Cluster.Nodes[n]
	lo, hi := node.FirstSlot, node.FirstSlot+node.Capacity
	copy(e.decided[lo:hi], e.occupant[lo:hi])
	c := e.cfg.Cluster
	gpu := c.Nodes[n].GPU
	t := c.TypeIndex(gpu)
	e.flt.timeline = append(e.flt.timeline, AvailRecord{
		Time: float64(e.now), Node: int32(n), GPU: gpu, Event: kind, Cause: cause,
		Available: int32(e.flt.availBy[t]), Total: int32(c.TotalGPUs(gpu)),
		Interrupted: int32(interrupted), LostGPUSecs: lost,
	})
	e.rec.NodeEvent(&e.flt.timeline[len(e.flt.timeline)-1])
}

// advanceFault is advance for a run with the fault model: progress follows
// the job's checkpoint cycle from its configuration's ready time, and the
// work done is counted for the effective training time ratio.
func (e *engine) advanceFault(j *Job, now Time) {
	if j.Status != Running {
		return
	}
	gpus := float64(len(j.GPUs))
	if now > j.lastUpdate {
		e.addGPUSeconds(j, float64(now-j.lastUpdate)*gpus)
		e.flt.jobs[j.Spec.ID].failLeft -= float64(now - j.lastUpdate)
	}
	from := max(j.lastUpdate, j.readyAt)
	if now > from && j.iterTime > 0 {
		jf := &e.flt.jobs[j.Spec.ID]
		w := jf.ck.work(float64(now.Sub(j.readyAt))) - jf.ck.work(float64(from.Sub(j.readyAt)))
		iters := math.Min(w/j.iterTime, j.remainingF)
		j.remainingF -= iters
		j.ExecTime += w
		jf.workGPUs += iters * j.iterTime * gpus
		e.roundWork += iters * float64(j.Spec.Workload.Batch)
		e.flt.samples += iters * float64(j.Spec.Workload.Batch)
		j.Remaining = int64(math.Ceil(j.remainingF - 1e-9))
	}
	j.lastUpdate = now
}

// completionAt is when a running job completes under its checkpoint model
// (exact timing, fault model).
func (e *engine) completionAt(j *Job) Time {
	from := max(e.now, j.readyAt)
	ck := e.flt.jobs[j.Spec.ID].ck
	done := ck.work(float64(from.Sub(j.readyAt)))
	return j.readyAt.Add(Duration(ck.elapsed(done + j.remainingF*j.iterTime)))
}

// faultAlloc is setAlloc's part for the fault model, after the new
// configuration's ready time is set: a restart after an interruption pays
// the restore cost and counts its overhead as recovery; the configuration
// is the job's new save point.
func (e *engine) faultAlloc(j *Job, gpus int, moved bool) {
	jf := &e.flt.jobs[j.Spec.ID]
	if moved {
		jf.recovering = false
		if jf.restore {
			jf.restore = false
			j.readyAt = j.readyAt.Add(jf.ck.Restore)
			jf.recovering = true
			rec := float64(j.readyAt.Sub(e.now)) * float64(gpus)
			jf.recoveryGPUs += rec
			e.flt.stat(jf.lastCause).recoveryGPUs += rec
		}
	}
	jf.segRemain = j.remainingF
}

// checkFaults (Check mode) asserts the fault model's invariants: no job
// holds a GPU of a down node, a free slot reads Unavailable exactly when
// its node is not available, the per-type availability counts agree with
// the node table, and no job's lost or recovery time is negative.
func (e *engine) checkFaults() error {
	f := e.flt
	c := e.cfg.Cluster
	avail := make([]int, len(c.Types))
	for n, node := range c.Nodes {
		st := f.nodes[n].State
		if st == NodeAvailable {
			avail[c.TypeIndex(node.GPU)] += node.Capacity
		}
		for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
			o := e.occupant[s]
			switch {
			case o >= 0 && st == NodeOffline:
				return e.invariantf("GPU %d of down node %d is held by %s", s, n, e.jobs[o].Spec.Alias())
			case o == NoJob && st != NodeAvailable:
				return e.invariantf("GPU %d of %s node %d is free for new jobs", s, st, n)
			case o == Unavailable && st == NodeAvailable:
				return e.invariantf("GPU %d of available node %d is marked unavailable", s, n)
			}
		}
	}
	if !slices.Equal(avail, f.availBy) {
		return e.invariantf("available GPUs by type %v, node table says %v", f.availBy, avail)
	}
	for i := range f.jobs {
		jf := &f.jobs[i]
		if jf.lostGPUs < -1e-6 || jf.recoveryGPUs < -1e-6 || jf.workGPUs < jf.lostGPUs-1e-6*(1+jf.workGPUs) {
			return e.invariantf("job %s: lost %.3f, recovery %.3f, work %.3f GPU-s: want 0 ≤ lost ≤ work, recovery ≥ 0",
				e.jobs[i].Spec.Alias(), jf.lostGPUs, jf.recoveryGPUs, jf.workGPUs)
		}
		if j := e.jobs[i]; j.Status == Running || j.Status == Pending {
			if j.remainingF > jf.segRemain+1e-9 && j.Status == Running {
				return e.invariantf("job %s: %.3f iterations left, more than at its last save point (%.3f)", j.Spec.Alias(), j.remainingF, jf.segRemain)
			}
		}
	}
	return nil
}

// JobFaultRecord is a job's fault accounting: extra jobs.parquet columns,
// written only by runs with cluster events or checkpoints.
type JobFaultRecord struct {
	Interruptions int32 `parquet:"interruptions"`
	// LostGPUSeconds: progress lost to interruptions (work redone);
	// RecoveryGPUSeconds: restart overhead and restore after them.
	LostGPUSeconds     float64 `parquet:"lost_gpu_seconds"`
	RecoveryGPUSeconds float64 `parquet:"recovery_gpu_seconds"`
	// ETTR is the job's effective training time ratio: GPU-seconds of
	// progress it kept over GPU-seconds it held (overhead, checkpoint
	// writes, lost progress and recovery are the rest); −1 if it never
	// held a GPU.
	ETTR float64 `parquet:"effective_training_time_ratio"`
	// Outcome is the trace's final state of the job (JobSpec.Outcome).
	Outcome string `parquet:"outcome"`
}

// FaultResult is a run's fault accounting (Result.Faults); nil in a run
// without cluster events and checkpoints.
type FaultResult struct {
	// Jobs is parallel to Result.Jobs.
	Jobs         []JobFaultRecord
	Availability []AvailRecord
	Summary      FaultSummary
}

// FaultSummary is summary.json's "faults" section.
type FaultSummary struct {
	ClusterEvents int `json:"cluster_events"`
	// Outages: the node outages among them (down, drain, reclaim: each
	// takes a node away). ExpectedOutages: how many the run's faults spec
	// or preset gives its cluster over the window on average
	// (faults.Spec.Expected; set by the runner, absent for an events
	// file). Few expected means the run may well see none and compare
	// nothing about faults.
	Outages         int      `json:"outages"`
	ExpectedOutages *float64 `json:"expected_outages,omitempty"`
	// Interruptions: jobs stopped by cluster events (a job stopped twice
	// counts twice); JobsInterrupted: jobs stopped at least once.
	Interruptions           int     `json:"interruptions"`
	JobsInterrupted         int     `json:"jobs_interrupted"`
	MeanInterruptionsPerJob float64 `json:"mean_interruptions_per_job"`
	MaxInterruptionsPerJob  int     `json:"max_interruptions_per_job"`
	// LostGPUHours = LostWorkGPUHours (progress redone) +
	// RecoveryGPUHours (restart overhead and restore after interruptions).
	LostGPUHours     float64 `json:"lost_gpu_hours"`
	LostWorkGPUHours float64 `json:"lost_work_gpu_hours"`
	RecoveryGPUHours float64 `json:"recovery_gpu_hours"`
	// EffectiveTrainingTimeRatio: GPU-seconds of kept progress over
	// GPU-seconds held, over all jobs; MeanJobETTR the mean of the jobs'
	// ratios (jobs that held a GPU).
	EffectiveTrainingTimeRatio float64 `json:"effective_training_time_ratio"`
	MeanJobETTR                float64 `json:"mean_job_effective_training_time_ratio"`
	// Goodput: samples of kept progress per second of the window (the
	// mean throughput counts lost samples too).
	Goodput float64 `json:"goodput_samples_per_s"`
	// UnavailableGPUHours: GPU-hours of capacity on nodes down, draining
	// or reclaimed, over the window.
	UnavailableGPUHours float64 `json:"unavailable_gpu_hours"`
	// ByCause breaks the damage down by ClusterEvent.Cause (the event's
	// kind when it has none).
	ByCause map[string]CauseSummary `json:"by_cause"`
	// JobsFailed and JobsKilled count the finished jobs the trace records
	// as failed or killed (JobSpec.Outcome): they ran the work the trace
	// recorded and count in every JCT figure as finished jobs do.
	JobsFailed int `json:"jobs_failed"`
	JobsKilled int `json:"jobs_killed"`
	// JobsGivenUp counts the jobs that failed on their own more often
	// than their retries allow (Config.JobFailures; Status Failed); they
	// count in the mean JCT over all submitted jobs at their age at the
	// horizon, as dropped jobs do.
	JobsGivenUp int `json:"jobs_given_up,omitempty"`
}

// CauseSummary is the damage of one cause.
type CauseSummary struct {
	Events           int     `json:"events"`
	Interruptions    int     `json:"interruptions"`
	LostWorkGPUHours float64 `json:"lost_work_gpu_hours"`
	RecoveryGPUHours float64 `json:"recovery_gpu_hours"`
}

// faultAcc gathers the fault summary over the job records, in trace
// order, as the engine builds them at the end of the run.
type faultAcc struct {
	s                       FaultSummary
	kept, held, lostSamples float64
	ratios                  []float64
}

// add counts job rec's fault accounting and returns its fault record.
func (a *faultAcc) add(e *engine, rec *JobRecord) JobFaultRecord {
	s := &a.s
	jf := &e.flt.jobs[rec.ID]
	keep := jf.workGPUs - jf.lostGPUs
	fr := JobFaultRecord{
		Interruptions: int32(jf.interruptions), LostGPUSeconds: jf.lostGPUs,
		RecoveryGPUSeconds: jf.recoveryGPUs, ETTR: -1, Outcome: e.specs[rec.ID].Outcome,
	}
	if rec.GPUSeconds > 0 {
		fr.ETTR = keep / rec.GPUSeconds
		a.ratios = append(a.ratios, fr.ETTR)
	}
	a.kept += keep
	a.held += rec.GPUSeconds
	s.Interruptions += jf.interruptions
	s.MaxInterruptionsPerJob = max(s.MaxInterruptionsPerJob, jf.interruptions)
	if jf.interruptions > 0 {
		s.JobsInterrupted++
	}
	s.LostWorkGPUHours += jf.lostGPUs / 3600
	s.RecoveryGPUHours += jf.recoveryGPUs / 3600
	a.lostSamples += jf.lostSamples
	if rec.State == "finished" {
		switch e.specs[rec.ID].Outcome {
		case "failed":
			s.JobsFailed++
		case "killed":
			s.JobsKilled++
		}
	}
	return fr
}

// summary is summary.json's "faults" section once every one of the
// submitted jobs has been added.
func (a *faultAcc) summary(e *engine, submitted int) FaultSummary {
	f := e.flt
	s := a.s
	horizon := e.t0.Add(Duration(e.cfg.Rounds) * e.cfg.RoundLength)
	s.ClusterEvents = len(f.timeline)
	for _, row := range f.timeline {
		switch row.Event {
		case NodeDown.String(), NodeDrain.String(), NodeReclaim.String():
			s.Outages++
		}
	}
	s.JobsGivenUp = f.gaveUp
	s.LostGPUHours = s.LostWorkGPUHours + s.RecoveryGPUHours
	if submitted > 0 {
		s.MeanInterruptionsPerJob = float64(s.Interruptions) / float64(submitted)
	}
	if a.held > 0 {
		s.EffectiveTrainingTimeRatio = a.kept / a.held
	}
	s.MeanJobETTR = mean(a.ratios)
	if w := float64(e.cfg.Rounds) * float64(e.cfg.RoundLength); w > 0 {
		s.Goodput = (f.samples - a.lostSamples) / w
	}
	s.UnavailableGPUHours = f.unavailableGPUSeconds(e, horizon) / 3600
	s.ByCause = map[string]CauseSummary{}
	for c, cs := range f.byCause {
		s.ByCause[c] = CauseSummary{Events: cs.events, Interruptions: cs.interruptions,
			LostWorkGPUHours: cs.lostGPUs / 3600, RecoveryGPUHours: cs.recoveryGPUs / 3600}
	}
	return s
}

// unavailableGPUSeconds integrates the GPUs of nodes not available over
// [T0, horizon], from the availability timeline.
func (f *faultState) unavailableGPUSeconds(e *engine, horizon Time) float64 {
	c := e.cfg.Cluster
	total, last := 0.0, e.t0
	// Unavailable GPUs given the available ones by type.
	unavail := func(avail []int) float64 {
		u := 0.0
		for t, a := range avail {
			u += float64(c.TotalGPUs(c.Types[t]) - a)
		}
		return u
	}
	avail := f.initialAvail(e)
	cur := unavail(avail)
	for _, row := range f.timeline {
		at := Time(row.Time)
		if at > horizon {
			break
		}
		if at > last {
			total += cur * float64(at-last)
			last = at
		}
		avail[c.TypeIndex(row.GPU)] = int(row.Available)
		cur = unavail(avail)
	}
	if horizon > last {
		total += cur * float64(horizon-last)
	}
	return total
}

// initialAvail is the available GPUs by type at the run's start: every
// node's but those absent until the event that Joins them (NodeAdd).
func (f *faultState) initialAvail(e *engine) []int {
	c := e.cfg.Cluster
	avail := make([]int, len(c.Types))
	absent := make([]bool, len(c.Nodes))
	seen := make([]bool, len(c.Nodes))
	for _, ev := range f.events {
		if !seen[ev.Node] {
			seen[ev.Node] = true
			absent[ev.Node] = ev.Kind.Info().Joins
		}
	}
	for n, node := range c.Nodes {
		if !absent[n] {
			avail[c.TypeIndex(node.GPU)] += node.Capacity
		}
	}
	return avail
}

// eventsMayAddCapacity reports whether a cluster event still to come may
// give the cluster capacity it lacks now: some event is to come and some
// GPU is on a node that is not available (down, draining, reclaimed, not
// yet added). With every node available, events to come can only take
// capacity away and give it back, so a queue the policy leaves waiting on
// an idle cluster stays stuck (the until-done and drain stops).
func (e *engine) eventsMayAddCapacity() bool {
	f := e.flt
	if f == nil || f.toCome == 0 {
		return false
	}
	avail := 0
	for _, n := range f.availBy {
		avail += n
	}
	return avail < e.cfg.Cluster.NumSlots()
}
