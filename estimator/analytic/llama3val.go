package analytic

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/arena-sim/arena/estimator"
)

// Llama3Row is one row of the Llama 3 paper's Table 4 (Meta, The Llama 3
// Herd of Models, arXiv:2407.21783, 2024, §3.3.2): Llama 3 405B
// pre-training on H100 80GB (8 per node, NVLink; 400 Gb/s RoCE per GPU),
// BF16, its 4D plan (tensor, context, pipeline, data parallelism),
// sequence length, sequences per data-parallel rank, and the measured
// TFLOPs/GPU (model FLOPs; BF16 MFU = TFLOPs / 989).
type Llama3Row struct {
	GPUs, TP, CP, PP, DP int
	Seq, BatchPerDP      int
	TFLOPSMeasured       float64
	MFUMeasured          float64
	// Filled by PredictLlama3.
	TFLOPSPredicted, IterSec float64
	Plan                     string
	// Searched is Search3D's own plan on the same GPUs and batch, and
	// its TFLOPs/GPU (the published plan is not given to it).
	SearchedTFLOPS float64
	SearchedPlan   string
	SearchSteps    int
	// Removed is the attribution study on the published plan (the model's
	// named differences removed one after the other; not an estimate).
	Removed Attribution
	// Modelled is false for rows outside the model (context parallelism).
	Modelled bool
}

// Llama3Table is the published table. The third row (context parallelism
// 16 at 131,072 tokens) is listed but not modelled: the cost model has no
// context parallelism.
func Llama3Table() []Llama3Row {
	return []Llama3Row{
		{GPUs: 8192, TP: 8, CP: 1, PP: 16, DP: 64, Seq: 8192, BatchPerDP: 32, TFLOPSMeasured: 430, MFUMeasured: 0.43},
		{GPUs: 16384, TP: 8, CP: 1, PP: 16, DP: 128, Seq: 8192, BatchPerDP: 16, TFLOPSMeasured: 400, MFUMeasured: 0.41},
		{GPUs: 16384, TP: 8, CP: 16, PP: 16, DP: 8, Seq: 131072, BatchPerDP: 16, TFLOPSMeasured: 380, MFUMeasured: 0.38},
	}
}

// llama3Model is the model-FLOPs count of one training iteration (forward
// and backward, no recomputation: 3 × the forward), the numerator of a
// TFLOPs/GPU or MFU figure.
func llama3Model(a *Arch, batch int) float64 { return 3 * a.FwdFLOPs() * float64(batch) }

// PredictLlama3 prices every modelled row on h100 nodes of 8: once on the
// published plan (TP, PP, DP; layers split evenly; the best micro-batch
// count and interleaving), and once with Search3D choosing the plan.
func (pl Planner) PredictLlama3(rows []Llama3Row) ([]Llama3Row, error) {
	out := append([]Llama3Row(nil), rows...)
	for i := range out {
		r := &out[i]
		if r.CP != 1 {
			continue
		}
		r.Modelled = true
		a, err := LlamaArch("405B", r.Seq)
		if err != nil {
			return nil, err
		}
		batch := r.DP * r.BatchPerDP
		j := Job{Arch: a, Batch: batch}
		c := estimator.Config{GPU: "h100", Nodes: r.GPUs / 8, PerNode: 8}
		g := Grid{GPU: c.GPU, Nodes: c.Nodes, PerNode: c.PerNode, Stages: r.PP}
		hw, err := pl.hardware(j, g)
		if err != nil {
			return nil, err
		}
		cuts := evenCuts(len(a.Units), r.PP)
		st := stagesOf(a, cuts)
		best := Result{IterTime: math.Inf(1)}
		for _, m := range microBatches3D(batch, r.DP) {
			base := planCost(a, st, Shape{DP: r.DP, TP: r.TP}, m, batch, &hw)
			for _, v := range Interleavings {
				if v > 1 && (m%r.PP != 0 || len(a.Units)/r.PP < v) {
					continue
				}
				if res := interleave(base, v); res.Fits && res.IterTime < best.IterTime {
					best = res
					r.Plan = Plan{Stages: r.PP, Shape: Shape{DP: r.DP, TP: r.TP}, Micro: m, Interleave: v}.String()
				}
			}
		}
		flops := llama3Model(a, batch)
		if !math.IsInf(best.IterTime, 1) {
			r.IterSec = best.IterTime
			r.TFLOPSPredicted = flops / best.IterTime / float64(r.GPUs) / 1e12
			if r.Removed, err = pl.attribute(j, g, Shape{DP: r.DP, TP: r.TP}, flops); err != nil {
				return nil, err
			}
		}
		ch := pl.Search3D(j, c)
		r.SearchSteps = ch.Evaluated
		if ch.Found() {
			r.SearchedTFLOPS = flops / ch.Result.IterTime / float64(r.GPUs) / 1e12
			r.SearchedPlan = ch.Plan.String()
		}
	}
	return out, nil
}

// PrintLlama3 renders the held-out table.
func PrintLlama3(w io.Writer, rows []Llama3Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Llama 3 405B on H100 (paper Table 4; held out: not fitted; TFLOPs/GPU of model FLOPs)")
	fmt.Fprintln(tw, "GPUs\tTP\tCP\tPP\tDP\tseq\tbatch\tmeasured\tpredicted (published plan)\terror\tplan\tSearch3D's plan\tits TFLOPs\tsteps\t3 passes\t+DP overlap\t+TP overlap\t")
	for _, r := range rows {
		if !r.Modelled {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\tnot modelled (context parallelism)\t\t\t\t\t\t\t\t\t\n", r.GPUs, r.TP, r.CP, r.PP, r.DP, r.Seq, r.DP*r.BatchPerDP, r.TFLOPSMeasured)
			continue
		}
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		x := r.Removed
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%.1f\t%+.1f%%\t%s\t%s\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t\n", r.GPUs, r.TP, r.CP, r.PP, r.DP, r.Seq, r.DP*r.BatchPerDP, r.TFLOPSMeasured, r.TFLOPSPredicted, 100*e, r.Plan, r.SearchedPlan, r.SearchedTFLOPS, r.SearchSteps, x.NoRecompute, x.DPOverlapped, x.AllOverlapped)
	}
	tw.Flush()
}
