package sim

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestWindowSelect: by time, relative to the earliest submission (50, the
// second row), 100..300 holds submissions 150 ≤ s < 350: only 200; by
// index, in arrival order (50, 100, 200, 400 are ids 1, 0, 2, 3),
// positions 1 and 2 are ids 0 and 2.
func TestWindowSelect(t *testing.T) {
	specs := []JobSpec{{ID: 0, Submit: 100}, {ID: 1, Submit: 50}, {ID: 2, Submit: 200}, {ID: 3, Submit: 400}}
	m, n, first, last := Window{From: 100, To: 300}.Select(specs)
	if n != 1 || !m[2] || m[0] || first != 200 || last != 200 {
		t.Errorf("by time: %v, %d, %v..%v; want job 2 alone", m, n, first, last)
	}
	m, n, first, last = Window{ByIndex: true, From: 1, To: 3}.Select(specs)
	if n != 2 || !m[0] || !m[2] || m[1] || m[3] || first != 100 || last != 200 {
		t.Errorf("by index: %v, %d, %v..%v; want jobs 0 and 2", m, n, first, last)
	}
	if m, n, first, last := AllJobs.Select(specs); m != nil || n != 4 || first != 50 || last != 400 {
		t.Errorf("all: %v, %d, %v..%v", m, n, first, last)
	}
	for w, want := range map[Window]string{
		{From: 86400, To: 3 * 86400}:              "1d..3d",
		{From: 5400, To: math.Inf(1)}:             "5400..",
		{ByIndex: true, From: 4000, To: 5000}:     "#4000..5000",
		{ByIndex: true, From: 0, To: math.Inf(1)}: "all",
		{}: "all",
	} {
		if got := w.String(); got != want {
			t.Errorf("%+v: %q, want %q", w, got, want)
		}
	}
}

// TestMeasureCountsOnlyTheWindow: TestCensoredMeanAndMakespan's run (j0
// finishes with JCT 852.6, j1 never starts) measuring j0 alone: the
// figures are j0's, j1 still holds the makespan open.
func TestMeasureCountsOnlyTheWindow(t *testing.T) {
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	cfg := baseConfig(t, Exact, 4)
	cfg.Measure = Window{ByIndex: true, From: 0, To: 1}
	res, err := Run(context.Background(), cfg, p, twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize("t", 2, "e")
	jct := 300 + 100*iter13b
	if s.Submitted != 1 || s.Finished != 1 || s.Unfinished != 0 || s.StuckPending != 0 || !near(s.SubmittedMeanJCT, jct) || len(res.Queueing) != 1 {
		t.Errorf("submitted %d, finished %d, unfinished %d, stuck %d, mean %v, queueing %v; want 1, 1, 0, 0, %v, one",
			s.Submitted, s.Finished, s.Unfinished, s.StuckPending, s.SubmittedMeanJCT, res.Queueing, jct)
	}
	if s.JobsMeasured != 1 || s.Measure != "#0..1" || s.HorizonWarning != "" || !s.MakespanLowerBound {
		t.Errorf("measured %d (%q), warning %q, makespan lower bound %v; want 1 (#0..1), none, true", s.JobsMeasured, s.Measure, s.HorizonWarning, s.MakespanLowerBound)
	}
	if len(res.Jobs) != 2 {
		t.Errorf("jobs.parquet rows %d, want both jobs", len(res.Jobs))
	}
}

// TestHorizonChargeAndWarning: in TestCensoredMeanAndMakespan's run j1
// is charged at the horizon (2200): age 750, i.e. the horizon (1200 s
// after the start) − 450, plus its remaining work w. At a horizon 1500 s
// after the start the submitted mean would be (852.6 + 1500 − 450 + w)/2. Half the measured jobs
// are unfinished: the run warns; with one round the horizon (1300) also
// ends before j1 arrives (1450).
func TestHorizonChargeAndWarning(t *testing.T) {
	p := func() Policy {
		return &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	}
	res, err := Run(context.Background(), baseConfig(t, Exact, 4), p(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize("t", 2, "e")
	jct := 300 + 100*iter13b
	// j1's charge is its age (750) plus its remaining work at its best
	// rate (w, hand-worked in TestChargeAndStuckHandWorked): the offset
	// is charge − horizon = w − 450.
	w := res.Jobs[1].Charge - 750
	if s.JobsChargedAtHorizon != 1 || w <= 0 || !near(s.HorizonChargeOffsetS, w-450) {
		t.Fatalf("charged %d, offset %v (work %v); want 1, w − 450 with w > 0", s.JobsChargedAtHorizon, s.HorizonChargeOffsetS, w)
	}
	sumFinished := s.SubmittedMeanJCT*2 - (float64(s.JobsChargedAtHorizon)*s.HorizonS + s.HorizonChargeOffsetS)
	if at := (sumFinished + 1500 + s.HorizonChargeOffsetS) / 2; !near(at, (jct+1500-450+w)/2) {
		t.Errorf("re-charged at 1500 s: %v, want %v", at, (jct+1500-450+w)/2)
	}
	if !strings.Contains(s.HorizonWarning, "1 of 2 measured jobs (50 %) are unfinished") || strings.Contains(s.HorizonWarning, "arrives") {
		t.Errorf("warning %q", s.HorizonWarning)
	}
	res, err = Run(context.Background(), baseConfig(t, Exact, 1), p(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	// j0 is still running at 1300; j1 arrives after: both unfinished, one
	// of them never submitted, and the warning tells the two apart.
	if s := res.Summarize("t", 2, "e"); !strings.Contains(s.HorizonWarning, "ends before the last measured job arrives (7m30s after the first submission)") ||
		!strings.Contains(s.HorizonWarning, "2 of 2 measured jobs (100 %) are unfinished at the horizon (1 of them arrive after it; 1 submitted ones are running or pending)") {
		t.Errorf("short horizon: warning %q", s.HorizonWarning)
	}
}

// TestDrain, hand-worked in exact timing (T0 = 1000, rounds every 300 s):
// j0 ends at 1852.6. Asked for 1 round, a draining run measuring j0 goes
// on to the round at 1900 that sees it ended: 4 rounds, under a cap of
// max(10 × 1, 1 + 20 × 0) = 10; j1, not measured, never starts and does
// not hold it up. Measuring both, j1 is stuck: with 20 rounds asked (cap
// max(200, 20 + 20 × ⌈450/300⌉) = 200) the run stops after IdleStop idle
// rounds counted from the last asked one (rounds 19 … 118); with 4 asked, the cap max(40, 44) = 44 comes
// first and is recorded.
func TestDrain(t *testing.T) {
	p := func() Policy {
		return &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	}
	for _, timing := range []Timing{Exact, Artifact} {
		cfg := baseConfig(t, timing, 1)
		cfg.Drain, cfg.Measure = true, Window{ByIndex: true, From: 0, To: 1}
		res, err := Run(context.Background(), cfg, p(), twoJobs(t))
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summarize("t", 2, "e")
		if s.Finished != 1 || s.Unfinished != 0 || !s.Drain || s.RoundsAsked != 1 || s.DrainCapRounds != 10 || s.DrainCapReached || s.DrainStuck || s.HorizonWarning != "" {
			t.Errorf("%s: %+v", timing, s)
		}
		if timing == Exact && (s.Rounds != 4 || !near(res.JCTs[0], 300+100*iter13b)) {
			t.Errorf("exact: rounds %d, JCTs %v; want 4, [852.6]", s.Rounds, res.JCTs)
		}
	}

	cfg := baseConfig(t, Exact, 20)
	cfg.Drain = true
	res, err := Run(context.Background(), cfg, p(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize("t", 2, "e"); s.Rounds != 19+IdleStop || !s.DrainStuck || s.DrainCapReached || s.DrainCapRounds != 200 || s.StuckPending != 1 || s.UntilDoneCapReached {
		t.Errorf("stuck: rounds %d, stuck %v, cap reached %v (cap %d), stuck pending %d; want %d, true, false (200), 1",
			s.Rounds, s.DrainStuck, s.DrainCapReached, s.DrainCapRounds, s.StuckPending, 19+IdleStop)
	}
	cfg = baseConfig(t, Exact, 4)
	cfg.Drain = true
	res, err = Run(context.Background(), cfg, p(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize("t", 2, "e"); s.Rounds != 44 || !s.DrainCapReached || s.DrainStuck || s.DrainCapRounds != 44 {
		t.Errorf("capped: rounds %d, cap reached %v, stuck %v, cap %d; want 44, true, false, 44", s.Rounds, s.DrainCapReached, s.DrainStuck, s.DrainCapRounds)
	}
	cfg.UntilDone = true
	if _, err := Run(context.Background(), cfg, p(), twoJobs(t)); err == nil {
		t.Error("UntilDone with Drain: no error")
	}
	cfg = baseConfig(t, Exact, 4)
	cfg.Measure = Window{From: 1e6, To: 2e6}
	if _, err := Run(context.Background(), cfg, p(), twoJobs(t)); err == nil || !strings.Contains(err.Error(), "holds none") {
		t.Errorf("empty window: %v", err)
	}
}

// A queue the policy leaves on an idle cluster is stuck whatever cluster
// events are still to come, as long as every node is available: events
// can then only take capacity away and give it back. Only a node that is
// not available now, with an event to come, makes the drain wait. (Before,
// any event to come kept a stuck run going to its drain cap, and a preset
// draws events up to that cap: every stuck run with faults hit it.)
func TestStuckStopWithEventsToCome(t *testing.T) {
	p := func() Policy {
		return &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	}
	at := func(round int) Time { return Time(1000 + 300*round) }
	for _, tc := range []struct {
		name     string
		events   []ClusterEvent
		min, max int // rounds run
	}{
		// Node 1 fails long after the queue is stuck, and comes back.
		{"all available", []ClusterEvent{{Time: at(400), Node: 1, Kind: NodeDown, Cause: "gpu"}, {Time: at(410), Node: 1, Kind: NodeUp}}, 19 + IdleStop, 19 + IdleStop},
		// Node 1 is down from round 5 to round 60: the drain waits for it,
		// then stops IdleStop rounds later (under the cap of 200).
		{"a node down, back later", []ClusterEvent{{Time: at(5), Node: 1, Kind: NodeDown, Cause: "gpu"}, {Time: at(60), Node: 1, Kind: NodeUp}}, 60 + IdleStop, 61 + IdleStop},
	} {
		cfg := baseConfig(t, Exact, 20)
		cfg.Drain, cfg.Events, cfg.FaultModel = true, tc.events, true
		res, err := Run(context.Background(), cfg, p(), twoJobs(t))
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Summarize("t", 2, "e"); s.Rounds < tc.min || s.Rounds > tc.max || !s.DrainStuck || s.DrainCapReached {
			t.Errorf("%s: rounds %d, stuck %v, cap reached %v; want %d–%d rounds, stuck, not at the cap", tc.name, s.Rounds, s.DrainStuck, s.DrainCapReached, tc.min, tc.max)
		}
	}
}
