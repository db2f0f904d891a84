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
		res, plan, err := pl.pricePublished(j, g, Shape{DP: r.DP, TP: r.TP})
		if err != nil {
			return nil, fmt.Errorf("analytic: Megatron-Core %s: %w", r.Name, err)
		}
		r.IterSec, r.Micro, r.Interleave, r.Breakdown = res.IterTime, plan.Micro, max(plan.Interleave, 1), res
		r.TFLOPSPredicted = 3 * a.FwdFLOPs() * float64(r.Batch) / res.IterTime / float64(r.GPUs) / 1e12
	}
	return out, nil
}

// pricePublished evaluates a published 3D plan (g.Stages stages of evenly
// split units, shape sh) at every micro-batch count and interleaving
// Search3D would try, and returns the fastest that fits.
func (pl Planner) pricePublished(j Job, g Grid, sh Shape) (Result, Plan, error) {
	hw, err := pl.hardware(j, g)
	if err != nil {
		return Result{}, Plan{}, err
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
			if res := interleave(base, v); res.Fits && res.IterTime < best.IterTime {
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
	fmt.Fprintln(tw, "model\tGPUs\tTP\tPP\tDP\tbatch\tmeasured\tMFU\tpredicted\tMFU\terror\tcompute\tTP comm\tbubble\tDP comm\titer (s)\tplan\t")
	for _, r := range rows {
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		b := r.Breakdown
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.0f%%\t%.1f\t%.0f%%\t%+.1f%%\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\tm=%d v=%d\t\n",
			r.Name, r.GPUs, r.TP, r.PP, r.DP, r.Batch, r.TFLOPSMeasured, 100*r.MFUMeasured, r.TFLOPSPredicted, 100*r.TFLOPSPredicted/989,
			100*e, b.Compute, b.TPComm, b.Bubble, b.DPComm, r.IterSec, r.Micro, r.Interleave)
	}
	tw.Flush()
}
