// Package srtf is shortest-remaining-time-first, preemptive, with an
// oracle: a job's remaining time is its remaining iterations times its
// true iteration time under the engine's estimator (the adaptive-
// parallelism view) on the GPUs it holds, or on its request at the best
// locality if it is waiting. Jobs keep the GPU type and count their users
// asked for. With exact knowledge of job lengths it is the classic lower
// bound on mean JCT among policies that do not resize jobs (up to the
// reconfiguration overhead it pays on every preemption and restart).
//
// Every round the jobs are ordered by remaining time (ties: submission,
// then trace order) and handed to policy/preemptive: per GPU type the
// shortest jobs that fit are admitted, running jobs that lost their place
// are suspended, newly admitted jobs are placed at the best locality, else
// relaxed.
package srtf

import (
	"sort"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/preemptive"
	"github.com/arena-sim/arena/sim"
)

// SRTF is the policy. Create it with New.
type SRTF struct {
	est estimator.Estimator
}

var _ sim.Policy = (*SRTF)(nil)

// New returns SRTF with est as its oracle (pass the engine's view).
func New(est estimator.Estimator) *SRTF { return &SRTF{est: est} }

// Name implements sim.Policy.
func (*SRTF) Name() string { return "srtf" }

// RemainingTime is the oracle's remaining time of j, seconds.
func (s *SRTF) RemainingTime(c *sim.Cluster, j *sim.Job) float64 {
	cfg := j.Config
	if j.Status != sim.Running {
		cfg = placement.Best(c, j.Spec.GPU, j.Spec.GPUs)
	}
	return float64(j.Remaining) * s.est.Estimate(j.Spec.Workload, cfg).IterTime
}

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (preemptive.Live and Schedule copy what they order and edit).
func (*SRTF) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy.
func (s *SRTF) Schedule(v *sim.View) ([]sim.Action, error) {
	order, actions := preemptive.Live(v, s.est)
	if len(order) == 0 {
		return actions, nil
	}
	remaining := make(map[sim.JobID]float64, len(order))
	for _, j := range order {
		remaining[j.Spec.ID] = s.RemainingTime(v.Cluster, j)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ja, jb := order[a], order[b]
		if ra, rb := remaining[ja.Spec.ID], remaining[jb.Spec.ID]; ra != rb {
			return ra < rb
		}
		if ja.SubmitTime != jb.SubmitTime {
			return ja.SubmitTime < jb.SubmitTime
		}
		return ja.Spec.ID < jb.Spec.ID
	})
	return append(actions, preemptive.Schedule(v, s.est, order)...), nil
}
