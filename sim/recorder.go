package sim

// Recorder receives what a run produced, as the engine produces it, and
// keeps what it wants: the engine owns the clock, the jobs and the summary
// figures (Result's counts and lists of one value per job); a Recorder owns
// the records (the rows of the results files). The default one,
// ResultRecorder, builds Result's Jobs, Timeline, Allocations, Digest and
// fault records; a caller may plug its own in Config.Recorder (a streaming
// writer, one that keeps nothing), or several with Tee.
//
// The engine calls the methods from the goroutine running the run, in
// simulated-time order: Begin first, then RoundStart, RoundEnd, JobEnd,
// Hold and NodeEvent as the run goes, then Jobs, with the job table a part
// at a time. Times are seconds of simulated time (Time), slots are global
// GPU slot numbers (Cluster). A pointer or slice argument belongs to the
// engine and is valid only during the call: a Recorder that keeps it
// copies it. A Recorder changes nothing of the run: what the engine
// computes, and so the summary, does not depend on it.
//
// Embed NopRecorder to implement only some of the methods (as a Kubernetes
// scheduler plugin implements only its extension points).
type Recorder interface {
	// Begin is called once, before anything else, with what the run is.
	Begin(*RunInfo)
	// RoundStart is the state at the start of a round, before its progress
	// update and its decision: the artifact's per-round digest row (Ended
	// is empty: JobEnd reports the ends).
	RoundStart(*DigestRow)
	// RoundEnd is a round's window once it has closed: its throughput
	// (samples/s) and the GPUs held right after its decision
	// (timeline.parquet's row). Busy is per type, in Cluster.Types order.
	RoundEnd(*RoundRecord)
	// JobEnd reports that job id finished at time at, in the order jobs
	// finish (the order of Result.JCTs).
	JobEnd(id JobID, at Time)
	// Hold reports that a job stopped holding a set of GPUs: its
	// allocation changed, it ended, was suspended or interrupted, or the
	// run reached its horizon (holdings still open then end there, in job
	// order). Holdings of no simulated time are not reported.
	Hold(*Holding)
	// NodeEvent is a cluster event the fault model applied
	// (availability.parquet's row); only in runs with the fault model.
	NodeEvent(*AvailRecord)
	// Jobs is a part of the job table, after the run: each submitted
	// job's record as the run leaves it (finished, or as it stands at the
	// horizon). The engine calls it once or more (at least once, if only
	// with an empty table), with consecutive parts in trace order, each of
	// at most a thousand-odd records: one after the other, they are the
	// table. faults is parallel to jobs, each job's fault accounting, nil
	// in a run without the fault model. Like every argument, both belong to
	// the engine and are valid during the call only (the engine reuses
	// them for the next part): a recorder that keeps them copies them. In
	// parts rather than a call per job, as a JobRecord is 200-odd bytes,
	// built in place once; in parts rather than whole, so that a recorder
	// that streams the table (resultsdir.JobStream) keeps no table at all.
	Jobs(jobs []JobRecord, faults []JobFaultRecord)
}

// RunInfo is what a run is, as Recorder.Begin gets it.
type RunInfo struct {
	Policy  string
	Cluster *Cluster
	Timing  Timing
	// Rounds is the run's rounds as configured (an until-done run may
	// add rounds past it); RoundLength the length of one.
	Rounds      int
	RoundLength Duration
	// T0 is round 0's instant (Result.Start).
	T0 Time
	// Jobs is the trace's number of jobs (not all may arrive).
	Jobs int
	// Faults: the run has the fault model (NodeEvent and the Job calls'
	// fault records).
	Faults bool
}

// Holding is a job holding GPU slots over [Since, Until).
type Holding struct {
	Job          JobID
	GPUs         []int // as the job was given them, in no particular order
	Since, Until Time
	// Ready is when the job began to compute on these GPUs, in [Since,
	// Until]: before it the job paid its overhead (start, restart, resize,
	// migration, profiling, checkpoint restore) and made no progress.
	// Exact timing; Since in artifact timing, which owes overhead as
	// time debt across rounds instead.
	Ready Time
}

// NopRecorder keeps nothing. A Recorder embeds it to implement only the
// methods it needs; on its own it is the recorder of a caller that wants
// the summary alone.
type NopRecorder struct{}

func (NopRecorder) Begin(*RunInfo)                     {}
func (NopRecorder) RoundStart(*DigestRow)              {}
func (NopRecorder) RoundEnd(*RoundRecord)              {}
func (NopRecorder) JobEnd(JobID, Time)                 {}
func (NopRecorder) Hold(*Holding)                      {}
func (NopRecorder) NodeEvent(*AvailRecord)             {}
func (NopRecorder) Jobs([]JobRecord, []JobFaultRecord) {}

// Tee returns a Recorder that hands every call to each of rs in turn.
func Tee(rs ...Recorder) Recorder { return tee(rs) }

type tee []Recorder

func (t tee) Begin(i *RunInfo) {
	for _, r := range t {
		r.Begin(i)
	}
}

func (t tee) RoundStart(d *DigestRow) {
	for _, r := range t {
		r.RoundStart(d)
	}
}

func (t tee) RoundEnd(row *RoundRecord) {
	for _, r := range t {
		r.RoundEnd(row)
	}
}

func (t tee) JobEnd(id JobID, at Time) {
	for _, r := range t {
		r.JobEnd(id, at)
	}
}

func (t tee) Hold(h *Holding) {
	for _, r := range t {
		r.Hold(h)
	}
}

func (t tee) NodeEvent(a *AvailRecord) {
	for _, r := range t {
		r.NodeEvent(a)
	}
}

func (t tee) Jobs(jobs []JobRecord, faults []JobFaultRecord) {
	for _, r := range t {
		r.Jobs(jobs, faults)
	}
}
