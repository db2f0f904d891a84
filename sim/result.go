package sim

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/arena-sim/arena/estimator"
)

// JobRecord is one row of jobs.parquet.
type JobRecord struct {
	ID    int32  `parquet:"id"`
	Name  string `parquet:"name"`
	Alias string `parquet:"alias"`
	Model string `parquet:"model"`
	Batch int32  `parquet:"batch"`
	// Iterations is the job's whole work after load density and the
	// trace's iteration scale: what was simulated, not the trace's raw
	// number.
	Iterations   int64   `parquet:"iterations"`
	RequestedGPU string  `parquet:"requested_gpu"`
	RequestedN   int32   `parquet:"requested_gpus"`
	FinalGPU     string  `parquet:"final_gpu"`
	FinalN       int32   `parquet:"final_gpus"`
	FinalNodes   int32   `parquet:"final_nodes"`
	Submit       float64 `parquet:"submit_s"`
	FirstStart   float64 `parquet:"first_start_s"` // −1 if never started
	Finish       float64 `parquet:"finish_s"`      // −1 if not finished
	JCT          float64 `parquet:"jct_s"`         // finish − submit; −1 if not finished
	Queueing     float64 `parquet:"queueing_s"`
	Reconfigs    int32   `parquet:"reconfigurations"`
	GPUSeconds   float64 `parquet:"gpu_seconds"`
	GPUSecondsBy string  `parquet:"gpu_seconds_by_type"` // "a100=1200;a40=600"
	State        string  `parquet:"state"`
	// RunAlone is the job's run time alone on its first configuration
	// (Iterations × that configuration's iteration time, no queueing, no
	// overhead); 0 if it never started. In memory only (summary.json's
	// bounded slowdown), not a jobs.parquet column.
	RunAlone float64 `parquet:"-"`
}

// RoundRecord is one row of timeline.parquet: the cluster during one round.
type RoundRecord struct {
	Round      int32   `parquet:"round"`
	Time       float64 `parquet:"time_s"`
	Throughput float64 `parquet:"throughput_samples_per_s"`
	Running    int32   `parquet:"running"`
	Pending    int32   `parquet:"pending"`
	// Busy GPUs per type, in Cluster.Types order (columns busy_gpus_<type>).
	Busy []int32 `parquet:"-"`
}

// AllocRecord is one row of allocations.parquet: a job holding a run of
// consecutive GPU slots (one GPU type) over a span of simulated time. A
// holding still open at the end of the run ends at the horizon.
type AllocRecord struct {
	Job       int32   `parquet:"job_id"`
	GPU       string  `parquet:"gpu_type"`
	FirstSlot int32   `parquet:"first_slot"`
	Slots     int32   `parquet:"slots"`
	Start     float64 `parquet:"start_s"`
	End       float64 `parquet:"end_s"`
}

// DigestRow is the per-round state at the start of a round, before the
// progress update, in the form of the artifact's per-round digest.
type DigestRow struct {
	Round   int
	Running int
	Pending int
	Idle    []int // per type, Cluster.Types order
	Ended   []string
}

// Result is everything a run produced.
type Result struct {
	Policy, Cluster string
	Timing          Timing
	Rounds          int
	RoundLength     Duration
	Types           []string
	Start           Time // T0: the earliest submission (exact), the first row's (artifact)
	Submitted       int  // jobs that arrived within the horizon

	Jobs     []JobRecord
	Timeline []RoundRecord
	// Allocations are the GPU holdings over time, in the order they ended.
	Allocations []AllocRecord
	Digest      []DigestRow
	// JCTs of finished jobs in the order they finished (the artifact's order).
	JCTs []float64
	// Queueing is the artifact's queueing list: finished jobs as they end,
	// then running, then pending jobs at the end of the run.
	Queueing []float64

	// CapReached: an until-done run stopped at its round cap with jobs
	// left.
	CapReached bool
	// UntilDone is Config.UntilDone.
	UntilDone bool
	// BudgetHits is the policy's BudgetReporter figure; nil if it has none.
	BudgetHits *int
	// AssertionsFailed is the policy's AssertionReporter figure; nil if
	// it has none.
	AssertionsFailed *int

	// BusyGPUSeconds per GPU type: the GPU-seconds jobs held over the
	// window (the sum of jobs.parquet's gpu_seconds_by_type).
	BusyGPUSeconds map[string]float64

	// Faults is the fault model's accounting (cluster events, checkpoints);
	// nil in a run without either.
	Faults *FaultResult

	// Events counts what the engine processed: arrivals, completions and
	// scheduling rounds (the unit of the events-per-second benchmark).
	Events int

	Wall       time.Duration
	DecisionNs []int64

	finishedIDs []JobID
	holding     map[JobID]hold
	// idleBuf, busyBuf: blocks the digest's and the timeline's per-type
	// counts are cut from, many rounds' at a time rather than one
	// allocation per row (see carve).
	idleBuf []int
	busyBuf []int32
	aliases *aliasTable // covers every job of the run
}

// hold is a job's current GPU holding: since when, which slots.
type hold struct {
	since Time
	gpus  []int
}

func newResult(e *engine) *Result {
	return &Result{
		Policy: e.policy.Name(), Cluster: e.cfg.Cluster.Name, Timing: e.cfg.Timing,
		Rounds: e.cfg.Rounds, RoundLength: e.cfg.RoundLength, Types: e.cfg.Cluster.Types, Start: e.t0,
		// One row per round (an until-done run grows them past Rounds).
		Digest: make([]DigestRow, 0, e.cfg.Rounds), Timeline: make([]RoundRecord, 0, e.cfg.Rounds),
		aliases: aliasesFor(len(e.specs)),
	}
}

func (r *Result) recordDigest(e *engine) {
	// A type's idle GPUs are its total less those running jobs hold: every
	// held slot belongs to exactly one running job, of the slot's type (the
	// engine validates each allocation; the checker asserts it), so the
	// running queue, not the slot table, is walked.
	idle := carve(&r.idleBuf, len(r.Types), e.cfg.Rounds-len(r.Digest)) // r.Types is Cluster.Types
	for t, name := range r.Types {
		idle[t] = e.cfg.Cluster.TotalGPUs(name)
	}
	for _, j := range e.running {
		idle[j.typ] -= len(j.GPUs)
	}
	if e.flt != nil {
		// Idle means free and available: take the GPUs of nodes that are
		// not available off, less those of them running jobs hold.
		for t := range idle {
			idle[t] -= e.cfg.Cluster.TotalGPUs(r.Types[t]) - e.flt.availBy[t]
		}
		if e.flt.noticed > 0 {
			for _, j := range e.running {
				for _, s := range j.GPUs {
					if e.flt.nodes[e.cfg.Cluster.NodeOf(s)].State != NodeAvailable {
						idle[j.typ]++
					}
				}
			}
		}
	}
	running := len(e.running)
	if e.cfg.Timing == Exact {
		running += len(e.ended) // ended jobs count until the round sees them, as in the artifact
	}
	r.Digest = append(r.Digest, DigestRow{Round: e.round, Running: running, Pending: len(e.pending), Idle: idle})
}

func (r *Result) recordFinish(j *Job) {
	r.JCTs = append(r.JCTs, float64(j.Finish-j.SubmitTime))
	r.Queueing = append(r.Queueing, j.QueueTime())
	r.finishedIDs = append(r.finishedIDs, j.Spec.ID)
	if n := len(r.Digest); n > 0 && r.Timing == Artifact {
		r.Digest[n-1].Ended = append(r.Digest[n-1].Ended, r.aliases.alias(j.Spec.ID))
	}
}

func (r *Result) recordDrop(*Job) {}

// recordHold notes that j's GPUs become gpus (nil: none) at the engine's
// current time, closing its previous holding when the slots change.
func (r *Result) recordHold(e *engine, j *Job, gpus []int) {
	id := j.Spec.ID
	h, open := r.holding[id]
	if open && SameGPUs(h.gpus, gpus) {
		return
	}
	if open {
		r.closeHold(e, id, h, e.now)
		delete(r.holding, id)
	}
	if len(gpus) > 0 {
		if r.holding == nil {
			r.holding = map[JobID]hold{}
		}
		r.holding[id] = hold{since: e.now, gpus: append([]int(nil), gpus...)}
	}
}

// closeHold appends h's slots, as runs of consecutive slots, ending at t.
func (r *Result) closeHold(e *engine, id JobID, h hold, t Time) {
	if t <= h.since {
		return
	}
	slots := append([]int(nil), h.gpus...)
	sort.Ints(slots)
	for i := 0; i < len(slots); {
		k := i + 1
		for k < len(slots) && slots[k] == slots[k-1]+1 {
			k++
		}
		r.Allocations = append(r.Allocations, AllocRecord{
			Job: int32(id), GPU: e.cfg.Cluster.Nodes[e.cfg.Cluster.NodeOf(slots[i])].GPU,
			FirstSlot: int32(slots[i]), Slots: int32(k - i), Start: float64(h.since), End: float64(t),
		})
		i = k
	}
}

func (r *Result) recordRound(e *engine, round int, thr float64, busy []int) {
	b := carve(&r.busyBuf, len(r.Types), e.cfg.Rounds-len(r.Timeline))
	for i := range b {
		b[i] = int32(busy[i])
	}
	r.Timeline = append(r.Timeline, RoundRecord{
		Round: int32(round), Time: float64(e.t0) + float64(round)*float64(e.cfg.RoundLength),
		Throughput: thr, Running: int32(len(e.running)), Pending: int32(len(e.pending)), Busy: b,
	})
}

// carve returns the next n elements of *buf, capped (an append to them
// cannot reach the next row's), refilling *buf with room for rows rows (at
// least 64) when it runs short.
func carve[T any](buf *[]T, n, rows int) []T {
	if len(*buf) < n {
		*buf = make([]T, n*max(rows, 64))
	}
	s := (*buf)[:n:n]
	*buf = (*buf)[n:]
	return s
}

// finish builds the per-job table once the run is over.
func (r *Result) finish(e *engine, wall time.Duration) {
	r.Wall = wall
	r.Rounds = e.cfg.Rounds
	r.UntilDone = e.cfg.UntilDone
	r.BusyGPUSeconds = map[string]float64{}
	r.DecisionNs = e.decisionNs
	if e.cfg.Timing == Exact {
		r.attributeExactEnds(e)
	}
	r.closeAtHorizon(e)
	submitted := e.arrivedJobs
	// Built in place, in a table of the final length: a JobRecord is
	// 200-odd bytes, and appending one (even a zero one) writes it again.
	r.Jobs = make([]JobRecord, submitted)
	// The aliases are substrings of the process's one string of them
	// (aliasesFor) rather than one allocation each.
	aliases := r.aliases
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
	for _, j := range e.jobs {
		if j.Status == NotArrived {
			continue
		}
		s := j.Spec
		rec := &r.Jobs[r.Submitted]
		r.Submitted++
		rec.ID, rec.Name, rec.Alias, rec.Model = int32(s.ID), s.Name, aliases.alias(s.ID), nameOf(s.Workload.Model)
		rec.Batch, rec.Iterations, rec.RequestedGPU, rec.RequestedN = int32(s.Workload.Batch), j.Iterations, s.GPU, int32(s.GPUs)
		rec.Submit, rec.FirstStart, rec.Finish, rec.JCT = float64(j.SubmitTime), float64(j.FirstStart), float64(j.Finish), -1
		rec.Queueing, rec.Reconfigs, rec.State = j.QueueTime(), int32(j.Reconfigs), j.Status.String()
		if j.Status == Finished {
			rec.JCT = float64(j.Finish - j.SubmitTime)
		}
		rec.RunAlone = float64(j.Iterations) * j.firstIterTime
		last := j.Config // while running and after
		if last.GPU != "" {
			rec.FinalGPU, rec.FinalN, rec.FinalNodes = last.GPU, int32(last.GPUs()), int32(last.Nodes)
		}
		if e.gpuSeconds == nil {
			continue // no job ever ran
		}
		r.addGPUSeconds(rec, e.gpuSeconds[int(s.ID)*len(r.Types):int(s.ID+1)*len(r.Types)])
	}
	if e.flt != nil {
		r.finishFaults(e)
	}
}

// attributeExactEnds fills the Ended names of the digest rows in exact
// timing, where jobs finish between rounds: each is attributed to the round
// that sees it (the first boundary at or after its finish). Artifact timing
// records them as the rounds go. Separate because it is the one place the
// two timings' digests are reconciled.
func (r *Result) attributeExactEnds(e *engine) {
	// Ended names per digest row: exact mode finishes between rounds;
	// attribute each to the round that sees it.
	L := float64(e.cfg.RoundLength)
	for _, id := range r.finishedIDs {
		j := e.jobs[id]
		k := int(math.Ceil((float64(j.Finish) - float64(e.t0)) / L))
		if k < len(r.Digest) {
			r.Digest[k].Ended = append(r.Digest[k].Ended, r.aliases.alias(j.Spec.ID))
		}
	}
}

// closeAtHorizon ends, at the horizon, what the run left under way: every
// hold still open (in job order, so the timeline does not depend on map
// order) and the queueing of the running and pending jobs, the waits still
// under way in exact timing ending at the horizon. Separate because it is
// the run's end-of-horizon accounting, apart from building the job table.
func (r *Result) closeAtHorizon(e *engine) {
	end := e.t0.Add(Duration(e.cfg.Rounds) * e.cfg.RoundLength)
	ids := make([]JobID, 0, len(r.holding))
	for id := range r.holding {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	for _, id := range ids {
		r.closeHold(e, id, r.holding[id], end)
	}
	r.holding = nil
	r.Queueing = slices.Grow(r.Queueing, len(e.running)+len(e.pending))
	for _, j := range e.running {
		r.Queueing = append(r.Queueing, j.QueueTime())
	}
	// Exact timing: the waits still under way end at the horizon (here,
	// in the one pass over the queue, rather than a pass of their own).
	horizon := e.t0.Add(Duration(e.cfg.Rounds) * e.cfg.RoundLength)
	for _, j := range e.pending {
		if e.cfg.Timing == Exact {
			j.queueTime += float64(horizon - j.pendingSince)
		}
		r.Queueing = append(r.Queueing, j.QueueTime())
	}
}

// addGPUSeconds sets rec's GPU-seconds and its by-type breakdown from the
// job's per-type counters (gpuSeconds, indexed as r.Types), and adds them to
// the run's busy GPU-seconds. Types the job ran on (a positive count) are
// listed by name. Separate because it is the per-type accounting of one
// job, apart from the record's other fields.
func (r *Result) addGPUSeconds(rec *JobRecord, gpuSeconds []float64) {
	var parts []string
	// Types the job ran on (a positive GPU-second count), by name.
	var types []int
	for i, v := range gpuSeconds {
		if v > 0 {
			types = append(types, i)
		}
	}
	if len(types) > 1 {
		sort.Slice(types, func(a, b int) bool { return r.Types[types[a]] < r.Types[types[b]] })
	}
	for _, i := range types {
		t, v := r.Types[i], gpuSeconds[i]
		r.BusyGPUSeconds[t] += v
		rec.GPUSeconds += v
		parts = append(parts, t+"="+trimFloat(v))
	}
	rec.GPUSecondsBy = strings.Join(parts, ";")
}
