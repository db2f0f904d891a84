package srtf

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/internal/runtest"
	"github.com/arena-sim/arena/sim"
)

// table is a hand-written estimator: throughput by model name and GPU
// count (any locality); a missing entry is infeasible.
type table map[string]map[int]float64

func (t table) Name() string { return "table" }
func (t table) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	thr := t[w.Model.Name()][c.GPUs()]
	if thr <= 0 {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime, Reason: estimator.OutOfMemory}
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3)}
}

func job(t *testing.T, id int, model string, gpus int, remaining int64) *sim.Job {
	t.Helper()
	m, err := estimator.ParseModel(model)
	if err != nil {
		t.Fatal(err)
	}
	spec := &sim.JobSpec{ID: sim.JobID(id), Name: model, Workload: estimator.Workload{Model: m, Batch: 128}, GPU: "a100", GPUs: gpus}
	return &sim.Job{Spec: spec, Status: sim.Pending, IterNum: remaining, Remaining: remaining}
}

// TestPreemptsForShorterJobs works one round out by hand on two A100
// nodes × 4 GPUs (slots 0–3, 4–7). Every workload runs at 128 samples/s
// per batch of 128, i.e. 1 s per iteration, so remaining time = remaining
// iterations:
//
//	job 0 running, 4 GPUs on node 0, 1000 s left
//	job 1 running, 2 GPUs on node 1 (slots 4, 5), 300 s left
//	job 2 pending (suspended earlier), 2 GPUs, 100 s left
//	job 3 arriving, 4 GPUs, 200 s left
//	job 4 arriving, 1 GPU, infeasible on 1 GPU → dropped
//
// Order: job 2 (100), job 3 (200), job 1 (300), job 0 (1000). Admission
// out of 8 GPUs: 2 + 4 + 2 = 8, job 0 does not fit → suspended, freeing
// node 0. Job 2 goes to the node with most idle GPUs (node 0: slots 0, 1);
// job 3 then finds no node with 4 idle GPUs and is placed relaxed, 2 × 2,
// on nodes 0 and 1 (slots 2, 3, 6, 7). Job 1 is not touched.
func TestPreemptsForShorterJobs(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{
		"gpt-1.3b": {2: 128, 4: 128},
		"moe-1.3b": {2: 128, 4: 128},
	}
	j0, j1 := job(t, 0, "gpt-1.3b", 4, 1000), job(t, 1, "gpt-1.3b", 2, 300)
	j2, j3, j4 := job(t, 2, "moe-1.3b", 2, 100), job(t, 3, "moe-1.3b", 4, 200), job(t, 4, "moe-1.3b", 1, 10)
	occ := make([]sim.JobID, 8)
	for i := range occ {
		occ[i] = sim.NoJob
	}
	for _, r := range []struct {
		j     *sim.Job
		slots []int
	}{{j0, []int{0, 1, 2, 3}}, {j1, []int{4, 5}}} {
		r.j.Status, r.j.GPUs = sim.Running, r.slots
		r.j.Config, _ = c.ShapeOf(r.slots)
		for _, s := range r.slots {
			occ[s] = r.j.Spec.ID
		}
	}
	v := &sim.View{Now: 300, Round: 1, RoundLength: 300, Cluster: c, Occupant: occ, Timing: sim.Artifact,
		Running: []*sim.Job{j0, j1}, Pending: []*sim.Job{j2}, Arrivals: []*sim.Job{j3, j4}}
	p := New(est)
	if got := p.RemainingTime(c, j3); got != 200 {
		t.Errorf("remaining time of job 3 = %v, want 200", got)
	}
	got, err := p.Schedule(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Action{
		{Kind: sim.Drop, Job: 4, Reason: got[0].Reason},
		{Kind: sim.Suspend, Job: 0, Reason: got[1].Reason},
		{Kind: sim.Start, Job: 2, GPUs: []int{0, 1}},
		{Kind: sim.Start, Job: 3, GPUs: []int{2, 3, 6, 7}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actions:\n got %+v\nwant %+v", got, want)
	}
}

// TestOrderLiveEqualsWholeSort: sorting only the jobs whose remaining
// time changed and merging them with the last order gives, decision by
// decision, what a stable sort of every live job gives (the oracle,
// sortWhole: the policy's original form). On the built-in Philly trace
// every JCT, queueing time and round of the two runs agree.
func TestOrderLiveEqualsWholeSort(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500)
	run := func(whole bool) *sim.Result {
		defer func(old bool) { sortWhole = old }(sortWhole)
		sortWhole = whole
		return philly.Run(t, New(philly.DB.View(estimator.ViewOptimal)))
	}
	whole, merged := run(true), run(false)
	runtest.SameDecisions(t, "srtf", whole, merged)
	if len(whole.JCTs) < 100 {
		t.Fatalf("only %d jobs finished: the test exercises too little", len(whole.JCTs))
	}
}

// TestIncrementalEqualsWhole: the incremental decision (waiting jobs kept
// in heaps across decisions) decides, decision by decision, as the
// whole-View path does (a self-check, not an anchor), on the built-in
// Philly trace tiled 3× over the same span (hundreds pending, preemptions
// every round); and the incremental path is the one taken.
func TestIncrementalEqualsWhole(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500).Overloaded(t, 3)
	run := func(whole bool) (*sim.Result, *SRTF) {
		defer func(old bool) { noIncremental = old }(noIncremental)
		noIncremental = whole
		p := New(philly.DB.View(estimator.ViewOptimal))
		return philly.Run(t, p), p
	}
	want, _ := run(true)
	got, p := run(false)
	most := runtest.SameDecisions(t, "srtf", want, got)
	t.Logf("%d of %d decisions incremental, %d pending at most, %d finished", p.fast, p.decisions, most, len(want.JCTs))
	if most < 100 || len(want.JCTs) < 100 {
		t.Fatalf("%d pending at most, %d finished: the test exercises too little", most, len(want.JCTs))
	}
	if p.fast < p.decisions*9/10 {
		t.Errorf("%d of %d decisions incremental, want nearly all", p.fast, p.decisions)
	}
}

// TestIncrementalFollowsAnyPendingQueue: the heaps follow whatever pending
// queue the View holds — jobs gone from its middle, hidden and shown
// again, reordered, joined at its end — and the decision is
// the whole-View path's on every View (a self-check against the oracle,
// not an anchor). An SRTF decision depends on its View only, so one
// policy taking the incremental path and one taking the whole-View path
// are handed the same Views. Waiting jobs keep their remaining work, as
// in the engine.
func TestIncrementalFollowsAnyPendingQueue(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, {GPU: "a10", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{"gpt-1.3b": {1: 128, 2: 128, 4: 128}}
	rng := rand.New(rand.NewPCG(1, 2))
	var jobs []*sim.Job
	for i := range 40 {
		j := job(t, i, "gpt-1.3b", []int{1, 2, 4}[rng.IntN(3)], int64(1+rng.IntN(50)))
		if i%5 == 0 {
			j.Spec.GPU, j.Spec.GPUs = "a10", 1+rng.IntN(2)
		}
		j.SubmitTime = sim.Time(rng.IntN(10))
		jobs = append(jobs, j)
	}
	run := jobs[0] // running on slots 0, 1
	run.Spec.GPU, run.Spec.GPUs, run.Status, run.GPUs = "a100", 2, sim.Running, []int{0, 1}
	run.Config, _ = c.ShapeOf(run.GPUs)
	occ := make([]sim.JobID, 10)
	for i := range occ {
		occ[i] = sim.NoJob
	}
	occ[0], occ[1] = 0, 0
	inc, whole := New(est), New(est)
	var pending []*sim.Job
	next := 1 // jobs[next:] have not arrived
	for step := range 300 {
		switch r := rng.IntN(10); {
		case r < 5: // as the engine: some leave, the arrivals not taken join
			kept := pending[:0:0]
			for _, j := range pending {
				if rng.IntN(6) > 0 {
					kept = append(kept, j)
				}
			}
			pending = kept
		case r < 7: // a wrapper hides some
			var shown []*sim.Job
			for _, j := range pending {
				if rng.IntN(3) > 0 {
					shown = append(shown, j)
				}
			}
			pending = shown
		case r < 8:
			rng.Shuffle(len(pending), func(a, b int) { pending[a], pending[b] = pending[b], pending[a] })
		default: // every job waits again, in arrival order

			pending = append(pending[:0:0], jobs[1:next]...)
		}
		var arrivals []*sim.Job
		for k := rng.IntN(3); k > 0 && next < len(jobs); k-- {
			arrivals = append(arrivals, jobs[next])
			next++
		}
		v := &sim.View{Now: sim.Time(300 * step), Round: step, RoundLength: 300, Cluster: c, Occupant: occ, Timing: sim.Exact,
			Running: []*sim.Job{run}, Pending: pending, Arrivals: arrivals}
		func() {
			defer func(old bool) { noIncremental = old }(noIncremental)
			noIncremental = true
			want, _ := whole.Schedule(v)
			noIncremental = false
			got, _ := inc.Schedule(v)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d (pending %d, arrivals %d):\n got %+v\nwant %+v", step, len(pending), len(arrivals), got, want)
			}
		}()
		pending = append(pending, arrivals...) // they wait from now on
	}
	if inc.fast < 150 {
		t.Errorf("%d of 300 decisions incremental, want most", inc.fast)
	}
}

// TestKeptRunIsLongestAscending works keptRun out by hand (an anchor): the
// jobs kept are a longest ascending subsequence of the last order, so a
// job whose key fell less than the others' (one in its reconfiguration)
// is the one sorted again, not the jobs it now comes after.
func TestKeptRunIsLongestAscending(t *testing.T) {
	for _, c := range []struct {
		name        string
		keys        []float64
		kept, fresh []float64
	}{
		{"sorted: all kept", []float64{1, 2, 3}, []float64{1, 2, 3}, nil},
		{"one job fell less than the rest: it alone", []float64{1, 2, 10, 3, 4, 5}, []float64{1, 2, 3, 4, 5}, []float64{10}},
		{"one job fell more than the rest: it alone", []float64{3, 4, 5, 1, 6}, []float64{3, 4, 5, 6}, []float64{1}},
		{"two neighbours swapped: one of them", []float64{1, 3, 2, 4}, []float64{1, 2, 4}, []float64{3}},
		{"reversed: one kept", []float64{4, 3, 2, 1}, []float64{1}, []float64{4, 3, 2}},
		{"empty", nil, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s SRTF
			var seq []rkey
			for i, r := range c.keys {
				s.rmir = append(s.rmir, rjob{job: job(t, i, "gpt-1.3b", 1, 1), key: r})
				seq = append(seq, rkey{r, int32(i)})
			}
			kept, fresh := s.keptRun(seq)
			keys := func(ks []rkey) []float64 {
				var out []float64
				for _, k := range ks {
					out = append(out, s.rmir[k.i].key)
				}
				return out
			}
			if !reflect.DeepEqual(keys(kept), c.kept) || !reflect.DeepEqual(keys(fresh), c.fresh) {
				t.Errorf("kept %v fresh %v, want %v and %v", keys(kept), keys(fresh), c.kept, c.fresh)
			}
		})
	}
}

// TestRunOrderEqualsWholeSort: at every incremental decision the order of
// the running jobs kept from the last decision (keptRun, then a sort of
// the jobs out of place merged in) equals the View's running jobs keyed
// afresh and sorted whole (checkRunBy) — a self-check against the plain
// sort, not an anchor. Workloads: the built-in Philly trace tiled 3× (its
// preemptions and restarts each pay the reconfiguration time, during
// which a job's key stands still while the others' fall), and random
// variants of it tiled 8× — a third of the jobs of 500 iterations, the
// rest of up to 10,000, GPU counts 1–8, submissions on 30-minute
// instants — so that many keys are equal (ties by submission, then ID)
// or closer than an iteration (whole iterations times the iteration time
// reorder them as they run); the last also decides at arrivals and
// completions.
func TestRunOrderEqualsWholeSort(t *testing.T) {
	defer func(old bool) { checkRunOrder = old }(checkRunOrder)
	checkRunOrder = true
	philly := runtest.NewPhilly(t, 800)
	runs := []*runtest.Philly{philly.Overloaded(t, 3)}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 38))
		r := philly.Overloaded(t, 8)
		for i := range r.Jobs {
			j := &r.Jobs[i]
			j.Iterations = (500 + rng.Int64N(3)*rng.Int64N(5000)) * r.Config.IterationScale
			j.GPUs = []int{1, 2, 4, 8}[rng.IntN(4)]
			j.Submit = sim.Time(math.Floor(float64(j.Submit)/1800) * 1800) // many at one instant
		}
		if seed == 2 { // decisions at arrivals and completions too: short gaps
			r.Config.ScheduleOnEvents = true
		}
		runs = append(runs, r)
	}
	for i, r := range runs {
		p := New(r.DB.View(estimator.ViewOptimal))
		res := r.Run(t, p)
		if p.orderErr != nil {
			t.Fatalf("run %d: %v", i, p.orderErr)
		}
		t.Logf("run %d: %d decisions, %d orders checked, %d jobs sorted again, %d finished", i, p.decisions, p.orderChecks, p.resorted, len(res.JCTs))
		if p.orderChecks < p.decisions/2 || p.resorted == 0 {
			t.Errorf("run %d: %d orders checked of %d decisions, %d jobs sorted again: the test exercises too little", i, p.orderChecks, p.decisions, p.resorted)
		}
	}
}

// TestFollowRunningMirrorsAnyList: the mirror of the running list
// follows whatever list the View holds — jobs gone from its middle, joined
// at its end, reordered, made afresh — and after every step holds the
// View's jobs in its order, each type's order (runBy) holds each of that
// type's jobs once, and a job twice in the list is refused (a self-check
// of the mechanism, not an anchor).
func TestFollowRunningMirrorsAnyList(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	var jobs []*sim.Job
	for i := range 60 {
		j := job(t, i, "gpt-1.3b", 1+rng.IntN(4), 10)
		j.Spec.GPU = []string{"a100", "a10", "v100"}[rng.IntN(3)]
		jobs = append(jobs, j)
	}
	s := New(nil)
	s.jobs = make([]jobState, len(jobs))
	var run []*sim.Job
	for step := range 2000 {
		switch r := rng.IntN(10); {
		case r < 5: // some end, others start (at the end)
			kept := run[:0:0]
			for _, j := range run {
				if rng.IntN(5) > 0 {
					kept = append(kept, j)
				}
			}
			run = kept
			for _, j := range rng.Perm(len(jobs))[:rng.IntN(6)] {
				if !slices.Contains(run, jobs[j]) {
					run = append(run, jobs[j])
				}
			}
		case r < 7:
			run = slices.Clone(run)
			rng.Shuffle(len(run), func(a, b int) { run[a], run[b] = run[b], run[a] })
		case r < 8 && len(run) > 0: // a job twice
			dup := append(slices.Clone(run), run[rng.IntN(len(run))])
			if s.followRunning(&sim.View{Running: dup}) {
				t.Fatalf("step %d: a job twice in the running list was taken", step)
			}
		default:
			run = slices.Clone(run)
		}
		if !s.followRunning(&sim.View{Running: run}) {
			t.Fatalf("step %d: list refused", step)
		}
		if len(s.rmir) != len(run) {
			t.Fatalf("step %d: mirror holds %d jobs, list %d", step, len(s.rmir), len(run))
		}
		seen := make([]int, len(run))
		for i, r := range s.rmir {
			if r.job != run[i] || r.id != run[i].Spec.ID || s.gpus[r.typ] != run[i].Spec.GPU {
				t.Fatalf("step %d: mirror place %d holds job %d, list job %d", step, i, r.id, run[i].Spec.ID)
			}
		}
		for g, ord := range s.runBy {
			for _, i := range ord {
				if s.gpus[g] != s.rmir[i].job.Spec.GPU {
					t.Fatalf("step %d: job %d in %s's order", step, s.rmir[i].id, s.gpus[g])
				}
				seen[i]++
			}
		}
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("step %d: job %d in the orders %d times", step, s.rmir[i].id, n)
			}
		}
	}
}
