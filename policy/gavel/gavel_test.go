package gavel

import (
	"context"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/internal/runtest"
	"github.com/arena-sim/arena/sim"
)

// table is a hand-written estimator: throughput by model name, GPU type
// and GPU count (any locality), the same in every view; a missing entry is
// infeasible.
type table map[string]map[string]map[int]float64

func (t table) Name() string                            { return "table" }
func (t table) View(estimator.View) estimator.Estimator { return t }
func (t table) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	thr := t[w.Model.Name()][c.GPU][c.GPUs()]
	if thr <= 0 {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime, Reason: estimator.OutOfMemory}
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3)}
}

// recorder keeps every action the policy returned, by round.
type recorder struct {
	sim.Policy
	actions map[int][]sim.Action
}

func (r *recorder) Schedule(v *sim.View) ([]sim.Action, error) {
	a, err := r.Policy.Schedule(v)
	if len(a) > 0 {
		r.actions[v.Round] = append(r.actions[v.Round], a...)
	}
	return a, err
}

func spec(t *testing.T, id int, model, gpu string, gpus int, submit sim.Time) sim.JobSpec {
	t.Helper()
	m, err := estimator.ParseModel(model)
	if err != nil {
		t.Fatal(err)
	}
	return sim.JobSpec{ID: sim.JobID(id), Name: model, Submit: submit, Workload: estimator.Workload{Model: m, Batch: 128},
		Iterations: 5_000_000, GPU: gpu, GPUs: gpus}
}

// TestTypeChangeForBetterThroughput: one A100 and one V100 node of 4 GPUs.
// Job 0 (gpt-1.3b, 4 GPUs: a100 10, v100 20) arrives alone and the program
// puts it on the V100 node. Job 1 (gpt-2.6b, 4 GPUs: a100 5, v100 50)
// arrives a round later: the optimum moves job 0 to the A100 node (one type
// change, 10 + 50 > 20 + 5) and starts job 1 on the V100 node.
func TestTypeChangeForBetterThroughput(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, {GPU: "v100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{
		"gpt-1.3b": {"a100": {4: 10}, "v100": {4: 20}},
		"gpt-2.6b": {"a100": {4: 5}, "v100": {4: 50}},
	}
	g := New(c, est)
	rec := &recorder{Policy: g, actions: map[int][]sim.Action{}}
	cfg := sim.DefaultConfig(c, est)
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 3, sim.Overhead{PerGPU: 150, Cap: 600}, true
	specs := []sim.JobSpec{spec(t, 0, "gpt-1.3b", "a100", 4, 0), spec(t, 1, "gpt-2.6b", "a100", 4, 400)}
	if _, err := sim.Run(context.Background(), cfg, rec, specs); err != nil {
		t.Fatal(err)
	}
	want := map[int][]sim.Action{
		0: {{Kind: sim.Start, Job: 0, GPUs: []int{4, 5, 6, 7}}},
		1: {{Kind: sim.Start, Job: 1, GPUs: []int{4, 5, 6, 7}}, {Kind: sim.Reallocate, Job: 0, GPUs: []int{0, 1, 2, 3}}},
	}
	for r, acts := range want {
		got := rec.actions[r]
		if len(got) != len(acts) {
			t.Fatalf("round %d: actions %+v, want %+v", r, got, acts)
		}
		for i := range acts {
			if got[i].Kind != acts[i].Kind || got[i].Job != acts[i].Job || !sim.SameGPUs(got[i].GPUs, acts[i].GPUs) {
				t.Errorf("round %d action %d: %+v, want %+v", r, i, got[i], acts[i])
			}
		}
	}
	if s := g.Stats(); s.Solves != 2 || s.Rejected != 0 || s.PlacementFailures != 0 {
		t.Errorf("stats %v", s)
	}
}

// TestFailedPlacementRevertsNewRow: the program counts a type's TOTAL
// GPUs, so on four 2-GPU A40 nodes each holding a 1-GPU job, a 4-GPU job
// "fits" (4 + 4 ≤ 8) but no node has 2 idle GPUs for its best locality 2×2,
// and the relaxed 4×1 is infeasible for its model: the decision is
// reverted, the job pends and its row leaves the admitted table.
func TestFailedPlacementRevertsNewRow(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a40", Nodes: 4, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	est := spreadTable{table{"gpt-1.3b": {"a40": {1: 10}}, "gpt-2.6b": {"a40": {4: 30}}}}
	g := New(c, est)
	rec := &recorder{Policy: g, actions: map[int][]sim.Action{}}
	cfg := sim.DefaultConfig(c, est)
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 2, sim.Overhead{PerGPU: 150, Cap: 600}, true
	var specs []sim.JobSpec
	for i := 0; i < 4; i++ {
		specs = append(specs, spec(t, i, "gpt-1.3b", "a40", 1, 0))
	}
	specs = append(specs, spec(t, 4, "gpt-2.6b", "a40", 4, 0))
	res, err := sim.Run(context.Background(), cfg, rec, specs)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rec.actions[0]); got != 4 {
		t.Errorf("round 0: %d actions %+v, want 4 starts", got, rec.actions[0])
	}
	if len(g.rows.Jobs) != 4 || len(g.rows.Prev) != 4 {
		t.Errorf("admitted rows %v / %v, want the 4 running jobs", g.rows.Jobs, g.rows.Prev)
	}
	if s := g.Stats(); s.PlacementFailures != 1 {
		t.Errorf("stats %v, want 1 placement failure", s)
	}
	if res.Summarize("hand", len(specs), "table").Pending != 1 {
		t.Errorf("job 4 should pend")
	}
}

// spreadTable makes every multi-GPU shape with one GPU per node infeasible.
type spreadTable struct{ table }

func (t spreadTable) View(estimator.View) estimator.Estimator { return t }
func (t spreadTable) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	if c.PerNode == 1 && c.Nodes > 1 {
		return t.table.Estimate(w, estimator.Config{GPU: "none"})
	}
	return t.table.Estimate(w, c)
}

func TestRowsRemove(t *testing.T) {
	r := Rows{Jobs: []sim.JobID{4, 7, 9}, Prev: []int{0, 1, 2}, HasPrev: true}
	r.Remove(7)
	if len(r.Jobs) != 2 || r.Jobs[1] != 9 || r.Prev[1] != 2 {
		t.Errorf("after removing 7: %+v", r)
	}
	r.Remove(4)
	r.Remove(9)
	if len(r.Jobs) != 0 || !r.HasPrev {
		t.Errorf("an emptied table must keep HasPrev (the artifact's empty matrix): %+v", r)
	}
}

// memTable answers the DP view with the memory filter (ViewDataParallel)
// from filtered and every other view from all: a job missing from
// filtered is one the DP memory filter rejects although it can run.
type memTable struct{ filtered, all table }

func (m memTable) Name() string { return "memTable" }
func (m memTable) View(v estimator.View) estimator.Estimator {
	if v == estimator.ViewDataParallel {
		return m.filtered
	}
	return m.all
}

// TestDeployCheckByVersion: one A100 node of 4 GPUs and a 4-GPU job that
// the DP memory filter rejects on every type but that can run (the arrival
// pre-filter, without the filter, admits it). Its program row is all
// −1e9, so the decision is accepted with a negative objective. At Head the
// placement applies the filter too and fails: the job pends. In StoredRun
// the placement is checked without the filter, as in the version behind the
// authors' stored results, and the job starts.
func TestDeployCheckByVersion(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	est := memTable{filtered: table{}, all: table{"gpt-6.7b": {"a100": {4: 20}}}}
	specs := []sim.JobSpec{spec(t, 0, "gpt-6.7b", "a100", 4, 0)}
	for _, tc := range []struct {
		v                Version
		running, pending int
	}{{Head, 0, 1}, {StoredRun, 1, 0}} {
		g := NewVersion(c, est, tc.v)
		cfg := sim.DefaultConfig(c, est.all)
		cfg.IterationScale = 5 // the artifact simulation traces' ÷5
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 2, sim.Overhead{PerGPU: 150, Cap: 600}, true
		res, err := sim.Run(context.Background(), cfg, g, specs)
		if err != nil {
			t.Fatal(err)
		}
		sum := res.Summarize("hand", len(specs), "memTable")
		if sum.Running != tc.running || sum.Pending != tc.pending || sum.Dropped != 0 {
			t.Errorf("%v: %d running, %d pending, %d dropped; want %d, %d, 0 (%v)", tc.v, sum.Running, sum.Pending, sum.Dropped, tc.running, tc.pending, g.Stats())
		}
		if s := g.Stats(); s.Solves != 1 || s.Rejected != 0 {
			t.Errorf("%v: stats %v, want one accepted program", tc.v, s)
		}
	}
}

// TestCarriedPendingMirror: the queue mirror Gavel carries from one
// decision to the next decides as rebuilding it from the View at every
// decision does (the oracle, plainRestart), at both versions. On the
// built-in Philly trace in exact timing the restart pass walks hundreds of
// pending jobs; every JCT, queueing time, round and solver count of the
// two runs agree, and the carried mirror is never rebuilt.
func TestCarriedPendingMirror(t *testing.T) {
	philly := runtest.NewPhilly(t, 2500)
	for _, v := range []Version{Head, StoredRun} {
		run := func(rebuild bool) (*sim.Result, *Gavel) {
			defer func(old bool) { plainRestart = old }(plainRestart)
			plainRestart = rebuild
			p := NewVersion(philly.Cluster, philly.DB, v)
			return philly.Run(t, p), p
		}
		whole, ps := run(true)
		carried, pc := run(false)
		maxPending := runtest.SameDecisions(t, v.String(), whole, carried)
		if a, b := ps.Stats(), pc.Stats(); a.Solves != b.Solves || a.Rejected != b.Rejected || a.Nodes != b.Nodes || a.PlacementFailures != b.PlacementFailures {
			t.Errorf("%v: solver counts differ: rebuilt %v, carried %v", v, a, b)
		}
		if maxPending < 100 {
			t.Errorf("%v: at most %d jobs pending: the test exercises too little", v, maxPending)
		}
		if pc.queue.Rebuilds() > 1 {
			t.Errorf("%v: the mirror was rebuilt at %d decisions, want at most 1", v, pc.queue.Rebuilds())
		}
	}
}

// startCounter records the most Start actions any one decision returned.
type startCounter struct {
	*Gavel
	most int
}

func (s *startCounter) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := s.Gavel.Schedule(v)
	n := 0
	for _, a := range acts {
		if a.Kind == sim.Start {
			n++
		}
	}
	s.most = max(s.most, n)
	return acts, err
}

// TestMaxFits: a bound no decision reaches changes nothing (same
// decisions as no bound on Philly); max_fits=1 lets a decision solve one
// program, so start at most one job (a fit starts only its new job), and
// it changes the run (the unbounded run starts several in one decision).
func TestMaxFits(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500)
	run := func(n int) (*sim.Result, *startCounter) {
		p := &startCounter{Gavel: New(philly.Cluster, philly.DB).WithMaxFits(n)}
		return philly.Run(t, p), p
	}
	free, pf := run(0)
	huge, _ := run(1 << 30)
	runtest.SameDecisions(t, "gavel max_fits=2^30", free, huge)
	one, p1 := run(1)
	if p1.most != 1 {
		t.Errorf("max_fits=1: a decision started %d jobs, want at most 1 (and some start)", p1.most)
	}
	if pf.most < 2 {
		t.Errorf("unbounded: at most %d starts per decision: the test exercises too little", pf.most)
	}
	if len(one.JCTs) == len(free.JCTs) && slices.Equal(one.JCTs, free.JCTs) {
		t.Error("max_fits=1 changed nothing")
	}
}

// countingTable is table counting its Estimate calls.
type countingTable struct {
	table
	calls *int
}

func (c countingTable) View(estimator.View) estimator.Estimator { return c }
func (c countingTable) Estimate(w estimator.Workload, cfg estimator.Config) estimator.Estimate {
	*c.calls++
	return c.table.Estimate(w, cfg)
}

// TestRowsSharedByAlikeJobs (anchor: the rows by hand from the table): on
// one A100 and one V100 node of 4 GPUs, jobs 0 and 1 ask alike (gpt-1.3b,
// batch 128, 4 GPUs) and share one row, {a100 10, v100 20}, computed once
// (two Estimate calls, one per type); job 2 asks for 2 GPUs of the same
// model and gets its own row, {a100 6, −1e9 (no v100 figure)}. A cache
// keyed by anything but (workload, GPU count) fails the counts or the
// values.
func TestRowsSharedByAlikeJobs(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, {GPU: "v100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	g := New(c, countingTable{table{"gpt-1.3b": {"a100": {4: 10, 2: 6}, "v100": {4: 20}}}, &calls})
	calls = 0
	specs := []sim.JobSpec{spec(t, 0, "gpt-1.3b", "a100", 4, 0), spec(t, 1, "gpt-1.3b", "v100", 4, 0), spec(t, 2, "gpt-1.3b", "a100", 2, 0)}
	rows := make([][]float64, len(specs))
	for i := range specs {
		rows[i] = g.throughputs(&sim.Job{Spec: &specs[i]})
	}
	if want := []float64{10, 20}; !slices.Equal(rows[0], want) || !slices.Equal(rows[1], want) {
		t.Errorf("4-GPU rows %v and %v, want %v", rows[0], rows[1], want)
	}
	if &rows[0][0] != &rows[1][0] {
		t.Error("jobs 0 and 1 ask alike but got rows of their own")
	}
	if want := []float64{6, estimator.InfeasibleThroughput}; !slices.Equal(rows[2], want) {
		t.Errorf("2-GPU row %v, want %v", rows[2], want)
	}
	if calls != 4 {
		t.Errorf("%d Estimate calls, want 4 (one per type for each of the two distinct rows)", calls)
	}
}
