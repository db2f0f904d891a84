package analytic

import (
	"math"

	"github.com/arena-sim/arena/estimator"
)

// MaxPlanSteps bounds Search3D: the number of cost-model evaluations one
// search may make (each step is one planCost call). The enumeration below
// needs at most |divisors of GPUs per node| × |pipeline depths| × |micro-
// batch counts| × 3 interleavings — 4 × 8 × 10 × 3 = 960 on 8-GPU nodes
// at 16,384 GPUs — so the bound is a guard, reported when it cuts.
const MaxPlanSteps = 4096

// Interleavings are the virtual-stage counts Search3D tries (Megatron's
// interleaved 1F1B schedule: each GPU holds v chunks of layers; the
// fill/drain bubble shrinks v-fold, pipeline messages grow v-fold).
var Interleavings = []int{1, 2, 4}

// MaxExhaustivePlans bounds the exhaustive search Source runs: where a
// locality's exhaustive space (ExhaustiveSize) holds more plans, Source
// prices it with Search3D. Every catalog model (at most 16 units) stays
// under it at every size up to 16,384 GPUs (gpt-175b on 16,384 H100s:
// 435,141 plans), so their answers are the exhaustive optimum as before;
// a model cut into more units (gpt-405b, one unit per layer: about 10¹⁸
// partitions into 16 stages) gets the bounded search at any size.
const MaxExhaustivePlans = 1 << 20

// UsesSearch3D reports whether Source prices j on c with Search3D rather
// than the exhaustive search: when the exhaustive space exceeds
// MaxExhaustivePlans.
func UsesSearch3D(j Job, c estimator.Config) bool {
	return ExhaustiveSize(j, c) > MaxExhaustivePlans
}

// ExhaustiveSize is the number of plans the exhaustive search over c's
// grids evaluates (Σ over grids of PlanCount), computed from binomials
// without enumerating partitions; +Inf past 2⁶⁰.
func ExhaustiveSize(j Job, c estimator.Config) float64 {
	n, u := c.GPUs(), len(j.Arch.Units)
	var total float64
	for p := 1; p <= n && p <= u; p++ {
		if n%p != 0 {
			continue
		}
		var per float64
		for _, sh := range shapes(n / p) {
			per += float64(len(microBatches(j.Batch, sh.DP)))
		}
		total += binomial(u-1, p-1) * per
		if total > 1<<60 {
			return math.Inf(1)
		}
	}
	return total
}

// binomial is C(n, k) in float64.
func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// Search3D is the bounded plan search for large jobs: 3D parallelism with
// tensor parallelism inside the fast domain (tp divides the GPUs per
// node), pipeline depth p (dividing GPUs/tp, at most the model's units)
// and data parallelism dp = GPUs/(tp·p) across, layers split evenly over
// the stages, every micro-batch count the shape allows (powers of two
// and one sample per micro-batch) and each interleaving of Interleavings
// that divides the stage's units (for v > 1, m a multiple of p). It
// evaluates every such plan, in that order, stopping after MaxPlanSteps;
// Choice.Evaluated counts the steps and Choice.Cut says whether the bound
// stopped it. Unlike Exhaustive it never tries uneven layer partitions or
// tensor parallelism across nodes.
func (pl Planner) Search3D(j Job, c estimator.Config) Choice {
	best := Choice{Result: Result{IterTime: math.Inf(1)}}
	n := c.GPUs()
	if n <= 0 {
		return best
	}
	units := len(j.Arch.Units)
	steps := 0
	for _, tp := range divisors(c.PerNode) {
		for _, p := range divisors(n / tp) {
			if p > units {
				break
			}
			dp := n / (tp * p)
			if dp > j.Batch {
				continue
			}
			g := Grid{GPU: c.GPU, Nodes: c.Nodes, PerNode: c.PerNode, Stages: p}
			hw, err := pl.hardware(j, g)
			if err != nil {
				return best
			}
			cuts := evenCuts(units, p)
			st := stagesOf(j.Arch, cuts)
			sh := Shape{DP: dp, TP: tp}
			for _, m := range microBatches3D(j.Batch, dp) {
				base := planCost(j.Arch, st, sh, m, j.Batch, &hw)
				for _, v := range Interleavings {
					if v > 1 && (p == 1 || m%p != 0 || units/p < v) {
						continue
					}
					if steps >= MaxPlanSteps {
						best.Cut = true
						return best
					}
					steps++
					best.Evaluated = steps
					r := interleave(base, v)
					if r.Fits && r.IterTime < best.Result.IterTime {
						best.Grid = g
						best.Plan = Plan{Stages: p, Cuts: append([]int(nil), cuts...), Shape: sh, Micro: m, Interleave: v}
						best.Result = r
					}
				}
			}
		}
	}
	return best
}

// interleave turns a plan's cost under the plain 1F1B schedule into its
// cost with v virtual stages per GPU: the bubble divided by v, the
// pipeline's point-to-point time multiplied by v. Memory is left as is
// (the interleaved schedule keeps a few more micro-batches in flight;
// not modelled).
func interleave(r Result, v int) Result {
	if v <= 1 || !r.Fits {
		return r
	}
	f := float64(v)
	bubble, pipe := r.Bubble/f, r.PipeComm*f
	r.IterTime += bubble - r.Bubble + pipe - r.PipeComm
	r.Bubble, r.PipeComm = bubble, pipe
	return r
}

// evenCuts splits u units into p contiguous stages of ⌊u/p⌋ or ⌈u/p⌉
// units (the larger stages last).
func evenCuts(u, p int) []int {
	cuts := make([]int, 0, p-1)
	for k := 1; k < p; k++ {
		cuts = append(cuts, k*u/p)
	}
	return cuts
}

// microBatches3D is microBatches plus batch/dp (one sample per replica
// and micro-batch) when that is no power of two.
func microBatches3D(batch, dp int) []int {
	ms := microBatches(batch, dp)
	if dp > 0 && batch/dp > 0 {
		last := batch / dp
		if last&(last-1) != 0 && last <= maxMicroBatches {
			ms = append(ms, last)
		}
	}
	return ms
}

// divisors lists the divisors of n in increasing order.
func divisors(n int) []int {
	var out []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			out = append(out, d)
		}
	}
	return out
}

// PlanSteps3D is the number of steps Search3D makes on (j, c) without
// the bound.
func PlanSteps3D(j Job, c estimator.Config) int {
	n, units, steps := c.GPUs(), len(j.Arch.Units), 0
	if n <= 0 {
		return 0
	}
	for _, tp := range divisors(c.PerNode) {
		for _, p := range divisors(n / tp) {
			if p > units {
				break
			}
			dp := n / (tp * p)
			if dp > j.Batch {
				continue
			}
			for _, m := range microBatches3D(j.Batch, dp) {
				for _, v := range Interleavings {
					if v == 1 || p > 1 && m%p == 0 && units/p >= v {
						steps++
					}
				}
			}
		}
	}
	return steps
}
