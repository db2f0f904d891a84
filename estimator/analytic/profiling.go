package analytic

import (
	"fmt"
	"math"

	"github.com/arena-sim/arena/estimator"
)

// Assumptions of the profiling-cost model (docs/perf-model.md).
const (
	// compileSeconds is compiling a whole job's sharded program for one
	// plan (the artifact's AP_PROFILE_OVERHEAD_PER_CONFIG = 60 s; Alpa's
	// 2.6B-on-8-GPU compile is ~50–60 s, perf-model.md §5).
	compileSeconds = 60.0
	// stageCompileBase is the fixed part of compiling one stage program;
	// the rest is compileSeconds × the stage's share of the model's FLOPs.
	stageCompileBase = 5.0
	// profileIterations are the iterations timed per measurement (2 warm-up
	// + 3 measured), for a whole plan or for one stage's micro-batch.
	profileIterations = 5.0
)

// ProfilingCost compares the two ways of learning a job's grid performance
// over a set of localities: measuring every candidate plan end to end on
// its GPUs (direct), and Arena's disaggregated profiling — each distinct
// per-device stage program timed once on a single GPU, communication read
// from offline tables (profiled once per cluster, not charged per job).
// Both cover the same plans: each grid's Pareto set, at its best
// micro-batch count.
type ProfilingCost struct {
	Configs, Grids, Plans int
	// StagePrograms is the number of distinct (GPU type, layer range,
	// tensor shard, per-device micro-batch) programs the disaggregated
	// profiler runs; identical stages across plans, grids and localities are
	// profiled once.
	StagePrograms int
	// GPU-seconds (elapsed × GPUs) of each method.
	DirectGPUSeconds, DisaggregatedGPUSeconds float64
	// DisaggregatedElapsed is the wall time on one GPU (the engine's
	// profiling delay).
	DisaggregatedElapsed float64
}

// Reduction is direct ÷ disaggregated GPU-time.
func (c ProfilingCost) Reduction() float64 {
	return c.DirectGPUSeconds / c.DisaggregatedGPUSeconds
}

type stageProgram struct {
	gpu    string
	lo, hi int
	tp     int
	x      float64
}

// ProfilingCostOf computes the profiling cost of workload w over configs.
func (pl Planner) ProfilingCostOf(w estimator.Workload, configs []estimator.Config) (ProfilingCost, error) {
	var pc ProfilingCost
	j, err := JobFor(w)
	if err != nil {
		return pc, err
	}
	total := j.Arch.FwdFLOPs()
	seen := map[stageProgram]bool{}
	for _, c := range configs {
		pc.Configs++
		for _, g := range Grids(j, c) {
			pc.Grids++
			hw, err := pl.hardware(j, g)
			if err != nil {
				return pc, err
			}
			for _, plan := range pl.paretoPlans(j, g) {
				st := stagesOf(j.Arch, plan.Cuts)
				r := planCost(j.Arch, st, plan.Shape, plan.Micro, j.Batch, &hw)
				if !r.Fits {
					continue
				}
				pc.Plans++
				pc.DirectGPUSeconds += float64(g.GPUs()) * (compileSeconds + profileIterations*r.IterTime)
				x := float64(j.Batch) / float64(plan.Micro) / float64(plan.Shape.DP)
				lo := 0
				for k, s := range st {
					hi := len(j.Arch.Units)
					if k < len(plan.Cuts) {
						hi = plan.Cuts[k]
					}
					key := stageProgram{g.GPU, lo, hi, plan.Shape.TP, x}
					lo = hi
					if seen[key] {
						continue
					}
					seen[key] = true
					pc.StagePrograms++
					comp := j.Arch.TrainFLOPsFactor*s.flops*x/float64(plan.Shape.TP)/hw.flops + hw.layerLat*s.layers
					pc.DisaggregatedGPUSeconds += stageCompileBase + compileSeconds*s.flops/total + profileIterations*comp
				}
			}
		}
	}
	if pc.Plans == 0 {
		return pc, fmt.Errorf("analytic: %s: no memory-feasible plan on %v", w, configs)
	}
	pc.DisaggregatedElapsed = pc.DisaggregatedGPUSeconds
	return pc, nil
}

// paretoPlans returns each Pareto plan of a grid at its best micro-batch
// count.
func (pl Planner) paretoPlans(j Job, g Grid) []Plan {
	var out []Plan
	pl.pruned(j, g, func(c Choice) { out = append(out, c.Plan) })
	return out
}

// ProfilingCost is the engine's profiling delay model for one job: the
// disaggregated profiling of its grids on the requested GPU type at every
// power-of-two GPU count up to max(16, requested) (the artifact charges a
// fixed 60 s × 4 types × 4 counts instead).
func (pl Planner) ProfilingCost(w estimator.Workload, gpuType string, requested int) (ProfilingCost, error) {
	gpu, err := estimator.LookupGPU(gpuType)
	if err != nil {
		return ProfilingCost{}, err
	}
	var configs []estimator.Config
	for n := 1; n <= int(math.Max(16, float64(requested))); n *= 2 {
		configs = append(configs, estimator.BestLocality(gpu.Name, n, gpu.GPUsPerNode))
	}
	return pl.ProfilingCostOf(w, configs)
}
