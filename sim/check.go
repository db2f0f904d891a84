package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/arena-sim/arena/estimator"
)

// invariantf reports an invariant violation, wrapping ErrInvariant.
func (e *engine) invariantf(format string, args ...any) error {
	return fmt.Errorf("%w at round %d (t=%.0f): %s", ErrInvariant, e.round, float64(e.now), fmt.Sprintf(format, args...))
}

// checkState asserts the engine's invariants (DESIGN.md "Engine semantics"):
// no GPU held twice and the slot table agrees with every job, every
// allocation is a feasible grid, queues hold each job once with the right
// status, and remaining work never grows except where the artifact's
// cumulative accounting re-values past time after a reallocation.
func (e *engine) checkState() error {
	held := make([]JobID, len(e.occupant))
	for i := range held {
		held[i] = NoJob
	}
	inQueue := map[JobID]string{}
	for _, j := range e.runq.jobs {
		id := j.Spec.ID
		if q, dup := inQueue[id]; dup {
			return e.invariantf("job %s is in the running queue and the %s queue", j.Spec.Alias(), q)
		}
		inQueue[id] = "running"
		if j.Status != Running {
			return e.invariantf("job %s is in the running queue with status %s", j.Spec.Alias(), j.Status)
		}
		if len(j.GPUs) == 0 {
			return e.invariantf("running job %s holds no GPU", j.Spec.Alias())
		}
		for _, s := range j.GPUs {
			if held[s] != NoJob {
				return e.invariantf("GPU %d is held twice: by %s and %s", s, e.jobs[held[s]].Spec.Alias(), j.Spec.Alias())
			}
			held[s] = id
			if e.occupant[s] != id {
				return e.invariantf("GPU %d: slot table says %v, job %s claims it", s, e.occupant[s], j.Spec.Alias())
			}
		}
		cfg, ok := e.cfg.Cluster.ShapeOf(j.GPUs)
		if !ok || cfg != j.Config {
			return e.invariantf("job %s: GPUs form %v, recorded config %v", j.Spec.Alias(), cfg, j.Config)
		}
		est := e.cfg.Exec.Estimate(j.Spec.Workload, cfg)
		if !est.Feasible() {
			return e.invariantf("job %s runs on infeasible grid %v", j.Spec.Alias(), cfg)
		}
		// The rate the job runs at is its config's estimate (setAlloc
		// keeps the last one when a move keeps the shape).
		if e.net == nil && (est.Throughput != j.throughput || est.IterTime != j.iterTime) {
			return e.invariantf("job %s on %v runs at %v samples/s, %v s an iteration; its estimate is %v, %v", j.Spec.Alias(), cfg, j.throughput, j.iterTime, est.Throughput, est.IterTime)
		}
		// With contention the estimator's time is the network's base
		// (setAlloc keeps it too when a move keeps the shape).
		if e.net != nil {
			base := math.NaN()
			if j.net != nil {
				base = j.net.base
			}
			if est.Throughput != j.throughput || est.IterTime != base {
				return e.invariantf("job %s on %v runs at %v samples/s, %v s an iteration before contention; its estimate is %v, %v", j.Spec.Alias(), cfg, j.throughput, base, est.Throughput, est.IterTime)
			}
		}
	}
	for s, occ := range e.occupant {
		if occ == Unavailable && held[s] == NoJob && e.flt != nil {
			continue // checkFaults checks its node
		}
		if occ != held[s] {
			return e.invariantf("GPU %d: slot table says job %v but no running job holds it", s, occ)
		}
	}
	for _, j := range e.pendq.jobs {
		id := j.Spec.ID
		if q, dup := inQueue[id]; dup {
			return e.invariantf("job %s is in the pending queue and the %s queue", j.Spec.Alias(), q)
		}
		inQueue[id] = "pending"
		if j.Status != Pending || len(j.GPUs) != 0 {
			return e.invariantf("pending job %s has status %s and %d GPUs", j.Spec.Alias(), j.Status, len(j.GPUs))
		}
	}
	for _, j := range e.jobs {
		id := j.Spec.ID
		if j.Status == NotArrived || j.Status == Finished || j.Status == Dropped || j.Status == Failed {
			if len(j.GPUs) != 0 {
				return e.invariantf("%s job %s still holds GPUs", j.Status, j.Spec.Alias())
			}
			continue
		}
		// Remaining work never grows: in exact timing at all, in artifact
		// timing only in a progress update that ran on another
		// configuration than the job's previous one (the cumulative
		// exec_time re-valued at the new speed, ARENA.md §6).
		if j.Remaining > e.lastRemain[id] && (e.cfg.Timing == Exact || !e.revalued[id]) {
			return e.invariantf("job %s: remaining iterations grew from %d to %d", j.Spec.Alias(), e.lastRemain[id], j.Remaining)
		}
		if j.Remaining > j.IterNum || j.IterNum > j.Iterations {
			return e.invariantf("job %s: remaining %d, iter_num %d, iterations %d: want remaining ≤ iter_num ≤ iterations",
				j.Spec.Alias(), j.Remaining, j.IterNum, j.Iterations)
		}
		e.lastRemain[id] = j.Remaining
		e.revalued[id] = false
	}
	// The engine's count of held GPUs by type (the digest's and the
	// timeline's) is the running jobs' GPUs (checked last: a fault the
	// checks above name also breaks it).
	heldBy := make([]int, len(e.cfg.Cluster.Types))
	for _, j := range e.runq.jobs {
		heldBy[j.typ] += len(j.GPUs)
	}
	if !slices.Equal(heldBy, e.heldBy) {
		return e.invariantf("the running jobs hold %v GPUs by type, the engine counts %v", heldBy, e.heldBy)
	}
	if e.net != nil {
		if err := e.checkNetwork(); err != nil {
			return err
		}
	}
	if e.flt != nil {
		return e.checkFaults()
	}
	return nil
}

// checkClock asserts that time never goes back: an event is never earlier
// than the clock.
func (e *engine) checkClock(at Time) error {
	if at < e.now {
		return e.invariantf("event at %v is earlier than the clock %v", at, e.now)
	}
	return nil
}

// jobSnapshot is what a policy saw of a job (Check mode), to catch a
// policy that changes a Job through the pointers of its View.
type jobSnapshot struct {
	j    *Job
	spec JobSpec
	pub  jobPublic
	gpus []int
}

// jobPublic is the part of Job a policy can reach.
type jobPublic struct {
	Status                                Status
	Config                                estimator.Config
	SubmitTime, Deadline, FirstStart, End Time
	Iterations, IterNum, Remaining        int64
	ExecTime, QueueTime                   float64
	Reconfigs, Rescheds                   int
	TimeDebt                              Duration
}

func publicOf(j *Job) jobPublic {
	return jobPublic{j.Status, j.Config, j.SubmitTime, j.Deadline, j.FirstStart, j.Finish,
		j.Iterations, j.IterNum, j.Remaining, j.ExecTime, j.QueueTime(), j.Reconfigs, j.Rescheds, j.TimeDebt}
}

// snapshotJobs records every job a View reaches (Check mode).
func (e *engine) snapshotJobs(v *View) {
	e.seen = e.seen[:0]
	for _, q := range [][]*Job{v.Running, v.Pending, v.Arrivals, v.Ended} {
		for _, j := range q {
			e.seen = append(e.seen, jobSnapshot{j: j, spec: *j.Spec, pub: publicOf(j), gpus: append([]int(nil), j.GPUs...)})
		}
	}
}

// checkUnchanged asserts that the policy changed none of the jobs it saw
// (their slices are the engine's; the View's queues are copies).
func (e *engine) checkUnchanged() error {
	for _, s := range e.seen {
		j := s.j
		if *j.Spec != s.spec || publicOf(j) != s.pub || !slices.Equal(j.GPUs, s.gpus) {
			return e.invariantf("policy %s modified job %s during its decision (a View is read-only)", e.policy.Name(), j.Spec.Alias())
		}
	}
	return nil
}

// checkAccounted asserts, at the end of a run, that exactly the jobs
// submitted inside the window arrived (recomputed from the specs), that
// queues and statuses agree, and that every finished job has its JCT.
func (e *engine) checkAccounted() error {
	arrives := e.arrivesInWindow()
	counts := map[Status]int{}
	for i, j := range e.jobs {
		counts[j.Status]++
		if (j.Status != NotArrived) != arrives[i] {
			return e.invariantf("end of run: job %s is %s but was submitted %s the window",
				j.Spec.Alias(), j.Status, map[bool]string{true: "inside", false: "outside"}[arrives[i]])
		}
	}
	if counts[Running] != len(e.runq.jobs) || counts[Pending] != len(e.pendq.jobs) {
		return e.invariantf("end of run: %d running / %d pending jobs by status, queues hold %d / %d",
			counts[Running], counts[Pending], len(e.runq.jobs), len(e.pendq.jobs))
	}
	if counts[Finished] != len(e.res.JCTs) {
		return e.invariantf("end of run: %d finished jobs, %d JCTs recorded", counts[Finished], len(e.res.JCTs))
	}
	return nil
}

// arrivesInWindow says, from the specs alone, which jobs a run of
// cfg.Rounds rounds admits: exact timing those submitted before the
// horizon; artifact timing those whose chunk (the file-order walk) is
// below the round count.
func (e *engine) arrivesInWindow() []bool {
	in := make([]bool, len(e.specs))
	horizon := e.t0.Add(Duration(e.cfg.Rounds) * e.cfg.RoundLength)
	k := 0
	for i := range e.specs {
		if e.cfg.Timing == Exact {
			in[i] = e.specs[i].Submit < horizon
			continue
		}
		k = max(k, e.chunkOf(e.specs[i].Submit))
		in[i] = k < e.cfg.Rounds
	}
	return in
}
