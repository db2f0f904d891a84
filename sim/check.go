package sim

import (
	"fmt"
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
	for _, j := range e.running {
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
		if !e.cfg.Exec.Estimate(j.Spec.Workload, cfg).Feasible() {
			return e.invariantf("job %s runs on infeasible grid %v", j.Spec.Alias(), cfg)
		}
	}
	for s, occ := range e.occupant {
		if occ != held[s] {
			return e.invariantf("GPU %d: slot table says job %v but no running job holds it", s, occ)
		}
	}
	for _, j := range e.pending {
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
		if j.Status == NotArrived || j.Status == Finished || j.Status == Dropped {
			if len(j.GPUs) != 0 {
				return e.invariantf("%s job %s still holds GPUs", j.Status, j.Spec.Alias())
			}
			continue
		}
		if j.Remaining > e.lastRemain[id] && j.Config == j.LastConfig && e.cfg.Timing == Exact {
			return e.invariantf("job %s: remaining iterations grew from %d to %d", j.Spec.Alias(), e.lastRemain[id], j.Remaining)
		}
		if e.cfg.Timing == Artifact && j.Remaining > j.IterNum {
			return e.invariantf("job %s: remaining %d exceeds its iteration count %d", j.Spec.Alias(), j.Remaining, j.IterNum)
		}
		e.lastRemain[id] = j.Remaining
	}
	return nil
}

// checkAccounted asserts, at the end of a run, that every submitted job is
// in exactly one final state and every queue member is accounted for.
func (e *engine) checkAccounted() error {
	counts := map[Status]int{}
	for _, j := range e.jobs {
		counts[j.Status]++
	}
	if counts[Running] != len(e.running) || counts[Pending] != len(e.pending) {
		return e.invariantf("end of run: %d running / %d pending jobs by status, queues hold %d / %d",
			counts[Running], counts[Pending], len(e.running), len(e.pending))
	}
	if counts[Finished] != len(e.res.JCTs) {
		return e.invariantf("end of run: %d finished jobs, %d JCTs recorded", counts[Finished], len(e.res.JCTs))
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != len(e.jobs) {
		return e.invariantf("end of run: %d jobs accounted for, %d submitted", total, len(e.jobs))
	}
	return nil
}
