// Package preemptive is the mechanism shared by the classic single-type
// priority policies (policy/tiresias, policy/srtf). Such a policy only
// decides an order of the jobs; this package turns the order into actions:
//
//   - every job runs on exactly the GPU type and count its user asked for;
//     a new job that cannot run there even at the best locality (under the
//     estimator the policy decides with) is dropped on arrival, as FCFS does;
//   - per GPU type, the jobs are admitted greedily in priority order while
//     their GPU counts fit the type's total (a job that does not fit is
//     skipped and later, smaller jobs may still be admitted);
//   - running jobs that were not admitted are suspended (they rejoin the
//     pending queue; progress is kept);
//   - admitted jobs that are not running are placed in priority order on
//     the GPUs left idle: best locality on the nodes with the most idle
//     GPUs, else the relaxed localities. A job that cannot be placed because
//     of fragmentation waits for the next round. Running jobs are never
//     moved.
//
// The reconfiguration overhead of every start (and restart) is the engine's
// business: it charges the policy's registered overhead.
//
// A policy that admits the jobs itself, without an order of every live job
// (the incremental decisions of policy/tiresias and policy/srtf, which
// visit only the jobs they admit), hands the rest — suspensions and
// placements — to Scheduler's Begin, Keep and Act.
package preemptive

import (
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Runnable reports whether j can run on its requested type and count at
// the best locality of cluster c.
func Runnable(c *sim.Cluster, est estimator.Estimator, j *sim.Job) bool {
	best := placement.Best(c, j.Spec.GPU, j.Spec.GPUs)
	return best.PerNode > 0 && est.Estimate(j.Spec.Workload, best).Feasible()
}

// Live returns the jobs a priority policy orders this round — running,
// pending and arrived jobs, in that order — and Drop actions for the
// arrivals that can never run.
func Live(v *sim.View, est estimator.Estimator) ([]*sim.Job, []sim.Action) {
	jobs := make([]*sim.Job, 0, len(v.Running)+len(v.Pending)+len(v.Arrivals))
	jobs = append(jobs, v.Running...)
	jobs = append(jobs, v.Pending...)
	var drops []sim.Action
	for _, j := range v.Arrivals {
		if !Runnable(v.Cluster, est, j) {
			drops = append(drops, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality on the requested GPUs"})
			continue
		}
		jobs = append(jobs, j)
	}
	return jobs, drops
}

// Schedule returns the actions that run the jobs of order (best first; as
// returned by Live, reordered by the policy) as described in the package
// comment: suspensions first, then starts in priority order.
func Schedule(v *sim.View, est estimator.Estimator, order []*sim.Job) []sim.Action {
	var s Scheduler
	return s.Schedule(v, est, order)
}

// Scheduler is Schedule with storage kept from one decision to the next:
// its slot table, refilled from each View (placement.Table.Refill rewrites
// only the slots that changed, so the table's idle-slot index is not
// rebuilt), and its per-decision scratch. A policy keeps one for its life.
type Scheduler struct {
	table  placement.Table
	starts []*sim.Job // the admitted jobs that are not running
	keepAt []uint64   // keepAt[id] == gen: running job id is admitted
	gen    uint64
}

// Schedule is the package's Schedule on s's storage.
func (s *Scheduler) Schedule(v *sim.View, est estimator.Estimator, order []*sim.Job) []sim.Action {
	// GPUs left per type, in Cluster.Types order (a few types: a linear
	// search is cheaper than hashing the name for every job in order).
	types := v.Cluster.Types
	left := make([]int, len(types))
	full := 0 // types with no GPU left
	for t, gpu := range types {
		left[t] = v.UsableGPUs(gpu) // without faults, TotalGPUs
		if left[t] <= 0 {
			full++
		}
	}
	s.Begin()
	starts := s.starts[:0]
	// Once every type is full, no later job is admitted (every job of
	// order asks for at least one GPU: Live drops the others on arrival),
	// so the walk stops there: past the admitted jobs, a decision costs
	// nothing per waiting job.
	for _, j := range order {
		if full == len(types) {
			break
		}
		t := slices.Index(types, j.Spec.GPU)
		avail := 0
		if t >= 0 {
			avail = left[t]
		}
		if n := j.Spec.GPUs; n <= avail {
			if t >= 0 {
				left[t] -= n
				if left[t] == 0 {
					full++
				}
			}
			if j.Status == sim.Running {
				s.Keep(j.Spec.ID)
			} else {
				starts = append(starts, j)
			}
		}
	}
	s.starts = starts
	return s.Act(v, est, starts)
}

// Begin starts a decision of a policy that admits the jobs itself (in
// place of Schedule's walk): mark each admitted running job with Keep,
// then call Act with the admitted jobs that are not running.
func (s *Scheduler) Begin() { s.gen++ }

// Keep marks running job id as admitted in this decision.
func (s *Scheduler) Keep(id sim.JobID) {
	if int(id) >= len(s.keepAt) {
		s.keepAt = append(s.keepAt, make([]uint64, int(id)+1-len(s.keepAt))...)
	}
	s.keepAt[id] = s.gen
}

// Act returns the decision's actions: a suspension of every job of
// v.Running not marked with Keep since Begin (in v.Running order), then a
// start of each job of starts (admitted, not running; in priority order)
// that can be placed on the GPUs left idle, at the best locality, else
// relaxed.
func (s *Scheduler) Act(v *sim.View, est estimator.Estimator, starts []*sim.Job) []sim.Action {
	keep := func(id sim.JobID) bool { return int(id) < len(s.keepAt) && s.keepAt[id] == s.gen }
	table := &s.table
	table.FillFromView(v)
	var actions []sim.Action
	for _, j := range v.Running {
		if !keep(j.Spec.ID) {
			actions = append(actions, sim.Action{Kind: sim.Suspend, Job: j.Spec.ID, Reason: "preempted by higher-priority jobs"})
			for _, sl := range j.GPUs {
				table.Release(sl)
			}
		}
	}
	for _, j := range starts {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if slots, _, ok := table.PlaceRelaxed(j.Spec.ID, j.Spec.Workload, best, est); ok {
			actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
		}
	}
	return actions
}
