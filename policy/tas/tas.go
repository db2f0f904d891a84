// Package tas is a topology-aware FIFO baseline with the semantics of
// Kueue's topology-aware scheduling (TAS): a job asks for a topology
// level — a fast domain, a switch tier of the cluster's topology (rack,
// pod, …) or the whole cluster — either as required (all its nodes inside
// one group of that level, or it waits; a job larger than any such group
// is refused on arrival, as Kueue marks it inadmissible) or as preferred
// (packed into the fewest groups from the innermost level out, spread
// only when no group has room). Jobs run on the GPU type and count they
// asked for, at the best locality, first come first served with
// head-of-line blocking per GPU type (Kueue's StrictFIFO queueing), never
// preempted, resized or moved. Placement is placement.PlaceWithin /
// PlacePacked (docs/topology.md).
//
// Kueue sets the level per workload by annotation
// (kueue.x-k8s.io/podset-required-topology, …-preferred-topology); arena's
// traces carry no such field, so the level and mode are options of the
// policy, applied to every job, with one per-job rule: a job of at most
// required_max_gpus GPUs requires the level, a larger one prefers it.
package tas

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Config is the policy's topology request.
type Config struct {
	// Level is placement.LevelDomain, a tier index or
	// placement.LevelCluster; LevelName its name.
	Level     int
	LevelName string
	// RequiredMaxGPUs: jobs of at most this many GPUs require Level, larger
	// ones prefer it (0: every job prefers; a huge value: every job
	// requires).
	RequiredMaxGPUs int
}

// TAS is the policy. Create it with New.
type TAS struct {
	est   estimator.Estimator
	cfg   Config
	table placement.Table // Schedule's slot table, refilled per decision
}

var _ sim.Policy = (*TAS)(nil)

// New returns the policy deciding with est.
func New(est estimator.Estimator, cfg Config) *TAS { return &TAS{est: est, cfg: cfg} }

// Name implements sim.Policy.
func (*TAS) Name() string { return "tas" }

// IdleWhenQuiet implements sim.QuietRounds: with no arrival and no ended
// job nothing can start.
func (*TAS) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the slot table it plans on is
// its own copy.
func (*TAS) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy: the pending queue in order, then the
// arrivals; a job that cannot be placed blocks the later jobs of its type.
func (p *TAS) Schedule(v *sim.View) ([]sim.Action, error) {
	if v.Quiet() {
		return nil, nil
	}
	// One table for the policy's life, refilled from the View (only the
	// slots that changed are rewritten, the idle-slot index kept): a
	// fresh FromView per decision cost O(GPUs) (98,304 slots copied and
	// indexed per decision on h100-98k; bench/scale-1m-topology.md).
	t := &p.table
	t.FillFromView(v)
	var actions []sim.Action
	blocked := map[string]bool{}
	try := func(j *sim.Job) bool {
		if blocked[j.Spec.GPU] {
			return false
		}
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !p.est.Estimate(j.Spec.Workload, best).Feasible() {
			blocked[j.Spec.GPU] = true
			return false
		}
		var slots []int
		var ok bool
		if p.requires(j) {
			slots, ok = t.PlaceWithin(j.Spec.ID, best, p.cfg.Level)
		} else {
			slots, ok = t.PlacePacked(j.Spec.ID, best)
		}
		if !ok {
			blocked[j.Spec.GPU] = true
			return false
		}
		actions = append(actions, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
		return true
	}
	for _, j := range v.Pending {
		try(j)
	}
	for _, j := range v.Arrivals {
		best := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if best.PerNode == 0 || !p.est.Estimate(j.Spec.Workload, best).Feasible() {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality"})
			continue
		}
		if p.requires(j) && best.Nodes > p.groupNodes(v.Cluster) {
			actions = append(actions, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "larger than one " + p.cfg.LevelName + ", its required topology level"})
			continue
		}
		try(j)
	}
	return actions, nil
}

func (p *TAS) requires(j *sim.Job) bool {
	return p.cfg.Level != placement.LevelCluster && j.Spec.GPUs <= p.cfg.RequiredMaxGPUs
}

// groupNodes is the number of nodes in one group of the level.
func (p *TAS) groupNodes(c *sim.Cluster) int {
	top := c.Topology()
	switch {
	case p.cfg.Level == placement.LevelCluster:
		return len(c.Nodes)
	case top == nil:
		return 1
	case p.cfg.Level == placement.LevelDomain:
		return top.DomainNodes
	}
	return top.Tiers[p.cfg.Level].Nodes
}
