package sim

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// smallCluster is one a100 node of 2 GPUs (slots 0, 1) and one a40 node
// of 2 (slots 2, 3).
func smallCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := NewCluster(ClusterSpec{Name: "small", Pools: []Pool{
		{GPU: "a100", Nodes: 1, GPUsPerNode: 2},
		{GPU: "a40", Nodes: 1, GPUsPerNode: 2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bestIsA100x2 checks the precondition of the hand-worked cases: of the
// small cluster's four grids, a100 1×2 (iteration time iter13b, the
// profile database's figure) is gpt-1.3b/128's fastest.
func bestIsA100x2(t *testing.T) {
	t.Helper()
	est, w := optimal(t), gpt13b(t)
	if got := est.Estimate(w, estimator.Config{GPU: "a100", Nodes: 1, PerNode: 2}).IterTime; got != iter13b {
		t.Fatalf("a100 1×2: %v s per iteration, want %v", got, iter13b)
	}
	for _, c := range []estimator.Config{{GPU: "a100", Nodes: 1, PerNode: 1}, {GPU: "a40", Nodes: 1, PerNode: 1}, {GPU: "a40", Nodes: 1, PerNode: 2}} {
		if e := est.Estimate(w, c); e.Feasible() && e.IterTime < iter13b {
			t.Fatalf("%s is faster than a100 1×2 (%v s): the hand-worked figures assume not", c, e.IterTime)
		}
	}
}

// TestChargeAndStuckHandWorked is a hand-worked case of the charge of
// unfinished jobs and of stuck jobs (the expected values are worked out
// here from the definitions, with the database's 5.526 s per iteration).
//
// Exact timing, 10 rounds from T0 = 1000: horizon 4000. Every job is
// gpt-1.3b/128 submitted at 1000, iterations ÷ 5.
//
//   - job 0 (1000 iterations, a100 × 2) starts at round 0 on slots 0, 1:
//     300 s overhead, then 2700 s of progress by the horizon, 488.6…
//     iterations; it has 5526 − 2700 = 2826 s of work left on the best
//     grid (its own): charge 3000 + 2826 = 5826, its JCT had it gone on.
//   - job 1 (100 iterations, a100 × 2) waits all along; the a100 node is
//     busy: not stuck; charge 3000 + 552.6.
//   - job 2 (100 iterations, a40 × 1) waits all along while the a40 node
//     is idle: stuck; charge 3000 + 552.6 (best rate: a100 1×2).
//   - job 3 (100 iterations) is dropped at round 0: charge 3000 + 552.6,
//     not counted stuck (it is counted dropped).
//
// Submitted mean: (5826 + 3 × 3552.6) / 4; the old age-only mean 3000.
func TestChargeAndStuckHandWorked(t *testing.T) {
	bestIsA100x2(t)
	w := gpt13b(t)
	jobs := []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: w, Iterations: 5000, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1000, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "j2", Submit: 1000, Workload: w, Iterations: 500, GPU: "a40", GPUs: 1},
		{ID: 3, Name: "j3", Submit: 1000, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
	}
	cfg := DefaultConfig(smallCluster(t), optimal(t))
	cfg.IterationScale, cfg.Timing, cfg.Rounds, cfg.Check = 5, Exact, 10, true
	cfg.Overhead = Overhead{PerGPU: 150, Cap: 600}
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Drop, Job: 3}}}}
	res, err := Run(context.Background(), cfg, p, jobs)
	if err != nil {
		t.Fatal(err)
	}
	short := 3000 + 100*iter13b
	want := []struct {
		state  string
		charge float64
		stuck  bool
	}{{"running", 5826, false}, {"pending", short, false}, {"pending", short, true}, {"dropped", short, false}}
	for i, wnt := range want {
		r := res.Jobs[i]
		if r.State != wnt.state || !near(r.Charge, wnt.charge) || r.Stuck != wnt.stuck {
			t.Errorf("job %d: %s, charge %v, stuck %v; want %s, %v, %v", i, r.State, r.Charge, r.Stuck, wnt.state, wnt.charge, wnt.stuck)
		}
	}
	s := res.Summarize("t", 4, "profiledb")
	if m := (5826 + 3*short) / 4; !near(s.SubmittedMeanJCT, m) || !near(s.SubmittedMeanAgeJCT, 3000) {
		t.Errorf("submitted mean %v (age-only %v), want %v (3000)", s.SubmittedMeanJCT, s.SubmittedMeanAgeJCT, m)
	}
	if s.Charged != 4 || !near(s.ChargedRemainingS, 2826+3*100*iter13b) {
		t.Errorf("charged %d jobs, %v s of remaining work; want 4, %v", s.Charged, s.ChargedRemainingS, 2826+3*100*iter13b)
	}
	if s.JobsStuck != 1 || s.StuckShare != 0.25 || !s.Neglects() {
		t.Errorf("stuck %d (share %v), neglects %v; want 1 (0.25), true", s.JobsStuck, s.StuckShare, s.Neglects())
	}
	// Every job is charged: every percentile is a lower bound.
	if !s.SubmittedP50LowerBound || !s.SubmittedP99LowerBound {
		t.Errorf("percentiles not marked as lower bounds: %+v", s)
	}
	// Job 0 held 2 GPUs from 1000 to the horizon: 6000 GPU-s.
	if !near(s.WorkDoneGPUHours, 6000.0/3600) {
		t.Errorf("work done %v GPU-h, want %v", s.WorkDoneGPUHours, 6000.0/3600)
	}
}

// TestStuckOnlyAfterArrival: idle GPUs before a job arrives do not make it
// stuck. Job 0 holds the a100 node from round 0 to past the horizon; job 1
// (a100 × 2) arrives at round 3; the a40 node idles throughout but cannot
// hold its request, and the a100 node never frees: not stuck. Job 2
// (a40 × 1) arrives at round 5 and sees the idle a40 node: stuck.
func TestStuckOnlyAfterArrival(t *testing.T) {
	w := gpt13b(t)
	jobs := []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: w, Iterations: 5000, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1900, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "j2", Submit: 2500, Workload: w, Iterations: 500, GPU: "a40", GPUs: 1},
	}
	for _, timing := range []Timing{Exact, Artifact} {
		cfg := DefaultConfig(smallCluster(t), optimal(t))
		cfg.IterationScale, cfg.Timing, cfg.Rounds, cfg.Check = 5, timing, 10, true
		p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
		res, err := Run(context.Background(), cfg, p, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if got := []bool{res.Jobs[0].Stuck, res.Jobs[1].Stuck, res.Jobs[2].Stuck}; got[0] || got[1] || !got[2] {
			t.Errorf("%s: stuck %v, want [false false true]", timing, got)
		}
	}
}

// TestRunAloneIsTheRequest: the bounded slowdown's run time alone is the
// job's work on its request, whatever grid the policy chose. A job asking
// for a100 × 2 started on the slower a40 × 2 runs longer; its run time alone stays
// 100 × 5.526 s, so its slowdown is its JCT over that.
func TestRunAloneIsTheRequest(t *testing.T) {
	bestIsA100x2(t)
	w := gpt13b(t)
	jobs := []JobSpec{{ID: 0, Name: "j0", Submit: 1000, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2}}
	cfg := DefaultConfig(smallCluster(t), optimal(t))
	cfg.IterationScale, cfg.Timing, cfg.Rounds, cfg.Check = 5, Exact, 10, true
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{2, 3}}}}}
	res, err := Run(context.Background(), cfg, p, jobs)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.State != "finished" || !near(r.RunAlone, 100*iter13b) {
		t.Fatalf("%s, run alone %v; want finished, %v", r.State, r.RunAlone, 100*iter13b)
	}
	s := res.Summarize("t", 1, "profiledb")
	if want := r.JCT / (100 * iter13b); want <= 1 || !near(s.MeanBoundedSlowdown, want) {
		t.Errorf("bounded slowdown %v, want %v (> 1)", s.MeanBoundedSlowdown, want)
	}
}

// requestedIterTime is memoised per request: every job's run time alone is
// its iterations × the unmemoised answer for its request, and the memo
// holds one entry per distinct request (workload, GPU type, count), not
// one per job. The 400 jobs of recorderRun ask for two requests (a40 × 1,
// a40 × 2, one workload). Self-referential (the unmemoised function is
// the reference); TestRunAloneIsTheRequest anchors the answer itself.
func TestRequestedIterTimeMemo(t *testing.T) {
	cfg, specs := recorderSetting(t)
	cfg.Timing, cfg.Rounds, cfg.IterationScale = Exact, 150, 5
	e, err := newEngine(cfg, greedy{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Jobs {
		s := &specs[r.ID]
		if want := float64(r.Iterations) * e.requestedIterTimeOf(s); r.RunAlone != want || want <= 0 {
			t.Fatalf("job %d: run alone %v, want %v", r.ID, r.RunAlone, want)
		}
	}
	if len(res.Jobs) < 100 || len(e.requested) != 2 {
		t.Errorf("%d jobs, %d memo entries (want 2)", len(res.Jobs), len(e.requested))
	}
}
