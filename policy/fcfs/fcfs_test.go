package fcfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/data/reference"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/resultsdir"
	"github.com/arena-sim/arena/traces"
)

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestPhillyArtifactParity is the foundation's proof: FCFS on Philly in
// artifact timing reproduces the authors' stored run.
func TestPhillyArtifactParity(t *testing.T) {
	o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Artifact, Rounds: 2000, Check: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := o.Summary
	if s.Finished != 590 {
		t.Errorf("jobs finished %d, want 590", s.Finished)
	}
	if !within(s.MeanJCT, 83192, 0.01) || !within(s.MeanThroughput, 4367.5, 0.01) || !within(s.PeakThroughput, 6952.5, 0.01) {
		t.Errorf("mean JCT %.1f, throughput %.1f / %.1f; want 83,192 and 4,367.5 / 6,952.5 within 1%%", s.MeanJCT, s.MeanThroughput, s.PeakThroughput)
	}
	ref, ok := reference.Philly("fcfs")
	if !ok {
		t.Fatal("no stored fcfs reference")
	}
	same := 0
	for i := range min(len(ref.JCT), len(o.Result.JCTs)) {
		if ref.JCT[i] == o.Result.JCTs[i] {
			same++
		}
	}
	t.Logf("per-job JCTs equal to the stored ones, in finish order: %d of %d", same, len(ref.JCT))
	if same != len(ref.JCT) {
		t.Errorf("%d of %d per-job JCTs equal the stored ones", same, len(ref.JCT))
	}
	thrSame := 0
	for i, v := range ref.Thr {
		if o.Result.Timeline[i].Throughput == v {
			thrSame++
		}
	}
	if thrSame != len(ref.Thr) {
		t.Errorf("%d of %d per-round throughputs equal the stored ones", thrSame, len(ref.Thr))
	}
	digest, err := reference.Digest("philly", "fcfs")
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.CompareDigests(digest, o.Result.DigestCSV())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Identical {
		t.Errorf("per-round digest: %s", d)
	}
}

// TestDeterministic runs the same simulation twice in each timing mode and
// requires byte-identical results (wall-clock measurements aside).
func TestDeterministic(t *testing.T) {
	for _, timing := range []sim.Timing{sim.Artifact, sim.Exact} {
		var files [2][3][]byte
		for i := range 2 {
			o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
				Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: timing, Rounds: 600,
			})
			if err != nil {
				t.Fatal(err)
			}
			jobs, err := resultsdir.JobsParquet(o.Result, o.Summary.Identity())
			if err != nil {
				t.Fatal(err)
			}
			timeline, err := resultsdir.TimelineParquet(o.Result, o.Summary.Identity())
			if err != nil {
				t.Fatal(err)
			}
			o.Summary.Wallclock = sim.Wallclock{}
			sum, _ := json.Marshal(o.Summary)
			files[i] = [3][]byte{jobs, timeline, sum}
		}
		for k, name := range []string{"jobs.parquet", "timeline.parquet", "summary.json"} {
			if !bytes.Equal(files[0][k], files[1][k]) {
				t.Errorf("%s timing: %s differs between two identical runs", timing, name)
			}
		}
	}
}

// cluster: 1 A100 node × 4 (slots 0–3), 2 A40 nodes × 2 (slots 4–7).
func smallCluster(t *testing.T) *sim.Cluster {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "small", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, {GPU: "a40", Nodes: 2, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func job(t *testing.T, id int, submit sim.Time, model string, batch int, iters int64, gpu string, n int) sim.JobSpec {
	m, err := estimator.ParseModel(model)
	if err != nil {
		t.Fatal(err)
	}
	return sim.JobSpec{ID: sim.JobID(id), Name: model, Submit: submit, Workload: estimator.Workload{Model: m, Batch: batch}, Iterations: iters, GPU: gpu, GPUs: n}
}

// TestHeadOfLineBlockingPerType: job 0 takes 2 of the 4 A100s; job 1 wants
// all 4 and waits; job 2 (2 A100s) would fit but must wait behind job 1;
// job 3 on A40 is not blocked; job 4 (gpt-39b, never profiled) is dropped.
func TestHeadOfLineBlockingPerType(t *testing.T) {
	db, _ := estimator.DefaultProfileDB()
	specs := []sim.JobSpec{
		job(t, 0, 0, "gpt-1.3b", 128, 2000, "a100", 2), // 400 iterations × 5.526 s
		job(t, 1, 0, "gpt-1.3b", 128, 2000, "a100", 4), // waits for job 0
		job(t, 2, 0, "gpt-1.3b", 128, 500, "a100", 2),  // blocked behind job 1
		job(t, 3, 0, "gpt-1.3b", 128, 500, "a40", 2),   // other type: runs now
		job(t, 4, 0, "gpt-39b", 128, 500, "a100", 4),   // infeasible: dropped
	}
	cfg := sim.DefaultConfig(smallCluster(t), db.View(estimator.ViewOptimal))
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Check, cfg.Overhead = sim.Artifact, 40, true, sim.Overhead{PerGPU: 150, Cap: 600}
	res, err := sim.Run(context.Background(), cfg, fcfs.New(db.View(estimator.ViewOptimal)), specs)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int32]sim.JobRecord{}
	for _, r := range res.Jobs {
		byID[r.ID] = r
	}
	if byID[4].State != "dropped" {
		t.Errorf("job 4 state %s, want dropped", byID[4].State)
	}
	if byID[0].FirstStart != 0 || byID[3].FirstStart != 0 {
		t.Errorf("jobs 0 and 3 start at %v and %v, want 0", byID[0].FirstStart, byID[3].FirstStart)
	}
	// Job 0: 400 iterations at 5.526 s = 2210.4 s → ⌊exec/5.526⌋ ≥ 400 first
	// at exec = 2400 (round 8). Job 1 starts in that round and holds all
	// four A100s, so job 2 can only start after job 1.
	if byID[0].Finish != 2400 {
		t.Errorf("job 0 finishes at %v, want 2400", byID[0].Finish)
	}
	if byID[1].FirstStart != 2400 {
		t.Errorf("job 1 starts at %v, want 2400 (when job 0 ends)", byID[1].FirstStart)
	}
	if byID[2].FirstStart <= byID[1].FirstStart {
		t.Errorf("job 2 started at %v, before or with job 1 (%v): head-of-line blocking violated", byID[2].FirstStart, byID[1].FirstStart)
	}
}

// oracle runs FCFS as the policy and, at every decision, a fresh FCFS
// instance on the same View: the fresh one recounts the pending queue from
// scratch (the code before the carried counts), so any divergence of the
// carried per-type counts shows as different actions.
type oracle struct {
	t    *testing.T
	est  estimator.Estimator
	live *fcfs.FCFS
	n    int
}

func (o *oracle) Name() string { return "fcfs" }
func (o *oracle) Schedule(v *sim.View) ([]sim.Action, error) {
	got, err := o.live.Schedule(v)
	if err != nil {
		return nil, err
	}
	want, _ := fcfs.New(o.est).Schedule(v)
	if !reflect.DeepEqual(got, want) {
		o.t.Fatalf("round %d: carried mirror gives %v, a fresh FCFS %v", v.Round, got, want)
	}
	o.n++
	return got, nil
}

// TestCarriedQueueMatchesFreshInstance: on a tiled Philly trace that keeps a
// long pending queue on a quarter of the paper cluster, in both timing modes
// and with event-driven decisions, FCFS with its carried queue mirror
// decides exactly as a fresh instance that counts the queue at each call.
func TestCarriedQueueMatchesFreshInstance(t *testing.T) {
	est, big, c := tiledPhillyOnQuarter(t)
	for _, mode := range []struct {
		timing   sim.Timing
		onEvents bool
	}{{sim.Artifact, false}, {sim.Exact, false}, {sim.Exact, true}} {
		cfg := sim.DefaultConfig(c, est)
		cfg.IterationScale = big.IterationScale
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.ScheduleOnEvents = mode.timing, 1500, sim.Overhead{PerGPU: 150, Cap: 600}, mode.onEvents
		o := &oracle{t: t, est: est, live: fcfs.New(est)}
		res, err := sim.Run(context.Background(), cfg, o, big.Jobs)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summarize("x2", len(big.Jobs), "profiledb")
		if s.Pending < 100 {
			t.Errorf("%s: only %d jobs pending at the end; the test wants a long queue", mode.timing, s.Pending)
		}
		t.Logf("%s on-events=%v: %d decisions compared, %d pending at the end", mode.timing, mode.onEvents, o.n, s.Pending)
	}
}

// TestDPMemoryAdmission: with admission=dp-memory FCFS drops exactly the
// arrivals whose pure data-parallel replica does not fit at best locality
// on their requested type — counted here straight from the estimator's
// data-parallel view (the dp_mem.json rule), independently of the policy —
// and the simulator's default drops none of the testbed trace.
func TestDPMemoryAdmission(t *testing.T) {
	tr, err := traces.Load("testbed")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := clusterspec.Load("testbed-64")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	dp := db.View(estimator.ViewDataParallel)
	want := 0
	for _, j := range tr.Jobs {
		cfg := estimator.BestLocality(j.GPU, j.GPUs, c.NodeCapacity(j.GPU))
		if dp.Estimate(j.Workload, cfg).Reason == estimator.OutOfMemory {
			want++
		}
	}
	if want == 0 {
		t.Fatal("no testbed job fails the DP memory rule: the test would prove nothing")
	}
	for policyStr, wantDropped := range map[string]int{"fcfs": 0, "fcfs(admission=simulator)": 0, "fcfs(admission=dp-memory)": want} {
		o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
			Trace: "testbed", Cluster: "testbed-64", Policy: policyStr, Timing: sim.Exact, Check: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if o.Summary.Dropped != wantDropped {
			t.Errorf("%s: %d dropped, want %d", policyStr, o.Summary.Dropped, wantDropped)
		}
	}
}

// tiledPhillyOnQuarter is the setting of the tests that follow FCFS decision
// by decision: two overlapping copies of the Philly trace (seed 1) on a
// quarter-size mixed cluster, priced by the profile database's optimal view.
func tiledPhillyOnQuarter(t *testing.T) (estimator.Estimator, *traces.Trace, *sim.Cluster) {
	t.Helper()
	db, _ := estimator.DefaultProfileDB()
	est := db.View(estimator.ViewOptimal)
	tr, err := traces.Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	big, err := traces.Tile(tr, traces.TileOptions{Copies: 2, Overlap: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "quarter", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 20, GPUsPerNode: 4}, {GPU: "v100", Nodes: 5, GPUsPerNode: 16},
		{GPU: "a40", Nodes: 40, GPUsPerNode: 2}, {GPU: "a10", Nodes: 40, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	return est, big, c
}
