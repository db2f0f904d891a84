package sim

import (
	"context"
	"slices"
	"testing"
)

// TestArtifactReadsWholeSeconds: artifact timing reads submission times,
// deadlines and the round-0 timer as the artifact's trace loader does,
// with int() (ArtifactSecond); exact timing keeps the decimals.
// Hand-worked from trace_manager.py and Simulator._submit_jobs (outside
// anchor):
//
//   - T0 = int(1000.9) = 1000, the first row's.
//   - 1300.5 → 1300 ≤ T0 + 300: chunk 0 (as written it would be chunk 1).
//   - 1301.2 → 1301 > T0 + 300: chunk 1, round timer 1300.
//   - job 0's deadline: t_0 + 5·(int(2000.7) − t_0) = 1000 + 5·1000 = 6000.
func TestArtifactReadsWholeSeconds(t *testing.T) {
	w := gpt13b(t)
	specs := []JobSpec{
		{ID: 0, Name: "a", Submit: 1000.9, Deadline: 2000.7, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "b", Submit: 1300.5, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "c", Submit: 1301.2, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
	}
	run := func(timing Timing) (*Result, [][]JobID, Time) {
		var seen [][]JobID
		var deadline Time
		p := &scripted{hook: func(v *View) {
			var ids []JobID
			for _, j := range v.Arrivals {
				ids = append(ids, j.Spec.ID)
				if j.Spec.ID == 0 {
					deadline = j.Deadline
				}
			}
			seen = append(seen, ids)
		}}
		res, err := Run(context.Background(), baseConfig(t, timing, 3), p, specs)
		if err != nil {
			t.Fatal(err)
		}
		return res, seen, deadline
	}
	res, seen, dl := run(Artifact)
	if res.Start != 1000 {
		t.Errorf("artifact: round-0 timer %v, want int(1000.9) = 1000", res.Start)
	}
	if len(seen) < 2 || !slices.Equal(seen[0], []JobID{0, 1}) || !slices.Equal(seen[1], []JobID{2}) {
		t.Errorf("artifact: arrivals per round %v, want [[0 1] [2] …]", seen)
	}
	if dl != 6000 {
		t.Errorf("artifact: job 0's deadline %v, want 1000 + 5·(2000 − 1000) = 6000", dl)
	}
	if got := []float64{res.Jobs[0].Submit, res.Jobs[1].Submit, res.Jobs[2].Submit}; !slices.Equal(got, []float64{1000, 1000, 1300}) {
		t.Errorf("artifact: submit_s %v, want the round timers [1000 1000 1300]", got)
	}
	res, seen, dl = run(Exact)
	if res.Start != 1000.9 {
		t.Errorf("exact: T0 %v, want 1000.9", res.Start)
	}
	if want := Time(1000.9) + Time(5*float64(Time(2000.7)-Time(1000.9))); dl != want {
		t.Errorf("exact: job 0's deadline %v, want %v (decimals kept)", dl, want)
	}
	// Rounds at 1000.9, 1300.9, 1600.9: 1301.2 is after the second.
	if len(seen) < 3 || !slices.Equal(seen[0], []JobID{0}) || !slices.Equal(seen[1], []JobID{1}) || !slices.Equal(seen[2], []JobID{2}) {
		t.Errorf("exact: arrivals per round %v, want [[0] [1] [2]]", seen)
	}
}
