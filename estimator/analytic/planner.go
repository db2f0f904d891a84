package analytic

import (
	"fmt"
	"math"
	"sort"

	"github.com/arena-sim/arena/estimator"
)

// Grid is Arena's unit of scheduling (ARENA.md §2): a GPU type, a uniform
// locality (Nodes × PerNode GPUs) and a fixed number of pipeline stages.
// Inside a grid only the layer partition, the per-stage (dp, tp) shape and
// the micro-batch count remain free.
type Grid struct {
	GPU            string
	Nodes, PerNode int
	Stages         int
}

// GPUs is the grid's GPU count.
func (g Grid) GPUs() int { return g.Nodes * g.PerNode }

func (g Grid) String() string {
	return fmt.Sprintf("%s:%dx%d/pp%d", g.GPU, g.Nodes, g.PerNode, g.Stages)
}

// Job is what the planner plans: an architecture at a global batch size.
type Job struct {
	Arch  *Arch
	Batch int
}

// JobFor builds the Job of a workload from the architecture tables.
func JobFor(w estimator.Workload) (Job, error) {
	a, err := ArchOf(w.Model)
	if err != nil {
		return Job{}, err
	}
	if w.Batch <= 0 {
		return Job{}, fmt.Errorf("analytic: workload %s: batch must be positive", w)
	}
	return Job{Arch: a, Batch: w.Batch}, nil
}

// Grids enumerates a job's grids on one locality: every stage count p that
// divides the GPU count and does not exceed the model's layer groups.
func Grids(j Job, c estimator.Config) []Grid {
	var out []Grid
	n := c.GPUs()
	for p := 1; p <= n && p <= len(j.Arch.Units); p++ {
		if n%p == 0 {
			out = append(out, Grid{GPU: c.GPU, Nodes: c.Nodes, PerNode: c.PerNode, Stages: p})
		}
	}
	return out
}

// shapes lists the (dp, tp) factorizations of g GPUs.
func shapes(g int) []Shape {
	var out []Shape
	for tp := 1; tp <= g; tp++ {
		if g%tp == 0 {
			out = append(out, Shape{DP: g / tp, TP: tp})
		}
	}
	return out
}

// maxMicroBatches bounds the micro-batch counts tried.
const maxMicroBatches = 256

// microBatches lists the micro-batch counts tried: powers of two up to
// maxMicroBatches leaving every replica at least one sample.
func microBatches(batch, dp int) []int {
	var out []int
	for m := 1; m <= maxMicroBatches && batch >= m*dp; m *= 2 {
		out = append(out, m)
	}
	return out
}

// partitions enumerates contiguous cuts of u units into p stages.
func partitions(u, p int, visit func(cuts []int)) {
	cuts := make([]int, p-1)
	var rec func(i, start int)
	rec = func(i, start int) {
		if i == p-1 {
			visit(cuts)
			return
		}
		for c := start; c <= u-(p-1-i); c++ {
			cuts[i] = c
			rec(i+1, c+1)
		}
	}
	rec(0, 1)
}

func stagesOf(a *Arch, cuts []int) []stageAgg {
	out := make([]stageAgg, 0, len(cuts)+1)
	lo := 0
	for _, c := range cuts {
		out = append(out, aggregate(a.Units[lo:c]))
		lo = c
	}
	return append(out, aggregate(a.Units[lo:]))
}

// imbalance is the L2 distance between each stage's share of the FLOPs,
// in GPUs (its "GPU fraction" sum), and the GPUs it gets, relative to the
// per-stage GPU count (ARENA.md §2 planner step 3a).
func imbalance(st []stageAgg, gpus int) float64 {
	var total float64
	for _, s := range st {
		total += s.flops
	}
	g := float64(gpus) / float64(len(st))
	var sq float64
	for _, s := range st {
		d := s.flops/total*float64(gpus) - g
		sq += d * d
	}
	return math.Sqrt(sq) / g
}

// Choice is the best plan a search found in one grid (or over grids).
type Choice struct {
	Grid   Grid
	Plan   Plan
	Result Result
	// Evaluated counts cost-model evaluations (plan × micro-batch count).
	Evaluated int
	// Cut reports that Search3D stopped at MaxPlanSteps.
	Cut bool
}

// Found reports whether a memory-feasible plan was found.
func (c Choice) Found() bool { return c.Result.Fits && !math.IsInf(c.Result.IterTime, 0) }

// Planner evaluates plans with one parameter set.
type Planner struct {
	Params *Params
	// custom, if set, replaces the catalog entry of the GPU type it names
	// (validation against published clusters the catalog does not hold).
	custom *estimator.GPUType
	// calibratedAs names the type whose compute efficiency custom uses.
	calibratedAs string
}

func (pl Planner) hardware(j Job, g Grid) (hardware, error) {
	if pl.custom != nil && pl.custom.Name == g.GPU {
		hw := newHardware(*pl.custom, g.Nodes, g.PerNode, j.Arch.Family, pl.Params)
		hw.flops = pl.custom.PeakTFLOPS * 1e12 * pl.Params.efficiency(pl.calibratedAs, j.Arch.Family)
		return hw, nil
	}
	gpu, err := estimator.LookupGPU(g.GPU)
	if err != nil {
		return hardware{}, err
	}
	return newHardware(gpu, g.Nodes, g.PerNode, j.Arch.Family, pl.Params), nil
}

// Evaluate runs the cost model on one plan of a grid.
func (pl Planner) Evaluate(j Job, g Grid, plan Plan) (Result, error) {
	hw, err := pl.hardware(j, g)
	if err != nil {
		return Result{}, err
	}
	return planCost(j.Arch, stagesOf(j.Arch, plan.Cuts), plan.Shape, plan.Micro, j.Batch, &hw), nil
}

// Exhaustive evaluates every plan of the grid: every contiguous partition
// of the layer groups, every (dp, tp) shape and every micro-batch count.
func (pl Planner) Exhaustive(j Job, g Grid) Choice {
	best := Choice{Grid: g, Result: Result{IterTime: math.Inf(1)}}
	hw, err := pl.hardware(j, g)
	if err != nil {
		return best
	}
	eachPlan(j, g, func(cuts []int, st []stageAgg, sh Shape, m int) {
		r := planCost(j.Arch, st, sh, m, j.Batch, &hw)
		best.Evaluated++
		if r.IterTime < best.Result.IterTime {
			best.Plan = Plan{Stages: g.Stages, Cuts: append([]int(nil), cuts...), Shape: sh, Micro: m}
			best.Result = r
		}
	})
	return best
}

// eachPlan calls fn for every plan of a grid: every contiguous partition of
// the layer groups into the grid's stages (cuts is reused between calls;
// copy it to keep it), every (dp, tp) shape of a stage's GPUs and every
// micro-batch count the shape allows.
func eachPlan(j Job, g Grid, fn func(cuts []int, st []stageAgg, sh Shape, micro int)) {
	per := g.GPUs() / g.Stages
	partitions(len(j.Arch.Units), g.Stages, func(cuts []int) {
		st := stagesOf(j.Arch, cuts)
		for _, sh := range shapes(per) {
			for _, m := range microBatches(j.Batch, sh.DP) {
				fn(cuts, st, sh, m)
			}
		}
	})
}

// PlanCount is the number of (plan, micro-batch) points in a grid.
func PlanCount(j Job, g Grid) int {
	n := 0
	per := g.GPUs() / g.Stages
	partitions(len(j.Arch.Units), g.Stages, func([]int) {
		for _, sh := range shapes(per) {
			n += len(microBatches(j.Batch, sh.DP))
		}
	})
	return n
}

// Pruned is Arena's planner (ARENA.md §2): it scores every (partition,
// shape) candidate on two objectives that need no profiling — compute
// imbalance and communication time at nominal link bandwidth — drops the
// candidates its memory estimate rejects, keeps the Pareto set, and runs
// the cost model only on the Pareto plans (each with every micro-batch
// count). Proxy is the Pareto set's most compute-balanced plan (ties: less
// communication), the grid's estimate for the scheduler; Best is the best
// Pareto plan, what the pruned adaptive-parallelism search finds.
func (pl Planner) Pruned(j Job, g Grid) (proxy, best Choice) {
	proxy = Choice{Grid: g, Result: Result{IterTime: math.Inf(1)}}
	best = proxy
	first := true
	pl.pruned(j, g, func(local Choice) {
		best.Evaluated += local.Evaluated
		if first {
			proxy.Plan, proxy.Result, proxy.Evaluated = local.Plan, local.Result, local.Evaluated
			first = false
		}
		if local.Result.IterTime < best.Result.IterTime {
			best.Plan, best.Result = local.Plan, local.Result
		}
	})
	return proxy, best
}

// pruned builds the grid's Pareto set and calls visit with each Pareto
// plan at its best micro-batch count, most balanced first.
func (pl Planner) pruned(j Job, g Grid, visit func(Choice)) {
	hw, err := pl.hardware(j, g)
	if err != nil {
		return
	}
	nominal := hw
	nominal.intraBW, nominal.interBW, nominal.dpExposed = hw.gpu.IntraNodeGBs*1e9, hw.gpu.InterNodeGBs*1e9, 1
	type cand struct {
		cuts      []int
		st        []stageAgg
		shape     Shape
		imb, comm float64
	}
	var cands []cand
	per := g.GPUs() / g.Stages
	partitions(len(j.Arch.Units), g.Stages, func(cuts []int) {
		st := stagesOf(j.Arch, cuts)
		imb := imbalance(st, g.GPUs())
		for _, sh := range shapes(per) {
			ms := microBatches(j.Batch, sh.DP)
			if len(ms) == 0 {
				continue
			}
			// Memory estimate at the most memory-frugal micro-batch count.
			if r := planCost(j.Arch, st, sh, ms[len(ms)-1], j.Batch, &nominal); !r.Fits {
				continue
			}
			r := planCost(j.Arch, st, sh, 1, j.Batch, &nominal)
			comm := r.TPComm + r.PipeComm + r.DPComm
			cands = append(cands, cand{cuts: append([]int(nil), cuts...), st: st, shape: sh, imb: imb, comm: comm})
		}
	})
	// Pareto set on (imbalance, communication), both minimised.
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].imb != cands[b].imb {
			return cands[a].imb < cands[b].imb
		}
		return cands[a].comm < cands[b].comm
	})
	bestComm := math.Inf(1)
	for _, c := range cands {
		if !(c.comm < bestComm*(1-1e-9)) {
			continue
		}
		bestComm = c.comm
		local := Choice{Grid: g, Result: Result{IterTime: math.Inf(1)}}
		for _, m := range microBatches(j.Batch, c.shape.DP) {
			r := planCost(j.Arch, c.st, c.shape, m, j.Batch, &hw)
			local.Evaluated++
			if r.IterTime < local.Result.IterTime {
				local.Plan = Plan{Stages: g.Stages, Cuts: c.cuts, Shape: c.shape, Micro: m}
				local.Result = r
			}
		}
		if local.Result.Fits {
			visit(local)
		}
	}
}

// GridReport is one grid's row in a search report.
type GridReport struct {
	Grid                     Grid
	Exhaustive, Proxy, Best  Choice
	Plans, ParetoEvaluations int
}

// ConfigReport is a full search over a locality's grids.
type ConfigReport struct {
	Grids []GridReport
	// Exhaustive is the best plan over all grids; Proxy is the best grid's
	// proxy plan chosen by proxy estimate; PrunedBest the best Pareto plan.
	Exhaustive, Proxy, PrunedBest Choice
	Plans, Evaluated              int
}

// Search runs the exhaustive and the pruned search on every grid of a
// locality.
func (pl Planner) Search(j Job, c estimator.Config) ConfigReport {
	inf := Choice{Result: Result{IterTime: math.Inf(1)}}
	rep := ConfigReport{Exhaustive: inf, Proxy: inf, PrunedBest: inf}
	for _, g := range Grids(j, c) {
		ex := pl.Exhaustive(j, g)
		px, pb := pl.Pruned(j, g)
		gr := GridReport{Grid: g, Exhaustive: ex, Proxy: px, Best: pb, Plans: ex.Evaluated, ParetoEvaluations: pb.Evaluated}
		rep.Grids = append(rep.Grids, gr)
		rep.Plans += ex.Evaluated
		rep.Evaluated += pb.Evaluated
		if ex.Result.IterTime < rep.Exhaustive.Result.IterTime {
			rep.Exhaustive = ex
		}
		if px.Result.IterTime < rep.Proxy.Result.IterTime {
			rep.Proxy = px
		}
		if pb.Result.IterTime < rep.PrunedBest.Result.IterTime {
			rep.PrunedBest = pb
		}
	}
	return rep
}

// Best is the exhaustive optimum over every grid of a locality.
func (pl Planner) Best(j Job, c estimator.Config) Choice {
	best := Choice{Result: Result{IterTime: math.Inf(1)}}
	for _, g := range Grids(j, c) {
		ex := pl.Exhaustive(j, g)
		best.Evaluated += ex.Evaluated
		if ex.Result.IterTime < best.Result.IterTime {
			ev := best.Evaluated
			best = ex
			best.Evaluated = ev
		}
	}
	return best
}
