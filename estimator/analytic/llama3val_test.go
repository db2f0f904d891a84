package analytic

import (
	"math"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// Anchor (published, held out — nothing here was fitted to it): the Llama 3
// paper's Table 4, Llama 3 405B on 8,192 and 16,384 H100s at 430 and 400
// TFLOPs/GPU. The model, fitted to the profile database only (Alpa's
// A100/V100/A40/A10 measurements; H100 inherits A100's efficiency), must
// land within 35 % of each row — it under-predicts (−27 %, −30 %: it
// prices full activation recomputation and unoverlapped tensor-parallel
// all-reduces, docs/perf-model.md) — and must see the per-GPU drop from
// 8,192 to 16,384 GPUs (published −7 %) as a drop of at most 20 %.
func TestLlama3HeldOut(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Planner{Params: p}.PredictLlama3(Llama3Table())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	PrintLlama3(&b, rows)
	t.Log("\n" + b.String()) // go test -v -run HeldOut prints the table
	var modelled []Llama3Row
	for _, r := range rows {
		if !r.Modelled {
			continue
		}
		modelled = append(modelled, r)
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		if math.Abs(e) > 0.35 {
			t.Errorf("%d GPUs: predicted %.1f TFLOPs/GPU, published %.0f: error %+.1f%% outside ±35%%", r.GPUs, r.TFLOPSPredicted, r.TFLOPSMeasured, 100*e)
		}
		// The published plan is inside Search3D's space (TP 8 in a node,
		// PP 16, layers split evenly): the search can only do as well or
		// better, within its step bound.
		if r.SearchedTFLOPS < r.TFLOPSPredicted*(1-1e-9) || r.SearchSteps == 0 || r.SearchSteps > MaxPlanSteps {
			t.Errorf("%d GPUs: Search3D found %.1f TFLOPs/GPU in %d steps, below the published plan's %.1f", r.GPUs, r.SearchedTFLOPS, r.SearchSteps, r.TFLOPSPredicted)
		}
	}
	if len(modelled) != 2 {
		t.Fatalf("%d modelled rows, want the two without context parallelism", len(modelled))
	}
	drop := modelled[1].TFLOPSPredicted/modelled[0].TFLOPSPredicted - 1
	if !(drop < 0 && drop > -0.20) {
		t.Errorf("8,192 → 16,384 GPUs: predicted TFLOPs/GPU change %+.1f%%, want a drop of less than 20%% (published −7.0%%)", 100*drop)
	}
}

// Hand-worked: the Llama 3 405B architecture has the paper's parameter
// count (405 B; Table 3 shapes) and 126 units, one per layer.
func TestLlamaArchShape(t *testing.T) {
	a, err := LlamaArch("405B", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Params(); math.Abs(got/405e9-1) > 0.01 || len(a.Units) != 126 {
		t.Errorf("llama3-405B: %.4g parameters in %d units, want 405e9 ± 1%% in 126", got, len(a.Units))
	}
	if _, err := LlamaArch("7B", 0); err == nil {
		t.Error("an unknown Llama size was accepted")
	}
}

// Search3D is bounded in counted steps and keeps tensor parallelism
// inside a node, at every size from 64 to 16,384 GPUs.
func TestSearch3DBounded(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	a, err := ArchOf(estimator.Model{Family: estimator.GPT, Size: "175B", SizeIndex: 8})
	if err != nil {
		t.Fatal(err)
	}
	j := Job{Arch: a, Batch: 1536}
	for n := 64; n <= 16384; n *= 4 {
		c := estimator.BestLocality("h100", n, 8)
		ch := Planner{Params: p}.Search3D(j, c)
		want := PlanSteps3D(j, c)
		if !ch.Found() || ch.Evaluated != min(want, MaxPlanSteps) || ch.Cut != (want > MaxPlanSteps) {
			t.Errorf("%d GPUs: found %v after %d steps (cut %v), want a plan after %d", n, ch.Found(), ch.Evaluated, ch.Cut, want)
		}
		if ch.Plan.Shape.TP > c.PerNode || ch.Plan.Stages*ch.Plan.Shape.DP*ch.Plan.Shape.TP != n {
			t.Errorf("%d GPUs: plan %s is not a 3D plan of the GPUs with TP inside a node", n, ch.Plan)
		}
	}
}

// Hand-worked: ExhaustiveSize counts what Exhaustive evaluates (gpt-6.7b
// on 2×4 A100: the grids' PlanCount summed) without enumerating, and it
// sends only models of many units to Search3D: gpt-175b keeps the
// exhaustive search on 16,384 H100s (435,141 plans), gpt-405b does not.
func TestExhaustiveSize(t *testing.T) {
	for _, name := range []string{"gpt-6.7b", "wresnet-1b", "moe-10b"} {
		m, _ := ParseModel(name)
		a, _ := ArchOf(m)
		j := Job{Arch: a, Batch: 256}
		c := estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}
		want := 0
		for _, g := range Grids(j, c) {
			want += PlanCount(j, g)
		}
		if got := ExhaustiveSize(j, c); got != float64(want) {
			t.Errorf("%s: ExhaustiveSize %v, PlanCount sum %d", name, got, want)
		}
	}
	c := estimator.BestLocality("h100", 16384, 8)
	m, _ := ParseModel("gpt-175b")
	a, _ := ArchOf(m)
	if j := (Job{Arch: a, Batch: 1024}); UsesSearch3D(j, c) || ExhaustiveSize(j, c) != 435141 {
		t.Errorf("gpt-175b on 16,384 H100s: %v exhaustive plans, Search3D %v; want 435141 and the exhaustive search", ExhaustiveSize(j, c), UsesSearch3D(j, c))
	}
	m, _ = ParseModel("gpt-405b")
	a, _ = ArchOf(m)
	if j := (Job{Arch: a, Batch: 2048}); !UsesSearch3D(j, estimator.BestLocality("h100", 8, 8)) {
		t.Error("gpt-405b on 8 GPUs would run the exhaustive search")
	}
}
