package traces

import (
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/traces/table"
)

// The figures ARENA.md §8 gives for the artifact's Philly trace.
func TestInspectPhilly(t *testing.T) {
	tr, err := Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	s := Inspect(tr, 2000)
	if s.Jobs != 1938 || s.InWindow != 986 {
		t.Errorf("jobs %d, in window %d; want 1938 and 986", s.Jobs, s.InWindow)
	}
	wantGPUs := map[int]int{1: 100, 2: 286, 4: 717, 8: 644, 16: 191}
	for n, c := range wantGPUs {
		if s.ByGPUs[n] != c {
			t.Errorf("%d-GPU jobs: %d, want %d", n, s.ByGPUs[n], c)
		}
	}
	for typ, c := range map[string]int{"a40": 784, "a10": 473, "a100": 352, "v100": 329} {
		if s.ByType[typ] != c {
			t.Errorf("%s jobs: %d, want %d", typ, s.ByType[typ], c)
		}
	}
	for fam, c := range map[string]int{"moe": 1231, "gpt": 450, "wresnet": 257} {
		if s.ByFamily[fam] != c {
			t.Errorf("%s jobs: %d, want %d", fam, s.ByFamily[fam], c)
		}
	}
	if days := float64(s.Last-s.First) / 86400; days < 19.8 || days > 19.9 {
		t.Errorf("span %.2f days, want 19.85", days)
	}
}

// Hand-worked: two jobs submitted 2 h apart, 1 h on 2 GPUs and 30 min on 4
// GPUs, offer 2 + 2 = 4 GPU-hours; on 4 GPUs over the 2-h span that is a
// load of 4 / (4 × 2) = 0.5. A third job with no run time counts as a job
// and an arrival but adds no work. Nearest-rank p50 of (1800, 3600) is
// 1800 (the ⌈0.5·2⌉ = 1st), p90 3600.
func TestInspectTableHandWorked(t *testing.T) {
	jobs := []table.Job{
		{ID: "a", Submit: 100, Duration: 3600, GPUs: 2, IterationScale: 1, Status: "Pass"},
		{ID: "b", Submit: 7300, Duration: 1800, GPUs: 4, IterationScale: 1, GPUType: "v100", Status: "Failed"},
		{ID: "c", Submit: 3700, Duration: -1, GPUs: 0.5, IterationScale: 1, Status: "Killed"},
	}
	s := InspectTable(jobs)
	if s.Jobs != 3 || s.SpanHours() != 2 || s.WithDuration != 2 || s.GPUHours != 4 || s.OfferedLoad(4) != 0.5 {
		t.Errorf("%+v; want 3 jobs over 2 h, 2 with a run time, 4 GPU-hours, load 0.5 on 4 GPUs", s)
	}
	if s.DurationP[1] != 1800 || s.DurationP[2] != 3600 || s.MeanDuration != 2700 || s.MaxGPUs != 4 {
		t.Errorf("percentiles %v, mean %v, max GPUs %v", s.DurationP, s.MeanDuration, s.MaxGPUs)
	}
	// Hours after the first submission: 0, 1, 2 hold one job each.
	if s.ArrivalsPerHour != 1.5 || s.PeakHour != 1 || s.IdleHours != 0 {
		t.Errorf("arrivals %v/h, peak %d, idle %v; want 1.5, 1, 0", s.ArrivalsPerHour, s.PeakHour, s.IdleHours)
	}
	if s.ByGPUs[0.5] != 1 || s.ByType[""] != 2 || s.ByStatus["Killed"] != 1 {
		t.Errorf("mixes %v %v %v", s.ByGPUs, s.ByType, s.ByStatus)
	}
}

// The artifact's Philly trace, engine-ready, gets run times estimated from
// its iterations: every job's plan is feasible, so all have one.
func TestTableOfEstimatesRunTimes(t *testing.T) {
	tr, err := Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	s := InspectTable(TableOf(tr, db.View(estimator.ViewOptimal)))
	if s.Jobs != 1938 || s.WithDuration != 1938 || s.ByGPUs[16] != 191 || s.GPUHours <= 0 {
		t.Errorf("%d jobs, %d with a run time, %d on 16 GPUs, %v GPU-hours; want 1938, 1938, 191, > 0", s.Jobs, s.WithDuration, s.ByGPUs[16], s.GPUHours)
	}
}
