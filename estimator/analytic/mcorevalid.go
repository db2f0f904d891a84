package analytic

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/arena-sim/arena/estimator"
)

// MegatronCoreRow is one row of NVIDIA's Megatron-Core weak-scaling table
// on H100 (NVIDIA/Megatron-LM README.md "Training Speed and Scalability",
// images/model_table.png, commit f2e5db40 of 2024-07-15, Megatron-Core
// r0.8.0): GPT models of vocabulary 131,072 and sequence 4,096 on DGX
// H100 (8 GPUs per node), BF16, the published tensor / pipeline / data
// parallel sizes and global batch, and the measured per-GPU model
// TFLOP/s (MFU = TFLOPs / 989). The runs overlap data-, tensor- and
// pipeline-parallel communication with compute; the table does not say
// which activation recomputation they used.
type MegatronCoreRow struct {
	Name                  string
	Heads, Hidden, Layers int
	TP, PP, DP, GPUs      int
	Batch                 int
	TFLOPSMeasured        float64
	MFUMeasured           float64
	// Filled by PredictMegatronCore: the published plan priced with the
	// best micro-batch count and interleaving.
	TFLOPSPredicted, IterSec float64
	Micro, Interleave        int
	Breakdown                Result
	// Removed is the attribution study (not an estimate the simulator
	// uses): the predicted TFLOP/s per GPU with the model's named
	// differences from these runs taken away one after the other.
	Removed Attribution
}

// Attribution is a published plan re-priced with the cost model's named
// differences from Megatron-style runs removed cumulatively: full
// recomputation (priced as 3 passes instead of 4: forward and backward
// only, as with selective recomputation under fused attention, which
// recomputes almost nothing), then the exposed data-parallel all-reduce
// (overlapped with the last micro-batch's backward, as Megatron's
// --overlap-grad-reduce does: only the part longer than that backward
// stays), then the tensor-parallel all-reduces (removed entirely: an upper
// bound on --tp-comm-overlap). What is left
// between AllOverlapped and the published figure is compute efficiency:
// H100's is A100's, fitted to Alpa's runs. TFLOP/s per GPU of model FLOPs.
type Attribution struct {
	NoRecompute, DPOverlapped, AllOverlapped float64
}

// features are the switches of the attribution study.
type features struct{ noRecompute, dpBounded, tpOverlap bool }

// attribute prices j's published plan three more times, removing the
// named differences cumulatively, and returns model TFLOP/s per GPU.
func (pl Planner) attribute(j Job, g Grid, sh Shape, modelFLOPs float64) (Attribution, error) {
	var out [3]float64
	for k, f := range []features{{noRecompute: true}, {noRecompute: true, dpBounded: true}, {noRecompute: true, dpBounded: true, tpOverlap: true}} {
		res, _, err := pl.pricePublished(j, g, sh, f)
		if err != nil {
			return Attribution{}, err
		}
		out[k] = modelFLOPs / res.IterTime / float64(g.GPUs()) / 1e12
	}
	return Attribution{NoRecompute: out[0], DPOverlapped: out[1], AllOverlapped: out[2]}, nil
}

// MegatronCoreTable is the published table (all nine rows).
func MegatronCoreTable() []MegatronCoreRow {
	return []MegatronCoreRow{
		{Name: "1.7B", Heads: 16, Hidden: 2048, Layers: 24, TP: 1, PP: 1, DP: 48, GPUs: 48, Batch: 192, TFLOPSMeasured: 408.8, MFUMeasured: 0.41},
		{Name: "7.1B", Heads: 32, Hidden: 4096, Layers: 30, TP: 2, PP: 1, DP: 48, GPUs: 96, Batch: 192, TFLOPSMeasured: 465.9, MFUMeasured: 0.47},
		{Name: "16B", Heads: 48, Hidden: 6144, Layers: 32, TP: 4, PP: 1, DP: 48, GPUs: 192, Batch: 192, TFLOPSMeasured: 489.1, MFUMeasured: 0.49},
		{Name: "32B", Heads: 56, Hidden: 7168, Layers: 48, TP: 8, PP: 1, DP: 48, GPUs: 384, Batch: 192, TFLOPSMeasured: 459.6, MFUMeasured: 0.46},
		{Name: "70B", Heads: 64, Hidden: 8192, Layers: 84, TP: 8, PP: 2, DP: 48, GPUs: 768, Batch: 384, TFLOPSMeasured: 419.7, MFUMeasured: 0.42},
		{Name: "119B", Heads: 80, Hidden: 10240, Layers: 92, TP: 8, PP: 4, DP: 48, GPUs: 1536, Batch: 768, TFLOPSMeasured: 420.5, MFUMeasured: 0.43},
		{Name: "177B", Heads: 96, Hidden: 12288, Layers: 96, TP: 8, PP: 6, DP: 48, GPUs: 2304, Batch: 1152, TFLOPSMeasured: 432.8, MFUMeasured: 0.44},
		{Name: "314B", Heads: 128, Hidden: 16384, Layers: 96, TP: 8, PP: 8, DP: 48, GPUs: 3072, Batch: 1536, TFLOPSMeasured: 474.4, MFUMeasured: 0.48},
		{Name: "462B", Heads: 144, Hidden: 18432, Layers: 112, TP: 8, PP: 16, DP: 48, GPUs: 6144, Batch: 3072, TFLOPSMeasured: 459.9, MFUMeasured: 0.47},
	}
}

// MegatronCoreArch is a row's GPT (FFN 4h, multi-head attention), one unit
// per layer so that every published pipeline depth splits it evenly.
func MegatronCoreArch(r MegatronCoreRow) *Arch {
	spec := TransformerSpec{Hidden: r.Hidden, Layers: r.Layers, Heads: r.Heads, Seq: 4096, Vocab: 131072}
	return Transformer("mcore-gpt-"+r.Name, spec, r.Layers)
}

// PredictMegatronCore prices every row on h100 nodes of 8 with the
// published plan (TP, PP, DP; layers split evenly), the best micro-batch
// count and interleaving, and converts the iteration time to model
// TFLOP/s per GPU: 3 × the forward FLOPs (Megatron's
// num_floating_point_operations, 72·B·s·L·h²·(1 + s/6h + V/12Lh) for
// these shapes), recomputation not counted.
func (pl Planner) PredictMegatronCore(rows []MegatronCoreRow) ([]MegatronCoreRow, error) {
	out := append([]MegatronCoreRow(nil), rows...)
	for i := range out {
		r := &out[i]
		if r.TP*r.PP*r.DP != r.GPUs || r.GPUs%8 != 0 {
			return nil, fmt.Errorf("analytic: Megatron-Core %s: TP %d × PP %d × DP %d is not %d GPUs on nodes of 8", r.Name, r.TP, r.PP, r.DP, r.GPUs)
		}
		a := MegatronCoreArch(*r)
		j := Job{Arch: a, Batch: r.Batch}
		g := Grid{GPU: "h100", Nodes: r.GPUs / 8, PerNode: 8, Stages: r.PP}
		sh := Shape{DP: r.DP, TP: r.TP}
		res, plan, err := pl.pricePublished(j, g, sh, features{})
		if err != nil {
			return nil, fmt.Errorf("analytic: Megatron-Core %s: %w", r.Name, err)
		}
		flops := 3 * a.FwdFLOPs() * float64(r.Batch)
		r.IterSec, r.Micro, r.Interleave, r.Breakdown = res.IterTime, plan.Micro, max(plan.Interleave, 1), res
		r.TFLOPSPredicted = flops / res.IterTime / float64(r.GPUs) / 1e12
		if r.Removed, err = pl.attribute(j, g, sh, flops); err != nil {
			return nil, fmt.Errorf("analytic: Megatron-Core %s: %w", r.Name, err)
		}
	}
	return out, nil
}

// pricePublished evaluates a published 3D plan (g.Stages stages of evenly
// split units, shape sh) at every micro-batch count and interleaving
// Search3D would try, and returns the fastest that fits. f switches off
// the model's named differences for the attribution study (the zero value
// is the estimator as the simulator uses it).
func (pl Planner) pricePublished(j Job, g Grid, sh Shape, f features) (Result, Plan, error) {
	hw, err := pl.hardware(j, g)
	if err != nil {
		return Result{}, Plan{}, err
	}
	if f.noRecompute {
		a := *j.Arch
		a.TrainFLOPsFactor = 3
		j.Arch = &a
	}
	if f.tpOverlap {
		hw.tpExposed = 0
	}
	units := len(j.Arch.Units)
	cuts := evenCuts(units, g.Stages)
	st := stagesOf(j.Arch, cuts)
	best, plan := Result{IterTime: math.Inf(1)}, Plan{}
	for _, m := range microBatches3D(j.Batch, sh.DP) {
		base := planCost(j.Arch, st, sh, m, j.Batch, &hw)
		for _, v := range Interleavings {
			if v > 1 && (g.Stages == 1 || m%g.Stages != 0 || units/g.Stages < v) {
				continue
			}
			res := interleave(base, v)
			if f.dpBounded && res.Fits {
				// Overlap bounded by physics: gradients are reduced while
				// the last micro-batch's backward runs (2 of 3 passes of
				// one micro-batch's compute); what does not fit stays.
				ar := res.DPComm / hw.dpExposed
				window := 2.0 / 3 * res.Compute / float64(m)
				exposed := math.Max(0, ar-window)
				res.IterTime += exposed - res.DPComm
				res.DPComm = exposed
			}
			if res.Fits && res.IterTime < best.IterTime {
				best = res
				plan = Plan{Stages: g.Stages, Cuts: cuts, Shape: sh, Micro: m, Interleave: v}
			}
		}
	}
	if math.IsInf(best.IterTime, 1) {
		return best, plan, fmt.Errorf("no micro-batch count fits in memory on %s", estimator.Config{GPU: g.GPU, Nodes: g.Nodes, PerNode: g.PerNode})
	}
	return best, plan, nil
}

// PrintMegatronCore renders the held-out table with each row's error and
// where the predicted iteration goes.
func PrintMegatronCore(w io.Writer, rows []MegatronCoreRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Megatron-Core weak scaling on H100 (NVIDIA/Megatron-LM README; held out: not fitted; model TFLOP/s per GPU, recompute not counted)")
	fmt.Fprintln(tw, "model\tGPUs\tTP\tPP\tDP\tbatch\tmeasured\tMFU\tpredicted\tMFU\terror\tcompute\tTP comm\tbubble\tDP comm\titer (s)\tplan\t3 passes\t+DP overlap (error)\t+TP overlap (error)\t")
	for _, r := range rows {
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		b := r.Breakdown
		x := r.Removed
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.0f%%\t%.1f\t%.0f%%\t%+.1f%%\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\tm=%d v=%d\t%.1f\t%.1f (%+.1f%%)\t%.1f (%+.1f%%)\t\n",
			r.Name, r.GPUs, r.TP, r.PP, r.DP, r.Batch, r.TFLOPSMeasured, 100*r.MFUMeasured, r.TFLOPSPredicted, 100*r.TFLOPSPredicted/989,
			100*e, b.Compute, b.TPComm, math.Max(0, b.Bubble), b.DPComm, r.IterSec, r.Micro, r.Interleave,
			x.NoRecompute, x.DPOverlapped, 100*(x.DPOverlapped/r.TFLOPSMeasured-1), x.AllOverlapped, 100*(x.AllOverlapped/r.TFLOPSMeasured-1))
	}
	tw.Flush()
}

// StrongScalingRow is one end of the Megatron-Core strong-scaling run of
// the same README: the 177B GPT of the weak-scaling table (GPT-3's shape
// with vocabulary 131,072, sequence 4,096) at a fixed batch of 1,152
// sequences, MFU 47 % on 96 H100s and 42 % on 4,608 (the text; the plans
// are not published, so Search3D chooses them).
type StrongScalingRow struct {
	GPUs        int
	MFUMeasured float64
	// Filled by PredictMegatronCoreStrong.
	MFUPredicted float64
	Plan         string
	Removed      Attribution
}

// MegatronCoreStrongTable is the two published ends.
func MegatronCoreStrongTable() []StrongScalingRow {
	return []StrongScalingRow{{GPUs: 96, MFUMeasured: 0.47}, {GPUs: 4608, MFUMeasured: 0.42}}
}

// PredictMegatronCoreStrong prices each end with Search3D's plan on h100
// nodes of 8 and reports its MFU (model TFLOP/s per GPU ÷ 989).
func (pl Planner) PredictMegatronCoreStrong(rows []StrongScalingRow) ([]StrongScalingRow, error) {
	r177 := MegatronCoreTable()[6]
	a := MegatronCoreArch(r177)
	const batch = 1152
	j := Job{Arch: a, Batch: batch}
	flops := 3 * a.FwdFLOPs() * batch
	out := append([]StrongScalingRow(nil), rows...)
	for i := range out {
		r := &out[i]
		c := estimator.Config{GPU: "h100", Nodes: r.GPUs / 8, PerNode: 8}
		ch := pl.Search3D(j, c)
		if !ch.Found() {
			return nil, fmt.Errorf("analytic: Megatron-Core 177B on %d H100s: Search3D found no plan", r.GPUs)
		}
		r.Plan = ch.Plan.String()
		r.MFUPredicted = flops / ch.Result.IterTime / float64(r.GPUs) / 989e12
		var err error
		if r.Removed, err = pl.attribute(j, ch.Grid, ch.Plan.Shape, flops); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PrintMegatronCoreStrong renders the strong-scaling ends.
func PrintMegatronCoreStrong(w io.Writer, rows []StrongScalingRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Megatron-Core strong scaling, 177B GPT at batch 1,152 on H100 (held out; plans chosen by Search3D; MFU of model FLOPs)")
	fmt.Fprintln(tw, "GPUs\tmeasured MFU\tpredicted\terror\tplan\t3 passes\t+DP overlap\t+TP overlap\t")
	for _, r := range rows {
		x := r.Removed
		fmt.Fprintf(tw, "%d\t%.0f%%\t%.1f%%\t%+.1f%%\t%s\t%.1f%%\t%.1f%%\t%.1f%%\t\n", r.GPUs, 100*r.MFUMeasured, 100*r.MFUPredicted, 100*(r.MFUPredicted/r.MFUMeasured-1), r.Plan,
			x.NoRecompute/9.89, x.DPOverlapped/9.89, x.AllOverlapped/9.89)
	}
	tw.Flush()
	if len(rows) == 2 {
		fmt.Fprintf(w, "%d → %d GPUs: predicted MFU %+.1f%%, published %+.1f%%\n", rows[0].GPUs, rows[1].GPUs,
			100*(rows[1].MFUPredicted/rows[0].MFUPredicted-1), 100*(rows[1].MFUMeasured/rows[0].MFUMeasured-1))
	}
}
