package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// noGrid is an estimator under which every grid is infeasible.
type noGrid struct{}

func (noGrid) Name() string { return "none" }
func (noGrid) Estimate(estimator.Workload, estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime}
}

// checkedRun runs a small scenario to its horizon with the checker on and
// returns the engine: jobs 0 and 1 running (slots 0–1 and 4–5), job 2
// pending, job 3 finished, job 4 submitted after the horizon.
func checkedRun(t *testing.T, timing Timing) *engine {
	t.Helper()
	w := gpt13b(t)
	specs := []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: w, Iterations: 50000, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1000, Workload: w, Iterations: 50000, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "j2", Submit: 1000, Workload: w, Iterations: 50000, GPU: "a100", GPUs: 2},
		{ID: 3, Name: "j3", Submit: 1000, Workload: w, Iterations: 5, GPU: "a100", GPUs: 2},
		{ID: 4, Name: "j4", Submit: 1e7, Workload: w, Iterations: 5, GPU: "a100", GPUs: 2},
	}
	p := &scripted{byRound: map[int][]Action{0: {
		{Kind: Start, Job: 0, GPUs: []int{0, 1}},
		{Kind: Start, Job: 1, GPUs: []int{4, 5}},
		{Kind: Start, Job: 3, GPUs: []int{2, 3}},
	}}}
	e, err := newEngine(baseConfig(t, timing, 4), p, specs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []Status{Running, Running, Pending, Finished, NotArrived}
	for i, s := range want {
		if e.jobs[i].Status != s {
			t.Fatalf("scenario: job %d is %s, want %s", i, e.jobs[i].Status, s)
		}
	}
	if err := e.checkState(); err != nil {
		t.Fatalf("the unfaulted state fails the check: %v", err)
	}
	return e
}

// TestInvariantChecksCatchPlantedFaults plants, for every check of the
// invariant checker, a fault only that check can see, and requires the
// check to report it (and the unfaulted state to pass, in checkedRun).
func TestInvariantChecksCatchPlantedFaults(t *testing.T) {
	state := func(e *engine) error { return e.checkState() }
	end := func(e *engine) error { return e.checkAccounted() }
	both := []Timing{Exact, Artifact}
	for _, c := range []struct {
		name  string
		modes []Timing
		plant func(e *engine)
		check func(e *engine) error
		want  string // in the error; "" means no violation
	}{
		{"GPU held twice", both, func(e *engine) { e.jobs[1].GPUs = []int{0, 5} }, state, "held twice"},
		{"slot table loses a running job's GPU", both, func(e *engine) { e.occupant[0] = NoJob }, state, "slot table says"},
		{"slot table names a job no running job holds", both, func(e *engine) { e.occupant[8] = 0 }, state, "no running job holds it"},
		{"job twice in the running queue", both, func(e *engine) { e.runq.jobs = append(e.runq.jobs, e.jobs[0]) }, state, "running queue and the running queue"},
		{"running queue member with another status", both, func(e *engine) { e.jobs[0].Status = Pending }, state, "running queue with status"},
		{"running job without GPUs", both, func(e *engine) {
			e.jobs[0].GPUs = nil
			e.occupant[0], e.occupant[1] = NoJob, NoJob
		}, state, "holds no GPU"},
		{"held-GPU count drifts from the running jobs' GPUs", both, func(e *engine) { e.heldBy[0]-- }, state, "the engine counts"},
		{"recorded config is not the GPUs' shape", both, func(e *engine) { e.jobs[0].Config.PerNode = 1 }, state, "recorded config"},
		{"infeasible grid", both, func(e *engine) { e.cfg.Exec = noGrid{} }, state, "infeasible grid"},
		{"running job also pending", both, func(e *engine) { e.pendq.jobs = append(e.pendq.jobs, e.jobs[0]) }, state, "pending queue and the running queue"},
		{"pending job holding GPUs", both, func(e *engine) { e.jobs[2].GPUs = []int{9} }, state, "pending job"},
		{"finished job holding GPUs", both, func(e *engine) { e.jobs[3].GPUs = []int{2} }, state, "still holds GPUs"},
		{"remaining grows", both, func(e *engine) { e.jobs[0].Remaining++ }, state, "grew"},
		{"artifact re-valuation may grow remaining", []Timing{Artifact}, func(e *engine) {
			e.jobs[0].Remaining++
			e.revalued[0] = true
		}, state, ""},
		{"exact timing never re-values", []Timing{Exact}, func(e *engine) {
			e.jobs[0].Remaining++
			e.revalued[0] = true
		}, state, "grew"},
		{"remaining above iter_num", both, func(e *engine) { e.jobs[0].IterNum = e.jobs[0].Remaining - 1 }, state, "want remaining ≤ iter_num"},
		{"iter_num above the job's iterations", both, func(e *engine) { e.jobs[2].IterNum = e.jobs[2].Iterations + 1 }, state, "want remaining ≤ iter_num"},
		{"time goes back", both, func(*engine) {}, func(e *engine) error { return e.checkClock(e.now - 1) }, "earlier than the clock"},
		{"finished job without a JCT", both, func(e *engine) { e.res.JCTs = e.res.JCTs[:0] }, end, "JCTs recorded"},
		{"pending status outside the queue", both, func(e *engine) { e.pendq.jobs = nil }, end, "queues hold"},
		{"job from outside the window admitted", both, func(e *engine) {
			e.jobs[4].Status = Pending
			e.pendq.jobs = append(e.pendq.jobs, e.jobs[4])
		}, end, "outside the window"},
		{"job inside the window never arrived", both, func(e *engine) {
			e.jobs[2].Status = NotArrived
			e.pendq.jobs = nil
		}, end, "inside the window"},
	} {
		for _, timing := range c.modes {
			t.Run(c.name+"/"+timing.String(), func(t *testing.T) {
				e := checkedRun(t, timing)
				c.plant(e)
				err := c.check(e)
				if c.want == "" {
					if err != nil {
						t.Fatalf("no fault, but: %v", err)
					}
					return
				}
				if !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want an invariant violation saying %q", err, c.want)
				}
			})
		}
	}
}

// TestPolicyCannotReachEngineSlices: a policy that sorts its View's queues
// and writes into its slot table changes nothing of the engine's (the View
// holds copies), and one that changes a Job through its pointer is caught
// by the checker.
func TestPolicyCannotReachEngineSlices(t *testing.T) {
	specs := func() []JobSpec {
		var s []JobSpec
		for i := range 4 {
			s = append(s, JobSpec{ID: JobID(i), Name: "j", Submit: Time(1000 + i), Workload: gpt13b(t), Iterations: 50000, GPU: "a100", GPUs: 4})
		}
		return s
	}
	run := func(t *testing.T, timing Timing, vandal bool) *Result {
		p := &scripted{byRound: map[int][]Action{1: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}}}}
		var order []JobID
		p.hook = func(v *View) {
			if v.Round == 3 {
				for _, j := range v.Pending {
					order = append(order, j.Spec.ID)
				}
			}
			if vandal {
				slices.Reverse(v.Pending)
				slices.Reverse(v.Running)
				slices.Reverse(v.Arrivals)
				for s := range v.Occupant {
					v.Occupant[s] = 3
				}
			}
		}
		res, err := Run(context.Background(), baseConfig(t, timing, 5), p, specs())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(order, []JobID{1, 2, 3}) {
			t.Errorf("pending queue at round 3 = %v, want [1 2 3] (arrival order)", order)
		}
		return res
	}
	for _, timing := range []Timing{Exact, Artifact} {
		t.Run(timing.String(), func(t *testing.T) {
			clean, vandal := run(t, timing, false), run(t, timing, true)
			if !slices.Equal(clean.JCTs, vandal.JCTs) || len(clean.Timeline) != len(vandal.Timeline) {
				t.Fatal("a policy editing its View changed the run")
			}
			for i := range clean.Timeline {
				if clean.Timeline[i].Throughput != vandal.Timeline[i].Throughput || clean.Timeline[i].Pending != vandal.Timeline[i].Pending {
					t.Fatalf("round %d differs after a policy edited its View", i)
				}
			}
		})
	}
	t.Run("job mutation caught", func(t *testing.T) {
		p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}}}}
		p.hook = func(v *View) {
			if v.Round == 2 {
				v.Running[0].Remaining = 1
			}
		}
		_, err := Run(context.Background(), baseConfig(t, Exact, 4), p, specs())
		if !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), "modified job job_0001") {
			t.Fatalf("err = %v, want the checker to name the policy's change to job_0001", err)
		}
	})
}

// reader is scripted with the ViewReader promise: its Views hold the
// engine's own slices.
type reader struct{ scripted }

func (*reader) ReadsViewOnly() bool { return true }

// TestSharedViewIsHeldToItsPromise: a ViewReader sees the engine's own
// queues (the same run as with copies), an append to them reallocates
// rather than writes into the engine's spare capacity, and one that breaks
// its promise by writing into them is caught by the checker, naming the
// promise.
func TestSharedViewIsHeldToItsPromise(t *testing.T) {
	specs := func() []JobSpec {
		var s []JobSpec
		for i := range 6 {
			s = append(s, JobSpec{ID: JobID(i), Name: "j", Submit: Time(1000 + 400*i), Workload: gpt13b(t), Iterations: 2000, GPU: "a100", GPUs: 4})
		}
		return s
	}
	acts := map[int][]Action{1: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}}, 4: {{Kind: Start, Job: 2, GPUs: []int{4, 5, 6, 7}}}}
	for _, timing := range []Timing{Exact, Artifact} {
		t.Run(timing.String(), func(t *testing.T) {
			copied, err := Run(context.Background(), baseConfig(t, timing, 12), &scripted{byRound: acts}, specs())
			if err != nil {
				t.Fatal(err)
			}
			shared := &reader{scripted{byRound: acts}}
			var stranger Job
			shared.hook = func(v *View) {
				if cap(v.Pending) != len(v.Pending) || cap(v.Running) != len(v.Running) {
					t.Fatalf("round %d: a shared queue has spare capacity a policy's append would write into", v.Round)
				}
				_ = append(v.Pending, &stranger)
				_ = append(v.Running, &stranger)
			}
			got, err := Run(context.Background(), baseConfig(t, timing, 12), shared, specs())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(copied.JCTs, got.JCTs) || !slices.Equal(copied.Queueing, got.Queueing) || len(copied.Timeline) != len(got.Timeline) {
				t.Fatalf("shared views changed the run: JCTs %v vs %v", got.JCTs, copied.JCTs)
			}
			for i := range copied.Timeline {
				if copied.Timeline[i].Pending != got.Timeline[i].Pending || copied.Timeline[i].Running != got.Timeline[i].Running {
					t.Fatalf("round %d differs with shared views", i)
				}
			}
		})
	}
	for what, vandalise := range map[string]func(v *View){
		"pending order": func(v *View) { slices.Reverse(v.Pending) },
		"slot table":    func(v *View) { v.Occupant[7] = 3 },
	} {
		t.Run("broken promise: "+what, func(t *testing.T) {
			p := &reader{scripted{byRound: acts}}
			done := false
			p.hook = func(v *View) {
				if !done && len(v.Pending) >= 2 {
					vandalise(v)
					done = true
				}
			}
			_, err := Run(context.Background(), baseConfig(t, Exact, 12), p, specs())
			if !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), "ReadsViewOnly") {
				t.Fatalf("err = %v, want the checker to report the broken ReadsViewOnly promise", err)
			}
		})
	}
}
