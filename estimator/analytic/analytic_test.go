package analytic

import (
	"math"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

func mustModel(t *testing.T, s string) estimator.Model {
	t.Helper()
	m, err := ParseModel(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJob(t *testing.T, model string, batch int) Job {
	t.Helper()
	j, err := JobFor(estimator.Workload{Model: mustModel(t, model), Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestArchitectureParameterCounts(t *testing.T) {
	// Transformer tables must reproduce the catalog's nominal sizes
	// (Alpa's formulas, perf-model.md §2.1); WideResNet is scaled to them.
	for _, name := range []string{"gpt-760m", "gpt-1.3b", "gpt-2.6b", "gpt-6.7b", "gpt-15b", "gpt-39b",
		"moe-690m", "moe-1.3b", "moe-2.4b", "moe-10b", "moe-27b", "moe-70b", "wresnet-500m", "wresnet-13b", "gpt-175b"} {
		m := mustModel(t, name)
		a, err := ArchOf(m)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(a.Params()-m.Params()) / m.Params(); rel > 0.08 {
			t.Errorf("%s: %.3g parameters, nominal %.3g (%.0f%% off)", name, a.Params(), m.Params(), 100*rel)
		}
	}
}

func TestExtraSizesStayOutOfTheProfileDB(t *testing.T) {
	m := mustModel(t, "gpt-175b")
	if m.SizeIndex < 6 {
		t.Fatalf("gpt-175b SizeIndex %d collides with the catalog", m.SizeIndex)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	e := db.Estimate(estimator.Workload{Model: m, Batch: 256}, estimator.Config{GPU: "v100", Nodes: 1, PerNode: 16}, estimator.ViewOptimal)
	if e.Feasible() || e.Reason != estimator.NotProfiled {
		t.Errorf("profile DB answers gpt-175b: %+v", e)
	}
	if _, err := ParseModel("gpt-3b"); err == nil {
		t.Error("unknown size gpt-3b accepted")
	}
}

func TestDatabaseEntries(t *testing.T) {
	es, err := DatabaseEntries()
	if err != nil {
		t.Fatal(err)
	}
	oom := 0
	for _, e := range es {
		if e.OOM() {
			oom++
		}
	}
	if len(es) != 329 || oom != 11 {
		t.Errorf("got %d entries, %d OOM; want 329, 11", len(es), oom)
	}
}

// The embedded fitted parameters must meet the accuracy figures
// in-sample (cross-validation runs in `arena estimate --validate`).
func TestEmbeddedParamsFitTheDatabase(t *testing.T) {
	es, err := DatabaseEntries()
	if err != nil {
		t.Fatal(err)
	}
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]Job, len(es))
	for i, e := range es {
		if jobs[i], err = JobFor(e.Workload); err != nil {
			t.Fatal(err)
		}
	}
	s := Errors(es, predictAll(Planner{Params: p}, jobs, es))
	if s.Median > 0.15 || s.P90 > 0.35 || s.Agreement < 0.90 {
		t.Errorf("median %.1f%%, p90 %.1f%%, agreement %.1f%%", 100*s.Median, 100*s.P90, 100*s.Agreement)
	}
}

// The pruned search's proxy plan must reach ≥ 90% of the exhaustive
// optimum's throughput on average over the database's workloads on 1–16
// GPUs of each calibrated type, evaluating at most a fifth of the plans.
func TestPrunedSearchReachesNinetyPercent(t *testing.T) {
	if testing.Short() {
		t.Skip("full prune study")
	}
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Planner{Params: p}.PruneStudy(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(cases)
	if s.Cases < 500 {
		t.Errorf("only %d cases", s.Cases)
	}
	if s.ProxyRatio < 0.90 || s.EvaluatedShare > 0.2 {
		t.Errorf("proxy reaches %.1f%% of the optimum evaluating %.1f%% of plans", 100*s.ProxyRatio, 100*s.EvaluatedShare)
	}
	for _, c := range cases {
		if c.Proxy < c.Exhaustive*(1-1e-9) {
			t.Fatalf("%s on %s: proxy %.3f s beats the exhaustive optimum %.3f s", c.Workload, c.Config, c.Proxy, c.Exhaustive)
		}
	}
}

func TestMegatronWithinFifteenPercent(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Planner{Params: p}.PredictMegatron(MegatronTable())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if e := math.Abs(r.TFLOPSPredicted-r.TFLOPSMeasured) / r.TFLOPSMeasured; e > 0.15 {
			t.Errorf("%s: predicted %.1f TFLOPS/GPU, measured %.0f", r.Name, r.TFLOPSPredicted, r.TFLOPSMeasured)
		}
	}
}

func TestCalibrationRecoversSyntheticParameters(t *testing.T) {
	truth := StartParams()
	truth.Efficiency["a100"]["gpt"] = 0.55
	truth.Efficiency["v100"]["gpt"] = 0.35
	truth.HalfWidth["gpt"] = 500
	es, err := DatabaseEntries()
	if err != nil {
		t.Fatal(err)
	}
	var sub []Entry
	for _, e := range es {
		if e.Workload.Model.Family == estimator.GPT && !e.OOM() && (e.Config.GPU == "a100" || e.Config.GPU == "v100") {
			j, err := JobFor(e.Workload)
			if err != nil {
				t.Fatal(err)
			}
			e.Seconds = Planner{Params: truth}.Best(j, e.Config).Result.IterTime
			sub = append(sub, e)
		}
	}
	fit, err := Calibrate(sub, StartParams(), FitOptions{Rounds: 2, MaxEvaluations: 3000})
	if err != nil {
		t.Fatal(err)
	}
	s := Errors(sub, fit.Predicted)
	if s.Median > 0.03 || s.P90 > 0.08 {
		t.Errorf("refit on %d synthetic entries: median %.1f%%, p90 %.1f%%", len(sub), 100*s.Median, 100*s.P90)
	}
}

func TestPlanCostBehaviour(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	pl := Planner{Params: p}
	j := mustJob(t, "gpt-2.6b", 256)
	// More GPUs of the same type are faster.
	t4 := pl.Best(j, estimator.Config{GPU: "a100", Nodes: 1, PerNode: 4}).Result.IterTime
	t8 := pl.Best(j, estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}).Result.IterTime
	if !(t8 < t4) {
		t.Errorf("8 A100 (%.2f s) not faster than 4 (%.2f s)", t8, t4)
	}
	// H100 beats A100 on the same shape.
	h := pl.Best(j, estimator.Config{GPU: "h100", Nodes: 1, PerNode: 4}).Result.IterTime
	if !(h < t4) {
		t.Errorf("4 H100 (%.2f s) not faster than 4 A100 (%.2f s)", h, t4)
	}
	// A plan that cannot fit is reported as such.
	big := mustJob(t, "gpt-39b", 512)
	if c := pl.Best(big, estimator.Config{GPU: "a10", Nodes: 1, PerNode: 1}); c.Found() {
		t.Errorf("gpt-39b fits on one A10: %+v", c.Result)
	}
	// Pipeline bubble: more micro-batches shrink it for a fixed plan.
	g := Grid{GPU: "a100", Nodes: 1, PerNode: 4, Stages: 4}
	r2, _ := pl.Evaluate(j, g, Plan{Stages: 4, Cuts: []int{1, 3, 4}, Shape: Shape{1, 1}, Micro: 2})
	r16, _ := pl.Evaluate(j, g, Plan{Stages: 4, Cuts: []int{1, 3, 4}, Shape: Shape{1, 1}, Micro: 16})
	if !(r16.Bubble < r2.Bubble) {
		t.Errorf("bubble with 16 micro-batches %.3f s ≥ with 2 %.3f s", r16.Bubble, r2.Bubble)
	}
}

func TestSourceViewsAndHybrid(t *testing.T) {
	src, err := DefaultSource()
	if err != nil {
		t.Fatal(err)
	}
	w := estimator.Workload{Model: mustModel(t, "gpt-6.7b"), Batch: 256}
	c := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}
	opt := src.View(estimator.ViewOptimal).Estimate(w, c)
	if !opt.Feasible() || math.Abs(opt.IterTime-12.06)/12.06 > 0.35 {
		t.Errorf("analytic optimal %+v, database 12.06 s", opt)
	}
	// A pure DP replica of 6.7B needs > 100 GB: the DP view rejects it.
	if dp := src.View(estimator.ViewDataParallel).Estimate(w, c); dp.Feasible() || dp.Reason != estimator.OutOfMemory {
		t.Errorf("DP view accepts gpt-6.7b: %+v", dp)
	}
	if nm := src.View(estimator.ViewDataParallelNoMemCheck).Estimate(w, c); nm != opt {
		t.Errorf("no-memcheck view %+v differs from optimal %+v", nm, opt)
	}
	small := estimator.Workload{Model: mustModel(t, "gpt-760m"), Batch: 128}
	if dp := src.View(estimator.ViewDataParallel).Estimate(small, estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}); !dp.Feasible() {
		t.Errorf("DP view rejects gpt-760m on 8 A100: %+v", dp)
	}
	if e := src.View(estimator.ViewOptimal).Estimate(w, estimator.Config{GPU: "x999", Nodes: 1, PerNode: 1}); e.Reason != estimator.UnknownGPU {
		t.Errorf("unknown GPU: %+v", e)
	}
	if e := src.View(estimator.ViewOptimal).Estimate(w, estimator.Config{GPU: "h100", Nodes: 2, PerNode: 8}); !e.Feasible() {
		t.Errorf("gpt-6.7b infeasible on 16 H100: %+v", e)
	}

	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	h := &Hybrid{DB: db, Analytic: src}
	if got, want := h.View(estimator.ViewOptimal).Estimate(w, c), db.Estimate(w, c, estimator.ViewOptimal); got != want {
		t.Errorf("hybrid on an exact entry: %+v, database %+v", got, want)
	}
	oom := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 2} // stored −1
	if e := h.View(estimator.ViewOptimal).Estimate(w, oom); e.Feasible() {
		t.Errorf("hybrid ignores the database's OOM entry: %+v", e)
	}
	other := estimator.Config{GPU: "a100", Nodes: 4, PerNode: 2} // no exact entry
	if got, want := h.View(estimator.ViewOptimal).Estimate(w, other), src.Estimate(w, other, estimator.ViewOptimal); got != want {
		t.Errorf("hybrid off the database: %+v, analytic %+v", got, want)
	}
}

func TestProfilingCost(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	pl := Planner{Params: p}
	w := estimator.Workload{Model: mustModel(t, "wresnet-1b"), Batch: 256}
	one, err := pl.ProfilingCostOf(w, []estimator.Config{{GPU: "a40", Nodes: 1, PerNode: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if !(one.Reduction() > 1) || one.StagePrograms == 0 {
		t.Errorf("1x4 A40: %+v", one)
	}
	// A second locality with the same GPU count reuses most per-device
	// stage programs: direct measurement pays again in full, the
	// disaggregated profiler only for the few new ones.
	two, err := pl.ProfilingCostOf(w, []estimator.Config{{GPU: "a40", Nodes: 1, PerNode: 4}, {GPU: "a40", Nodes: 2, PerNode: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !(two.DisaggregatedGPUSeconds-one.DisaggregatedGPUSeconds < 0.5*one.DisaggregatedGPUSeconds) || !(two.DirectGPUSeconds > 1.5*one.DirectGPUSeconds) {
		t.Errorf("second locality: %d→%d stage programs, direct %.0f→%.0f GPU·s", one.StagePrograms, two.StagePrograms, one.DirectGPUSeconds, two.DirectGPUSeconds)
	}
}

func TestParamsValidation(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalParams(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseParams(data)
	if err != nil || q.Efficiency["a100"]["gpt"] != p.Efficiency["a100"]["gpt"] {
		t.Fatalf("round trip: %v", err)
	}
	bad := p.Clone()
	bad.Efficiency["a100"]["gpt"] = 1.5
	data, _ = MarshalParams(bad)
	if _, err := ParseParams(data); err == nil {
		t.Error("efficiency 1.5 accepted")
	}
}

func BenchmarkBestPlanWideResNet16GPUs(b *testing.B) {
	p, _ := DefaultParams()
	m, _ := ParseModel("wresnet-2b")
	j, _ := JobFor(estimator.Workload{Model: m, Batch: 256})
	c := estimator.Config{GPU: "v100", Nodes: 1, PerNode: 16}
	for i := 0; i < b.N; i++ {
		Planner{Params: p}.Best(j, c)
	}
}

func BenchmarkBestPlanGPT8GPUs(b *testing.B) {
	p, _ := DefaultParams()
	m, _ := ParseModel("gpt-6.7b")
	j, _ := JobFor(estimator.Workload{Model: m, Batch: 256})
	c := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}
	for i := 0; i < b.N; i++ {
		Planner{Params: p}.Best(j, c)
	}
}

func TestAlpaV100WithinFifteenPercent(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range (Planner{Params: p}).PredictAlpa(AlpaTable()) {
		if e := math.Abs(r.TFLOPSPredicted-r.TFLOPSMeasured) / r.TFLOPSMeasured; e > 0.15 {
			t.Errorf("Alpa GPT-%s on %d V100: predicted %.1f TFLOPS/GPU, measured %.1f (%s)", r.Name, r.GPUs, r.TFLOPSPredicted, r.TFLOPSMeasured, r.Plan)
		}
	}
}
