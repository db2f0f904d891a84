package estimator

import (
	"fmt"
	"sort"
)

// Slowdown is a calibrated execution estimator: Base's iteration times
// multiplied by Global, or, on a relaxed placement — more nodes than the
// most compact shape of its GPU count (BestLocality with NodeCap's node
// size) — by Relaxed instead when it is set (each factor is a measured
// ratio of real to database iteration time for its kind of placement). Throughput is divided by the same factor and
// the iteration time re-rounded as the engine reads it (round(batch/thr,
// 3)). A factor of 0 means 1. It expresses a measured gap between the
// profile database and a real cluster (arena-data/testbed/README.md: median
// 1.03–1.06 per finished job, 1.30–1.38 on ElasticFlow-L's multi-node
// relaxed placements); policies keep deciding with the database.
// PerType multiplies the factor of a placement on a GPU type it names
// (a type's own speed error, e.g. an H100 priced as an A100 through a GPU
// map): on an h100 placement with Global 1.05 and PerType {h100: 1.2}
// the iteration time is × 1.05·1.2; types it does not name keep Global.
type Slowdown struct {
	Base            Estimator
	Global, Relaxed float64
	PerType         map[string]float64
	// NodeCap is the node size of a GPU type on the cluster (for the
	// best-locality shape); nil treats every multi-node shape as relaxed.
	NodeCap func(gpu string) int
}

// Name implements Estimator.
func (s Slowdown) Name() string {
	name := fmt.Sprintf("%s×%g(relaxed ×%g)", s.Base.Name(), factor(s.Global), factor(s.Relaxed))
	if len(s.PerType) > 0 {
		types := make([]string, 0, len(s.PerType))
		for t := range s.PerType {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			name += fmt.Sprintf("(%s ×%g)", t, s.PerType[t])
		}
	}
	return name
}

func factor(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}

// Relaxes reports whether c is a relaxed placement: more nodes than the
// best-locality shape of its GPU count.
func (s Slowdown) Relaxes(c Config) bool {
	if c.Nodes <= 1 {
		return false
	}
	if s.NodeCap == nil {
		return true
	}
	return c.Nodes > BestLocality(c.GPU, c.GPUs(), s.NodeCap(c.GPU)).Nodes
}

// Estimate implements Estimator.
func (s Slowdown) Estimate(w Workload, c Config) Estimate {
	e := s.Base.Estimate(w, c)
	if !e.Feasible() {
		return e
	}
	f := factor(s.Global)
	if s.Relaxed != 0 && s.Relaxes(c) {
		f = s.Relaxed
	}
	if t, ok := s.PerType[c.GPU]; ok {
		f *= factor(t)
	}
	if f == 1 {
		return e
	}
	e.Throughput /= f
	e.IterTime = PyRound(float64(w.Batch)/e.Throughput, 3)
	return e
}
