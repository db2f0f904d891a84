package elasticflow

import (
	"context"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// table is a hand-written estimator: throughput by model name and GPU
// count (any locality); a missing entry or a non-positive value is
// infeasible. The same numbers serve every view, so the hand calculation
// does not depend on the profile database.
type table map[string]map[int]float64

func (t table) Name() string                            { return "table" }
func (t table) View(estimator.View) estimator.Estimator { return t }
func (t table) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	thr := t[w.Model.Name()][c.GPUs()]
	if thr <= 0 {
		return estimator.Estimate{Throughput: estimator.InfeasibleThroughput, IterTime: estimator.InfeasibleIterTime, Reason: estimator.OutOfMemory}
	}
	return estimator.Estimate{Throughput: thr, IterTime: estimator.PyRound(float64(w.Batch)/thr, 3)}
}

func workload(t *testing.T, model string) estimator.Workload {
	t.Helper()
	m, err := estimator.ParseModel(model)
	if err != nil {
		t.Fatal(err)
	}
	return estimator.Workload{Model: m, Batch: 128}
}

func a100Cluster(t *testing.T, nodes int) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{{GPU: "a100", Nodes: nodes, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func freeSlots(c *sim.Cluster) []sim.JobID {
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	return occ
}

func arrival(t *testing.T, id int, model string, gpus int) *sim.Job {
	spec := &sim.JobSpec{ID: sim.JobID(id), Name: model, Workload: workload(t, model), Iterations: 1000, GPU: "a100", GPUs: gpus}
	return &sim.Job{Spec: spec, Status: sim.Pending, IterNum: 1000, Remaining: 1000, SubmitTime: 0, Deadline: 1e12}
}

// TestNewJobsDoublingAndReplacement works one round out by hand on two
// A100 nodes × 4 GPUs (8 GPUs; slots 0–3 on node 0, 4–7 on node 1):
//
//	job 0 (gpt-1.3b, asks 1): thr 1→10, 2→18, 4→30, 8→40
//	job 1 (gpt-2.6b, asks 4): 1 GPU DP-infeasible, 2→20, 4→36, 8→50
//
// Job 0 alone: share 1, free 7; doublings gain 8, 12, 10 → 8 GPUs.
// Job 1: admission by deadline (equal, stable: job 0 then job 1) needs
// 1 + 2 ≤ 8. Allocation over [job 1, job 0] from shares 2 and 1 (free 5):
// job 1 gains 16 > 8 → 4 (free 3); job 1 cannot double (4 > 3), job 0
// gains 8 → 2 (free 2), then 12 → 4 (free 0). Sorted by share (stable):
// job 1, job 0, both ≤ a node: node 0 takes job 1 (slots 0–3), node 1
// job 0 (slots 4–7).
func TestNewJobsDoublingAndReplacement(t *testing.T) {
	c := a100Cluster(t, 2)
	est := table{
		"gpt-1.3b": {1: 10, 2: 18, 4: 30, 8: 40},
		"gpt-2.6b": {2: 20, 4: 36, 8: 50},
	}
	ef := New(c, est, LongSlack, sim.Overhead{PerGPU: 150, Cap: 600}, prunedCheck)
	j0, j1 := arrival(t, 0, "gpt-1.3b", 1), arrival(t, 1, "gpt-2.6b", 4)
	v := &sim.View{Now: 0, RoundLength: 300, Cluster: c, Occupant: freeSlots(c), Arrivals: []*sim.Job{j0, j1}, Timing: sim.Artifact}
	got, err := ef.Schedule(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Action{
		{Kind: sim.Start, Job: 0, GPUs: []int{4, 5, 6, 7}},
		{Kind: sim.Start, Job: 1, GPUs: []int{0, 1, 2, 3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actions:\n got %+v\nwant %+v", got, want)
	}
}

// TestNegativeGainIsApplied: a lone job whose throughput falls with more
// GPUs (1→10, 2→8, 4→9, 8→7) is still doubled to all 8 GPUs, because the
// only candidate's gain (−2, +1, −2) beats the initial −1e9.
func TestNegativeGainIsApplied(t *testing.T) {
	c := a100Cluster(t, 2)
	est := table{"moe-1.3b": {1: 10, 2: 8, 4: 9, 8: 7}}
	ef := New(c, est, LongSlack, sim.Overhead{PerGPU: 150, Cap: 600}, prunedCheck)
	v := &sim.View{RoundLength: 300, Cluster: c, Occupant: freeSlots(c), Arrivals: []*sim.Job{arrival(t, 0, "moe-1.3b", 2)}, Timing: sim.Artifact}
	got, err := ef.Schedule(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Action{{Kind: sim.Start, Job: 0, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actions:\n got %+v\nwant %+v", got, want)
	}
}

// TestRunningJobsAreReshuffled: job 5 runs alone on node 1 (slots 4–7)
// with 4 GPUs and cannot grow (8 GPUs infeasible); job 6 arrives asking
// for 2 (thr 2→5, 4→12). Allocation over [job 6, job 5] from shares 2 and
// 4 (free 2): job 6 gains 7 → 4. Sorted by share: job 6 (list first),
// job 5; node 0 takes job 6, node 1 job 5 — job 5 keeps its slots and gets
// no action, job 6 starts on slots 0–3.
// Then job 7 (needs 4, thr 4→1) arrives in the next round: admission
// 4 + 4 + 4 > 8 fails for every order, so it pends and nothing moves.
func TestRunningJobsAreReshuffled(t *testing.T) {
	c := a100Cluster(t, 2)
	est := table{"gpt-1.3b": {4: 30}, "gpt-2.6b": {2: 5, 4: 12}, "moe-2.4b": {4: 1}}
	ef := New(c, est, LongSlack, sim.Overhead{PerGPU: 150, Cap: 600}, prunedCheck)
	j5 := arrival(t, 5, "gpt-1.3b", 4)
	j5.Status, j5.GPUs = sim.Running, []int{4, 5, 6, 7}
	occ := freeSlots(c)
	for _, s := range j5.GPUs {
		occ[s] = 5
	}
	j6 := arrival(t, 6, "gpt-2.6b", 2)
	v := &sim.View{RoundLength: 300, Cluster: c, Occupant: occ, Running: []*sim.Job{j5}, Arrivals: []*sim.Job{j6}, Timing: sim.Artifact}
	got, err := ef.Schedule(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Action{{Kind: sim.Start, Job: 6, GPUs: []int{0, 1, 2, 3}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round 0 actions:\n got %+v\nwant %+v", got, want)
	}

	j6.Status, j6.GPUs = sim.Running, []int{0, 1, 2, 3}
	for _, s := range j6.GPUs {
		occ[s] = 6
	}
	v = &sim.View{Now: 300, Round: 1, RoundLength: 300, Cluster: c, Occupant: occ, Running: []*sim.Job{j5, j6},
		Arrivals: []*sim.Job{arrival(t, 7, "moe-2.4b", 4)}, Timing: sim.Artifact}
	if got, err := ef.Schedule(v); err != nil || len(got) != 0 {
		t.Errorf("round 1: got %+v, %v; want no action", got, err)
	}
}

// TestRestartPassBlocksType runs the engine in artifact timing on one
// A100 node (4 GPUs). Round 0: job 0 (4 GPUs minimum, 1000 iterations at
// thr 128 → 1 s each) takes the node; job 1 (fits 4 GPUs only) and job 2
// (1 GPU) do not pass admission and pend in that order. Job 0 finishes
// when its progress reaches 1000 iterations: exec time 1200 s in round 4.
// The restart pass of round 4 starts job 1 (first in the pending queue);
// job 2 is then refused (4 + 1 > 4) and its type is blocked.
func TestRestartPassBlocksType(t *testing.T) {
	c := a100Cluster(t, 1)
	est := table{"gpt-1.3b": {4: 128}, "gpt-2.6b": {4: 128}, "moe-1.3b": {1: 128, 2: 128, 4: 128}}
	specs := []sim.JobSpec{
		{ID: 0, Name: "a", Submit: 100, Workload: workload(t, "gpt-1.3b"), Iterations: 5000, GPU: "a100", GPUs: 4},
		{ID: 1, Name: "b", Submit: 100, Workload: workload(t, "gpt-2.6b"), Iterations: 5000, GPU: "a100", GPUs: 4},
		{ID: 2, Name: "c", Submit: 100, Workload: workload(t, "moe-1.3b"), Iterations: 5000, GPU: "a100", GPUs: 1},
	}
	cfg := sim.DefaultConfig(c, est)
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 8, sim.Overhead{PerGPU: 10, Cap: 40}, true
	res, err := sim.Run(context.Background(), cfg, New(c, est, LongSlack, cfg.Overhead, prunedCheck), specs)
	if err != nil {
		t.Fatal(err)
	}
	// Digest rows give (running, pending) at the start of each round.
	wantRunning := []int{0, 1, 1, 1, 1, 1, 1, 1}
	wantPending := []int{0, 2, 2, 2, 2, 1, 1, 1}
	for r, row := range res.Digest {
		if row.Running != wantRunning[r] || row.Pending != wantPending[r] {
			t.Errorf("round %d: running %d pending %d, want %d and %d", r, row.Running, row.Pending, wantRunning[r], wantPending[r])
		}
	}
	if got := res.Digest[4].Ended; !reflect.DeepEqual(got, []string{"job_0001"}) {
		t.Errorf("round 4 ended %v, want job_0001", got)
	}
	if res.Jobs[1].FirstStart != res.Jobs[0].Finish || res.Jobs[2].FirstStart >= 0 {
		t.Errorf("job 1 starts at %v (job 0 ends at %v), job 2 at %v; want job 1 at job 0's end and job 2 never",
			res.Jobs[1].FirstStart, res.Jobs[0].Finish, res.Jobs[2].FirstStart)
	}
}

// TestTimedOutJobsStayPending: the plain variant on one A100 node. Job 0
// takes the node; job 1's deadline (submit 100 + 5·60 = 400) cannot be met
// (100 + 600 + 300 + 1000 s > 400), so it pends, and from round 2 (t = 700
// > 400) it is marked timed out. When job 0 ends (round 4), the restart
// pass skips job 1 — it neither starts nor blocks the type — and starts
// job 2 (no deadline). Job 1 stays in the pending queue to the end.
func TestTimedOutJobsStayPending(t *testing.T) {
	c := a100Cluster(t, 1)
	est := table{"gpt-1.3b": {4: 128}, "gpt-2.6b": {1: 128, 2: 128, 4: 128}, "moe-1.3b": {1: 128, 2: 128, 4: 128}}
	specs := []sim.JobSpec{
		{ID: 0, Name: "a", Submit: 100, Workload: workload(t, "gpt-1.3b"), Iterations: 5000, GPU: "a100", GPUs: 4},
		{ID: 1, Name: "b", Submit: 100, Workload: workload(t, "gpt-2.6b"), Iterations: 5000, GPU: "a100", GPUs: 4, Deadline: 160},
		{ID: 2, Name: "c", Submit: 100, Workload: workload(t, "moe-1.3b"), Iterations: 5000, GPU: "a100", GPUs: 1},
	}
	cfg := sim.DefaultConfig(c, est)
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check = sim.Artifact, 8, sim.Overhead{PerGPU: 150, Cap: 600}, true
	res, err := sim.Run(context.Background(), cfg, New(c, est, Deadlines, cfg.Overhead, prunedCheck), specs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs[2].FirstStart != res.Jobs[0].Finish || res.Jobs[1].FirstStart >= 0 {
		t.Errorf("job 2 starts at %v (job 0 ends at %v), job 1 at %v; want job 2 at job 0's end and job 1 never",
			res.Jobs[2].FirstStart, res.Jobs[0].Finish, res.Jobs[1].FirstStart)
	}
	if last := res.Digest[len(res.Digest)-1]; last.Pending != 1 {
		t.Errorf("pending at the last round = %d, want 1 (the timed-out job)", last.Pending)
	}
}

// TestMixedNodeSizesPend: on a type mixing node sizes (one 4-GPU node,
// two 2-GPU nodes) a lone job is doubled to 8 GPUs, which the artifact's
// re-placement would put on the first two nodes as 2 × 4 — impossible
// here, so the job pends instead of failing the run.
func TestMixedNodeSizesPend(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "mixed", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, {GPU: "a100", Nodes: 2, GPUsPerNode: 2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	est := table{"gpt-1.3b": {1: 10, 2: 20, 4: 30, 8: 40}}
	ef := New(c, est, LongSlack, sim.Overhead{PerGPU: 150, Cap: 600}, prunedCheck)
	v := &sim.View{RoundLength: 300, Cluster: c, Occupant: freeSlots(c), Arrivals: []*sim.Job{arrival(t, 0, "gpt-1.3b", 1)}, Timing: sim.Artifact}
	if got, err := ef.Schedule(v); err != nil || len(got) != 0 {
		t.Errorf("got %+v, %v; want no action (the job pends)", got, err)
	}
}

// prunedCheck is the artifact's cost of the doubling's deadline test
// (Arena's pruned search; ARENA.md §7).
var prunedCheck = sim.Overhead{PerGPU: 10, Cap: 40}
