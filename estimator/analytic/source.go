package analytic

import (
	"math"
	"sync"

	"github.com/arena-sim/arena/estimator"
)

// Source is the analytic model as an estimator.Source: every view answers
// with the best plan of the locality — the exhaustive search's optimum
// over its grids (the analytic counterpart of the database's Alpa-optimal
// times; BestBounded, which finds Best's plan costing fewer) where that space holds at most MaxExhaustivePlans plans (every
// catalog model at every size), else the bounded 3D search (Search3D:
// tensor parallelism inside a node, pipeline and data parallelism across,
// at most MaxPlanSteps evaluations). The
// data-parallel view additionally applies the artifact's DP memory rule to
// the analytic memory of a pure data-parallel replica. It is safe for
// concurrent use; answers are cached.
type Source struct {
	planner Planner
	cache   sync.Map // cacheKey → estimator.Estimate
	plans   sync.Map // planKey → *planEntry
	// shares memoises NetworkShare (the share in IterTime).
	shares estimator.EstimateCache
}

type planKey struct {
	family         estimator.Family
	size           string
	batch          int
	gpu            string
	nodes, perNode int
}

type cacheKey struct {
	planKey
	view estimator.View
}

// NewSource returns the analytic model with parameters p.
func NewSource(p *Params) *Source { return &Source{planner: Planner{Params: p}} }

var (
	defaultSourceOnce sync.Once
	defaultSource     *Source
	defaultSourceErr  error
)

// DefaultSource returns the analytic model with the embedded fitted
// parameters (one shared, cached instance).
func DefaultSource() (*Source, error) {
	defaultSourceOnce.Do(func() {
		p, err := DefaultParams()
		if err != nil {
			defaultSourceErr = err
			return
		}
		defaultSource = NewSource(p)
	})
	return defaultSource, defaultSourceErr
}

// Planner returns the planner the source answers with.
func (s *Source) Planner() Planner { return s.planner }

// View returns the source read in view v.
func (s *Source) View(v estimator.View) estimator.Estimator { return sourceView{s: s, view: v} }

type sourceView struct {
	s    *Source
	view estimator.View
}

func (v sourceView) Name() string { return "analytic/" + v.view.String() }

func (v sourceView) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	return v.s.Estimate(w, c, v.view)
}

// Plan returns the best plan for (w, c), computed once per source: runs
// sharing the source (a simulate of several policies, a sweep's workers)
// that ask for the same plan at the same time wait for one search rather
// than each doing it (a plan of a large grid takes a while).
func (s *Source) Plan(w estimator.Workload, c estimator.Config) (Choice, error) {
	k := planKey{w.Model.Family, w.Model.Size, w.Batch, c.GPU, c.Nodes, c.PerNode}
	v, _ := s.plans.LoadOrStore(k, &planEntry{})
	e := v.(*planEntry)
	e.once.Do(func() {
		j, err := JobFor(w)
		if err != nil {
			e.err = err
			return
		}
		if UsesSearch3D(j, c) {
			e.ch = s.planner.Search3D(j, c)
			return
		}
		e.ch = s.planner.BestBounded(j, c)
	})
	return e.ch, e.err
}

// planEntry is one plan of Source.plans, searched once.
type planEntry struct {
	once sync.Once
	ch   Choice
	err  error
}

// Estimate answers (w, c) in view v.
func (s *Source) Estimate(w estimator.Workload, c estimator.Config, v estimator.View) estimator.Estimate {
	k := cacheKey{planKey{w.Model.Family, w.Model.Size, w.Batch, c.GPU, c.Nodes, c.PerNode}, v}
	if e, ok := s.cache.Load(k); ok {
		return e.(estimator.Estimate)
	}
	e := s.estimate(w, c, v)
	s.cache.Store(k, e)
	return e
}

func infeasible(r estimator.Reason) estimator.Estimate {
	return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime, Reason: r}
}

// maxIterTime is the artifact's scheduling-interval cap on iteration time.
const maxIterTime = 300.0

func (s *Source) estimate(w estimator.Workload, c estimator.Config, v estimator.View) estimator.Estimate {
	if c.Nodes <= 0 || c.PerNode <= 0 || w.Batch <= 0 {
		return infeasible(estimator.BadShape)
	}
	gpu, err := estimator.LookupGPU(c.GPU)
	if err != nil {
		return infeasible(estimator.UnknownGPU)
	}
	j, err := JobFor(w)
	if err != nil {
		return infeasible(estimator.NotProfiled)
	}
	if v == estimator.ViewDataParallel {
		need := DPReplicaMemory(j.Arch, w.Batch, c.GPUs(), s.planner.Params.DPMemory)
		// The artifact's rule: 1.2 × need > 0.8 × memory is out of memory.
		if 1.2*need > usableMemoryFraction*gpu.MemoryGB*1e9 {
			return infeasible(estimator.OutOfMemory)
		}
	}
	ch, err := s.Plan(w, c)
	if err != nil {
		return infeasible(estimator.NotProfiled)
	}
	if !ch.Found() {
		return infeasible(estimator.OutOfMemory)
	}
	t := ch.Result.IterTime
	if t > maxIterTime {
		return infeasible(estimator.OverIterationCap)
	}
	thr := estimator.PyRound(float64(w.Batch)/t, 3)
	if !(thr > 0) || math.IsInf(thr, 0) {
		return infeasible(estimator.OutOfMemory)
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3), Reason: estimator.Feasible}
}

// Hybrid answers from the profile database where it holds the exact entry
// (model, batch, GPU type, locality) and from the analytic model elsewhere,
// in every view. Database fallbacks (relaxed locality, larger size) are not
// used: where the database would extrapolate, the analytic model answers.
// Answers are memoised per (workload, locality, view), keyed by a packed
// integer: the database's lookup builds two strings per question and the
// analytic source's cache hashes its strings, while a policy asks the same
// few thousand questions millions of times.
type Hybrid struct {
	DB       *estimator.ProfileDB
	Analytic *Source
	memo     estimator.EstimateCache
}

// View returns the hybrid read in view v.
func (h *Hybrid) View(v estimator.View) estimator.Estimator { return hybridView{h: h, view: v} }

type hybridView struct {
	h    *Hybrid
	view estimator.View
}

func (v hybridView) Name() string { return "hybrid/" + v.view.String() }

func (v hybridView) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	k, keyed := estimator.WideKey(w, c, v.view)
	if keyed {
		if e, ok := v.h.memo.Get(k); ok {
			return e
		}
	}
	var e estimator.Estimate
	if _, ok := v.h.DB.Has(w, c); ok {
		e = v.h.DB.Estimate(w, c, v.view)
	} else {
		e = v.h.Analytic.Estimate(w, c, v.view)
	}
	if keyed {
		v.h.memo.Put(k, e)
	}
	return e
}
