package sim

import (
	"math"
	"slices"
	"sort"
	"time"
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
	// RunAlone is the job's run time alone on its request: Iterations ×
	// the iteration time of its requested GPU type and count at the best
	// locality, no queueing, no overhead (or, when the request cannot run,
	// at its best rate, as Charge; 0 when nothing can run it). The same
	// whatever the policy did. In memory only (summary.json's bounded
	// slowdown), not a jobs.parquet column.
	RunAlone float64 `parquet:"-"`
	// Charge is the job's JCT in the figures over every submitted job:
	// JCT if it finished, else its age at the horizon (horizon − submit)
	// plus its remaining iterations at the best iteration time any grid of
	// the cluster offers it (docs/statistics.md). In memory only.
	Charge float64 `parquet:"-"`
	// Stuck: the job ends the run pending and never started although,
	// after some decision since it arrived, idle GPUs could have held its
	// request (summary.json's jobs_stuck). In memory only.
	Stuck bool `parquet:"-"`
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
	// Ready is the holding's Holding.Ready: from Start to Ready the job
	// reconfigured (overhead, restore), from Ready to End it computed. In
	// memory only (the energy accounting), not an allocations.parquet
	// column.
	Ready float64 `parquet:"-"`
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

// Result is everything a run produced: the figures the engine keeps (the
// run's description, counts, the JCT and queueing lists, busy GPU-seconds,
// the fault summary; everything Summarize reads) and the records the
// default recorder, ResultRecorder, keeps (Jobs, Timeline, Allocations,
// Digest, the fault records). With a Recorder of the caller's in
// Config.Recorder, the records are that recorder's and are empty here.
type Result struct {
	Policy, Cluster string
	Timing          Timing
	Rounds          int
	RoundLength     Duration
	Types           []string
	Start           Time // T0: the earliest submission (exact), the first row's (artifact)
	Submitted       int  // jobs that arrived within the horizon

	// The records (ResultRecorder).
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

	// CapReached: an until-done or draining run stopped at its round
	// cap with (measured) jobs left.
	CapReached bool
	// UntilDone is Config.UntilDone.
	UntilDone bool
	// AskedRounds is Config.Rounds: the rounds asked, which an until-done
	// or draining run goes on past (Rounds is where it stopped).
	AskedRounds int
	// Measure is Config.Measure; Measured counts the jobs of the trace
	// it selects, submitted from MeasuredFirst to MeasuredLast. The JCT
	// and queueing lists, Submitted and the summary's job counts are over
	// the measured jobs.
	Measure                     Window
	Measured                    int
	MeasuredFirst, MeasuredLast Time
	// Drain is Config.Drain, DrainCap the round cap it ran under
	// (DrainCap); DrainStuck: it stopped with measured jobs stuck on an
	// idle cluster; CapReached: at its cap.
	Drain      bool
	DrainCap   int
	DrainStuck bool
	// BudgetHits is the policy's BudgetReporter figure; nil if it has none.
	BudgetHits *int
	// AssertionsFailed is the policy's AssertionReporter figure; nil if
	// it has none.
	AssertionsFailed *int

	// BusyGPUSeconds per GPU type: the GPU-seconds jobs held over the
	// window (the sum of jobs.parquet's gpu_seconds_by_type).
	BusyGPUSeconds map[string]float64

	// Faults is the fault model's accounting (cluster events, checkpoints);
	// nil in a run without either. Its Summary is the engine's, its Jobs
	// and Availability the default recorder's.
	Faults *FaultResult

	// Network is the contention model's accounting (docs/topology.md);
	// nil on a cluster without topology.
	Network *NetworkSummary

	// Events counts what the engine processed: arrivals, completions and
	// scheduling rounds (the unit of the events-per-second benchmark).
	Events int

	Wall       time.Duration
	DecisionNs []int64

	// totals are the per-job and per-round figures Summarize reads,
	// gathered by the engine so that they do not depend on the recorder.
	totals runTotals
}

// ResultRecorder is the default Recorder: it keeps every record, as Result
// holds them (the rows of jobs.parquet, timeline.parquet,
// allocations.parquet, availability.parquet and rounds.csv). Fill moves
// them into a Result.
type ResultRecorder struct {
	info        RunInfo
	jobs        []JobRecord
	timeline    []RoundRecord
	allocations []AllocRecord
	digest      []DigestRow
	faultJobs   []JobFaultRecord
	avail       []AvailRecord
	// ends are the finished jobs in finish order (exact timing, whose
	// digest rows get their names at Fill).
	ends []jobEnd
	// idleBuf, busyBuf: blocks the digest's and the timeline's per-type
	// counts are cut from, many rounds' at a time rather than one
	// allocation per row (see carve).
	idleBuf []int
	busyBuf []int32
	aliases *aliasTable // covers every job of the run
	// noAllocs: keep no allocation records (Config.NoAllocations);
	// noJobs: keep no job table (NewResultRecorderNoTables).
	noAllocs, noJobs bool
	// slots is Hold's scratch: the holding's slots, sorted.
	slots []int
}

type jobEnd struct {
	id JobID
	at Time
}

// NewResultRecorder returns a recorder keeping every record.
func NewResultRecorder() *ResultRecorder { return &ResultRecorder{} }

// NewResultRecorderNoAllocations returns a recorder keeping every record
// but the allocation records (Result.Allocations stays empty), as
// Config.NoAllocations makes the default one: for a caller that Tees it
// with a recorder of its own that streams them (resultsdir.AllocStream).
func NewResultRecorderNoAllocations() *ResultRecorder { return &ResultRecorder{noAllocs: true} }

// NewResultRecorderNoTables returns a recorder keeping neither the
// allocation records nor the job table (Result.Allocations and Result.Jobs
// stay empty; the fault records of the jobs too), for a caller that Tees
// it with recorders of its own that stream both (resultsdir.AllocStream
// and resultsdir.JobStream): the summary is the same, as the engine keeps
// what it is computed from.
func NewResultRecorderNoTables() *ResultRecorder {
	return &ResultRecorder{noAllocs: true, noJobs: true}
}

// Begin sizes the record tables for the run.
func (r *ResultRecorder) Begin(info *RunInfo) {
	r.info = *info
	// One row per round (an until-done run grows them past Rounds).
	r.digest = make([]DigestRow, 0, info.Rounds)
	r.timeline = make([]RoundRecord, 0, info.Rounds)
	r.aliases = aliasesFor(info.Jobs)
}

// RoundStart keeps the digest row.
func (r *ResultRecorder) RoundStart(d *DigestRow) {
	idle := carve(&r.idleBuf, len(d.Idle), r.info.Rounds-len(r.digest))
	copy(idle, d.Idle)
	row := *d
	row.Idle, row.Ended = idle, nil
	r.digest = append(r.digest, row)
}

// RoundEnd keeps the timeline row.
func (r *ResultRecorder) RoundEnd(row *RoundRecord) {
	b := carve(&r.busyBuf, len(row.Busy), r.info.Rounds-len(r.timeline))
	copy(b, row.Busy)
	kept := *row
	kept.Busy = b
	r.timeline = append(r.timeline, kept)
}

// JobEnd names the job in its digest row: the current one in artifact
// timing, where jobs end at the start of a round; in exact timing the row
// of the round that sees it, at Fill.
func (r *ResultRecorder) JobEnd(id JobID, at Time) {
	if r.info.Timing != Artifact {
		r.ends = append(r.ends, jobEnd{id, at})
		return
	}
	if n := len(r.digest); n > 0 {
		r.digest[n-1].Ended = append(r.digest[n-1].Ended, r.aliases.alias(id))
	}
}

// Hold appends h's slots, as runs of consecutive slots of one GPU type.
func (r *ResultRecorder) Hold(h *Holding) {
	if r.noAllocs {
		return
	}
	if len(r.allocations)+len(h.GPUs) > cap(r.allocations) {
		// Double: append grows a long slice by a quarter, which copied a
		// million-job run's rows four times over.
		r.allocations = slices.Grow(r.allocations, max(len(r.allocations), len(h.GPUs), 1024))
	}
	r.allocations = AppendAllocRecords(r.allocations, r.info.Cluster, h, &r.slots)
}

// AppendAllocRecords appends holding h's records (allocations.parquet's
// rows) to recs and returns the extended slice: one per run of consecutive
// GPU slots, in slot order, each with the GPU type of its first slot's node
// on cluster c. *scratch is a buffer it sorts the slots in, kept for the
// next call. The default recorder's rows and a streaming writer's are the
// same rows because both come from here.
func AppendAllocRecords(recs []AllocRecord, c *Cluster, h *Holding, scratch *[]int) []AllocRecord {
	slots := append((*scratch)[:0], h.GPUs...)
	*scratch = slots
	sort.Ints(slots)
	for i := 0; i < len(slots); {
		k := i + 1
		for k < len(slots) && slots[k] == slots[k-1]+1 {
			k++
		}
		recs = append(recs, AllocRecord{
			Job: int32(h.Job), GPU: c.Nodes[c.NodeOf(slots[i])].GPU,
			FirstSlot: int32(slots[i]), Slots: int32(k - i), Start: float64(h.Since), End: float64(h.Until), Ready: float64(h.Ready),
		})
		i = k
	}
	return recs
}

// NodeEvent keeps the availability row.
func (r *ResultRecorder) NodeEvent(a *AvailRecord) { r.avail = append(r.avail, *a) }

// Jobs keeps the job table's part (and its fault records), appended to
// those kept, in a table sized for every job of the trace.
func (r *ResultRecorder) Jobs(jobs []JobRecord, faults []JobFaultRecord) {
	if r.noJobs {
		return
	}
	if r.jobs == nil {
		r.jobs = make([]JobRecord, 0, max(r.info.Jobs, len(jobs)))
	}
	r.jobs = append(r.jobs, jobs...)
	if faults != nil {
		if r.faultJobs == nil {
			r.faultJobs = make([]JobFaultRecord, 0, max(r.info.Jobs, len(faults)))
		}
		r.faultJobs = append(r.faultJobs, faults...)
	}
}

// Fill moves the records into res (its Faults, if any, gets the fault
// records). Call it once, after the run.
func (r *ResultRecorder) Fill(res *Result) {
	if r.info.Timing != Artifact {
		r.attributeExactEnds()
	}
	res.Jobs, res.Timeline, res.Allocations, res.Digest = r.jobs, r.timeline, r.allocations, r.digest
	if res.Faults != nil {
		res.Faults.Availability = r.avail
		res.Faults.Jobs = r.faultJobs
	}
	*r = ResultRecorder{}
}

// attributeExactEnds fills the Ended names of the digest rows in exact
// timing, where jobs finish between rounds: each is attributed to the round
// that sees it (the first boundary at or after its finish). Artifact timing
// records them as the rounds go. Separate because it is the one place the
// two timings' digests are reconciled.
func (r *ResultRecorder) attributeExactEnds() {
	L := float64(r.info.RoundLength)
	for _, e := range r.ends {
		k := int(math.Ceil((float64(e.at) - float64(r.info.T0)) / L))
		if k < len(r.digest) {
			r.digest[k].Ended = append(r.digest[k].Ended, r.aliases.alias(e.id))
		}
	}
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
