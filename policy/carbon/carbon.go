// Package carbon is a carbon-aware baseline in the spirit of "Let's Wait
// Awhile" (Wiesner et al., Middleware 2021) and GAIA: first-come-first-
// served on the requested GPUs (FCFS's placement and head-of-line
// blocking per type), except that a job with slack left — it arrived less
// than Slack ago — waits while the grid's carbon intensity now is above
// the lowest the series forecasts before its slack runs out (× 1 +
// Tolerance). The series is the one the energy accounting uses
// (sim/energy: a built-in series or a file), read as a perfect forecast,
// hour 0 at the run's first decision. A waiting job does not block later
// jobs; once its slack is spent it is an ordinary FCFS job.
package carbon

import (
	"math"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
)

// Config tunes the policy.
type Config struct {
	// Intensity is the grid's carbon intensity (g CO₂eq/kWh), hour 0 at
	// the first decision.
	Intensity energy.Intensity
	// Slack is how long after its arrival a job may be held back, seconds.
	Slack float64
	// Tolerance: start when the intensity now is at most the window's
	// lowest × (1 + Tolerance).
	Tolerance float64
}

// Policy is the carbon-aware baseline. Create it with New.
type Policy struct {
	est     estimator.Estimator
	cfg     Config
	t0      float64
	started bool
	// Deferred counts the decisions at which a job was held back for a
	// lower intensity (one per job and decision).
	Deferred int
}

var _ sim.Policy = (*Policy)(nil)

// New returns the policy deciding with est.
func New(est estimator.Estimator, cfg Config) *Policy { return &Policy{est: est, cfg: cfg} }

// Name implements sim.Policy.
func (*Policy) Name() string { return "carbon-aware" }

// Schedule implements sim.Policy: the pending queue, then the arrivals,
// in order; each job starts on its requested type and count at best
// locality unless it waits for a lower intensity or its type is blocked.
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	if !p.started {
		p.t0, p.started = float64(v.Now)-float64(v.Round)*float64(v.RoundLength), true
	}
	now := float64(v.Now) - p.t0
	table := placement.FromView(v)
	blocked := map[string]bool{}
	var actions []sim.Action
	consider := func(j *sim.Job, arrival bool) {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !p.est.Estimate(j.Spec.Workload, best).Feasible() {
			if arrival {
				actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality"})
			}
			return
		}
		if blocked[best.GPU] {
			return
		}
		if left := p.cfg.Slack - float64(v.Now-j.SubmitTime); left > 0 && p.waits(now, left) {
			p.Deferred++
			return
		}
		slots, ok := table.PlaceMostFree(j.Spec.ID, best)
		if !ok {
			blocked[best.GPU] = true
			return
		}
		actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
	}
	for _, j := range v.Pending {
		consider(j, false)
	}
	for _, j := range v.Arrivals {
		consider(j, true)
	}
	return actions, nil
}

// waits reports whether the intensity at now is above the lowest of the
// hours that begin within (now, now+left], with the tolerance.
func (p *Policy) waits(now, left float64) bool {
	in := p.cfg.Intensity
	cur := in.At(now)
	low := cur
	for h := (math.Floor(now/3600) + 1) * 3600; h <= now+left; h += 3600 {
		low = min(low, in.At(h))
	}
	return cur > low*(1+p.cfg.Tolerance)
}
