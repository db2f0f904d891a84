// Package cost is a cost-aware baseline: each job, in arrival order,
// runs on the GPU type that prices its samples lowest — the type's $ per
// GPU-hour (sim/energy's price table, at a tier: on-demand, reserved or
// spot) × its requested GPU count ÷ its throughput there at best
// locality — among the types it can start on now, as long as that costs
// at most (1 + Premium) × its cheapest type's price per sample; otherwise
// it waits for cheaper capacity. No job blocks another (backfilling); no
// job is preempted or moved.
package cost

import (
	"cmp"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Config tunes the policy.
type Config struct {
	// Price is $ per GPU-hour of a type (0: the type is not used).
	Price func(gpu string) float64
	// Premium is how much more than its cheapest type a job accepts to
	// pay per sample to start now (0.5: 50 % more).
	Premium float64
}

// Policy is the cost-aware baseline. Create it with New.
type Policy struct {
	est estimator.Estimator
	cfg Config
	// cands memoises each workload's and count's types by cost per sample.
	cands map[key][]cand
}

type key struct {
	w string
	n int
}

type cand struct {
	cfg  estimator.Config
	cost float64 // $ per sample
}

var _ sim.Policy = (*Policy)(nil)

// New returns the policy deciding with est.
func New(est estimator.Estimator, cfg Config) *Policy {
	return &Policy{est: est, cfg: cfg, cands: map[key][]cand{}}
}

// Name implements sim.Policy.
func (*Policy) Name() string { return "cost-aware" }

// candidates are the job's feasible shapes, one per type of the cluster,
// cheapest per sample first (ties in cluster type order).
func (p *Policy) candidates(c *sim.Cluster, j *sim.Job) []cand {
	k := key{j.Spec.Workload.String(), j.Spec.GPUs}
	if cs, ok := p.cands[k]; ok {
		return cs
	}
	var cs []cand
	for _, t := range c.Types {
		price := p.cfg.Price(t)
		best := placement.Best(c, t, j.Spec.GPUs)
		if price <= 0 || best.PerNode == 0 {
			continue
		}
		if e := p.est.Estimate(j.Spec.Workload, best); e.Feasible() {
			cs = append(cs, cand{best, price * float64(j.Spec.GPUs) / 3600 / e.Throughput})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.cost, b.cost) })
	p.cands[k] = cs
	return cs
}

// Schedule implements sim.Policy.
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	table := placement.FromView(v)
	var actions []sim.Action
	consider := func(j *sim.Job, arrival bool) {
		cs := p.candidates(v.Cluster, j)
		if len(cs) == 0 {
			if arrival {
				actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "no priced GPU type can run it at best locality"})
			}
			return
		}
		for _, c := range cs {
			if c.cost > cs[0].cost*(1+p.cfg.Premium) {
				return
			}
			if slots, ok := table.PlaceMostFree(j.Spec.ID, c.cfg); ok {
				actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
				return
			}
		}
	}
	for _, j := range v.Pending {
		consider(j, false)
	}
	for _, j := range v.Arrivals {
		consider(j, true)
	}
	return actions, nil
}
