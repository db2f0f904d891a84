package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// JobFailureCause is the cause recorded (summary's by_cause, the
// interruption counts) for a job's failure of its own.
const JobFailureCause = "job-failure"

// JobFailures is the seeded model of jobs that fail on their own: a crash,
// a loss that turns NaN, an out-of-memory — a user's or a library's fault,
// not the cluster's. Each job's failures are a Poisson process over the
// time it holds GPUs (a running job fails at rate 1/MTBF, a pending one
// never), as the job-level failure rates of Philly and Helios are reported
// per running hour. A failed job loses the work since its last checkpoint,
// as after a node failure, and is restarted up to Retries times (it joins
// the end of the pending queue; the policy decides where it runs again and
// the restart pays the overhead profile's cost plus the checkpoint's
// restore); its next failure ends it for good (Status Failed).
//
// The draws are common random numbers: the k-th failure of job i comes
// after the same running time under every policy (a stream per job and
// failure, from Seed), so policies are compared on the same bad luck.
type JobFailures struct {
	// MTBF is a job's mean running time between failures of its own,
	// seconds; 0 = none.
	MTBF Duration
	// Retries is how many times a failed job is restarted; 0 = a job's
	// first failure ends it.
	Retries int
	// Seed seeds the draws.
	Seed uint64
}

// Validate checks the model's values.
func (m JobFailures) Validate() error {
	switch {
	case math.IsNaN(float64(m.MTBF)) || math.IsInf(float64(m.MTBF), 0) || m.MTBF < 0:
		return fmt.Errorf("job failures: mean time between failures %v: want finite seconds ≥ 0", float64(m.MTBF))
	case m.Retries < 0:
		return fmt.Errorf("job failures: retries %d: want 0 or more", m.Retries)
	}
	return nil
}

// draw is the running time, seconds, from job id's k-th (re)start after a
// failure (k = 0: its first start) to its next failure.
func (m JobFailures) draw(id JobID, k int) float64 {
	// One PCG stream per (job, failure): the same under every policy
	// whatever else the run draws.
	r := rand.New(rand.NewPCG(m.Seed^0x6a6f622d6661696c, uint64(id)<<20|uint64(k)&(1<<20-1)))
	return r.ExpFloat64() * float64(m.MTBF)
}

// scheduleJobFailure (re)schedules running job j's next failure of its
// own, failLeft seconds of running after its last update.
func (e *engine) scheduleJobFailure(j *Job) {
	jf := &e.flt.jobs[j.Spec.ID]
	if jf.failEv != nil {
		e.events.remove(jf.failEv)
	}
	at := j.lastUpdate.Add(Duration(math.Max(jf.failLeft, 0)))
	jf.failEv = &event{at: max(at, e.now), kind: evJobFailure, job: j}
	e.events.push(jf.failEv)
}

// cancelJobFailure removes j's pending failure event, if any.
func (e *engine) cancelJobFailure(j *Job) {
	if e.flt == nil {
		return
	}
	if jf := &e.flt.jobs[j.Spec.ID]; jf.failEv != nil {
		e.events.remove(jf.failEv)
		jf.failEv = nil
	}
}

// jobFailure handles running job j's failure of its own: it is
// interrupted as by a node failure (work since its last checkpoint lost,
// back to the pending queue), or, past its retries, given up: out of every
// queue with Status Failed, among the ended jobs the next decision sees.
func (e *engine) jobFailure(j *Job) {
	f := e.flt
	jf := &f.jobs[j.Spec.ID]
	jf.failEv = nil
	f.stat(JobFailureCause).events++
	e.interrupt(j, JobFailureCause)
	jf.failures++
	jf.failLeft = f.jobFailures.draw(j.Spec.ID, jf.failures)
	if jf.failures <= f.jobFailures.Retries {
		return
	}
	// Given up: interrupt queued it and listed it as interrupted (a job
	// a policy may restart); it is neither now.
	e.dequeue(j)
	f.interrupted = f.interrupted[:len(f.interrupted)-1]
	jf.restore = false
	j.Status = Failed
	j.Finish = e.now
	f.gaveUp++
	e.ended = append(e.ended, j)
}
