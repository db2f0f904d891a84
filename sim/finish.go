package sim

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/arena-sim/arena/estimator"
)

// The engine's side of the results: what it reports to its Recorder and
// the figures it keeps itself (Result's counts and lists, runTotals), so
// that the summary is the same whatever the recorder keeps.

func newResult(e *engine) *Result {
	return &Result{
		Policy: e.policy.Name(), Cluster: e.cfg.Cluster.Name, Timing: e.cfg.Timing,
		Rounds: e.cfg.Rounds, RoundLength: e.cfg.RoundLength, Types: e.cfg.Cluster.Types, Start: e.t0,
		AskedRounds: e.cfg.Rounds,
		totals:      runTotals{earliest: math.Inf(1)},
	}
}

// begin sets the run's recorder up: the caller's, or a ResultRecorder
// whose records Run puts in the Result.
func (e *engine) begin() {
	e.rec = e.cfg.Recorder
	if e.rec == nil {
		e.defaultRec = NewResultRecorder()
		e.defaultRec.noAllocs = e.cfg.NoAllocations
		e.rec = e.defaultRec
		e.noHolds = e.cfg.NoAllocations
	}
	e.rec.Begin(&RunInfo{
		Policy: e.policy.Name(), Cluster: e.cfg.Cluster, Timing: e.cfg.Timing,
		Rounds: e.cfg.Rounds, RoundLength: e.cfg.RoundLength, T0: e.t0, Jobs: len(e.specs),
		Faults: e.flt != nil,
	})
}

// recordDigest reports the state at the start of the current round.
func (e *engine) recordDigest() {
	// A type's idle GPUs are its total less those running jobs hold: every
	// held slot belongs to exactly one running job, of the slot's type (the
	// engine validates each allocation; the checker asserts it), so the
	// engine's count of held GPUs by type (heldBy), not the slot table nor
	// the running queue, is read.
	types := e.cfg.Cluster.Types
	if len(e.idleScratch) != len(types) {
		e.idleScratch = make([]int, len(types))
	}
	idle := e.idleScratch
	for t, name := range types {
		idle[t] = e.cfg.Cluster.TotalGPUs(name) - e.heldBy[t]
	}
	if e.flt != nil {
		// Idle means free and available: take the GPUs of nodes that are
		// not available off, less those of them running jobs hold.
		for t := range idle {
			idle[t] -= e.cfg.Cluster.TotalGPUs(types[t]) - e.flt.availBy[t]
		}
		if e.flt.noticed > 0 {
			for _, j := range e.runq.jobs {
				for _, s := range j.GPUs {
					if e.flt.nodes[e.cfg.Cluster.NodeOf(s)].State != NodeAvailable {
						idle[j.typ]++
					}
				}
			}
		}
	}
	running := len(e.runq.jobs)
	if e.cfg.Timing == Exact {
		running += len(e.ended) // ended jobs count until the round sees them, as in the artifact
	}
	d := &e.digestRow // the engine's: a literal would be allocated per round
	*d = DigestRow{Round: e.round, Running: running, Pending: len(e.pendq.jobs), Idle: idle}
	e.rec.RoundStart(d)
}

// recordRound reports round's window: its throughput and busy GPUs.
func (e *engine) recordRound(round int, thr float64, busy []int) {
	if len(e.busyScratch) != len(busy) {
		e.busyScratch = make([]int32, len(busy))
	}
	for i := range busy {
		e.busyScratch[i] = int32(busy[i])
	}
	e.res.totals.addRound(thr)
	row := &e.roundRow // the engine's: a literal would be allocated per round
	*row = RoundRecord{
		Round: int32(round), Time: float64(e.t0) + float64(round)*float64(e.cfg.RoundLength),
		Throughput: thr, Running: int32(len(e.runq.jobs)), Pending: int32(len(e.pendq.jobs)), Busy: e.busyScratch,
	}
	e.rec.RoundEnd(row)
}

// recordFinish counts a finished job and reports its end.
// Only a measured job's JCT and queueing are counted (Config.Measure).
func (e *engine) recordFinish(j *Job) {
	// j.id, not j.Spec.ID: a finishing job's JobSpec is not in cache, its
	// Job is (the spec's load was most of this function's time at 1M).
	if e.isMeasured(j.id) {
		e.res.JCTs = append(e.res.JCTs, float64(j.Finish-j.SubmitTime))
		e.res.Queueing = append(e.res.Queueing, j.QueueTime())
	}
	e.rec.JobEnd(j.id, j.Finish)
}

// recordHold notes that j's GPUs become gpus (nil: none) at the engine's
// current time, reporting the holding that ends when the slots change.
// (j.GPUs is always the job's open holding: only setAlloc, release and a
// suspension change it, each after calling here.)
func (e *engine) recordHold(j *Job, gpus []int) {
	if e.noHolds {
		return
	}
	if !SameGPUs(j.GPUs, gpus) {
		e.endHold(j)
	}
}

// endHold is recordHold for gpus known to differ from j.GPUs (setAlloc
// has compared them already).
func (e *engine) endHold(j *Job) {
	if e.noHolds {
		return
	}
	if len(j.GPUs) > 0 && e.now > j.heldSince {
		e.holding = Holding{Job: j.id, GPUs: j.GPUs, Since: j.heldSince, Until: e.now, Ready: heldReady(j, e.now)}
		e.rec.Hold(&e.holding)
	}
	j.heldSince, j.heldReady = e.now, j.readyAt
}

// heldReady is Holding.Ready of j's open holding ending at until: the
// ready time its start set (setAlloc sets readyAt before calling
// recordHold), within the holding.
func heldReady(j *Job, until Time) Time {
	return min(max(j.heldReady, j.heldSince), until)
}

// finish closes the run's accounting once it is over: the holdings and
// waits still under way end at the horizon, each submitted job's record
// is built, counted and reported, then the fault summary.
func (e *engine) finish(wall time.Duration) {
	r := e.res
	r.Wall = wall
	r.Rounds = e.cfg.Rounds
	r.UntilDone = e.cfg.UntilDone
	r.BusyGPUSeconds = map[string]float64{}
	r.DecisionNs = e.decisionNs
	e.closeAtHorizon()
	if e.net != nil {
		r.Network = e.netSummary(e.t0)
	}
	horizon := float64(e.t0) + float64(r.Rounds)*float64(r.RoundLength)
	// A trace has a handful of models: one name string each, not one per
	// job, found by a short linear search (cheaper than hashing a Model).
	type modelName struct {
		m    estimator.Model
		name string
	}
	var modelNames []modelName
	nameOf := func(m estimator.Model) string {
		for _, mn := range modelNames {
			if mn.m == m {
				return mn.name
			}
		}
		modelNames = append(modelNames, modelName{m, m.Name()})
		return modelNames[len(modelNames)-1].name
	}
	var fa *faultAcc
	var faults []JobFaultRecord
	if e.flt != nil {
		fa = &faultAcc{}
		faults = make([]JobFaultRecord, min(e.arrivedJobs, jobChunk))
	}
	// The aliases are substrings of the process's one string of them
	// (aliasesFor) rather than one allocation each.
	aliases := aliasesFor(len(e.specs))
	// The summary's lists, one value per job, at their final size.
	r.totals.submitted = make([]float64, 0, e.arrivedJobs)
	r.totals.open = make([]bool, 0, e.arrivedJobs)
	r.totals.slowdown = make([]float64, 0, len(r.JCTs))
	// Built in place, jobChunk records at a time, each part handed to the
	// recorder as it is full: a JobRecord is 200-odd bytes (appending one,
	// even a zero one, writes it again), and a recorder that streams the
	// table (resultsdir.JobStream) keeps none, so a million jobs' table is
	// never in memory beside the engine's jobs.
	jobs := make([]JobRecord, min(e.arrivedJobs, jobChunk))
	byType := make([]float64, len(r.Types)) // a job's GPU-seconds by type
	var gsc gpuSecScratch
	k, c := 0, 0 // jobs arrived so far (r.Submitted counts the measured ones); records in the part
	for _, j := range e.jobs {
		if j.Status == NotArrived {
			continue
		}
		if c == len(jobs) {
			e.rec.Jobs(jobs, faults[:min(c, len(faults))])
			clear(jobs)
			c = 0
		}
		s := j.Spec
		rec := &jobs[c]
		c++
		k++
		rec.ID, rec.Name, rec.Alias, rec.Model = int32(s.ID), s.Name, aliases.alias(s.ID), nameOf(s.Workload.Model)
		rec.Batch, rec.Iterations, rec.RequestedGPU, rec.RequestedN = int32(s.Workload.Batch), j.Iterations, s.GPU, int32(s.GPUs)
		rec.Submit, rec.FirstStart, rec.Finish, rec.JCT = float64(j.SubmitTime), float64(j.FirstStart), float64(j.Finish), -1
		rec.Queueing, rec.Reconfigs, rec.State = j.QueueTime(), int32(j.Reconfigs), j.Status.String()
		if j.Status == Finished {
			rec.JCT = float64(j.Finish - j.SubmitTime)
		}
		rec.RunAlone = float64(j.Iterations) * e.requestedIterTime(s)
		rec.Charge = rec.JCT
		if j.Status != Finished {
			// The charge of an unfinished job (stuck.go): its age at the
			// horizon and its remaining work at its best rate.
			rec.Charge = horizon - rec.Submit + e.remainingAtHorizon(j)*e.bestIterTime(s.Workload)
			rec.Stuck = e.stuck(j)
		}
		last := j.Config // while running and after
		if last.GPU != "" {
			rec.FinalGPU, rec.FinalN, rec.FinalNodes = last.GPU, int32(last.GPUs()), int32(last.Nodes)
		}
		if e.leftRow != nil { // nil: no job ever ran
			r.addGPUSeconds(rec, e.gpuSecondsBy(j, byType), &gsc)
		}
		if e.isMeasured(s.ID) {
			r.Submitted++
			r.totals.addJob(rec, horizon)
		} else {
			r.totals.addUnmeasured(rec)
		}
		if fa != nil {
			faults[c-1] = fa.add(e, rec)
		}
	}
	if c > 0 || k == 0 { // once at least, if only with an empty table
		e.rec.Jobs(jobs[:c], faults[:min(c, len(faults))])
	}
	r.totals.arrived = k
	e.setMeasure()
	if fa != nil {
		r.Faults = &FaultResult{Summary: fa.summary(e, k)}
	}
}

// jobChunk is how many job records finish builds before handing them to
// the recorder (Recorder.Jobs): the table's parts, not the whole table.
const jobChunk = 1024

// closeAtHorizon ends, at the horizon, what the run left under way: every
// holding still open (in job order, so the timeline does not depend on
// scheduling order) and the queueing of the running and pending jobs, the
// waits still under way in exact timing ending at the horizon. Separate
// because it is the run's end-of-horizon accounting, apart from building
// the job table.
func (e *engine) closeAtHorizon() {
	r := e.res
	end := e.t0.Add(Duration(e.cfg.Rounds) * e.cfg.RoundLength)
	for _, j := range e.jobs {
		if e.noHolds {
			break
		}
		if len(j.GPUs) > 0 && end > j.heldSince {
			e.holding = Holding{Job: j.id, GPUs: j.GPUs, Since: j.heldSince, Until: end, Ready: heldReady(j, end)}
			e.rec.Hold(&e.holding)
		}
	}
	r.Queueing = slices.Grow(r.Queueing, len(e.runq.jobs)+len(e.pendq.jobs))
	for _, j := range e.runq.jobs {
		if e.isMeasured(j.Spec.ID) {
			r.Queueing = append(r.Queueing, j.QueueTime())
		}
	}
	// Exact timing: the waits still under way end at the horizon (here,
	// in the one pass over the queue, rather than a pass of their own).
	for _, j := range e.pendq.jobs {
		if e.cfg.Timing == Exact {
			j.queueTime += float64(end - j.pendingSince)
		}
		if e.isMeasured(j.Spec.ID) {
			r.Queueing = append(r.Queueing, j.QueueTime())
		}
	}
}

// addGPUSeconds sets rec's GPU-seconds and its by-type breakdown from the
// job's per-type counters (gpuSeconds, indexed as r.Types), and adds them to
// the run's busy GPU-seconds. Types the job ran on (a positive count) are
// listed by name, "a100=1200;a40=600" (each count as trimFloat writes it).
// sc is the caller's scratch, kept from job to job (one string allocated
// per job). Separate because it is the per-type accounting of one job,
// apart from the record's other fields.
func (r *Result) addGPUSeconds(rec *JobRecord, gpuSeconds []float64, sc *gpuSecScratch) {
	// Types the job ran on (a positive GPU-second count), by name.
	types := sc.types[:0]
	for i, v := range gpuSeconds {
		if v > 0 {
			types = append(types, i)
		}
	}
	if len(types) > 1 {
		sort.Slice(types, func(a, b int) bool { return r.Types[types[a]] < r.Types[types[b]] })
	}
	by := sc.by[:0]
	for k, i := range types {
		t, v := r.Types[i], gpuSeconds[i]
		r.BusyGPUSeconds[t] += v
		rec.GPUSeconds += v
		if k > 0 {
			by = append(by, ';')
		}
		by = append(by, t...)
		by = append(by, '=')
		by = strconv.AppendFloat(by, v, 'f', -1, 64) // trimFloat's form
	}
	rec.GPUSecondsBy = string(by)
	sc.types, sc.by = types, by
}

// gpuSecScratch is addGPUSeconds' scratch.
type gpuSecScratch struct {
	types []int
	by    []byte
}
