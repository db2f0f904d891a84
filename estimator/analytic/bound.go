package analytic

import (
	"math"

	"github.com/arena-sim/arena/estimator"
)

// BestBounded returns what Best returns — the same grid, plan and result,
// the first plan of the enumeration order with the least iteration time —
// without costing the plans a lower bound on their iteration time proves
// slower than a plan already costed. Evaluated counts the plans it costed
// (Best's count is every plan of every grid).
//
// The bound follows planCost term by term. For a grid of p stages, a
// shape (dp, tp) and m micro-batches, whatever the partition:
//
//	Σ_j stage_j ≥ S = the compute, per-layer, tensor and all-to-all terms
//	                  summed over all units (partition-free sums; the
//	                  all-reduce and all-to-all start-ups dropped)
//	T ≥ Σ_j stage_j + (m−1)·max_j stage_j + ε·max_j AR(grad_j) + max_j Adam_j
//	  ≥ S + (m−1)·max(S/p, c·W_max) + ε·AR(bpv·P_max/tp) + Adam(P/p, E/p)
//
// where W_max and P_max are the largest stage's compute weight and
// parameters (P/p, the mean, without a partition), AR is the all-reduce
// (increasing in its bytes) and Adam the optimizer step. A plan is skipped
// when its bound, less a relative 10⁻⁹ for rounding, exceeds the least
// iteration time costed so far; the plans whose time equals the optimum
// are never skipped, so the first of them is found as Best finds it. The
// search starts from the evenly cut plan of every grid, shape and
// micro-batch count (costed only to set the threshold).
func (pl Planner) BestBounded(j Job, c estimator.Config) Choice {
	best := Choice{Result: Result{IterTime: math.Inf(1)}}
	grids := Grids(j, c)
	if len(grids) == 0 {
		return best
	}
	hw, err := pl.hardware(j, grids[0])
	if err != nil {
		return best
	}
	if !(hw.flops > 0 && hw.halfWidth >= 0 && hw.dpExposed >= 0 && hw.tpExposed >= 0) {
		// Outside the parameters' valid ranges (ParseParams) the bound
		// is not proven: search exhaustively.
		return pl.Best(j, c)
	}
	a := j.Arch
	u := len(a.Units)
	tot := aggregate(a.Units)
	var layers int
	for _, x := range a.Units {
		layers += x.Layers
	}
	thr := math.Inf(1)
	evaluated := 0
	// Seed: the even cut of every grid at every shape and micro-batch.
	for _, g := range grids {
		st := stagesOf(a, evenCuts(u, g.Stages))
		for _, sh := range shapes(g.GPUs() / g.Stages) {
			for _, m := range microBatches(j.Batch, sh.DP) {
				r := planCost(a, st, sh, m, j.Batch, &hw)
				evaluated++
				thr = math.Min(thr, r.IterTime)
			}
		}
	}
	const keep = 1 - 1e-9
	st := make([]stageAgg, 0, u)
	for _, g := range grids {
		p := g.Stages
		b := newGridBound(a, tot, layers, g, j.Batch, &hw)
		if b.min*keep > thr {
			continue // no plan of the grid can beat the threshold
		}
		local := Choice{Grid: g, Result: Result{IterTime: math.Inf(1)}}
		partitions(u, p, func(cuts []int) {
			st = st[:0]
			lo := 0
			for _, c := range cuts {
				st = append(st, aggregate(a.Units[lo:c]))
				lo = c
			}
			st = append(st, aggregate(a.Units[lo:]))
			var wMax, pMax float64
			for k := range st {
				wMax = math.Max(wMax, st[k].flops+hw.halfWidth*st[k].flopsPerWidth)
				pMax = math.Max(pMax, st[k].params)
			}
			for si, sh := range b.shapes {
				sb := &b.perShape[si]
				if sb.min*keep > thr {
					continue
				}
				dp := allReduce(a.BytesPerValue*pMax/float64(sh.TP), sh.DP, sb.stageBW)
				for mi, m := range sb.micro {
					lb := sb.base[mi]
					if lb*keep > thr {
						continue
					}
					// The partition's own terms: its heaviest stage and
					// its largest gradient all-reduce.
					mf := float64(m)
					lb = sb.sum[mi] + (mf-1)*math.Max(sb.sum[mi]/float64(p), sb.compPerW[mi]*wMax-sb.slack) + hw.dpExposed*dp + sb.opt
					if lb*keep > thr {
						continue
					}
					r := planCost(a, st, sh, m, j.Batch, &hw)
					evaluated++
					if r.IterTime < local.Result.IterTime {
						local.Plan = Plan{Stages: p, Cuts: append([]int(nil), cuts...), Shape: sh, Micro: m}
						local.Result = r
					}
					thr = math.Min(thr, r.IterTime)
				}
			}
		})
		if local.Result.IterTime < best.Result.IterTime {
			best = local
		}
	}
	best.Evaluated = evaluated
	return best
}

// gridBound holds one grid's partition-free bounds (BestBounded).
type gridBound struct {
	shapes   []Shape
	perShape []shapeBound
	// min is the least bound over the grid's shapes and micro-batches.
	min float64
}

// shapeBound is one shape's bounds, per micro-batch count of micro.
type shapeBound struct {
	micro []int
	// sum[i] bounds Σ_j stage_j; compPerW[i] is a stage's compute time
	// per unit of compute weight (flops + w0·flops/width); base[i] the
	// plan's bound without a partition; opt the Adam step's bound.
	sum, compPerW, base []float64
	opt                 float64
	stageBW             float64
	// slack is what a stage's other terms can take off its compute
	// time: a negative per-layer latency, and one tensor all-reduce
	// start-up (a stage of units without layers counts 2·0−1 of them).
	slack float64
	min   float64
}

func newGridBound(a *Arch, tot stageAgg, layers int, g Grid, batch int, hw *hardware) gridBound {
	p := float64(g.Stages)
	gb := gridBound{shapes: shapes(g.GPUs() / g.Stages), min: math.Inf(1)}
	passes := a.TrainFLOPsFactor - 1
	for _, sh := range gb.shapes {
		n := sh.DP * sh.TP
		d, t := float64(sh.DP), float64(sh.TP)
		tpBW := hw.intraBW
		if sh.TP > hw.perNode {
			tpBW = hw.interBW
		}
		stageBW := hw.intraBW
		if n > hw.perNode {
			stageBW = hw.interBW
		}
		sb := shapeBound{micro: microBatches(batch, sh.DP), stageBW: stageBW, min: math.Inf(1)}
		sb.slack = math.Max(0, -hw.layerLat*float64(layers))
		if sh.TP > 1 {
			sb.slack += hw.tpExposed * passes * 2 * collLatency(sh.TP)
		}
		// Adam: max_j (P_j/t + E_j/n) ≥ (P/t + E/n)/p.
		sb.opt = optimizerBytesPerParam * ((tot.params/t + tot.expert/float64(n)) / p) / d / hw.memBW
		dpMean := hw.dpExposed * allReduce(a.BytesPerValue*(tot.params/p)/t, sh.DP, stageBW)
		for _, m := range sb.micro {
			b := float64(batch) / float64(m)
			x := b / d
			perW := a.TrainFLOPsFactor * x / t / hw.flops
			s := perW*(tot.flops+hw.halfWidth*tot.flopsPerWidth) + hw.layerLat*float64(layers)
			if sh.TP > 1 {
				k := float64(sh.TP)
				s += hw.tpExposed * passes * (2*(k-1)/k*tot.tpBytes*x/tpBW + float64(2*layers-g.Stages)*2*collLatency(sh.TP))
			}
			if n > 1 && tot.a2aBytes > 0 {
				k := float64(n)
				s += passes * (k - 1) / k * (tot.a2aBytes * b / k) / stageBW
			}
			base := s + (float64(m)-1)*s/p + dpMean + sb.opt
			sb.sum = append(sb.sum, s)
			sb.compPerW = append(sb.compPerW, perW)
			sb.base = append(sb.base, base)
			sb.min = math.Min(sb.min, base)
		}
		gb.perShape = append(gb.perShape, sb)
		gb.min = math.Min(gb.min, sb.min)
	}
	return gb
}
