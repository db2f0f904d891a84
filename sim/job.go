package sim

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/arena-sim/arena/estimator"
)

// JobID identifies a job within a run: its 0-based position in the trace.
type JobID int

// NoJob marks an idle GPU slot.
const NoJob JobID = -1

// JobSpec is what a trace says about one job.
type JobSpec struct {
	ID JobID
	// Name is the trace's own job identifier.
	Name string
	// Submit is the trace's submission time, seconds.
	Submit Time
	// Workload is the model and global batch size.
	Workload estimator.Workload
	// Iterations is the trace's iteration count (before the engine divides
	// it by Config.IterationScale).
	Iterations int64
	// GPU and GPUs are the user's requested type and count.
	GPU  string
	GPUs int
	// Deadline is the trace's deadline, seconds; 0 means none.
	Deadline Time
	// User and VirtualCluster, when the trace has them.
	User, VirtualCluster string
	// Outcome is the trace's final state of the job where the trace
	// records one: "" (unknown or passed), "failed" or "killed" (the
	// job's own end, a user error or a user's cancel, not the cluster's).
	Outcome string
	// Checkpoint is the job's own checkpoint model where the trace gives
	// one (the canonical table's checkpoint_* columns): its nonzero fields
	// replace the run's (Config.Checkpoint). Zero: the run's.
	Checkpoint Checkpoint
}

// Alias is the artifact's per-round digest name of the job: "job_" and its
// 1-based trace row, zero-padded to 4 digits (fmt's "job_%04d", built
// without fmt: results name every job).
func (s *JobSpec) Alias() string {
	row := int(s.ID) + 1
	if row < 0 { // no trace position; fmt pads after the sign
		return fmt.Sprintf("job_%04d", row)
	}
	if a, ok := cachedAlias(s.ID); ok {
		return a
	}
	return string(appendAlias(make([]byte, 0, 24), s.ID))
}

// The aliases of jobs 0…n−1, back to back ("job_0001job_0002…"), are one
// string shared by every run of the process, grown (under aliasMu) when a
// run has more jobs: a result names every job, and formatting the names
// anew in every run was a fifth of building a no-op run's results. Job
// id's alias starts at aliasOffset(id).
var (
	aliasMu  sync.Mutex
	aliasTab atomic.Pointer[aliasTable]
)

type aliasTable struct {
	n   int // jobs covered
	all string
}

// aliasesFor returns a table covering at least jobs 0…n−1.
func aliasesFor(n int) *aliasTable {
	if t := aliasTab.Load(); t != nil && t.n >= n {
		return t
	}
	aliasMu.Lock()
	defer aliasMu.Unlock()
	t := aliasTab.Load()
	if t != nil && t.n >= n {
		return t
	}
	from := 0
	if t != nil {
		from, n = t.n, max(n, 2*t.n) // doubling: a growing sweep formats each name about once
	}
	b := make([]byte, 0, aliasOffset(JobID(n)))
	if t != nil {
		b = append(b, t.all...)
	}
	for id := from; id < n; id++ {
		b = appendAlias(b, JobID(id))
	}
	t = &aliasTable{n: n, all: string(b)}
	aliasTab.Store(t)
	return t
}

// alias returns job id's alias; id must be below t.n.
func (t *aliasTable) alias(id JobID) string {
	return t.all[aliasOffset(id):aliasOffset(id+1)]
}

// cachedAlias returns job id's alias if the shared table covers it.
func cachedAlias(id JobID) (string, bool) {
	if t := aliasTab.Load(); t != nil && id >= 0 && int(id) < t.n {
		return t.alias(id), true
	}
	return "", false
}

// aliasOffset is where job id's alias starts in the table: the length of
// the aliases of rows 1…id, 8 bytes each ("job_" and 4 digits) and one
// more for each digit past 4 (every row from 10,000 on has a fifth, every
// row from 100,000 on a sixth, …).
func aliasOffset(id JobID) int {
	n := int(id)
	off := 8 * n
	for p := 10000; p <= n; p *= 10 {
		off += n - p + 1
	}
	return off
}

// appendAlias appends the Alias of a job with a non-negative ID.
func appendAlias(b []byte, id JobID) []byte {
	row := int(id) + 1
	b = append(b, "job_"...)
	for p := 1000; p > 1 && row < p; p /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(row), 10)
}

// Status is where a job is in its life (one byte: it shares a word of
// the Job with two other small fields).
type Status int8

const (
	NotArrived Status = iota
	Pending
	Running
	Finished
	Dropped
	// Failed: the job failed on its own more often than its retries
	// allow (Config.JobFailures) and was given up.
	Failed
)

func (s Status) String() string {
	if s < NotArrived || s > Failed {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

var statusNames = [...]string{"not-arrived", "pending", "running", "finished", "dropped", "failed"}

// Job is the engine's record of one job. Policies receive pointers to it
// in a View and must treat every field as read-only; the engine alone
// changes it, by applying the policy's Actions.
//
// Layout: the engine keeps every Job in one array, and a reconfiguration
// reads and writes the job's record in several passes (simulateBatch,
// commitBatch, setAlloc, advance, scheduleCompletion; each round's
// advance over the running jobs too): at a million jobs each is a cache
// miss per line of the record it touches. So the fields those passes use
// come first, in the record's first three 64-byte lines (up to rpos), the
// rest after, and the record is 320 bytes (five lines: the array's records
// start on a line; TestJobStateSize).
type Job struct {
	Spec   *JobSpec
	Status Status
	// change is the kind of the job's last start or reallocation, which
	// prices its overhead. queued: the job is in the engine's pending
	// queue (enqueue … dequeue). Both beside Status, in its word.
	change Change
	queued bool
	// netLocal: the job's network record (net) is in the state an
	// attachment on one node leaves (on no link, not crossing, rate and κ
	// 1, no network share) and iterTime is its base time, so a move to
	// other GPUs of the same one-node shape leaves both as they are
	// (setAlloc reads no jobNet then). Beside Status, in its word.
	netLocal bool
	typ      int32 // Cluster.Types index of Config.GPU (in Status's word)
	// GPUs are the slots held while running, in the order the policy gave.
	GPUs []int
	// Config is the shape of GPUs while running; once the job stops
	// (suspended, finished) the shape it last ran on, and the zero shape
	// before its first start.
	Config estimator.Config

	// exact-mode state (the round-close walk, advance, reads these
	// together). iterTime (and throughput, below) are the ground truth's
	// estimate of Config, set with it (setAlloc): the two figures of it
	// the engine uses.
	iterTime   float64
	remainingF float64 // iterations left (fractional)
	readyAt    Time    // end of the current reconfiguration
	lastUpdate Time
	// gpuSec is the job's GPU-second counter on typ, kept with the job
	// while typ is its type: engine.gpuSeconds holds the others
	// (addGPUSeconds). batch is Spec.Workload.Batch, set with typ.
	gpuSec, batch float64
	// ExecTime is the artifact's cumulative execution time (seconds; never
	// reset, see ARENA.md §6).
	ExecTime float64
	// Remaining is the iterations left at the last progress update.
	Remaining int64
	// Reconfigs counts starts and reallocations that cost overhead.
	Reconfigs  int
	completion *event
	// net is the job's place in the network (contention.go); nil on a
	// cluster without topology or before its first start.
	net *jobNet
	// id is Spec.ID, kept in the record so that the passes over moved
	// jobs read no JobSpec.
	id         JobID
	throughput float64
	// SubmitTime is when the job entered the system: the round timer in
	// artifact mode (as the artifact does), the trace time in exact mode.
	SubmitTime Time
	qpos, rpos int32 // tickets in the pending queue (if queued) and the running queue (if running): jobQueue

	// Iterations is the job's whole work: the trace's count ÷
	// Config.IterationScale, set on arrival and never changed (jobs.parquet's
	// `iterations`, the denominator of Progress).
	Iterations int64
	// IterNum is the artifact's iter_num: Iterations at arrival, reset to
	// Remaining on suspension (the artifact's progress accounting,
	// ARENA.md §6; not the job's total).
	IterNum int64
	// Deadline as the engine tracks it (artifact scaling applied).
	Deadline Time
	// FirstStart, Finish: simulated instants; −1 when not yet.
	FirstStart, Finish Time
	// Rescheds counts rounds in which the job was detected as rescheduled.
	Rescheds int
	// TimeDebt is the artifact's overhead "time debt" still owed (seconds);
	// while positive the job skips progress updates (artifact timing only).
	TimeDebt Duration
	// queueTime is QueueTime but for the spell in the pending queue under
	// way in artifact timing: since step queuedAt of queue (nil when none).
	queueTime float64
	queue     *queueClock
	// heldSince is when the job's GPUs last changed: the start of its
	// holding of GPUs (the Recorder's Holding).
	heldSince Time
	// heldReady is readyAt as the holding began (Holding.Ready).
	heldReady    Time
	pendingSince Time
	queuedAt     int32 // see queueTime
	_            [28]byte
}

// QueueTime is the time spent pending, seconds. In artifact timing it is
// the artifact's: one round length for every decision after which the job
// was in the pending queue. In exact timing it covers the waits that ended
// with a start, and at the end of the run the wait still under way.
func (j *Job) QueueTime() float64 {
	if j.queue == nil {
		return j.queueTime
	}
	return accrue(j.queueTime, j.queue.steps-int(j.queuedAt), j.queue.step)
}

// queueClock counts artifact timing's queue-time steps: after each decision
// every job in the pending queue accrues step seconds. One tick covers the
// whole queue; a job adds up its steps when asked (QueueTime) or when it
// leaves the queue.
type queueClock struct {
	steps int
	step  float64
}

// accrue returns q with n steps of L added one at a time, as the artifact
// sums queue time. When q and L are whole numbers and the total is below
// 2^53, every partial sum is a whole number below 2^53 and so exact in
// float64: one multiplication gives the very same value (the artifact's
// 300-s rounds). Otherwise the additions are made one by one.
func accrue(q float64, n int, L float64) float64 {
	if sum := q + float64(n)*L; q == math.Trunc(q) && L == math.Trunc(L) && sum < 1<<53 {
		return sum
	}
	for ; n > 0; n-- {
		q += L
	}
	return q
}

// Progress is the fraction of the job's iterations done, in [0, 1]:
// 1 − Remaining/Iterations.
func (j *Job) Progress() float64 {
	total := j.Iterations
	if total <= 0 {
		return 1
	}
	return 1 - float64(j.Remaining)/float64(total)
}
