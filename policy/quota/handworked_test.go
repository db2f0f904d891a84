package quota_test

// Hand-worked cases for the quota wrapper (outside anchors: every expected
// instant below is worked out by hand from the rules in doc.go, not read
// from a run). The engine runs in exact timing with 300-s rounds and no
// overhead, so a job starts at the decision that starts it: decisions fall
// at 0, 300, 600, … and a job submitted at 1000 is first seen at 1200.

import (
	"context"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

var db *estimator.ProfileDB

func profile(t testing.TB) *estimator.ProfileDB {
	t.Helper()
	if db == nil {
		var err error
		if db, err = estimator.DefaultProfileDB(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func spec(id int, vc string, submit float64, iters int64, gpus int) sim.JobSpec {
	m, err := estimator.ParseModel("moe__690M")
	if err != nil {
		panic(err)
	}
	return sim.JobSpec{ID: sim.JobID(id), Name: vc + "-job", Submit: sim.Time(submit), Workload: estimator.Workload{Model: m, Batch: 256},
		Iterations: iters, GPU: "a40", GPUs: gpus, VirtualCluster: vc}
}

// event is an action the wrapper returned, with its decision's time.
type event struct {
	at   sim.Time
	kind sim.ActionKind
	job  sim.JobID
}

type recorder struct {
	sim.Policy
	log []event
}

func (r *recorder) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := r.Policy.Schedule(v)
	for _, a := range acts {
		r.log = append(r.log, event{v.Now, a.Kind, a.Job})
	}
	return acts, err
}

func (r *recorder) first(kind sim.ActionKind, job sim.JobID) sim.Time {
	for _, e := range r.log {
		if e.kind == kind && e.job == job {
			return e.at
		}
	}
	return -1
}

func run(t *testing.T, pools []sim.Pool, ten *tenants.File, cfg quota.Config, jobs []sim.JobSpec) (*recorder, *quota.Policy, *sim.Result) {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "handworked", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	est := profile(t).View(estimator.ViewOptimal)
	cfg.Tenants = ten
	q, err := quota.New(fcfs.New(est), c, est, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Policy: q}
	sc := sim.DefaultConfig(c, est)
	sc.Rounds, sc.Check = 40, true
	res, err := sim.Run(context.Background(), sc, rec, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return rec, q, res
}

func twoTenants(t *testing.T, capB int) *tenants.File {
	f, err := tenants.New("handworked", false,
		tenants.Tenant{Name: "A", Guaranteed: map[string]int{"a40": 2}},
		tenants.Tenant{Name: "B", Guaranteed: map[string]int{"a40": 2}, Cap: capB})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var twoByTwo = []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 2}}

// long and short: iteration counts far beyond and well within the
// 40-round horizon for moe__690M on 2 A40s.
const long, short = 1_000_000, 50

// B's two 2-GPU jobs arrive at 0 on 4 GPUs of which B is guaranteed 2;
// A's 2-GPU job arrives at 1000.
func borrowReclaimJobs() []sim.JobSpec {
	return []sim.JobSpec{spec(0, "B", 0, long, 2), spec(1, "B", 0, long, 2), spec(2, "A", 1000, short, 2)}
}

// Borrow: b1 starts within B's guarantee and b2 borrows A's idle 2 GPUs,
// both at 0. Reclaim: A's job is first seen at 1200; with no grace the
// most recently started borrower, b2, is suspended and A's job starts on
// its GPUs in the same decision.
func TestBorrowThenReclaim(t *testing.T) {
	rec, q, _ := run(t, twoByTwo, twoTenants(t, 0), quota.Config{Borrow: true}, borrowReclaimJobs())
	for _, c := range []struct {
		kind sim.ActionKind
		job  sim.JobID
		at   sim.Time
	}{{sim.Start, 0, 0}, {sim.Start, 1, 0}, {sim.Suspend, 1, 1200}, {sim.Start, 2, 1200}} {
		if got := rec.first(c.kind, c.job); got != c.at {
			t.Errorf("%s of job %d at %v, want %v (log %v)", c.kind, c.job, got, c.at, rec.log)
		}
	}
	if rec.first(sim.Suspend, 0) != -1 {
		t.Errorf("b1, within B's guarantee, was suspended: %v", rec.log)
	}
	if s := q.QuotaStats(); s.Reclaims != 1 || s.ReclaimedGPUs != 2 || s.OwnerStarts != 1 {
		t.Errorf("stats %+v, want 1 reclaim of 2 GPUs and 1 owner start", s)
	}
}

// Grace: with grace 600 s A's job, eligible at 1200, waits until the
// first decision at or after 1800.
func TestReclaimAfterGrace(t *testing.T) {
	rec, _, _ := run(t, twoByTwo, twoTenants(t, 0), quota.Config{Borrow: true, Grace: 600}, borrowReclaimJobs())
	if got := rec.first(sim.Suspend, 1); got != 1800 {
		t.Errorf("b2 suspended at %v, want 1800 (log %v)", got, rec.log)
	}
	if got := rec.first(sim.Start, 2); got != 1800 {
		t.Errorf("A's job started at %v, want 1800", got)
	}
}

// Guarantee without borrowing: b2 is hidden (B would exceed its
// guarantee), A's job starts on its own idle guarantee at 1200 without a
// reclaim, and b2 never runs while b1 holds B's guarantee.
func TestGuaranteeNoBorrow(t *testing.T) {
	rec, q, _ := run(t, twoByTwo, twoTenants(t, 0), quota.Config{Borrow: false}, borrowReclaimJobs())
	if got := rec.first(sim.Start, 1); got != -1 {
		t.Errorf("b2 started at %v without borrowing", got)
	}
	if got := rec.first(sim.Start, 2); got != 1200 {
		t.Errorf("A's job started at %v, want 1200", got)
	}
	if s := q.QuotaStats(); s.Reclaims != 0 {
		t.Errorf("%d reclaims without borrowing", s.Reclaims)
	}
}

// Cap: B capped at 2 GPUs borrows nothing even with borrowing on.
func TestCap(t *testing.T) {
	rec, _, _ := run(t, twoByTwo, twoTenants(t, 2), quota.Config{Borrow: true}, borrowReclaimJobs()[:2])
	if got := rec.first(sim.Start, 1); got != -1 {
		t.Errorf("b2 started at %v past B's cap of 2", got)
	}
}

// Reclaim order: on one node of 4 A40s, B (priority 0) and C (priority 1)
// are guaranteed 1 GPU each and run two 1-GPU jobs each, B's first: the
// borrowers are b2 and c2, c2 the most recent. A's 1-GPU job at 1000 takes
// b2's GPU: the lowest priority goes first, before recency.
func TestReclaimOrderPriorityFirst(t *testing.T) {
	ten, err := tenants.New("handworked", false,
		tenants.Tenant{Name: "A", Guaranteed: map[string]int{"a40": 2}},
		tenants.Tenant{Name: "B", Guaranteed: map[string]int{"a40": 1}, Priority: 0},
		tenants.Tenant{Name: "C", Guaranteed: map[string]int{"a40": 1}, Priority: 1})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []sim.JobSpec{spec(0, "B", 0, long, 1), spec(1, "B", 0, long, 1), spec(2, "C", 0, long, 1), spec(3, "C", 0, long, 1), spec(4, "A", 1000, short, 1)}
	rec, _, _ := run(t, []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 4}}, ten, quota.Config{Borrow: true}, jobs)
	if got := rec.first(sim.Suspend, 1); got != 1200 {
		t.Errorf("b2 suspended at %v, want 1200 (log %v)", got, rec.log)
	}
	if got := rec.first(sim.Suspend, 3); got != -1 {
		t.Errorf("c2 (priority 1) suspended at %v; b2 (priority 0) should go first", got)
	}
}

// mover moves every running job onto the A10 node when it is free (a
// suspend and a start of the same job in one batch, as a policy moving a
// job across GPU types does).
type mover struct{ sim.Policy }

func (m mover) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := m.Policy.Schedule(v)
	a10 := v.Cluster.Nodes[v.Cluster.NodesOfType("a10")[0]]
	for _, j := range v.Running {
		if len(j.GPUs) == 2 && v.Occupant[a10.FirstSlot] == sim.NoJob && v.Occupant[a10.FirstSlot+1] == sim.NoJob {
			acts = append(acts, sim.Action{Kind: sim.Suspend, Job: j.Spec.ID}, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: []int{a10.FirstSlot, a10.FirstSlot + 1}})
			break
		}
	}
	return acts, err
}

// A job the inner policy suspends and starts again in the same batch, on
// another GPU type, is running after it — not an owner of its requested
// type to start: the wrapper must not start it a second time (the engine
// would reject the batch). Fails before the fix: A's job, moved from its
// guaranteed A40s to the A10 node, was started again on the A40s.
func TestMoveIsNotAnOwner(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "handworked", Pools: []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 2}, {GPU: "a10", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	est := profile(t).View(estimator.ViewOptimal)
	ten, err := tenants.New("handworked", false, tenants.Tenant{Name: "A", Guaranteed: map[string]int{"a40": 2}}, tenants.Tenant{Name: "B"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := quota.New(mover{fcfs.New(est)}, c, est, quota.Config{Tenants: ten, Borrow: true})
	if err != nil {
		t.Fatal(err)
	}
	sc := sim.DefaultConfig(c, est)
	sc.Rounds, sc.Check = 10, true
	if _, err := sim.Run(context.Background(), sc, q, []sim.JobSpec{spec(0, "A", 0, long, 2)}); err != nil {
		t.Fatal(err)
	}
}

// A tenants file none of whose VCs any job has is the wrong file for the
// trace: the run is refused before it starts (sim.WorkloadChecker), not
// simulated with every job in the default tenant. A file matching some
// VCs (a sampled window) runs.
func TestWrongTenantsFileRefused(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "handworked", Pools: twoByTwo})
	if err != nil {
		t.Fatal(err)
	}
	est := profile(t).View(estimator.ViewOptimal)
	q, err := quota.New(fcfs.New(est), c, est, quota.Config{Tenants: twoTenants(t, 0)})
	if err != nil {
		t.Fatal(err)
	}
	sc := sim.DefaultConfig(c, est)
	sc.Rounds = 5
	_, err = sim.Run(context.Background(), sc, q, []sim.JobSpec{spec(0, "X", 0, short, 2), spec(1, "", 0, short, 2)})
	if err == nil || !strings.Contains(err.Error(), "none of its 2 tenants is the VC of any job of the trace (the trace's VCs: X)") {
		t.Errorf("wrong file: %v", err)
	}
	if err := q.CheckWorkload([]sim.JobSpec{spec(0, "X", 0, short, 2), spec(1, "B", 0, short, 2)}); err != nil {
		t.Errorf("a file matching one VC of the trace: %v", err)
	}
}
