package synth

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// Hand-worked stage counts: each job is counted under the first filter it
// fails, in the documented order (min-duration, max-duration, max-gpus,
// max-gpu-time, since, until, vc, status); the sample drops the rest.
func TestReportCountsEachStage(t *testing.T) {
	in := blank(10, 3600)
	in[0].Duration = 30                   // min-duration
	in[1].Duration, in[1].GPUs = 10, 64   // min-duration first, not max-gpus
	in[2].GPUs = 64                       // max-gpus
	in[3].VC, in[4].VC = "other", "other" // vc
	for i := range in {
		if in[i].VC == "" {
			in[i].VC = "a"
		}
	}
	_, rep, err := RunReport(in, Options{MinDuration: 60, MaxGPUs: 16, VCs: []string{"a"}, Sample: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []Drop{{"min-duration", 2}, {"max-gpus", 1}, {"vc", 2}, {"sample", 2}}
	if rep.In != 10 || rep.Out != 3 || !reflect.DeepEqual(rep.Dropped, want) {
		t.Errorf("report %+v; want in 10, out 3, dropped %v", rep, want)
	}
	lines := strings.Join(rep.Lines(), "\n")
	for _, w := range []string{"in: 10 jobs", "min-duration: dropped 2 (20.0 % of the input)", "sample: dropped 2", "out: 3 jobs"} {
		if !strings.Contains(lines, w) {
			t.Errorf("lines lack %q:\n%s", w, lines)
		}
	}
}

// The arena recipe on 60-s 1-GPU jobs (the bulk of Philly): 60 s ÷ any
// catalog iteration time is far below 2,000 iterations, so every run time
// is replaced by the uniform draw, and the report says so; the GPU draw
// leaves few jobs on 1 GPU (the artifact's mix gives 1 GPU 10/80). With
// KeepDurations and KeepGPUs the engine's run time is the trace's within
// half an iteration and every job stays on 1 GPU.
func TestReportArenaRecipeAndKeep(t *testing.T) {
	in := blank(400, 60)
	_, rep, err := RunReport(in, Options{Recipe: "arena", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.WorkRedrawn != 400 || rep.WithDuration != 400 || rep.OneGPUBefore != 400 || rep.OneGPUAfter > 100 || rep.GPUsChanged < 300 {
		t.Errorf("arena: %+v; want all 400 run times redrawn, most GPU counts changed", rep)
	}
	out, rep, err := RunReport(in, Options{Recipe: "arena", Seed: 3, KeepDurations: true, KeepGPUs: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.WorkRedrawn != 0 || rep.GPUsChanged != 0 || rep.OneGPUAfter != 400 || rep.RunTimes == nil || rep.RunTimes.MedianRatio < 0.9 || rep.RunTimes.MedianRatio > 1.1 {
		t.Errorf("keep: %+v %+v; want nothing redrawn, every job on 1 GPU, ratio 1", rep, rep.RunTimes)
	}
	db, _ := estimator.DefaultProfileDB()
	for _, j := range out {
		m, _ := estimator.ParseModel(j.Model)
		g, _ := estimator.LookupGPU(j.GPUType)
		it := db.Estimate(estimator.Workload{Model: m, Batch: int(j.Batch)}, estimator.BestLocality(j.GPUType, int(j.GPUs), g.GPUsPerNode), estimator.ViewOptimal).IterTime
		if run := float64(j.Iterations) / float64(j.IterationScale) * it; j.IterationScale != 1 || (math.Abs(run-60) > it/2 && j.Iterations > 1) {
			t.Fatalf("job %s: engine run %v s (scale %d, %d × %v s); want 60 within half an iteration", j.ID, run, j.IterationScale, j.Iterations, it)
		}
	}
	lines := strings.Join(rep.Lines(), "\n")
	if !strings.Contains(lines, "run times kept (--keep-durations)") || strings.Contains(lines, "to keep the trace's") {
		t.Errorf("keep lines:\n%s", lines)
	}
}

// A job with no run time (kept by --keep-never-ran) is dropped before a
// recipe and counted; before, the arena recipe failed the whole synthesis.
func TestReportDropsJobsWithoutWork(t *testing.T) {
	in := blank(5, 600)
	in[2].Duration = -1
	out, rep, err := RunReport(in, Options{Recipe: "arena", Seed: 1})
	if err != nil || len(out) != 4 || len(rep.Dropped) != 1 || rep.Dropped[0].Jobs != 1 {
		t.Errorf("%d jobs, report %+v, %v; want 4 and one dropped for want of a run time", len(out), rep, err)
	}
}

// Spearman by hand: ranks of (10, 20, 20, 40) are (1, 2.5, 2.5, 4).
func TestRanksAndPearson(t *testing.T) {
	if r := ranks([]float64{10, 20, 20, 40}); !reflect.DeepEqual(r, []float64{1, 2.5, 2.5, 4}) {
		t.Errorf("ranks %v", r)
	}
	if p := pearson([]float64{1, 2, 3}, []float64{3, 2, 1}); math.Abs(p+1) > 1e-12 {
		t.Errorf("pearson of a reversed line %v, want -1", p)
	}
}

// From scratch nothing is cycled; with an input of 5 and jobs 12, 7 jobs
// repeat the input's. Gavel's law redraws every run time.
func TestReportArrivalsAndRedraws(t *testing.T) {
	_, rep, err := RunReport(nil, Options{Jobs: 50, Rate: 10, Durations: "gavel", GPUMix: "gavel", Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(rep.Lines(), "\n")
	if !rep.Rearrived || rep.Cycled != 0 || rep.DurationsRedrawn != 50 || rep.GPUsRedrawn != 50 ||
		!strings.Contains(lines, "rate: arrivals replaced by a Poisson process at 10 jobs/h\n") {
		t.Errorf("scratch: %+v\n%s", rep, lines)
	}
	_, rep, err = RunReport(blank(5, 600), Options{Jobs: 12, Rate: 10, Seed: 2})
	if err != nil || rep.Cycled != 7 || !strings.Contains(strings.Join(rep.Lines(), "\n"), "7 jobs repeat the input's (cycled)") {
		t.Errorf("cycled: %+v %v", rep, err)
	}
}

// keep-gpus exact keeps Philly's large counts (12, 24, 128) as they are,
// where keep-gpus true rounds them to at most 16; every label is one the
// hybrid estimator can run at that count.
func TestKeepGPUsExact(t *testing.T) {
	in := blank(6, 7200)
	for i, n := range []float64{1, 3, 12, 24, 128, 0.5} {
		in[i].GPUs = n
	}
	var o Options
	for _, kv := range [][2]string{{"recipe", "arena"}, {"seed", "2"}, {"keep-durations", "true"}, {"keep-gpus", "exact"}} {
		if err := Set(&o, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Run(in, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 3, 12, 24, 128, 1}
	for i, j := range out {
		if j.GPUs != want[i] || j.Model == "" {
			t.Errorf("job %d: %v GPUs of %q, want %v", i, j.GPUs, j.Model, want[i])
		}
	}
	rounded, err := Run(in, Options{Recipe: "arena", Seed: 2, KeepDurations: true, KeepGPUs: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{1, 4, 16, 16, 16, 1} {
		if rounded[i].GPUs != w {
			t.Errorf("keep-gpus true, job %d: %v GPUs, want %v", i, rounded[i].GPUs, w)
		}
	}
	if err := Set(&o, "keep-gpus", "most"); err == nil {
		t.Error("keep-gpus most was accepted")
	}
}
