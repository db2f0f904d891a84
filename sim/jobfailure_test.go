package sim

import (
	"context"
	"math"
	"testing"
)

// TestJobFailureHandWorked is a hand-worked case (an outside anchor: the
// arithmetic below, not the code's output): job 0 (5526 s of work on
// a100 1×2, submitted at T0 = 1000, overhead 150 s per GPU = 300 s) is
// started by restarter at round 0. MTBF is chosen so that its first
// failure comes after exactly 3000 s of holding GPUs: t = 4000, a round
// boundary. Without checkpoints it loses all 2700 s of progress; the
// failure is handled before the round at 4000 (event order), which
// restarts it: 300 s overhead, 5526 s of work, finished at 9826, JCT 8826 —
// if its second draw lets it finish (the seed is chosen so), else, with
// one retry, it fails for good at 4000 + its second draw.
func TestJobFailureHandWorked(t *testing.T) {
	e0 := JobFailures{MTBF: 1}.draw(0, 0) // the draw for MTBF 1, any seed 0
	for _, c := range []struct {
		name       string
		retries    int
		wantState  string
		wantGaveUp int
	}{
		{"restarted once, then finishes", 1, "finished", 0},
		{"no retry: given up at its first failure", 0, "failed", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A seed whose first draw, scaled to fail at 3000 s, leaves
			// the second attempt (5826 s) unharmed.
			var m JobFailures
			for seed := uint64(0); ; seed++ {
				e0 = JobFailures{MTBF: 1, Seed: seed}.draw(0, 0)
				m = JobFailures{MTBF: Duration(3000 / e0), Retries: c.retries, Seed: seed}
				if m.draw(0, 1) > 5826+1 {
					break
				}
			}
			if got := m.draw(0, 0); math.Abs(got-3000) > 1e-6 {
				t.Fatalf("first draw %v, want 3000", got)
			}
			cfg := baseConfig(t, Exact, 40)
			cfg.JobFailures = m
			res, err := Run(context.Background(), cfg, restarter{}, faultJob(t))
			if err != nil {
				t.Fatal(err)
			}
			rec := res.Jobs[0]
			if rec.State != c.wantState {
				t.Fatalf("state %q, want %q", rec.State, c.wantState)
			}
			fs := res.Faults.Summary
			if fs.JobsGivenUp != c.wantGaveUp || fs.Interruptions != 1 || fs.ByCause[JobFailureCause].Events != 1 {
				t.Errorf("faults summary %+v, want 1 interruption by %s, %d given up", fs, JobFailureCause, c.wantGaveUp)
			}
			// 2700 s of progress on 2 GPUs lost either way.
			if !near(fs.LostWorkGPUHours*3600, 2700*2) {
				t.Errorf("lost work %v GPU-s, want %v", fs.LostWorkGPUHours*3600, 2700*2)
			}
			sum := res.Summarize("t", 1, "profiledb")
			if c.wantState == "finished" {
				if len(res.JCTs) != 1 || !near(res.JCTs[0], 8826) {
					t.Errorf("JCTs %v, want [8826]", res.JCTs)
				}
				return
			}
			// Given up: no JCT, no GPU held, counted at its age at the
			// horizon (1000 + 40 rounds × 300 s) plus its remaining work
			// at its best rate in the submitted mean. It lost all its
			// progress (no checkpoint): its 1000 iterations are left,
			// 5526 s on its request, less at the best rate of the cluster.
			if len(res.JCTs) != 0 || rec.Finish != 4000 {
				t.Errorf("JCTs %v, finish %v; want none, 4000", res.JCTs, rec.Finish)
			}
			if want := float64(40 * 300); !near(sum.SubmittedMeanAgeJCT, want) {
				t.Errorf("submitted mean age JCT %v, want %v (age at the horizon)", sum.SubmittedMeanAgeJCT, want)
			}
			if r := sum.ChargedRemainingS; r <= 0 || r > 1000*iter13b+1e-6 || !near(sum.ComparisonJCT(), 40*300+r) || sum.Charged != 1 {
				t.Errorf("submitted mean JCT %v, remaining work charged %v over %d jobs; want 12000 + it, in (0, 5526]", sum.ComparisonJCT(), r, sum.Charged)
			}
			if sum.Dropped != 0 || sum.Unfinished != 0 || sum.Accounting() != "0 finished · 0 unfinished · 0 dropped · 1 failed" {
				t.Errorf("accounting %q (dropped %d, unfinished %d)", sum.Accounting(), sum.Dropped, sum.Unfinished)
			}
		})
	}
}

// TestJobFailureSurvival is a statistical test anchored outside the code:
// with failures a Poisson process of mean MTBF over the time a job holds
// GPUs and no retry, a job needing H seconds of holding (overhead plus
// work) finishes with probability e^{−H/MTBF}. 300 identical jobs with
// H = MTBF: the finished share must be within 4 standard errors of
// e^{−1} = 0.368. The draws are common random numbers: a policy placing
// the same jobs elsewhere gives each the same fate.
func TestJobFailureSurvival(t *testing.T) {
	if testing.Short() {
		t.Skip("statistical")
	}
	const n = 300
	var jobs []JobSpec
	for i := range n {
		j := oneJob(t, 5000)[0]
		j.ID, j.Name = JobID(i), "j"
		jobs = append(jobs, j)
	}
	cfg := baseConfig(t, Exact, 3000)
	cfg.JobFailures = JobFailures{MTBF: 5826, Seed: 7}
	cfg.UntilDone, cfg.MaxRounds = true, 100000
	res, err := Run(context.Background(), cfg, restarter{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	finished := 0
	for _, r := range res.Jobs {
		switch r.State {
		case "finished":
			finished++
		case "failed":
		default:
			t.Fatalf("job %d ended %q, want finished or failed", r.ID, r.State)
		}
	}
	p := math.Exp(-1)
	se := math.Sqrt(p * (1 - p) / n)
	if got := float64(finished) / n; math.Abs(got-p) > 4*se {
		t.Errorf("finished share %.3f, want %.3f ± %.3f (4 s.e.)", got, p, 4*se)
	}
	if res.Faults.Summary.JobsGivenUp != n-finished {
		t.Errorf("given up %d, want %d", res.Faults.Summary.JobsGivenUp, n-finished)
	}
	t.Logf("%d of %d finished (expected %.1f)", finished, n, p*n)
	// Common random numbers: on other GPUs (node 1), in the same order,
	// every job meets the same fate.
	other, err := Run(context.Background(), cfg, onNode1{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Jobs {
		if res.Jobs[i].State != other.Jobs[i].State {
			t.Fatalf("job %d: %s on node 0, %s on node 1", i, res.Jobs[i].State, other.Jobs[i].State)
		}
	}
}

// onNode1 is restarter on GPUs 4 and 5.
type onNode1 struct{}

func (onNode1) Name() string { return "on-node-1" }
func (onNode1) Schedule(v *View) ([]Action, error) {
	if v.Occupant[4] != NoJob {
		return nil, nil
	}
	for _, q := range [][]*Job{v.Pending, v.Arrivals} {
		for _, j := range q {
			return []Action{{Kind: Start, Job: j.Spec.ID, GPUs: []int{4, 5}}}, nil
		}
	}
	return nil, nil
}

// TestJobFailuresValidate: nonsense is refused.
func TestJobFailuresValidate(t *testing.T) {
	for _, m := range []JobFailures{{MTBF: -1}, {MTBF: Duration(math.NaN())}, {MTBF: Duration(math.Inf(1))}, {MTBF: 10, Retries: -1}} {
		if m.Validate() == nil {
			t.Errorf("%+v accepted", m)
		}
	}
	cfg := baseConfig(t, Artifact, 10)
	cfg.JobFailures = JobFailures{MTBF: 100}
	if _, err := Run(context.Background(), cfg, restarter{}, faultJob(t)); err == nil {
		t.Error("job failures in artifact timing accepted")
	}
}

// TestJobOwnCheckpoint: a job's own checkpoint model (JobSpec.Checkpoint,
// the canonical table's checkpoint_* columns) stands in for the run's:
// TestFaultHandWorkedJCT's case with the model on the job instead of the
// run gives the same hand-worked JCT, 7026 s; and its nonzero fields
// override the run's (a run interval of 50 s, replaced by the job's 1000).
func TestJobOwnCheckpoint(t *testing.T) {
	for _, runCk := range []Checkpoint{{}, {Interval: 50, Cost: 100, Restore: 200}} {
		cfg := baseConfig(t, Exact, 30)
		cfg.Checkpoint = runCk
		cfg.Events = []ClusterEvent{{Time: 3700, Node: 0, Kind: NodeDown, Cause: "gpu"}}
		jobs := faultJob(t)
		jobs[0].Checkpoint = Checkpoint{Interval: 1000, Cost: 100, Restore: 200}
		p := &scripted{byRound: map[int][]Action{
			0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
			9: {{Kind: Start, Job: 0, GPUs: []int{4, 5}}},
		}}
		res, err := Run(context.Background(), cfg, p, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.JCTs) != 1 || !near(res.JCTs[0], 7026) {
			t.Errorf("run model %+v: JCTs %v, want [7026]", runCk, res.JCTs)
		}
	}
	// Artifact timing ignores a job's own model (it reproduces the
	// artifact's fault-free rounds): no error, no fault section.
	cfg := baseConfig(t, Artifact, 10)
	jobs := faultJob(t)
	jobs[0].Checkpoint = Checkpoint{Interval: 1000}
	res, err := Run(context.Background(), cfg, restarter{}, jobs)
	if err != nil || res.Faults != nil {
		t.Errorf("artifact timing with a job's checkpoint model: %v, faults %v", err, res.Faults != nil)
	}
}
