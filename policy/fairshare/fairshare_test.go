package fairshare_test

// Hand-worked cases (outside anchors: the expected shares and decisions
// are worked out from the rules in doc.go, not read from a run).

import (
	"context"
	"math"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/fairshare"
	"github.com/arena-sim/arena/policy/policytest"
	"github.com/arena-sim/arena/sim"
)

func TestWaterFill(t *testing.T) {
	for _, c := range []struct {
		cap                  float64
		demand, weight, want []float64
	}{
		{8, []float64{1, 10, 10}, []float64{1, 1, 1}, []float64{1, 3.5, 3.5}},           // the small demand is met, the rest split
		{8, []float64{10, 10}, []float64{1, 3}, []float64{2, 6}},                        // by weight
		{10, []float64{2, 3}, []float64{1, 1}, []float64{2, 3}},                         // capacity left over
		{12, []float64{2, 5, 20}, []float64{1, 1, 2}, []float64{2, 10.0 / 3, 20.0 / 3}}, // level 3: 2 is filled; then level 10/3 for the other two
		{4, []float64{0, 6}, []float64{1, 1}, []float64{0, 4}},                          // no demand, no share
	} {
		got := fairshare.WaterFill(c.cap, c.demand, c.weight)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("WaterFill(%v, %v, %v) = %v, want %v", c.cap, c.demand, c.weight, got, c.want)
				break
			}
		}
	}
}

func jobSpec(id int, vc string, submit float64, model string, iters int64, gpu string) sim.JobSpec {
	m, err := estimator.ParseModel(model)
	if err != nil {
		panic(err)
	}
	return sim.JobSpec{ID: sim.JobID(id), Name: vc, Submit: sim.Time(submit), Workload: estimator.Workload{Model: m, Batch: 256},
		Iterations: iters, GPU: gpu, GPUs: 1, VirtualCluster: vc}
}

type spy struct {
	sim.Policy
	acts map[sim.Time][]sim.Action
}

func (s *spy) Schedule(v *sim.View) ([]sim.Action, error) {
	a, err := s.Policy.Schedule(v)
	if len(a) > 0 {
		s.acts[v.Now] = append(s.acts[v.Now], a...)
	}
	return a, err
}

func runSpy(t *testing.T, pools []sim.Pool, p sim.Policy, est estimator.Estimator, jobs []sim.JobSpec) *spy {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	s := &spy{Policy: p, acts: map[sim.Time][]sim.Action{}}
	cfg := sim.DefaultConfig(c, est)
	cfg.Rounds, cfg.Check = 10, true
	if _, err := sim.Run(context.Background(), cfg, s, jobs); err != nil {
		t.Fatal(err)
	}
	return s
}

func started(acts []sim.Action) map[sim.JobID]bool {
	out := map[sim.JobID]bool{}
	for _, a := range acts {
		if a.Kind == sim.Start {
			out[a.Job] = true
		}
	}
	return out
}

// Max-min over tenants: 4 A40s, tenant A submits four 1-GPU jobs, then B
// one, all at 0. Water-filling gives B its demand (1) and A the other 3:
// A's fourth job waits although it came before B's (FCFS would run A's
// four).
func TestGavelFairTenantShares(t *testing.T) {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	est := db.View(estimator.ViewDataParallel)
	var jobs []sim.JobSpec
	for i := range 4 {
		jobs = append(jobs, jobSpec(i, "A", 0, "moe__690M", 100000, "a40"))
	}
	jobs = append(jobs, jobSpec(4, "B", 0, "moe__690M", 100000, "a40"))
	s := runSpy(t, []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 4}}, fairshare.New(fairshare.MaxMin, est, nil, 300), db.View(estimator.ViewOptimal), jobs)
	got := started(s.acts[0])
	if len(got) != 4 || !got[4] || got[3] {
		t.Errorf("started at 0: %v, want A's jobs 0–2 and B's job 4", got)
	}
}

// fake is an estimator with fixed throughputs per model and GPU type.
type fake map[string]float64

func (fake) Name() string { return "fake" }
func (f fake) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	tp, ok := f[w.Model.ArtifactName()+"/"+c.GPU]
	if !ok {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime}
	}
	return estimator.Estimate{Throughput: tp, IterTime: math.Round(float64(w.Batch)/tp*1000) / 1000}
}

// Heterogeneity: one A100 and one V100; job 0 runs 1.2× faster on the A100,
// job 1 3× faster. Both fit, and the A100 goes to job 1, which gains most,
// although job 0 is first in the queue.
func TestGavelFairFastGPUToLargestSpeedup(t *testing.T) {
	m0, _ := estimator.ParseModel("moe__690M")
	m1, _ := estimator.ParseModel("bert__760M")
	f := fake{m0.ArtifactName() + "/a100": 12, m0.ArtifactName() + "/v100": 10, m1.ArtifactName() + "/a100": 30, m1.ArtifactName() + "/v100": 10}
	jobs := []sim.JobSpec{jobSpec(0, "A", 0, "moe__690M", 1000, "v100"), jobSpec(1, "A", 0, "bert__760M", 1000, "v100")}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 1}, {GPU: "v100", Nodes: 1, GPUsPerNode: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	s := runSpy(t, []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 1}, {GPU: "v100", Nodes: 1, GPUsPerNode: 1}}, fairshare.New(fairshare.MaxMin, f, nil, 300), f, jobs)
	a100 := c.NodesOfType("a100")[0]
	for _, a := range s.acts[0] {
		if a.Kind == sim.Start && (a.Job == 1) != (c.NodeOf(a.GPUs[0]) == a100) {
			t.Errorf("job %d started on node %d; the A100 (node %d) should go to job 1", a.Job, c.NodeOf(a.GPUs[0]), a100)
		}
	}
}

// FTF: one A40. A (long) runs from 0; B (10 iterations) arrives at 450 and
// is first seen at 600. There N = 2, C = 1, so T_id = 2·T_alone for both;
// with it the iteration time, ρ̂_B = (150 + 10·it) / (20·it) = 0.5 +
// 7.5/it, while A, which has run since its submission, has ρ̂_A ≤ (600 +
// R·it) / (2·(R+600/it)·it) ≤ 0.5 + 0.3/it: B has the worse ρ and
// takes the GPU at 600 (A's 300-s lease is over).
func TestFTFServesWorstRho(t *testing.T) {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	jobs := []sim.JobSpec{jobSpec(0, "A", 0, "moe__690M", 1000000, "a40"), jobSpec(1, "B", 450, "moe__690M", 10, "a40")}
	s := runSpy(t, []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 1}}, fairshare.New(fairshare.FTF, db.View(estimator.ViewOptimal), nil, 300), db.View(estimator.ViewOptimal), jobs)
	var suspendA, startB bool
	for _, a := range s.acts[600] {
		suspendA = suspendA || (a.Kind == sim.Suspend && a.Job == 0)
		startB = startB || (a.Kind == sim.Start && a.Job == 1)
	}
	if !suspendA || !startB {
		t.Errorf("actions at 600: %v, want A suspended and B started", s.acts[600])
	}
}

func TestConformance(t *testing.T) {
	policytest.Run(t, policy.NewRegistry(), "gavel-fair")
	policytest.Run(t, policy.NewRegistry(), "ftf")
	policytest.Run(t, policy.NewRegistry(), "quota(gavel-fair)")
}
