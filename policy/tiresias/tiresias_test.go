package tiresias

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/internal/runtest"
	"github.com/arena-sim/arena/sim"
)

// anyFeasible says every config runs at 128 samples/s.
type anyFeasible struct{}

func (anyFeasible) Name() string { return "any" }
func (anyFeasible) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: 128, IterTime: 1}
}

// world plays the engine for a one-node, 4-GPU A100 cluster: it applies
// the policy's actions the way the engine does (suspended jobs rejoin the
// pending queue, unstarted arrivals join it).
type world struct {
	t       *testing.T
	c       *sim.Cluster
	occ     []sim.JobID
	running []*sim.Job
	pending []*sim.Job
	// hide keeps these pending jobs out of the View (as a quota wrapper
	// does); they stay in the pending queue.
	hide map[sim.JobID]bool
}

func newWorld(t *testing.T) *world {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, c: c, occ: []sim.JobID{sim.NoJob, sim.NoJob, sim.NoJob, sim.NoJob}}
}

func (w *world) job(id int) *sim.Job {
	m, _ := estimator.ParseModel("gpt-1.3b")
	spec := &sim.JobSpec{ID: sim.JobID(id), Workload: estimator.Workload{Model: m, Batch: 128}, GPU: "a100", GPUs: 4}
	return &sim.Job{Spec: spec, Status: sim.Pending, IterNum: 1e6, Remaining: 1e6}
}

// round calls the policy at time now and applies its actions.
func (w *world) round(p *Tiresias, now sim.Time, arrivals ...*sim.Job) []sim.Action {
	pending := w.pending
	if len(w.hide) > 0 {
		pending = nil
		for _, j := range w.pending {
			if !w.hide[j.Spec.ID] {
				pending = append(pending, j)
			}
		}
	}
	v := &sim.View{Now: now, Round: int(now / 300), RoundLength: 300, Cluster: w.c, Occupant: w.occ, Timing: sim.Artifact,
		Running: w.running, Pending: pending, Arrivals: arrivals}
	actions, err := p.Schedule(v)
	if err != nil {
		w.t.Fatal(err)
	}
	byID := map[sim.JobID]*sim.Job{}
	for _, j := range append(append(append([]*sim.Job(nil), w.running...), w.pending...), arrivals...) {
		byID[j.Spec.ID] = j
	}
	remove := func(q []*sim.Job, j *sim.Job) []*sim.Job {
		out := []*sim.Job{}
		for _, x := range q {
			if x != j {
				out = append(out, x)
			}
		}
		return out
	}
	for _, a := range actions {
		j := byID[a.Job]
		switch a.Kind {
		case sim.Suspend:
			for _, s := range j.GPUs {
				w.occ[s] = sim.NoJob
			}
			j.Status, j.GPUs = sim.Pending, nil
			w.running, w.pending = remove(w.running, j), append(remove(w.pending, j), j)
		case sim.Start:
			for _, s := range a.GPUs {
				w.occ[s] = j.Spec.ID
			}
			j.Status, j.GPUs = sim.Running, a.GPUs
			w.pending, w.running = remove(w.pending, j), append(w.running, j)
		default:
			w.t.Fatalf("unexpected action %+v", a)
		}
	}
	for _, j := range arrivals {
		if j.Status == sim.Pending {
			w.pending = append(w.pending, j)
		}
	}
	return actions
}

// kinds summarises actions as "suspend 0", "start 2", ….
func kinds(actions []sim.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Kind.String()+" "+string(rune('0'+a.Job)))
	}
	return out
}

// TestQueuesAndPromotion works Tiresias out by hand on 4 GPUs, with one
// threshold of 600 GPU-seconds (two queues); every job wants all 4 GPUs.
//
//	t=0    job 0 arrives (queue 0) and starts.
//	t=300  job 0 has 4 × 300 = 1200 GPU-s ≥ 600 → queue 1. Job 1 arrives
//	       in queue 0 and preempts it.
//	t=600  job 1 reaches 1200 GPU-s → queue 1, behind job 0. Job 0 has
//	       waited 300 s after running 300 s. Job 2 arrives in queue 0.
//	       - promotion off: job 2 (queue 0) runs; job 1 is suspended.
//	       - knob 1: 300 ≥ 1 × 300, so job 0 is promoted to queue 0 (and
//	         enters it before job 2 arrives): job 0 runs, job 1 is
//	         suspended, job 2 waits.
func TestQueuesAndPromotion(t *testing.T) {
	for _, c := range []struct {
		knob float64
		want []string // actions at t=600
	}{
		{0, []string{"suspend 1", "start 2"}},
		{1, []string{"suspend 1", "start 0"}},
	} {
		w := newWorld(t)
		p := New(anyFeasible{}, Config{Thresholds: []float64{600}, PromoteKnob: c.knob})
		j0, j1, j2 := w.job(0), w.job(1), w.job(2)
		if got := kinds(w.round(p, 0, j0)); !reflect.DeepEqual(got, []string{"start 0"}) {
			t.Errorf("knob %v, t=0: %v, want [start 0]", c.knob, got)
		}
		if got := kinds(w.round(p, 300, j1)); !reflect.DeepEqual(got, []string{"suspend 0", "start 1"}) {
			t.Errorf("knob %v, t=300: %v, want [suspend 0 start 1]", c.knob, got)
		}
		if p.Queue(0) != 1 || p.Queue(1) != 0 {
			t.Errorf("knob %v, t=300: queues %d, %d; want 1, 0", c.knob, p.Queue(0), p.Queue(1))
		}
		if got := kinds(w.round(p, 600, j2)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("knob %v, t=600: %v, want %v", c.knob, got, c.want)
		}
	}
}

// TestFIFOWithinQueue: two jobs in queue 0 that both fit keep arrival
// order; a third that does not fit waits without preempting anyone.
func TestFIFOWithinQueue(t *testing.T) {
	w := newWorld(t)
	p := New(anyFeasible{}, DefaultConfig())
	j0, j1, j2 := w.job(0), w.job(1), w.job(2)
	j0.Spec.GPUs, j1.Spec.GPUs = 2, 2
	got := w.round(p, 0, j0, j1, j2)
	want := []sim.Action{{Kind: sim.Start, Job: 0, GPUs: []int{0, 1}}, {Kind: sim.Start, Job: 1, GPUs: []int{2, 3}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("t=0:\n got %+v\nwant %+v", got, want)
	}
	if got := w.round(p, 300); len(got) != 0 {
		t.Errorf("t=300: %+v, want nothing (all in queue 0, FIFO)", got)
	}
}

// TestOrderLiveEqualsWholeSort: walking the queues in entry order gives,
// decision by decision, what sorting every live job gives (the oracle,
// sortWhole; a self-check, not an anchor). Four queues with
// low thresholds and promotion make keys change often; on the built-in
// Philly trace every JCT, queueing time and round of the two runs agree.
func TestOrderLiveEqualsWholeSort(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500)
	run := func(whole bool) *sim.Result {
		defer func(old bool) { sortWhole = old }(sortWhole)
		sortWhole = whole
		return philly.Run(t, New(philly.DB.View(estimator.ViewOptimal), Config{Thresholds: []float64{600, 3600, 36000}, PromoteKnob: 2}))
	}
	whole, merged := run(true), run(false)
	runtest.SameDecisions(t, "tiresias", whole, merged)
	if len(whole.JCTs) < 100 {
		t.Fatalf("only %d jobs finished: the test exercises too little", len(whole.JCTs))
	}
}

// TestIncrementalEqualsWhole: the incremental decision (no step per
// waiting job) decides, decision by decision, as the whole-View path does
// (a self-check, not an anchor): the built-in Philly trace tiled 3× over
// the same span (hundreds pending), default queues and four queues with
// low thresholds (demotions every round), promotion off (promotion takes
// the whole-View path). It also checks that the incremental path is the
// one taken.
func TestIncrementalEqualsWhole(t *testing.T) {
	philly := runtest.NewPhilly(t, 1500).Overloaded(t, 3)
	for _, cfg := range []Config{DefaultConfig(), {Thresholds: []float64{600, 3600, 36000}}} {
		run := func(whole bool) (*sim.Result, *Tiresias) {
			defer func(old bool) { noIncremental = old }(noIncremental)
			noIncremental = whole
			p := New(philly.DB.View(estimator.ViewOptimal), cfg)
			return philly.Run(t, p), p
		}
		want, _ := run(true)
		got, p := run(false)
		most := runtest.SameDecisions(t, "tiresias", want, got)
		if most < 100 || len(want.JCTs) < 100 {
			t.Fatalf("%v: %d pending at most, %d finished: the test exercises too little", cfg, most, len(want.JCTs))
		}
		t.Logf("%v: %d of %d decisions incremental, %d pending at most", cfg, p.fast, p.decisions, most)
		if p.fast < p.decisions*9/10 {
			t.Errorf("%v: %d of %d decisions incremental, want nearly all", cfg, p.fast, p.decisions)
		}
	}
}

// TestHiddenJob works out by hand (an anchor) a View that hides a pending
// job for one decision, as the quota wrapper does for a tenant at its
// cap; the incremental path must see that the View is not the jobs it
// follows and decide on the View. Four 1-GPU A100s, jobs of 1 GPU, one
// threshold of 600 GPU-seconds.
//
//	t=0    jobs 0–5 arrive; 0–3 start, 4 and 5 wait (queue 0).
//	t=300  jobs 0–3 have 300 GPU-s: nothing changes.
//	t=600  jobs 0–3 reach 600 → queue 1, in that order. Job 4 is hidden:
//	       the order is 5 (queue 0), 0, 1, 2, 3: job 3 is suspended and
//	       job 5 starts. (Not hidden, 4 and 5 would start and 2 and 3
//	       be suspended.)
//	t=900  job 4 is shown again (at the pending queue's end, after job
//	       3): the order is 4, 5 (queue 0), 0, 1, 2, 3: job 2 is
//	       suspended and job 4 starts.
func TestHiddenJob(t *testing.T) {
	for _, whole := range []bool{false, true} {
		func() {
			defer func(old bool) { noIncremental = old }(noIncremental)
			noIncremental = whole
			w := newWorld(t)
			p := New(anyFeasible{}, Config{Thresholds: []float64{600}})
			var jobs []*sim.Job
			for i := range 6 {
				j := w.job(i)
				j.Spec.GPUs = 1
				jobs = append(jobs, j)
			}
			steps := []struct {
				at   sim.Time
				arr  []*sim.Job
				hide map[sim.JobID]bool
				want []string
			}{
				{0, jobs, nil, []string{"start 0", "start 1", "start 2", "start 3"}},
				{300, nil, nil, nil},
				{600, nil, map[sim.JobID]bool{4: true}, []string{"suspend 3", "start 5"}},
				{900, nil, nil, []string{"suspend 2", "start 4"}},
			}
			for _, st := range steps {
				w.hide = st.hide
				if got := kinds(w.round(p, st.at, st.arr...)); !reflect.DeepEqual(got, st.want) {
					t.Errorf("whole-View only %v, t=%v: %v, want %v", whole, st.at, got, st.want)
				}
			}
			// t=0 has no last View to compare with and t=600 hides a job:
			// the other two are incremental.
			if want := int64(2); !whole && p.fast != want {
				t.Errorf("%d incremental decisions, want %d", p.fast, want)
			}
		}()
	}
}
