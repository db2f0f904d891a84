package runner

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/sim"
)

// EstimatorNames lists the performance models a run can use:
//
//   - profiledb: the artifact's measured database with its fallback rules;
//   - analytic: the calibrated analytic model (estimator/analytic) for
//     every configuration, including GPU types and sizes the database lacks;
//   - hybrid: the database where it holds the exact entry, the analytic
//     model elsewhere.
func EstimatorNames() []string { return []string{"profiledb", "analytic", "hybrid"} }

// SourceFor returns the estimator source named by a run ("" = profiledb).
func SourceFor(name string) (estimator.Source, error) {
	switch name {
	case "", "profiledb":
		return estimator.DefaultProfileDB()
	case "analytic":
		return analytic.DefaultSource()
	case "hybrid":
		db, err := estimator.DefaultProfileDB()
		if err != nil {
			return nil, err
		}
		an, err := analytic.DefaultSource()
		if err != nil {
			return nil, err
		}
		return &analytic.Hybrid{DB: db, Analytic: an}, nil
	}
	return nil, fmt.Errorf("estimator %q: unknown (known: %s)", name, strings.Join(EstimatorNames(), ", "))
}

// ProfilingDelay returns the engine option (sim.Config.ProfilingDelay) that
// delays a job's first start by the elapsed time of Arena's disaggregated
// profiling of its grids on its requested GPU type (ARENA.md §3), as the
// analytic profiling-cost model computes it. Jobs whose model has no
// architecture entry get no delay.
func ProfilingDelay() (func(*sim.JobSpec) sim.Duration, error) {
	src, err := analytic.DefaultSource()
	if err != nil {
		return nil, err
	}
	pl := src.Planner()
	return func(j *sim.JobSpec) sim.Duration {
		c, err := pl.ProfilingCost(j.Workload, j.GPU, j.GPUs)
		if err != nil {
			return 0
		}
		return sim.Duration(c.DisaggregatedElapsed)
	}, nil
}

// UnpricedError is a run whose cluster has GPU types its estimator cannot
// price (estimator.Unpriced): every job placed on them would be
// infeasible, so the run would drop or strand its jobs and compare
// nothing. Resolve refuses such a run before it starts.
type UnpricedError struct {
	Cluster   string   // the cluster's name
	Estimator string   // the estimator's name
	Types     []string // the cluster's GPU types it cannot price
	// Priced are the types the estimator prices when it prices only
	// some (estimator.Coverage); nil otherwise.
	Priced []string
	// GPUMap suggests a --gpu-map for the trace's GPU types the cluster
	// lacks ("" when the trace asks only for the cluster's types).
	GPUMap string
}

func (e *UnpricedError) Error() string {
	msg := fmt.Sprintf("cluster %s has GPU types the %s estimator cannot price: %s", e.Cluster, e.Estimator, strings.Join(e.Types, ", "))
	if len(e.Priced) > 0 {
		msg += fmt.Sprintf(" (it prices %s only)", strings.Join(e.Priced, ", "))
	}
	msg += "; every job placed on them would be infeasible, dropped or left waiting. Use the analytic model, which prices every catalog GPU type: --estimator analytic (in a spec, estimators: analytic)"
	if e.GPUMap != "" {
		msg += fmt.Sprintf(", and map the trace's GPU types onto the cluster's: --gpu-map %s", e.GPUMap)
	}
	return msg
}

// ClusterTypes are the GPU types of a cluster spec, in pool order, each
// once.
func ClusterTypes(spec sim.ClusterSpec) []string {
	var out []string
	for _, p := range spec.Pools {
		if !slices.Contains(out, p.GPU) {
			out = append(out, p.GPU)
		}
	}
	return out
}

// CheckPriced refuses a cluster with GPU types the estimator named
// (src, as SourceFor returns it) cannot price, as an *UnpricedError;
// jobs (optional: the trace's jobs as the run would request them) let
// the error suggest a GPU map for the types the cluster lacks.
func CheckPriced(spec sim.ClusterSpec, name string, src estimator.Source, jobs []sim.JobSpec) error {
	types := ClusterTypes(spec)
	bad := estimator.Unpriced(src, types)
	if len(bad) == 0 {
		return nil
	}
	e := &UnpricedError{Cluster: spec.Name, Estimator: cmp.Or(name, "profiledb"), Types: bad}
	if db, ok := src.(*estimator.ProfileDB); ok {
		e.Priced = db.GPUTypes()
	}
	if jobs != nil {
		e.GPUMap = SuggestGPUMap(MissingTypes(jobs, types), types)
	}
	return e
}

// MissingTypes counts the jobs requesting each GPU type not in types.
func MissingTypes(jobs []sim.JobSpec, types []string) map[string]int {
	missing := map[string]int{}
	for _, j := range jobs {
		if !slices.Contains(types, j.GPU) {
			missing[j.GPU]++
		}
	}
	return missing
}

// SuggestGPUMap suggests a GPU map (traces.ParseGPUMap's form) for the
// missing types onto types: the missing types, most capable first (peak
// TFLOPS), spread in order over the cluster's, most capable first; ""
// when nothing is missing.
func SuggestGPUMap(missing map[string]int, types []string) string {
	if len(missing) == 0 || len(types) == 0 {
		return ""
	}
	peak := func(name string) float64 {
		g, _ := estimator.LookupGPU(name)
		return g.PeakTFLOPS
	}
	byPeak := func(xs []string) {
		sort.SliceStable(xs, func(a, b int) bool {
			if peak(xs[a]) != peak(xs[b]) {
				return peak(xs[a]) > peak(xs[b])
			}
			return xs[a] < xs[b]
		})
	}
	var from []string
	for k := range missing {
		from = append(from, k)
	}
	to := slices.Clone(types)
	byPeak(from)
	byPeak(to)
	parts := make([]string, len(from))
	for i, k := range from {
		parts[i] = k + "=" + to[i*len(to)/len(from)]
	}
	return strings.Join(parts, ",")
}
