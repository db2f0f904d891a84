package sia

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/internal/runtest"
	"github.com/arena-sim/arena/sim"
)

// table: throughput by model, GPU type and count (any locality).
type table map[string]map[string]map[int]float64

func (t table) Name() string                            { return "table" }
func (t table) View(estimator.View) estimator.Estimator { return t }
func (t table) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	thr := t[w.Model.Name()][c.GPU][c.GPUs()]
	if thr <= 0 {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime}
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3)}
}

// TestThroughputModelAndNormalisation works the artifact's model out by
// hand for a job that cannot run on one GPU: on a100, 2 GPUs give 20 and 4
// give 36 samples/s, so t1 = 36/(2·4) = 4.5 (the last feasible count wins,
// divided by twice the count) and n GPUs are worth 4.5·n where the shape is
// feasible; on v100 only 1 GPU (30/s) is feasible. Normalisation: n_min = 1
// (the v100 entry), g_min = 9 (a100 × 2), so a100 × 4 becomes 1·18/9 = 2.
func TestThroughputModelAndNormalisation(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, {GPU: "v100", Nodes: 1, GPUsPerNode: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{"gpt-2.6b": {"a100": {2: 20, 4: 36}, "v100": {1: 30}}}
	s := New(c, est, true)
	m, _ := estimator.ParseModel("gpt-2.6b")
	w := estimator.Workload{Model: m, Batch: 128}
	for _, tc := range []struct {
		gpu  string
		n    int
		want float64
	}{
		{"a100", 1, estimator.InfeasibleThroughput}, {"a100", 2, 9}, {"a100", 4, 18},
		{"a100", 8, estimator.InfeasibleThroughput}, {"v100", 1, 30}, {"v100", 2, estimator.InfeasibleThroughput},
	} {
		if got := s.throughput(w, tc.gpu, tc.n); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("thr(%s, %d) = %v, want %v", tc.gpu, tc.n, got, tc.want)
		}
	}
	g := s.normalisedGoodput(w)
	// Columns are type-major: a100 ×{1,2,4,8,16}, then v100 ×{…}.
	if math.Abs(g[1]-1) > 1e-9 || math.Abs(g[2]-2) > 1e-9 || math.Abs(g[5]-30.0/9) > 1e-9 {
		t.Errorf("normalised goodput %v", g)
	}
	// A new job's weights use the floor restart factor 0.01.
	j := &sim.Job{Spec: &sim.JobSpec{ID: 0, Workload: w}}
	if got, want := s.weightRow(j, 0)[2], math.Sqrt(2*0.01); math.Abs(got-want) > 1e-12 {
		t.Errorf("weight %v, want %v", got, want)
	}
	// A running job: exec 3000 s, one reschedule: r = (3000−600)/(3600).
	j2 := &sim.Job{Spec: &sim.JobSpec{ID: 1, Workload: w}, ExecTime: 3000, Rescheds: 1}
	if got, want := s.weightRow(j2, 0)[2], math.Sqrt(2*2400.0/3600); math.Abs(got-want) > 1e-12 {
		t.Errorf("weight %v, want %v", got, want)
	}
}

// TestArtifactCountQuirk: two A100 nodes of 4 GPUs, a model whose
// throughput is linear in the GPU count. Job 0 arrives alone and the
// program gives it all 8 GPUs. Job 1 arrives a round later; the optimum
// shrinks job 0 to 4 GPUs (same type) and gives job 1 the other 4. With
// the artifact's counts, a same-type change never moves job 0, so job 1
// cannot be placed and pends; with the corrected counts job 0 is re-placed
// on 4 GPUs and both run.
func TestArtifactCountQuirk(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{"gpt-1.3b": {"a100": {1: 10, 2: 20, 4: 40, 8: 80}}}
	m, _ := estimator.ParseModel("gpt-1.3b")
	w := estimator.Workload{Model: m, Batch: 128}
	specs := []sim.JobSpec{
		{ID: 0, Name: "j0", Submit: 0, Workload: w, Iterations: 50_000_000, GPU: "a100", GPUs: 4},
		{ID: 1, Name: "j1", Submit: 400, Workload: w, Iterations: 50_000_000, GPU: "a100", GPUs: 4},
	}
	for _, tc := range []struct {
		artifact         bool
		running, pending int
	}{{true, 1, 1}, {false, 2, 0}} {
		s := New(c, est, tc.artifact)
		cfg := sim.DefaultConfig(c, est)
		cfg.IterationScale = 5 // the artifact simulation traces' ÷5
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 3, sim.Overhead{PerGPU: 150, Cap: 600}, true
		res, err := sim.Run(context.Background(), cfg, s, specs)
		if err != nil {
			t.Fatal(err)
		}
		sum := res.Summarize("hand", len(specs), "table")
		if sum.Running != tc.running || sum.Pending != tc.pending {
			t.Errorf("artifact counts %v: %d running, %d pending; want %d, %d (%v)", tc.artifact, sum.Running, sum.Pending, tc.running, tc.pending, s.Stats())
		}
	}
}

// memTable answers the DP view with the memory filter (ViewDataParallel)
// from filtered and every other view from all.
type memTable struct{ filtered, all table }

func (m memTable) Name() string { return "memTable" }
func (m memTable) View(v estimator.View) estimator.Estimator {
	if v == estimator.ViewDataParallel {
		return m.filtered
	}
	return m.all
}

// TestRestartBlockingByVersion: one A40 node of 2 GPUs. Job 0 takes both
// GPUs and ends after a few rounds. Job 1 can run but the DP memory filter rejects it
// everywhere, so every program leaves it out and it pends; job 2 pends
// because job 0 holds the type's whole capacity. When job 0 ends, the
// restart pass tries job 1 first and fails. At Head it goes on and starts
// job 2; in StoredRun the failure blocks a40 for the rest of the pass, so
// job 2 stays pending (the stored run's signature: pending jobs almost
// never restart).
func TestRestartBlockingByVersion(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	fits := table{
		"gpt-1.3b": {"a40": {1: 10, 2: 20}},
		"gpt-2.6b": {"a40": {1: 10, 2: 20}},
	}
	all := table{"gpt-6.7b": {"a40": {2: 5}}}
	for k, v := range fits {
		all[k] = v
	}
	est := memTable{filtered: fits, all: all}
	job := func(id int, model string, iters int64, submit sim.Time) sim.JobSpec {
		m, err := estimator.ParseModel(model)
		if err != nil {
			t.Fatal(err)
		}
		return sim.JobSpec{ID: sim.JobID(id), Name: model, Submit: submit, Workload: estimator.Workload{Model: m, Batch: 128},
			Iterations: iters, GPU: "a40", GPUs: 2}
	}
	specs := []sim.JobSpec{job(0, "gpt-1.3b", 1_000, 0), job(1, "gpt-6.7b", 5_000_000, 400), job(2, "gpt-2.6b", 5_000_000, 400)}
	for _, tc := range []struct {
		v                          Version
		finished, running, pending int
	}{{Head, 1, 1, 1}, {StoredRun, 1, 0, 2}} {
		s := NewVersion(c, est, tc.v, true)
		cfg := sim.DefaultConfig(c, est.all)
		cfg.IterationScale = 5 // the artifact simulation traces' ÷5
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 12, sim.Overhead{PerGPU: 150, Cap: 600}, true
		res, err := sim.Run(context.Background(), cfg, s, specs)
		if err != nil {
			t.Fatal(err)
		}
		sum := res.Summarize("hand", len(specs), "memTable")
		if sum.Finished != tc.finished || sum.Running != tc.running || sum.Pending != tc.pending {
			t.Errorf("%v: %d finished, %d running, %d pending; want %d, %d, %d (%v)", tc.v, sum.Finished, sum.Running, sum.Pending,
				tc.finished, tc.running, tc.pending, s.Stats())
		}
	}
}

// TestCarriedPendingMirror: the queue mirror Sia carries from one decision
// to the next, the restart pass's shortcut over the jobs no configuration
// can run and the remembered failures (rememberFailed) decide as
// rebuilding the mirror from the View and fitting every job in full at
// every decision do (the oracle, plainRestart), at both versions. On the
// built-in Philly trace in exact timing the restart pass meets hundreds of
// jobs no configuration can run; on Philly submitted twice as densely
// (the queue grows into the hundreds) most fits repeat a remembered
// failure. Every JCT, queueing time, round and solver count of the two
// runs agree, and the carried mirror is never rebuilt.
func TestCarriedPendingMirror(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500)
	for _, tc := range []struct {
		name    string
		run     *runtest.Philly
		v       Version
		repeats int // at least this many fits answered by a remembered failure
	}{
		{"philly/head", philly, Head, 100},
		{"philly/stored-run", philly, StoredRun, 0},
		{"philly-x4/head", runtest.NewPhilly(t, 500).Overloaded(t, 4), Head, 1000},
	} {
		run := func(rebuild bool) (*sim.Result, *Sia) {
			defer func(old bool) { plainRestart = old }(plainRestart)
			plainRestart = rebuild
			p := NewVersion(tc.run.Cluster, tc.run.DB, tc.v, false)
			return tc.run.Run(t, p), p
		}
		whole, ps := run(true)
		carried, pc := run(false)
		most := runtest.SameDecisions(t, tc.name, whole, carried)
		a, b := ps.Stats(), pc.Stats()
		t.Logf("%s: at most %d pending, %d fits answered by a remembered failure; %v", tc.name, most, pc.repeats, b)
		if a.Solves != b.Solves || a.Rejected != b.Rejected || a.Nodes != b.Nodes || a.PlacementFailures != b.PlacementFailures {
			t.Errorf("%s: solver counts differ: rebuilt %v, carried %v", tc.name, a, b)
		}
		if a.Rejected < 1000 {
			t.Errorf("%s: only %d rejections: the test exercises too little", tc.name, a.Rejected)
		}
		if ps.repeats != 0 || pc.repeats < tc.repeats {
			t.Errorf("%s: %d / %d fits answered by a remembered failure (oracle / carried): want 0 / at least %d", tc.name, ps.repeats, pc.repeats, tc.repeats)
		}
		// The mirror is carried, not rebuilt: only the first decision
		// with a queue builds it.
		if pc.queue.Rebuilds() > 1 {
			t.Errorf("%s: the mirror was rebuilt at %d decisions, want at most 1", tc.name, pc.queue.Rebuilds())
		}
	}
}

// TestMaxFits: a bound no decision reaches gives the same decisions as no
// bound, and a bound of one program per decision changes the run.
func TestMaxFits(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500)
	run := func(n int) *sim.Result {
		return philly.Run(t, NewVersion(philly.Cluster, philly.DB, Head, false).WithMaxFits(n))
	}
	free := run(0)
	runtest.SameDecisions(t, "sia max_fits=2^30", free, run(1<<30))
	if one := run(1); reflect.DeepEqual(one.JCTs, free.JCTs) {
		t.Error("max_fits=1 changed nothing")
	}
}

// TestFinishedJobsDropRows: two 4-GPU jobs of 500 iterations (÷5: 100 at
// 128/10 = 10 s each, about 1,000 s) start at once on two A100 nodes, a
// third long one arrives a round later and waits for a node. After the
// first two finish, their weight rows are gone and the third job, admitted
// and running, keeps its own. Kept rows would fail the first check; a row
// dropped too early (the third's) the second.
func TestFinishedJobsDropRows(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{"gpt-1.3b": {"a100": {1: 10, 2: 20, 4: 40, 8: 80}}}
	m, _ := estimator.ParseModel("gpt-1.3b")
	w := estimator.Workload{Model: m, Batch: 128}
	specs := []sim.JobSpec{
		{ID: 0, Name: "j0", Submit: 0, Workload: w, Iterations: 500, GPU: "a100", GPUs: 4},
		{ID: 1, Name: "j1", Submit: 0, Workload: w, Iterations: 500, GPU: "a100", GPUs: 4},
		{ID: 2, Name: "j2", Submit: 400, Workload: w, Iterations: 50_000_000, GPU: "a100", GPUs: 4},
	}
	s := New(c, est, false)
	cfg := sim.DefaultConfig(c, est)
	cfg.IterationScale = 5
	cfg.Timing, cfg.Rounds, cfg.Check = sim.Exact, 12, true
	res, err := sim.Run(context.Background(), cfg, s, specs)
	if err != nil {
		t.Fatal(err)
	}
	if sum := res.Summarize("hand", len(specs), "table"); sum.Finished != 2 || sum.Running != 1 {
		t.Fatalf("%d finished, %d running; want 2 and 1 (%v)", sum.Finished, sum.Running, s.Stats())
	}
	for id := range 2 {
		if id < len(s.weights) && s.weights[id] != nil {
			t.Errorf("finished job %d keeps its weight row %v", id, s.weights[id].row)
		}
	}
	if len(s.weights) < 3 || s.weights[2] == nil || s.weights[2].row == nil {
		t.Error("the running job 2 lost its weight row")
	}
}
