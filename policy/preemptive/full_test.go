package preemptive_test

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/preemptive"
	"github.com/arena-sim/arena/sim"
)

type anyFeasible struct{}

func (anyFeasible) Name() string { return "any" }
func (anyFeasible) Estimate(estimator.Workload, estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: 128, IterTime: 1}
}

// TestFullTypeStopsAdmission is a hand-worked case (an anchor, not a
// golden): one node of 4 A100s and one of one A10. Order: pending P (4
// A100s), running R (2 A100s on slots 0–1), pending Q (1 A100), pending S
// and U (1 A10 each). P takes all four A100s, so R and Q are not admitted:
// R is suspended and P placed on the freed node; S takes the A10. The walk
// stops only once both types are full: S (after the A100s are full) is
// still admitted, and U, after the stop, waits.
func TestFullTypeStopsAdmission(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "hand", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, {GPU: "a10", Nodes: 1, GPUsPerNode: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := estimator.ParseModel("gpt-1.3b")
	job := func(id int, gpu string, n int, st sim.Status, slots ...int) *sim.Job {
		spec := &sim.JobSpec{ID: sim.JobID(id), Workload: estimator.Workload{Model: m, Batch: 128}, GPU: gpu, GPUs: n}
		return &sim.Job{Spec: spec, Status: st, GPUs: slots, IterNum: 1000, Remaining: 1000}
	}
	p := job(0, "a100", 4, sim.Pending)
	r := job(1, "a100", 2, sim.Running, 0, 1)
	q := job(2, "a100", 1, sim.Pending)
	s := job(3, "a10", 1, sim.Pending)
	u := job(4, "a10", 1, sim.Pending)
	occ := []sim.JobID{1, 1, sim.NoJob, sim.NoJob, sim.NoJob}
	v := &sim.View{Now: 0, RoundLength: 300, Cluster: c, Occupant: occ, Timing: sim.Exact,
		Running: []*sim.Job{r}, Pending: []*sim.Job{p, q, s, u}}
	got := preemptive.Schedule(v, anyFeasible{}, []*sim.Job{p, r, q, s, u})
	kinds := map[sim.JobID]sim.ActionKind{}
	for _, a := range got {
		kinds[a.Job] = a.Kind
	}
	want := map[sim.JobID]sim.ActionKind{0: sim.Start, 1: sim.Suspend, 3: sim.Start}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("actions %+v, want kinds %v", got, want)
	}
}
