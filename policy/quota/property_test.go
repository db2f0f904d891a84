package quota_test

// Property test (an outside anchor: the guarantee the package documents,
// checked by an observer that recomputes usage and eligibility from each
// View and the batch it gets back, not from the wrapper's own state).
//
// Property: a job within its tenant's guarantee — pending after the
// decision, and its tenant's GPUs of the requested type plus the
// guaranteed requests queued before it plus its own stay within the
// guarantee — is never left pending at a decision made grace or more
// after the first decision at which it was so. Jobs take one GPU, so
// placement cannot be what blocks an owner (with guarantees no larger than
// the cluster, free plus borrowed GPUs always cover an owner's request).

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/srtf"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

type observer struct {
	sim.Policy
	ten   *tenants.File
	grace sim.Time
	since map[sim.JobID]sim.Time
	errs  []string
}

func (o *observer) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := o.Policy.Schedule(v)
	if err != nil {
		return acts, err
	}
	gpusOf := map[sim.JobID][]int{}
	for _, j := range v.Running {
		gpusOf[j.Spec.ID] = j.GPUs
	}
	pending := map[sim.JobID]bool{}
	var queue []*sim.Job
	for _, q := range [][]*sim.Job{v.Pending, v.Arrivals} {
		for _, j := range q {
			pending[j.Spec.ID] = true
			queue = append(queue, j)
		}
	}
	for _, a := range acts {
		switch a.Kind {
		case sim.Start, sim.Reallocate:
			gpusOf[a.Job] = a.GPUs
			delete(pending, a.Job)
		case sim.Suspend:
			delete(gpusOf, a.Job)
			pending[a.Job] = true
			queue = append(queue, v.Job(a.Job))
		case sim.Drop:
			delete(pending, a.Job)
		}
	}
	type key struct {
		t   int
		gpu string
	}
	usage := map[key]int{}
	for id, g := range gpusOf {
		usage[key{o.ten.Index(v.Job(id).Spec.VirtualCluster), v.Cluster.Nodes[v.Cluster.NodeOf(g[0])].GPU}] += len(g)
	}
	claimed := map[key]int{}
	next := map[sim.JobID]sim.Time{}
	for _, j := range queue {
		if !pending[j.Spec.ID] {
			continue
		}
		k := key{o.ten.Index(j.Spec.VirtualCluster), j.Spec.GPU}
		g := o.ten.Tenant(k.t).Guaranteed[j.Spec.GPU]
		if g == 0 || usage[k]+claimed[k]+j.Spec.GPUs > g {
			continue
		}
		claimed[k] += j.Spec.GPUs
		s, ok := o.since[j.Spec.ID]
		if !ok {
			s = v.Now
		}
		next[j.Spec.ID] = s
		if v.Now-s >= o.grace {
			o.errs = append(o.errs, fmt.Sprintf("t=%v: job %d of %s within its guarantee (%d of %d %s used) since t=%v, still pending", v.Now, j.Spec.ID, j.Spec.VirtualCluster, usage[k], g, j.Spec.GPU, s))
		}
	}
	o.since = next
	return acts, nil
}

func TestOwnerWaitsAtMostGrace(t *testing.T) {
	est := profile(t).View(estimator.ViewOptimal)
	cs := sim.ClusterSpec{Name: "prop", Pools: []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 2}, {GPU: "a10", Nodes: 2, GPUsPerNode: 2}}}
	c, err := sim.NewCluster(cs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimator.ParseModel("moe__690M")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(2, 3).Draw(rt, "tenants")
		var ts []tenants.Tenant
		left := map[string]int{"a40": 4, "a10": 4}
		for i := range nt {
			g := map[string]int{}
			for _, gpu := range []string{"a40", "a10"} {
				n := rapid.IntRange(0, left[gpu]).Draw(rt, fmt.Sprintf("g%d%s", i, gpu))
				g[gpu], left[gpu] = n, left[gpu]-n
			}
			ts = append(ts, tenants.Tenant{Name: fmt.Sprintf("vc%d", i), Guaranteed: g, Priority: rapid.IntRange(0, 1).Draw(rt, fmt.Sprintf("prio%d", i))})
		}
		ten, err := tenants.New("prop", false, ts...)
		if err != nil {
			rt.Fatal(err)
		}
		nj := rapid.IntRange(1, 16).Draw(rt, "jobs")
		var jobs []sim.JobSpec
		for i := range nj {
			jobs = append(jobs, sim.JobSpec{ID: sim.JobID(i), Name: fmt.Sprint("j", i),
				Submit:     sim.Time(rapid.IntRange(0, 3000).Draw(rt, "submit")),
				Workload:   estimator.Workload{Model: m, Batch: 256},
				Iterations: int64(rapid.IntRange(10, 3000).Draw(rt, "iters")),
				GPU:        rapid.SampledFrom([]string{"a40", "a10"}).Draw(rt, "gpu"), GPUs: 1,
				VirtualCluster: fmt.Sprintf("vc%d", rapid.IntRange(0, nt).Draw(rt, "vc")), // vc<nt> is unlisted: Default
			})
		}
		// the engine runs jobs in submission order of the trace
		sortBySubmit(jobs)
		grace := sim.Duration(rapid.SampledFrom([]int{0, 300, 450, 900}).Draw(rt, "grace"))
		var inner sim.Policy = fcfs.New(est)
		if rapid.Bool().Draw(rt, "srtf") {
			inner = srtf.New(est)
		}
		q, err := quota.New(inner, c, est, quota.Config{Tenants: ten, Borrow: true, Grace: grace})
		if err != nil {
			rt.Fatal(err)
		}
		obs := &observer{Policy: q, ten: ten, grace: sim.Time(grace), since: map[sim.JobID]sim.Time{}}
		cfg := sim.DefaultConfig(c, est)
		cfg.Rounds, cfg.Check = 30, true
		if _, err := sim.Run(context.Background(), cfg, obs, jobs); err != nil {
			rt.Fatal(err)
		}
		for _, e := range obs.errs {
			rt.Error(e)
		}
	})
}

func sortBySubmit(jobs []sim.JobSpec) {
	for i := 1; i < len(jobs); i++ {
		for k := i; k > 0 && jobs[k].Submit < jobs[k-1].Submit; k-- {
			jobs[k], jobs[k-1] = jobs[k-1], jobs[k]
		}
	}
	for i := range jobs {
		jobs[i].ID = sim.JobID(i)
	}
}

// The observer can fail: around plain FCFS (no wrapper), A's job in
// borrowReclaimJobs waits behind B's borrower and the observer says so.
func TestObserverCatchesNoQuota(t *testing.T) {
	est := profile(t).View(estimator.ViewOptimal)
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "handworked", Pools: twoByTwo})
	if err != nil {
		t.Fatal(err)
	}
	obs := &observer{Policy: fcfs.New(est), ten: twoTenants(t, 0), since: map[sim.JobID]sim.Time{}}
	cfg := sim.DefaultConfig(c, est)
	cfg.Rounds = 10
	if _, err := sim.Run(context.Background(), cfg, obs, borrowReclaimJobs()); err != nil {
		t.Fatal(err)
	}
	if len(obs.errs) == 0 {
		t.Fatal("plain fcfs kept A's job waiting behind a borrower, but the observer saw nothing")
	}
}
