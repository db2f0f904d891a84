package analytic

import (
	"math"

	"github.com/arena-sim/arena/estimator"
)

// NetworkShare is the share of (w, c)'s iteration time under its best plan
// spent in collectives that cross nodes, from planCost's breakdown: the
// tensor-parallel (and expert all-to-all) collectives when the tensor- or
// the stage group spans nodes, the pipeline point-to-point transfers when
// the stages do, and the exposed data-parallel all-reduce when a stage's
// replicas span nodes. 0 on one node, or when the model or plan is unknown.
// The engine stretches this share of a job's time under contention
// (sim.Config.NetworkShare, docs/topology.md).
func (s *Source) NetworkShare(w estimator.Workload, c estimator.Config) float64 {
	if c.Nodes <= 1 {
		return 0
	}
	// Memoised (the engine asks on every start of a multi-node job; the
	// answer needs the model's architecture built and the plan looked up).
	k, keyed := estimator.WideKey(w, c, estimator.ViewOptimal)
	if keyed {
		if e, ok := s.shares.Get(k); ok {
			return e.IterTime
		}
	}
	share := s.networkShare(w, c)
	if keyed {
		s.shares.Put(k, estimator.Estimate{IterTime: share})
	}
	return share
}

func (s *Source) networkShare(w estimator.Workload, c estimator.Config) float64 {
	ch, err := s.Plan(w, c)
	if err != nil || !ch.Found() {
		return 0
	}
	r := ch.Result
	if r.IterTime <= 0 || math.IsInf(r.IterTime, 0) {
		return 0
	}
	j, err := JobFor(w)
	if err != nil {
		return 0
	}
	return crossNode(ch.Plan, r, c.PerNode, hasAllToAll(j.Arch)) / r.IterTime
}

// hasAllToAll reports whether the model has expert all-to-all traffic
// (MoE), which planCost counts with the tensor collectives over the stage.
func hasAllToAll(a *Arch) bool {
	for _, u := range a.Units {
		if u.A2ABytes > 0 {
			return true
		}
	}
	return false
}

// crossNode is the part of r's breakdown that crosses nodes under plan p
// on nodes of perNode GPUs (the rules planCost uses to pick the
// inter-node bandwidth): TPComm holds the tensor collectives (across
// nodes when the tensor group is) and, for a model with experts (a2a),
// the all-to-all over the stage (across nodes when the stage is).
func crossNode(p Plan, r Result, perNode int, a2a bool) float64 {
	stage := p.Shape.DP * p.Shape.TP
	x := 0.0
	if p.Shape.TP > perNode || a2a && stage > perNode {
		x += r.TPComm
	}
	if p.Stages > 1 {
		x += r.PipeComm
	}
	if stage > perNode {
		x += r.DPComm
	}
	return x
}
