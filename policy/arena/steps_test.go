package arena

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// fakeEstimator gives every workload rate[model] samples/s per GPU, scaled
// by 0.9 per extra node, except configs listed as infeasible. The numbers
// are chosen so the expected placements can be worked out by hand.
type fakeEstimator struct {
	rate       map[string]float64 // per GPU, by model name
	typeRate   map[string]float64 // factor per GPU type (1 if absent)
	infeasible map[string]bool    // "model gpu:NxP" or "model <g" (fewer than g GPUs)
	minGPUs    map[string]int     // model → smallest feasible GPU count
}

func (f *fakeEstimator) Name() string { return "fake" }

func (f *fakeEstimator) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	name := w.Model.Name()
	if f.infeasible[name+" "+c.String()] || c.GPUs() < f.minGPUs[name] {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime, Reason: estimator.NotProfiled}
	}
	thr := f.rate[name] * float64(c.GPUs()) * math.Pow(0.9, float64(c.Nodes-1))
	if k, ok := f.typeRate[c.GPU]; ok {
		thr *= k
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3)}
}

func mustModel(t testing.TB, s string) estimator.Model {
	m, err := estimator.ParseModel(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func testCluster(t testing.TB, pools ...sim.Pool) *sim.Cluster {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "test", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testJob is one job of a hand-built scenario.
type testJob struct {
	model string
	gpu   string
	gpus  int
	slots []int // held at the start (running), nil if pending/new
}

// newTestRound builds a planning round on cluster c where jobs[i] has ID i.
func newTestRound(t testing.TB, c *sim.Cluster, est *fakeEstimator, jobs []testJob) *round {
	t.Helper()
	p := New(Variant{Name: "arena"}, c, est, est)
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	v := &sim.View{Cluster: c, RoundLength: 300, Occupant: occ, BeforeRelease: occ}
	for i, tj := range jobs {
		spec := &sim.JobSpec{ID: sim.JobID(i), Workload: estimator.Workload{Model: mustModel(t, tj.model), Batch: 128}, GPU: tj.gpu, GPUs: tj.gpus}
		j := &sim.Job{Spec: spec, Status: sim.Pending}
		for _, s := range tj.slots {
			occ[s] = spec.ID
		}
		if tj.slots != nil {
			j.Status, j.GPUs = sim.Running, tj.slots
			v.Running = append(v.Running, j)
		} else {
			v.Pending = append(v.Pending, j)
		}
	}
	return p.newRound(v)
}

func slotsOf(tb *table, id sim.JobID) []int { return tb.jobSlots(id) }

func seq(lo, hi int) []int {
	var out []int
	for s := lo; s <= hi; s++ {
		out = append(out, s)
	}
	return out
}

func a100x4(t testing.TB) *sim.Cluster {
	return testCluster(t, sim.Pool{GPU: "a100", Nodes: 4, GPUsPerNode: 4})
}

func uniformRates(models ...string) *fakeEstimator {
	f := &fakeEstimator{rate: map[string]float64{}, infeasible: map[string]bool{}, minGPUs: map[string]int{}}
	for _, m := range models {
		f.rate[m] = 10
	}
	return f
}

func TestMigrationSearch(t *testing.T) {
	t.Run("an idle node comes first", func(t *testing.T) {
		// node 0: job 0 on 2 GPUs; node 1: job 1 on 3; node 2 idle; node 3: job 2 on 1.
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 2, []int{0, 1}}, {"gpt-1.3b", "a100", 2, []int{4, 5, 6}}, {"gpt-1.3b", "a100", 1, []int{12}},
			{"gpt-1.3b", "a100", 4, nil},
		})
		m := r.migrationSearch(r.registered(3), r.real.clone(), 4096, 256, true)
		if !m.ok || m.relaxed || m.budget != 4096 {
			t.Fatalf("got ok=%v relaxed=%v budget=%d, want a direct placement", m.ok, m.relaxed, m.budget)
		}
		if got := slotsOf(m.tbl, 3); !reflect.DeepEqual(got, seq(8, 11)) {
			t.Errorf("job 3 on %v, want the idle node 2 (slots 8–11)", got)
		}
		if m.gain != 40 {
			t.Errorf("gain %v, want thr(1×4) = 40", m.gain)
		}
	})
	t.Run("else the freest partial node of the cut list", func(t *testing.T) {
		// Idle GPUs: node 0: 2, node 1: 3, node 2: 1, node 3: 1. Sorted:
		// node 1 (3), node 0 (2), … cut at 2 GPUs → [node 1].
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 2, []int{0, 1}}, {"gpt-1.3b", "a100", 1, []int{4}},
			{"gpt-1.3b", "a100", 2, []int{8, 9, 10}}, {"gpt-1.3b", "a100", 2, []int{12, 13, 14}},
			{"gpt-1.3b", "a100", 2, nil},
		})
		partial, idle := r.real.partialNodes(0, 2, nil, nil)
		if want := []nodeFree{{1, 3}}; !reflect.DeepEqual(partial, want) || len(idle) != 0 {
			t.Fatalf("partial list %v idle %v, want %v and none", partial, idle, want)
		}
		m := r.migrationSearch(r.registered(4), r.real.clone(), 4096, 256, true)
		if got := slotsOf(m.tbl, 4); !m.ok || !reflect.DeepEqual(got, []int{5, 6}) {
			t.Errorf("job 4 on %v (ok=%v), want the first idle slots of node 1: [5 6]", got, m.ok)
		}
	})
	t.Run("a job's own placement is released first and priced as the previous config", func(t *testing.T) {
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 2, []int{0, 4}}, // 2 GPUs over 2 nodes: thr 2·10·0.9 = 18
		})
		m := r.migrationSearch(r.registered(0), r.real.clone(), 4096, 256, true)
		// Once released, node 0 is idle again and comes first.
		if got := slotsOf(m.tbl, 0); !reflect.DeepEqual(got, []int{0, 1}) {
			t.Errorf("job 0 moved to %v, want the first idle node (slots 0, 1)", got)
		}
		if math.Abs(m.gain-2) > 1e-9 {
			t.Errorf("gain %v, want thr(1×2) − thr(2×1) = 20 − 18 = 2", m.gain)
		}
	})
}

func TestBubbleMigration(t *testing.T) {
	t.Run("one node fills: both nodes re-packed, largest job first", func(t *testing.T) {
		// Idle: node 0: 2, node 1: 2, node 2: 1, node 3: 1; a 4-GPU job needs
		// a whole node. The cut list is [node 0, node 1]; 2 + 2 ≤ 4, so both
		// are cleared and re-packed: job 0 (first, node 0) stays, job 1 joins
		// it on slots 2, 3 because nothing would be left to fill node 0;
		// node 1 empties and takes the new job after one pass.
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 2, []int{0, 1}}, {"gpt-1.3b", "a100", 2, []int{4, 5}},
			{"gpt-1.3b", "a100", 2, []int{8, 9, 10}}, {"gpt-1.3b", "a100", 2, []int{12, 13, 14}},
			{"gpt-1.3b", "a100", 4, nil},
		})
		m := r.migrationSearch(r.registered(4), r.real.clone(), 4096, 256, true)
		if !m.ok || m.relaxed || m.budget != 4095 {
			t.Fatalf("ok=%v relaxed=%v budget=%d, want success after one RHD pass (budget 4095)", m.ok, m.relaxed, m.budget)
		}
		for id, want := range map[sim.JobID][]int{0: {0, 1}, 1: {2, 3}, 4: seq(4, 7), 2: {8, 9, 10}} {
			if got := slotsOf(m.tbl, id); !reflect.DeepEqual(got, want) {
				t.Errorf("job %d on %v, want %v", id, got, want)
			}
		}
	})
	t.Run("one node empties into the other", func(t *testing.T) {
		// Idle: node 0: 3, node 1: 2 → 3 + 2 > 4: node 0 (more bubbles)
		// empties onto node 1's first idle slot (6).
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 1, []int{0}}, {"gpt-1.3b", "a100", 2, []int{4, 5}},
			{"gpt-1.3b", "a100", 4, seq(8, 11)}, {"gpt-1.3b", "a100", 4, seq(12, 15)},
			{"gpt-1.3b", "a100", 4, nil},
		})
		m := r.migrationSearch(r.registered(4), r.real.clone(), 4096, 256, true)
		if !m.ok || m.budget != 4095 {
			t.Fatalf("ok=%v budget=%d, want success after one pass", m.ok, m.budget)
		}
		if got := slotsOf(m.tbl, 0); !reflect.DeepEqual(got, []int{6}) {
			t.Errorf("job 0 on %v, want [6]", got)
		}
		if got := slotsOf(m.tbl, 4); !reflect.DeepEqual(got, seq(0, 3)) {
			t.Errorf("new job on %v, want node 0 (0–3)", got)
		}
	})
	t.Run("an aborted pair leaves the caller's table half-done", func(t *testing.T) {
		// Job 0 holds one GPU on node 0 and one on node 1 (3 idle each):
		// emptying node 0 onto node 1 would merge its two halves, so the pair
		// aborts. The artifact rolls back into a new table; the old one keeps
		// node 0 cleared.
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
			{"gpt-1.3b", "a100", 2, []int{0, 4}},
		})
		tb := r.real.clone()
		nt, changed := r.rhdPair(tb, 0, 3, 1, 3, 4)
		if nt == tb || changed {
			t.Fatalf("want a new table and no change, got same=%v changed=%v", nt == tb, changed)
		}
		if got := slotsOf(nt, 0); !reflect.DeepEqual(got, []int{0, 4}) {
			t.Errorf("rolled-back table: job 0 on %v, want [0 4]", got)
		}
		if got := slotsOf(tb, 0); !reflect.DeepEqual(got, []int{4}) {
			t.Errorf("caller's table: job 0 on %v, want [4] (node 0 cleared)", got)
		}
	})
}

func TestRelaxedLocality(t *testing.T) {
	jobs := []testJob{
		{"gpt-1.3b", "a100", 2, []int{0, 1}}, {"gpt-1.3b", "a100", 2, []int{4, 5}},
		{"gpt-2.6b", "a100", 2, []int{8, 9, 10}}, {"gpt-2.6b", "a100", 2, []int{12, 13, 14}},
		{"gpt-1.3b", "a100", 4, nil},
	}
	t.Run("halves the GPUs per node and takes the first nodes with room", func(t *testing.T) {
		// No migration budget: [2, 2] on the cut list's node 0 and node 1.
		r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b", "gpt-2.6b"), jobs)
		m := r.migrationSearch(r.registered(4), r.real.clone(), 0, 256, true)
		if !m.ok || !m.relaxed {
			t.Fatalf("ok=%v relaxed=%v, want a relaxed placement", m.ok, m.relaxed)
		}
		if got := slotsOf(m.tbl, 4); !reflect.DeepEqual(got, []int{2, 3, 6, 7}) {
			t.Errorf("job 4 on %v, want [2 3 6 7]", got)
		}
		if math.Abs(m.gain-36) > 1e-9 {
			t.Errorf("gain %v, want thr(2×2) = 4·10·0.9 = 36", m.gain)
		}
	})
	t.Run("stops at the first infeasible locality", func(t *testing.T) {
		est := uniformRates("gpt-1.3b", "gpt-2.6b")
		est.infeasible["gpt-1.3b a100:2x2"] = true // [1,1,1,1] would fit, but is never tried
		r := newTestRound(t, a100x4(t), est, jobs)
		if m := r.migrationSearch(r.registered(4), r.real.clone(), 0, 256, true); m.ok {
			t.Errorf("placed on %v, want failure at [2, 2]", slotsOf(m.tbl, 4))
		}
	})
}

func TestShrinkStep(t *testing.T) {
	// Two A100 nodes. Job 0 (a slow model: 1 sample/s per GPU) fills node 0;
	// jobs 1 and 2 share node 1. The new 2-GPU job 3 fits nowhere. Halving
	// job 0 costs 2 samples/s, halving any other job 10: job 0 shrinks in
	// place (keeps slots 0, 1) and job 3 takes slots 2, 3.
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 2, GPUsPerNode: 4})
	est := uniformRates("gpt-1.3b")
	est.rate["wresnet-1b"] = 1
	r := newTestRound(t, c, est, []testJob{
		{"wresnet-1b", "a100", 4, seq(0, 3)}, {"gpt-1.3b", "a100", 2, []int{4, 5}}, {"gpt-1.3b", "a100", 2, []int{6, 7}},
		{"gpt-1.3b", "a100", 2, nil},
	})
	tb := r.real.clone()
	// The artifact's list is every job on the table, then the target;
	// with the shortcuts on, job 2 (job 1's workload and config, after
	// it) is left out: only the first of such twins can be chosen.
	prev := SetSearchShortcuts(false)
	cands, _ := r.candidates(tb, 3)
	SetSearchShortcuts(prev)
	if want := []sim.JobID{0, 1, 2, 3}; !reflect.DeepEqual(cands, want) {
		t.Fatalf("candidates (shortcuts off) %v, want %v", cands, want)
	}
	cands, st := r.candidates(tb, 3)
	if want := []sim.JobID{0, 1, 3}; !reflect.DeepEqual(cands, want) {
		t.Fatalf("candidates %v, want %v", cands, want)
	}
	tgt := r.registered(3)
	res := r.shrinkStep(&tgt, 0, r.shrinkCandidates(tgt, cands, st), st, tb, 0, 4096, 256)
	if !res.changed || res.mod != (modification{0, 0, loc{1, 2}}) {
		t.Fatalf("shrunk %+v, want job 0 to [2]", res.mod)
	}
	if got := slotsOf(tb, 0); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("job 0 keeps %v, want its first two slots [0 1]", got)
	}
	if got := slotsOf(res.tbl, 3); !res.ok || !reflect.DeepEqual(got, []int{2, 3}) {
		t.Errorf("job 3 on %v (ok=%v), want [2 3]", got, res.ok)
	}
	if res.gain != -2 || res.migGain != 20 {
		t.Errorf("gain %v + migration %v, want −2 + 20", res.gain, res.migGain)
	}
	// The whole fit picks this plan.
	ok, dec, _ := r.fitOneJob(r.real, r.registered(3), 4096, 256)
	if !ok || !reflect.DeepEqual(slotsOf(dec, 3), []int{2, 3}) || !reflect.DeepEqual(slotsOf(dec, 0), []int{0, 1}) {
		t.Errorf("fitOneJob: ok=%v job 3 on %v, job 0 on %v", ok, slotsOf(dec, 3), slotsOf(dec, 0))
	}
}

func TestTypeChangeStep(t *testing.T) {
	// One A100 node (full with job 0) and two idle A40 nodes; the new job 1
	// asks for 4 A100s.
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, sim.Pool{GPU: "a40", Nodes: 2, GPUsPerNode: 2})
	jobs := []testJob{{"gpt-1.3b", "a100", 4, seq(0, 3)}, {"moe-1.3b", "a100", 4, nil}}
	a100, a40 := 0, 1

	t.Run("a feasible change of the target wins", func(t *testing.T) {
		r := newTestRound(t, c, uniformRates("gpt-1.3b", "moe-1.3b"), jobs)
		tb := r.real.clone()
		cands, st := r.candidates(tb, 1)
		tgt := r.registered(1)
		res := r.htcStep(&tgt, cands, st, tb, 0, 4096, 256)
		if !res.ok || res.mod != (modification{1, a40, loc{2, 2}}) || tgt.t != a40 {
			t.Fatalf("ok=%v mod %+v target type %d, want job 1 on A40 [2, 2]", res.ok, res.mod, tgt.t)
		}
		if got := slotsOf(res.tbl, 1); !reflect.DeepEqual(got, seq(4, 7)) {
			t.Errorf("job 1 on %v, want the A40 slots 4–7", got)
		}
		// gain = thr(A40 2×2) − thr(A100 1×4) = 36 − 40; migration = 36.
		if math.Abs(res.gain+4) > 1e-9 || math.Abs(res.migGain-36) > 1e-9 {
			t.Errorf("gain %v, migration %v; want −4 and 36", res.gain, res.migGain)
		}
	})
	t.Run("else another job of the type moves", func(t *testing.T) {
		est := uniformRates("gpt-1.3b", "moe-1.3b")
		est.infeasible["moe-1.3b a40:2x2"] = true
		r := newTestRound(t, c, est, jobs)
		tb := r.real.clone()
		cands, st := r.candidates(tb, 1)
		tgt := r.registered(1)
		res := r.htcStep(&tgt, cands, st, tb, 0, 4096, 256)
		if !res.ok || res.mod != (modification{0, a40, loc{2, 2}}) {
			t.Fatalf("ok=%v mod %+v, want job 0 moved to A40 [2, 2]", res.ok, res.mod)
		}
		if got := slotsOf(res.tbl, 0); !reflect.DeepEqual(got, seq(4, 7)) {
			t.Errorf("job 0 on %v, want 4–7", got)
		}
		if got := slotsOf(res.tbl, 1); !reflect.DeepEqual(got, seq(0, 3)) {
			t.Errorf("job 1 on %v, want the freed A100 node 0–3", got)
		}
		// gain + migration gain of job 0: 2·(36 − 40); the target: 40.
		if math.Abs(res.gain+8) > 1e-9 || res.migGain != 40 {
			t.Errorf("gain %v, migration %v; want −8 and 40", res.gain, res.migGain)
		}
		_ = a100
	})
}

// recorder wraps the policy to keep each round's actions and decision queue.
type recorder struct {
	*Policy
	rounds map[int]roundLog
}

type roundLog struct {
	actions []string
	queue   []string
}

func (rc *recorder) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := rc.Policy.Schedule(v)
	var l roundLog
	for _, a := range acts {
		l.actions = append(l.actions, fmt.Sprintf("%s %s %v", a.Kind, v.Job(a.Job).Spec.Name, a.GPUs))
	}
	for _, id := range rc.Policy.decision {
		js := rc.Policy.jobs[id]
		tag := "pending"
		switch {
		case js.opp:
			tag = "opportunistic"
		case js.blocker:
			tag = "blocker"
		}
		l.queue = append(l.queue, v.Job(id).Spec.Name+":"+tag)
	}
	if len(acts) > 0 || len(v.Ended) > 0 || len(v.Arrivals) > 0 {
		rc.rounds[v.Round] = l
	}
	return acts, err
}

// TestBlockersAndOpportunisticJobs runs the engine on two A100 nodes: A (4
// GPUs) starts; B needs all 8 GPUs and waits; C (4 GPUs) arrives next round
// and runs opportunistically on the free node, which makes B a blocker.
func TestBlockersAndOpportunisticJobs(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 2, GPUsPerNode: 4})
	est := uniformRates("gpt-1.3b", "moe-1.3b", "wresnet-1b")
	est.rate = map[string]float64{"gpt-1.3b": 32, "moe-1.3b": 16, "wresnet-1b": 32} // 128 samples/s on 4 or 8 GPUs
	est.minGPUs["moe-1.3b"] = 8
	// A cannot grow to both nodes (the upgrade trial would double it).
	est.infeasible["gpt-1.3b a100:2x4"] = true
	run := func(t *testing.T, iterC int64) map[int]roundLog {
		specs := []sim.JobSpec{
			{ID: 0, Name: "A", Submit: 1000, Workload: estimator.Workload{Model: mustModel(t, "gpt-1.3b"), Batch: 128}, Iterations: 900, GPU: "a100", GPUs: 4},
			{ID: 1, Name: "B", Submit: 1001, Workload: estimator.Workload{Model: mustModel(t, "moe-1.3b"), Batch: 128}, Iterations: 100000, GPU: "a100", GPUs: 8},
			{ID: 2, Name: "C", Submit: 1301, Workload: estimator.Workload{Model: mustModel(t, "wresnet-1b"), Batch: 128}, Iterations: iterC, GPU: "a100", GPUs: 4},
		}
		rc := &recorder{Policy: New(Variant{Name: "arena"}, c, est, est), rounds: map[int]roundLog{}}
		cfg := sim.DefaultConfig(c, est)
		cfg.Timing, cfg.Rounds, cfg.IterationScale, cfg.Check = sim.Artifact, 6, 1, true
		if _, err := sim.Run(context.Background(), cfg, rc, specs); err != nil {
			t.Fatal(err)
		}
		return rc.rounds
	}
	t.Run("a blocker's restart suspends the opportunistic job", func(t *testing.T) {
		log := run(t, 100000)
		want := map[int]roundLog{
			0: {actions: []string{"start A [0 1 2 3]"}, queue: []string{"B:pending"}},
			1: {actions: []string{"start C [4 5 6 7]"}, queue: []string{"B:blocker", "C:opportunistic"}},
			// A ends in round 3 (900 iterations at 1 s each); B takes both
			// nodes, C is suspended and waits as a vanilla pending job.
			3: {actions: []string{"start B [0 1 2 3 4 5 6 7]", "suspend C []"}, queue: []string{"C:pending"}},
		}
		if !reflect.DeepEqual(log, want) {
			t.Errorf("rounds:\n got %v\nwant %v", log, want)
		}
	})
	t.Run("an opportunistic job that ends releases its blockers", func(t *testing.T) {
		log := run(t, 300) // C ends in round 2
		want := map[int]roundLog{
			0: {actions: []string{"start A [0 1 2 3]"}, queue: []string{"B:pending"}},
			1: {actions: []string{"start C [4 5 6 7]"}, queue: []string{"B:blocker", "C:opportunistic"}},
			2: {queue: []string{"B:pending"}},
			// A ends: B restarts on both nodes as a normal job.
			3: {actions: []string{"start B [0 1 2 3 4 5 6 7]"}},
		}
		if !reflect.DeepEqual(log, want) {
			t.Errorf("rounds:\n got %v\nwant %v", log, want)
		}
	})
}
