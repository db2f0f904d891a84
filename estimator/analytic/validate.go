package analytic

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"

	"github.com/arena-sim/arena/estimator"
)

// MegatronRow is one row of Megatron-LM's SC21 weak-scaling table
// (perf-model.md §3.1): A100 80GB on Selene, seq 2048, vocab 51200, full
// recomputation; TFLOPS per GPU count the recompute (the 96· formula).
type MegatronRow struct {
	Name                     string
	Heads, Hidden, Layers    int
	TP, PP, GPUs, Batch      int
	TFLOPSMeasured           float64
	TFLOPSPredicted, IterSec float64
	Micro                    int
}

// MegatronTable is the published table.
func MegatronTable() []MegatronRow {
	return []MegatronRow{
		{Name: "1.7B", Heads: 24, Hidden: 2304, Layers: 24, TP: 1, PP: 1, GPUs: 32, Batch: 512, TFLOPSMeasured: 137},
		{Name: "3.6B", Heads: 32, Hidden: 3072, Layers: 30, TP: 2, PP: 1, GPUs: 64, Batch: 512, TFLOPSMeasured: 138},
		{Name: "7.5B", Heads: 32, Hidden: 4096, Layers: 36, TP: 4, PP: 1, GPUs: 128, Batch: 512, TFLOPSMeasured: 142},
		{Name: "18.4B", Heads: 48, Hidden: 6144, Layers: 40, TP: 8, PP: 1, GPUs: 256, Batch: 1024, TFLOPSMeasured: 135},
		{Name: "39.1B", Heads: 64, Hidden: 8192, Layers: 48, TP: 8, PP: 2, GPUs: 512, Batch: 1536, TFLOPSMeasured: 138},
		{Name: "76.1B", Heads: 80, Hidden: 10240, Layers: 60, TP: 8, PP: 4, GPUs: 1024, Batch: 1792, TFLOPSMeasured: 140},
		{Name: "145.6B", Heads: 96, Hidden: 12288, Layers: 80, TP: 8, PP: 8, GPUs: 1536, Batch: 2304, TFLOPSMeasured: 148},
		{Name: "310.1B", Heads: 128, Hidden: 16384, Layers: 96, TP: 8, PP: 16, GPUs: 1920, Batch: 2160, TFLOPSMeasured: 155},
		{Name: "529.6B", Heads: 128, Hidden: 20480, Layers: 105, TP: 8, PP: 35, GPUs: 2520, Batch: 2520, TFLOPSMeasured: 163},
		{Name: "1008B", Heads: 160, Hidden: 25600, Layers: 128, TP: 8, PP: 64, GPUs: 3072, Batch: 3072, TFLOPSMeasured: 163},
	}
}

// PredictMegatron runs the cost model on each row's published plan (TP,
// PP, DP = GPUs/(TP·PP), layers split evenly, best micro-batch count) on
// a100-80g nodes of 8 GPUs, and converts the iteration time to TFLOPS per
// GPU with the 96· formula the table uses.
func (pl Planner) PredictMegatron(rows []MegatronRow) ([]MegatronRow, error) {
	gpu, err := estimator.LookupGPU("a100-80g")
	if err != nil {
		return nil, err
	}
	out := append([]MegatronRow(nil), rows...)
	for i := range out {
		r := &out[i]
		spec := TransformerSpec{Hidden: r.Hidden, Layers: r.Layers, Heads: r.Heads, Seq: 2048, Vocab: 51200}
		a := Transformer("megatron-"+r.Name, spec, r.Layers)
		dp := r.GPUs / (r.TP * r.PP)
		nodes := r.GPUs / gpu.GPUsPerNode
		hw := newHardware(gpu, nodes, gpu.GPUsPerNode, estimator.GPT, pl.Params)
		var cuts []int
		for k := 1; k < r.PP; k++ {
			cuts = append(cuts, k*r.Layers/r.PP)
		}
		st := stagesOf(a, cuts)
		best := math.Inf(1)
		for m := 1; m <= r.Batch/dp; m *= 2 {
			for _, mm := range []int{m, r.Batch / dp} {
				res := planCost(a, st, Shape{DP: dp, TP: r.TP}, mm, r.Batch, &hw)
				if res.IterTime < best {
					best, r.Micro = res.IterTime, mm
				}
			}
		}
		h, L, s, V, B := float64(r.Hidden), float64(r.Layers), 2048.0, 51200.0, float64(r.Batch)
		flops := 96 * B * s * L * h * h * (1 + s/(6*h) + V/(16*L*h))
		r.IterSec = best
		r.TFLOPSPredicted = flops / best / float64(r.GPUs) / 1e12
	}
	return out, nil
}

// AlpaRow is one GPT row of Alpa's OSDI'22 end-to-end results on AWS
// p3.16xlarge (perf-model.md §3.5): 8 V100-16GB per node on NVLink, 25 Gb/s
// between nodes, batch 1024, seq 1024; TFLOPS per GPU count the
// rematerialisation (the 96· formula).
type AlpaRow struct {
	Name                  string
	Hidden, Layers, Heads int
	GPUs                  int
	TFLOPSMeasured        float64
	TFLOPSPredicted       float64
	IterSec               float64
	Plan                  string
}

// AlpaTable is the published GPT table ("Alpa auto" column).
func AlpaTable() []AlpaRow {
	return []AlpaRow{
		{Name: "350M", Hidden: 1024, Layers: 24, Heads: 16, GPUs: 1, TFLOPSMeasured: 45.07},
		{Name: "760M", Hidden: 1536, Layers: 24, Heads: 16, GPUs: 2, TFLOPSMeasured: 57.92},
		{Name: "1.3B", Hidden: 2048, Layers: 24, Heads: 32, GPUs: 4, TFLOPSMeasured: 58.21},
		{Name: "2.6B", Hidden: 2560, Layers: 32, Heads: 32, GPUs: 8, TFLOPSMeasured: 61.61},
		{Name: "6.7B", Hidden: 4096, Layers: 32, Heads: 32, GPUs: 16, TFLOPSMeasured: 60.0},
		{Name: "15B", Hidden: 5120, Layers: 48, Heads: 40, GPUs: 32, TFLOPSMeasured: 59.9},
		{Name: "39B", Hidden: 8192, Layers: 48, Heads: 64, GPUs: 64, TFLOPSMeasured: 57.0},
	}
}

// p3GPU is an AWS p3.16xlarge GPU: V100 SXM2 16 GB, NVLink (150 GB/s per
// direction, hybrid cube-mesh), 25 Gb/s per 8-GPU node = 0.39 GB/s per GPU.
var p3GPU = estimator.GPUType{Name: "v100-p3", MemoryGB: 16, PeakTFLOPS: 125, MemBandwidthGBs: 900, IntraNodeGBs: 150, InterNodeGBs: 25.0 / 8 / 8, GPUsPerNode: 8}

// PredictAlpa searches every row's best plan on p3.16xlarge nodes with the
// fitted V100 GPT efficiency and datasheet link efficiencies, cutting the
// model into 16 layer groups (Alpa's 39B plan uses 16 stages).
func (pl Planner) PredictAlpa(rows []AlpaRow) []AlpaRow {
	out := append([]AlpaRow(nil), rows...)
	gpu := p3GPU
	p := Planner{Params: pl.Params, custom: &gpu, calibratedAs: "v100"}
	parallel(len(out), func(i int) {
		r := &out[i]
		spec := TransformerSpec{Hidden: r.Hidden, Layers: r.Layers, Heads: r.Heads, Seq: 1024, Vocab: 51200}
		j := Job{Arch: Transformer("alpa-gpt-"+r.Name, spec, 16), Batch: 1024}
		c := estimator.BestLocality(gpu.Name, r.GPUs, gpu.GPUsPerNode)
		best := p.Best(j, c)
		if !best.Found() {
			return
		}
		h, L, s, V, B := float64(r.Hidden), float64(r.Layers), 1024.0, 51200.0, 1024.0
		flops := 96*B*s*L*h*h*(1+s/(6*h)) + 6*B*s*h*V
		r.IterSec = best.Result.IterTime
		r.TFLOPSPredicted = flops / r.IterSec / float64(r.GPUs) / 1e12
		r.Plan = best.Plan.String()
	})
	return out
}

// PruneCase is one (workload, locality) of the pruned-search study.
type PruneCase struct {
	Workload   estimator.Workload
	Config     estimator.Config
	Exhaustive float64 // best iteration time, exhaustive search
	Proxy      float64 // iteration time of the chosen grid's proxy plan
	PrunedBest float64 // best Pareto plan
	Plans      int
	Evaluated  int
}

// PruneStudy runs both searches for every database workload on every
// calibrated GPU type at 1, 2, 4, 8 and 16 GPUs (most compact locality),
// keeping the cases where the exhaustive search finds a feasible plan.
// filter (optional) selects workloads.
func (pl Planner) PruneStudy(filter func(estimator.Workload) bool) ([]PruneCase, error) {
	entries, err := DatabaseEntries()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ws []estimator.Workload
	for _, e := range entries {
		if !seen[e.Workload.String()] && (filter == nil || filter(e.Workload)) {
			seen[e.Workload.String()] = true
			ws = append(ws, e.Workload)
		}
	}
	type job struct {
		w estimator.Workload
		c estimator.Config
	}
	var jobs []job
	for _, w := range ws {
		for _, g := range CalibratedGPUs {
			gpu, _ := estimator.LookupGPU(g)
			for n := 1; n <= 16; n *= 2 {
				jobs = append(jobs, job{w, estimator.BestLocality(g, n, gpu.GPUsPerNode)})
			}
		}
	}
	cases := make([]PruneCase, len(jobs))
	ok := make([]bool, len(jobs))
	parallel(len(jobs), func(i int) {
		j, err := JobFor(jobs[i].w)
		if err != nil {
			return
		}
		rep := pl.Search(j, jobs[i].c)
		if !rep.Exhaustive.Found() {
			return
		}
		cases[i] = PruneCase{Workload: jobs[i].w, Config: jobs[i].c, Exhaustive: rep.Exhaustive.Result.IterTime,
			Proxy: rep.Proxy.Result.IterTime, PrunedBest: rep.PrunedBest.Result.IterTime, Plans: rep.Plans, Evaluated: rep.Evaluated}
		ok[i] = true
	})
	var out []PruneCase
	for i := range cases {
		if ok[i] {
			out = append(out, cases[i])
		}
	}
	return out, nil
}

// PruneSummary aggregates a prune study.
type PruneSummary struct {
	Cases                   int
	ProxyRatio, PrunedRatio float64 // mean throughput ratio to the exhaustive optimum
	MinProxyRatio           float64
	EvaluatedShare          float64 // Σ evaluated / Σ plans
	MeanCaseShare           float64 // mean over cases of evaluated / plans
	ProxyMissing            int     // cases where the pruned search found nothing
}

// Summarize averages the throughput ratios (exhaustive time ÷ pruned time;
// a case the pruned search cannot place counts 0).
func Summarize(cases []PruneCase) PruneSummary {
	s := PruneSummary{Cases: len(cases), MinProxyRatio: 1}
	var plans, evals float64
	for _, c := range cases {
		pr, bt := 0.0, 0.0
		if !math.IsInf(c.Proxy, 1) {
			pr = c.Exhaustive / c.Proxy
		} else {
			s.ProxyMissing++
		}
		if !math.IsInf(c.PrunedBest, 1) {
			bt = c.Exhaustive / c.PrunedBest
		}
		s.ProxyRatio += pr
		s.PrunedRatio += bt
		s.MinProxyRatio = math.Min(s.MinProxyRatio, pr)
		plans += float64(c.Plans)
		evals += float64(c.Evaluated)
		if c.Plans > 0 {
			s.MeanCaseShare += float64(c.Evaluated) / float64(c.Plans)
		}
	}
	if len(cases) > 0 {
		s.ProxyRatio /= float64(len(cases))
		s.PrunedRatio /= float64(len(cases))
		s.MeanCaseShare /= float64(len(cases))
	}
	if plans > 0 {
		s.EvaluatedShare = evals / plans
	}
	return s
}

// ProfilingRow is one database workload's profiling-cost comparison.
type ProfilingRow struct {
	Workload estimator.Workload
	Cost     ProfilingCost
}

// ProfilingStudy computes, for every database workload, the profiling cost
// of its measured localities.
func (pl Planner) ProfilingStudy() ([]ProfilingRow, error) {
	entries, err := DatabaseEntries()
	if err != nil {
		return nil, err
	}
	byW := map[string][]estimator.Config{}
	var order []estimator.Workload
	for _, e := range entries {
		k := e.Workload.String()
		if _, ok := byW[k]; !ok {
			order = append(order, e.Workload)
		}
		byW[k] = append(byW[k], e.Config)
	}
	rows := make([]ProfilingRow, len(order))
	errs := make([]error, len(order))
	parallel(len(order), func(i int) {
		c, err := pl.ProfilingCostOf(order[i], byW[order[i].String()])
		rows[i], errs[i] = ProfilingRow{Workload: order[i], Cost: c}, err
	})
	var out []ProfilingRow
	for i := range rows {
		if errs[i] == nil {
			out = append(out, rows[i])
		}
	}
	return out, nil
}

// Validation is everything `arena estimate --validate` prints.
type Validation struct {
	Fit         *Fit
	InSample    ErrorStats
	LOO         ErrorStats
	LOOPred     []float64
	Megatron    []MegatronRow
	Alpa        []AlpaRow
	Llama3      []Llama3Row
	MCore       []MegatronCoreRow
	MCoreStrong []StrongScalingRow
	Prune       PruneSummary
	PruneCases  []PruneCase
	Profiling   []ProfilingRow
	DPMemory    DPMemoryAgreement
}

// Validate refits the parameters from StartParams, cross-validates them,
// and runs the Megatron, pruned-search and profiling-cost studies with the
// fitted parameters.
func Validate(progress io.Writer) (*Validation, error) {
	entries, err := DatabaseEntries()
	if err != nil {
		return nil, err
	}
	logf := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format+"\n", a...)
		}
	}
	logf("fitting %d database entries ...", len(entries))
	fit, err := Calibrate(entries, StartParams(), FitOptions{})
	if err != nil {
		return nil, err
	}
	v := &Validation{Fit: fit, InSample: Errors(entries, fit.Predicted)}
	logf("leave-one-out cross-validation (one refit per entry) ...")
	v.LOOPred = fit.CrossValidate(0)
	v.LOO = Errors(entries, v.LOOPred)
	pl := Planner{Params: fit.Params}
	if v.Megatron, err = pl.PredictMegatron(MegatronTable()); err != nil {
		return nil, err
	}
	v.Alpa = pl.PredictAlpa(AlpaTable())
	if v.Llama3, err = pl.PredictLlama3(Llama3Table()); err != nil {
		return nil, err
	}
	if v.MCore, err = pl.PredictMegatronCore(MegatronCoreTable()); err != nil {
		return nil, err
	}
	if v.MCoreStrong, err = pl.PredictMegatronCoreStrong(MegatronCoreStrongTable()); err != nil {
		return nil, err
	}
	logf("pruned vs exhaustive search over database workloads on 1-16 GPUs ...")
	if v.PruneCases, err = pl.PruneStudy(nil); err != nil {
		return nil, err
	}
	v.Prune = Summarize(v.PruneCases)
	if v.DPMemory, err = CompareDPMemory(fit.Params); err != nil {
		return nil, err
	}
	logf("profiling cost ...")
	if v.Profiling, err = pl.ProfilingStudy(); err != nil {
		return nil, err
	}
	return v, nil
}

// Print renders the validation tables.
func (v *Validation) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "Calibration against the profile database (%d entries, %d measured out of memory)\n", v.LOO.Entries, v.LOO.Entries-v.LOO.Feasible-v.LOO.MissedFeasible)
	fmt.Fprintln(tw, "\tentries compared\tmedian |err|\tp90 |err|\tmean |err|\tfeasible/OOM agreement\tmissed feasible\tmissed OOM\t")
	for _, r := range []struct {
		name string
		s    ErrorStats
	}{{"in-sample fit", v.InSample}, {"leave-one-out", v.LOO}} {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t%d\t\n", r.name, r.s.Feasible, 100*r.s.Median, 100*r.s.P90, 100*r.s.Mean, 100*r.s.Agreement, r.s.MissedFeasible, r.s.MissedOOM)
	}
	fmt.Fprintln(tw, "target\t\t≤ 15%\t≤ 35%\t\t≥ 90%\t\t\t")
	tw.Flush()

	fmt.Fprintln(w, "\nLeave-one-out error by GPU type and family")
	fmt.Fprintln(tw, "group\tentries\tmedian |err|\tp90 |err|\t")
	for _, k := range sortedKeys(v.LOO.PerGroup) {
		e := v.LOO.PerGroup[k]
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t\n", k, len(e), 100*quantile(e, 0.5), 100*quantile(e, 0.9))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nFitted parameters")
	p := v.Fit.Params
	fmt.Fprintln(tw, "GPU\tgpt eff\tmoe eff\twresnet eff\tintra comm eff\tinter comm eff\t")
	for _, g := range CalibratedGPUs {
		c := p.commEff(g)
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", g, p.Efficiency[g]["gpt"], p.Efficiency[g]["moe"], p.Efficiency[g]["wresnet"], c.Intra, c.Inter)
	}
	tw.Flush()
	fmt.Fprintf(w, "layer latency (ms): gpt %.3f  moe %.3f  wresnet %.3f;  GEMM-width constant w0: gpt %.0f  moe %.0f  wresnet %.1f;  exposed DP all-reduce share %.2f\n",
		1e3*p.LayerLatency["gpt"], 1e3*p.LayerLatency["moe"], 1e3*p.LayerLatency["wresnet"], p.HalfWidth["gpt"], p.HalfWidth["moe"], p.HalfWidth["wresnet"], p.DPExposed)

	d := v.DPMemory
	fmt.Fprintf(w, "\nData-parallel memory filter (baselines' view) vs the artifact's dp_mem.json: %d of %d (row, GPU count, GPU type) verdicts agree (%.1f%%); analytic stricter %d, looser %d\n",
		d.Agree, d.Cases, 100*float64(d.Agree)/math.Max(1, float64(d.Cases)), d.AnalyticStricter, d.AnalyticLooser)

	fmt.Fprintln(w, "\nMegatron-LM SC21 weak scaling, A100 80GB (published plan; TFLOPS/GPU counting recompute)")
	fmt.Fprintln(tw, "model\tGPUs\tTP\tPP\tbatch\tmeasured\tpredicted\terror\tpredicted iter (s)\tmicro-batches\t")
	within := 0
	for _, r := range v.Megatron {
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		if math.Abs(e) <= 0.15 {
			within++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.0f\t%.1f\t%+.1f%%\t%.1f\t%d\t\n", r.Name, r.GPUs, r.TP, r.PP, r.Batch, r.TFLOPSMeasured, r.TFLOPSPredicted, 100*e, r.IterSec, r.Micro)
	}
	tw.Flush()
	fmt.Fprintf(w, "within 15%%: %d of %d rows\n", within, len(v.Megatron))

	fmt.Fprintln(w, "\nAlpa OSDI'22 GPT on AWS p3.16xlarge (V100 16GB, 25 Gb/s between nodes; batch 1024; TFLOPS/GPU counting remat)")
	fmt.Fprintln(tw, "model\tGPUs\tmeasured (Alpa auto)\tpredicted\terror\tpredicted iter (s)\tplan\t")
	within = 0
	for _, r := range v.Alpa {
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		if math.Abs(e) <= 0.15 {
			within++
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%+.1f%%\t%.1f\t%s\t\n", r.Name, r.GPUs, r.TFLOPSMeasured, r.TFLOPSPredicted, 100*e, r.IterSec, r.Plan)
	}
	tw.Flush()
	fmt.Fprintf(w, "within 15%%: %d of %d rows\n", within, len(v.Alpa))

	fmt.Fprintln(w)
	PrintLlama3(w, v.Llama3)
	fmt.Fprintln(w)
	PrintMegatronCore(w, v.MCore)
	PrintMegatronCoreStrong(w, v.MCoreStrong)

	s := v.Prune
	fmt.Fprintf(w, "\nPruned (Pareto) plan search vs exhaustive search: %d database workload × GPU type × {1,2,4,8,16} GPU cases\n", s.Cases)
	fmt.Fprintln(tw, "\tmean throughput vs exhaustive optimum\tworst case\tplans evaluated (all cases)\tmean per case\t")
	fmt.Fprintf(tw, "proxy plan of the best grid\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", 100*s.ProxyRatio, 100*s.MinProxyRatio, 100*s.EvaluatedShare, 100*s.MeanCaseShare)
	fmt.Fprintf(tw, "best Pareto plan\t%.1f%%\t\t%.1f%%\t%.1f%%\t\n", 100*s.PrunedRatio, 100*s.EvaluatedShare, 100*s.MeanCaseShare)
	fmt.Fprintln(tw, "paper / target\t93.4% / ≥ 90%\t\t≤ 20%\t\t")
	tw.Flush()
	byN := map[int][]PruneCase{}
	for _, c := range v.PruneCases {
		byN[c.Config.GPUs()] = append(byN[c.Config.GPUs()], c)
	}
	fmt.Fprintln(tw, "GPUs\tcases\tproxy / optimum\tplans evaluated\tmean per case\t")
	for _, n := range []int{1, 2, 4, 8, 16} {
		ss := Summarize(byN[n])
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t\n", n, ss.Cases, 100*ss.ProxyRatio, 100*ss.EvaluatedShare, 100*ss.MeanCaseShare)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nProfiling cost per database workload: direct measurement vs disaggregated profiling (GPU-seconds)")
	fmt.Fprintln(tw, "workload\tlocalities\tgrids\tplans\tstage programs\tdirect\tdisaggregated\treduction\t")
	var sum, minR float64 = 0, math.Inf(1)
	rows := append([]ProfilingRow(nil), v.Profiling...)
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Workload.String() < rows[b].Workload.String() })
	for _, r := range rows {
		c := r.Cost
		red := c.Reduction()
		sum += red
		minR = math.Min(minR, red)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%.1f×\t\n", r.Workload, c.Configs, c.Grids, c.Plans, c.StagePrograms, c.DirectGPUSeconds, c.DisaggregatedGPUSeconds, red)
	}
	tw.Flush()
	if len(rows) > 0 {
		fmt.Fprintf(w, "reduction: mean %.1f×, min %.2f× over %d workloads (paper: 18.1× mean, ≥ 2.55×)\n", sum/float64(len(rows)), minR, len(rows))
	}
}

// DPMemoryAgreement compares the analytic data-parallel memory filter with
// the artifact's (dp_mem.json under the same rule, 1.2·need > 0.8·memory)
// over every table row, GPU count 1–16 and calibrated GPU type. Rows the
// table marks 0 (not recorded, passes) are skipped.
type DPMemoryAgreement struct {
	Cases, Agree, AnalyticStricter, AnalyticLooser int
}

// CompareDPMemory runs the comparison.
func CompareDPMemory(p *Params) (DPMemoryAgreement, error) {
	var a DPMemoryAgreement
	var rows []map[string][]float64
	if err := json.Unmarshal(estimator.DPMemJSON(), &rows); err != nil {
		return a, fmt.Errorf("analytic: dp_mem table: %w", err)
	}
	for _, part := range rows {
		for _, key := range sortedKeys(part) {
			w, err := parseDBKey(key)
			if err != nil {
				return a, err
			}
			arch, err := ArchOf(w.Model)
			if err != nil {
				continue
			}
			for i, need := range part[key] {
				if need == 0 {
					continue
				}
				n := 1 << i
				for _, g := range CalibratedGPUs {
					gpu, _ := estimator.LookupGPU(g)
					capacity := usableMemoryFraction * gpu.MemoryGB
					dbFits := need != -1 && 1.2*need <= capacity
					anFits := 1.2*DPReplicaMemory(arch, w.Batch, n, p.DPMemory)/1e9 <= capacity
					a.Cases++
					switch {
					case dbFits == anFits:
						a.Agree++
					case dbFits:
						a.AnalyticStricter++
					default:
						a.AnalyticLooser++
					}
				}
			}
		}
	}
	return a, nil
}
