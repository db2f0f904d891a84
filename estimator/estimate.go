package estimator

import "fmt"

// Sentinels the artifact uses for an infeasible configuration.
const (
	// InfeasibleThroughput is the artifact's INFEASIBLE_THR, samples/s.
	InfeasibleThroughput = -1e9
	// InfeasibleIterTime is the iteration time of an infeasible config, s.
	InfeasibleIterTime = 1e9
)

// Reason says why an Estimate is infeasible.
type Reason int

const (
	Feasible Reason = iota
	// NotProfiled: no database entry (and no fallback) covers the config.
	NotProfiled
	// OutOfMemory: the stored value is −1 or the DP memory filter rejects it.
	OutOfMemory
	// OverIterationCap: the stored iteration time is 0 or above 300 s.
	OverIterationCap
	// UnknownGPU: the GPU type is not in the catalog.
	UnknownGPU
	// BadShape: the config is not a valid shape (non-positive counts).
	BadShape
)

func (r Reason) String() string {
	switch r {
	case Feasible:
		return "feasible"
	case NotProfiled:
		return "not profiled"
	case OutOfMemory:
		return "out of memory"
	case OverIterationCap:
		return "iteration time over the 300 s cap"
	case UnknownGPU:
		return "unknown GPU type"
	case BadShape:
		return "invalid shape"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// FallbackKind says which rule of the profile database produced a value.
type FallbackKind int

const (
	// Exact: the database holds the exact (model, batch, config) entry.
	Exact FallbackKind = iota
	// RelaxedLocality: the best-locality entry for the same GPU count was
	// used, scaled by 0.9^Steps in the optimal view.
	RelaxedLocality
	// LargerSize: the same config of a larger model of the family was used,
	// scaled by 1.8^Steps in the optimal view.
	LargerSize
)

// Estimate is an estimator's answer for one (workload, config).
type Estimate struct {
	// Throughput in samples/s; InfeasibleThroughput when infeasible.
	Throughput float64
	// IterTime is round(batch/Throughput, 3) in seconds; InfeasibleIterTime
	// when infeasible. The engine divides progress time by it.
	IterTime float64
	// Reason is Feasible or why not.
	Reason Reason
	// Fallback and Steps say how the value was derived (database only).
	Fallback FallbackKind
	Steps    int
}

// Feasible reports whether the configuration can run: throughput > 0.
func (e Estimate) Feasible() bool { return e.Throughput > 0 }

func infeasible(r Reason) Estimate {
	return Estimate{Throughput: InfeasibleThroughput, IterTime: InfeasibleIterTime, Reason: r}
}

// Estimator answers performance questions for one view of the world.
// Implementations must be safe for concurrent use.
type Estimator interface {
	// Name identifies the estimator and its view, e.g. "profiledb/optimal".
	Name() string
	// Estimate returns throughput and iteration time of w on c.
	Estimate(w Workload, c Config) Estimate
}

// View selects how a policy (or the engine) reads an estimator.
type View int

const (
	// ViewOptimal is the adaptive-parallelism view (the artifact's only_opt
	// mode): Alpa-optimal iteration times with fallback penalties 0.9^k and
	// 1.8^s, no memory filter. Arena decides with it; the engine always
	// executes with it.
	ViewOptimal View = iota
	// ViewDataParallel is the baselines' view (only_dp): the DP memory filter
	// applies and fallback entries are used unscaled.
	ViewDataParallel
	// ViewDataParallelNoMemCheck is only_dp with force_opt: unscaled fallback
	// entries, no memory filter. Baselines use it where the artifact passes
	// force_opt (admission pre-filters, FCFS placement).
	ViewDataParallelNoMemCheck
)

func (v View) String() string {
	switch v {
	case ViewOptimal:
		return "optimal"
	case ViewDataParallel:
		return "dp"
	case ViewDataParallelNoMemCheck:
		return "dp-nomem"
	}
	return fmt.Sprintf("View(%d)", int(v))
}

// Source hands out views of one underlying performance model. The engine
// takes ViewOptimal; each policy takes the view it decides with.
type Source interface {
	View(v View) Estimator
}

// Coverage is the optional capability of a Source that prices only some
// GPU types of the catalog: PricesGPU reports whether it holds any figure
// for the type. The profile database prices the types the artifact
// measured and no other; a Source without Coverage (the analytic model,
// the hybrid) prices every catalog type.
type Coverage interface {
	PricesGPU(gpu string) bool
}

// Unpriced returns the types of types that src cannot price, in the order
// given: those not in the catalog (LookupGPU), and, when src has
// Coverage, those it does not price. Every job placed on such a type is
// infeasible, whatever its model.
func Unpriced(src Source, types []string) []string {
	cov, partial := src.(Coverage)
	var out []string
	for _, t := range types {
		if _, err := LookupGPU(t); err != nil || partial && !cov.PricesGPU(t) {
			out = append(out, t)
		}
	}
	return out
}
