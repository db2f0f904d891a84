package sim

import (
	"fmt"
	"strings"

	"github.com/arena-sim/arena/estimator"
)

// Policy decides, at each scheduling point, what the cluster should do. It
// reads a View (which it must not modify) and returns Actions; the engine
// validates them and applies them all at once, or rejects the batch.
// A policy instance serves one run and may keep state between calls.
type Policy interface {
	Name() string
	Schedule(v *View) ([]Action, error)
}

// ThroughputReporter is an artifact-fidelity hook: an optional capability
// that exists so a port of an artifact policy reproduces its stored runs; a
// new policy need not implement it. It is consulted in artifact timing only. The artifact prices each running job's share of a
// round's reported cluster throughput through its policy's own gain
// function, so a policy can make a running job count zero samples/s there
// (arena-ddl does for a job that can no longer meet its deadline); the
// job's progress is unaffected. v.Now is the round's own timer (the
// artifact's check sees the time before the round's 300-s advance: with the
// advanced timer 55 of the 2000 arena-ddl Philly rounds differ).
type ThroughputReporter interface {
	ReportsThroughput(v *View, j *Job) bool
}

// BudgetReporter is an optional capability of a policy that searches under
// a deterministic budget (nodes, iterations; never wall time): how many of
// its searches the budget stopped, so an incumbent rather than a proven
// optimum was used. It lands in summary.json as solver_budget_hits.
type BudgetReporter interface {
	BudgetHits() int
}

// AssertionReporter is an artifact-fidelity hook: an optional capability
// of a policy ported from an artifact that asserts invariants of its own
// search. Where such an assertion fails in artifact timing, the artifact
// itself would have stopped with an error, so there is no artifact
// behaviour to reproduce; the policy continues as it does in exact timing
// (skipping the case) and counts it. The count lands in summary.json as
// artifact_assertions_failed: 0 on the artifact's own traces (the
// fidelity tests check it), and non-zero flags a run whose artifact-timing
// results the artifact could not have produced.
type AssertionReporter interface {
	ArtifactAssertionsFailed() int
}

// WorkloadChecker is an optional capability of a policy that is given data
// about the jobs before it sees them (a tenants file naming their virtual
// clusters): the engine calls CheckWorkload with the run's jobs before the
// first decision, and an error stops the run before it starts — input
// that names nothing in the trace is refused, not simulated as if absent.
type WorkloadChecker interface {
	CheckWorkload(jobs []JobSpec) error
}

// QuietRounds is an optional capability of a policy. A policy whose
// IdleWhenQuiet returns true promises that a decision with no arrivals and
// no ended jobs returns no action and changes nothing its later decisions
// depend on (state it derives again from a later View is fine: a pending
// job's deadline that passed in a skipped round is seen as passed at the
// next call). The engine then skips such decisions — no View is built and
// Schedule is not called — so the rounds of a long trace where nothing
// arrives or finishes cost next to nothing. A skipped decision counts as
// one of 0 ns in the decision-latency figures. Preemptive policies, which
// act on elapsed time every round, do not implement it.
type QuietRounds interface {
	IdleWhenQuiet() bool
}

// ViewReader is an optional capability of a policy. A policy whose
// ReadsViewOnly returns true promises never to write to a View's slices
// (Occupant, BeforeRelease and the queues): no sort, no element changed.
// The engine then hands it its own slices instead of copies, capped at
// their length so an append by the policy reallocates rather than
// overwrites. That saves copying the whole pending queue at every decision,
// which on a long overloaded trace (tens of thousands of pending jobs) is
// most of the engine's own cost. With Config.Check the engine verifies the
// promise after every decision and fails the run on a broken one. A policy
// that does not implement it gets copies it may edit, as the View
// documents.
type ViewReader interface {
	ReadsViewOnly() bool
}

// ActionKind enumerates what a policy can ask for.
type ActionKind int

const (
	// Start runs a pending job (or one that arrived this round) on GPUs.
	Start ActionKind = iota
	// Reallocate moves a running job to other GPUs: resize, migrate or
	// change GPU type. Its place in the running queue is kept.
	Reallocate
	// Suspend stops a running job and puts it at the end of the pending
	// queue; its progress is kept.
	Suspend
	// Drop removes a pending job or an arrival for good.
	Drop
)

func (k ActionKind) String() string {
	if k < Start || k > Drop {
		return fmt.Sprintf("ActionKind(%d)", int(k))
	}
	return [...]string{"start", "reallocate", "suspend", "drop"}[k]
}

// Action is one request of a policy. GPUs are global slot numbers
// (Cluster.Nodes[n].FirstSlot + i) for Start and Reallocate.
type Action struct {
	Kind ActionKind
	Job  JobID
	GPUs []int
	// Reason is free text for logs (why a job was dropped, …).
	Reason string
}

// View is what a policy sees at a scheduling point. The View and its
// slices (Occupant, BeforeRelease and the queues) are the engine's, reused
// from call to call: a policy may sort or edit the slices, which are
// copies, but must keep neither the View nor them past the call. (A
// policy that implements ViewReader gets the engine's own slices and must
// not write to them.) The Jobs they point to are the engine's and
// read-only; with Config.Check a policy that changes one fails the run.
type View struct {
	// Now is the simulated time of the decision; Round its round number.
	Now   Time
	Round int
	// RoundLength is the scheduling interval.
	RoundLength Duration
	Cluster     *Cluster
	// Occupant holds, per GPU slot, the job using it or NoJob. GPUs of jobs
	// in Ended are already released.
	Occupant []JobID
	// BeforeRelease is an artifact-fidelity hook (a new policy ignores it):
	// the slot table as the previous decision left it:
	// Occupant before the GPUs of Ended jobs were released (Arena's
	// node-swap fix-up compares against it). In both timing modes.
	BeforeRelease []JobID
	// Running lists running jobs in running-queue order (start order).
	Running []*Job
	// Pending lists waiting jobs in pending-queue order. Arrivals are not in it.
	Pending []*Job
	// Arrivals are the jobs submitted since the last decision: in submission
	// order, ties in trace order (exact); in trace order (artifact).
	// Those the policy neither starts nor drops join the pending queue's end.
	Arrivals []*Job
	// Ended are the jobs that finished since the last decision.
	Ended []*Job
	// Timing is the engine's timing mode; some artifact quirks depend on it.
	Timing Timing
	// Nodes is each node's availability, in Cluster.Nodes order; nil in a
	// run without cluster events and checkpoints (every node available).
	// The free slots of a node that is not available read Unavailable in
	// Occupant; a job keeps running on a draining node until its notice
	// expires (Until), when it is interrupted unless moved or suspended.
	Nodes []NodeAvail
	// Interrupted are the jobs cluster events stopped since the last
	// decision, in the order they were stopped. They are in Pending
	// already (at its end), having lost the progress since their last
	// checkpoint; nil in a run without faults.
	Interrupted []*Job
	// NodesChanged: some node's availability changed since the last
	// decision (a node went down, came back, was drained or reclaimed):
	// capacity may have appeared or a notice started.
	NodesChanged bool

	jobs []*Job
	// Written's answer (set by the engine for a decision's View).
	seq      uint64
	wrote    []int32
	wroteAll bool
	// trackWrites is the engine's: the first Written call sets it, and
	// the engine lists written slots from then on.
	trackWrites *bool
}

// Written reports which slots of Occupant the engine wrote since it built
// the previous decision's View, so that a policy keeping its own copy of
// the slot table across decisions can bring it up to date by rewriting
// those slots (and the ones it wrote itself) instead of comparing the
// whole table. seq numbers the engine's decisions 1, 2, … (a decision the
// engine skips, QuietRounds, builds no View and takes no number); a copy
// refreshed from the View numbered seq−1 differs from this Occupant at most
// in slots (and its own writes). slots may repeat a slot and is read-only,
// valid during the call. all: too many slots were written to list, treat
// every slot as written. A View the engine did not build (a literal in a
// test) reports seq 0: nothing is known, compare the whole table. A wrapper
// that hands its inner policy a copy of the View must keep Occupant as the
// engine's (or build a fresh View, which reports seq 0). The engine lists
// written slots only once some decision has called Written: the first call
// of a run reports all.
func (v *View) Written() (seq uint64, slots []int32, all bool) {
	if v.trackWrites != nil {
		*v.trackWrites = true
	}
	return v.seq, v.wrote, v.wroteAll
}

// Job returns the job with the given ID.
func (v *View) Job(id JobID) *Job { return v.jobs[id] }

// NumJobs returns the number of jobs of the run: their IDs are 0, 1, …,
// NumJobs()−1, so a policy can size a table indexed by job ID once.
func (v *View) NumJobs() int { return len(v.jobs) }

// FreeGPUs returns the number of idle slots on node n.
func (v *View) FreeGPUs(n int) int {
	node := v.Cluster.Nodes[n]
	free := 0
	for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
		if v.Occupant[s] == NoJob {
			free++
		}
	}
	return free
}

// Quiet reports whether nothing happened since the last decision that a
// policy acting on events must see: no arrival, no ended job, no
// interruption, no change of node availability. (Policies that implement
// QuietRounds return early on it.)
func (v *View) Quiet() bool {
	return len(v.Ended) == 0 && len(v.Arrivals) == 0 && len(v.Interrupted) == 0 && !v.NodesChanged
}

// UsableGPUs is the GPUs of type gpu a decision may plan with: every GPU
// of the type but the free ones of nodes that take no new job (down,
// draining, reclaimed). Without faults, Cluster.TotalGPUs.
func (v *View) UsableGPUs(gpu string) int {
	n := v.Cluster.TotalGPUs(gpu)
	if v.Nodes == nil {
		return n
	}
	for _, i := range v.Cluster.NodesOfType(gpu) {
		if v.Nodes[i].State == NodeAvailable {
			continue
		}
		node := v.Cluster.Nodes[i]
		for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
			if v.Occupant[s] == Unavailable {
				n--
			}
		}
	}
	return n
}

// Available reports whether node n takes new jobs (not down, draining or
// reclaimed).
func (v *View) Available(n int) bool {
	return v.Nodes == nil || v.Nodes[n].State == NodeAvailable
}

// ActionError is the engine's rejection of a policy's action.
type ActionError struct {
	Policy string
	Round  int // the decision's round
	Action Action
	Job    string // alias and name of the job
	Msg    string
}

func (e *ActionError) Error() string {
	gpus := ""
	if len(e.Action.GPUs) > 0 {
		parts := make([]string, len(e.Action.GPUs))
		for i, g := range e.Action.GPUs {
			parts[i] = fmt.Sprint(g)
		}
		gpus = " GPUs [" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprintf("sim: policy %s, round %d: invalid %s of job %s%s: %s", e.Policy, e.Round, e.Action.Kind, e.Job, gpus, e.Msg)
}

// Execution is what the engine needs from an estimator: the ground truth.
type Execution = estimator.Estimator
