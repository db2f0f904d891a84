package quota

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// Config is the wrapper's setting.
type Config struct {
	// Tenants is the tenants file; nil puts every job in tenants.Default
	// (no guarantee, no cap: the wrapper then only passes decisions on).
	Tenants *tenants.File
	// Borrow lets a tenant run beyond its guarantee on idle GPUs.
	Borrow bool
	// Grace is how long an owner waits, from the first decision at which
	// it is eligible, before borrowed GPUs are reclaimed for it.
	Grace sim.Duration
}

// Stats counts what the wrapper did in a run.
type Stats struct {
	// Reclaims is the number of borrowing jobs suspended to give GPUs back
	// to their owner; ReclaimedGPUs the GPUs they held.
	Reclaims      int `json:"reclaims"`
	ReclaimedGPUs int `json:"reclaimed_gpus"`
	// OwnerStarts is the number of owners the wrapper started itself on
	// reclaimed GPUs.
	OwnerStarts int `json:"owner_starts"`
	// Vetoed counts the inner policy's actions the wrapper refused (over a
	// cap, borrowing when it is not allowed or while an owner waits).
	Vetoed int `json:"vetoed"`
	// Violations counts actions over a cap or a guarantee the wrapper had to
	// let through: a reallocation whose old GPUs another action of the
	// same batch reuses cannot be refused without breaking the batch.
	Violations int `json:"violations"`
	// Hidden counts job-decisions in which a pending job was kept from the
	// inner policy because its tenant was at its cap.
	Hidden int `json:"hidden"`
	// Stale counts the inner policy's actions dropped because they no
	// longer fit the cluster after the wrapper's own changes (a start of a
	// job the wrapper started, GPUs it gave an owner).
	Stale int `json:"stale"`
}

// StatsReporter is implemented by the wrapper: what it did in the run.
type StatsReporter interface {
	QuotaStats() Stats
}

// CheckWorkload implements sim.WorkloadChecker: a tenants file that lists
// tenants none of whose VCs any job of the trace has is the wrong file for
// the trace (every job would fall to the default tenant, the guarantees
// honouring nobody). A file matching only some VCs is fine: a sampled
// window of a trace need not hold every VC.
func (q *Policy) CheckWorkload(jobs []sim.JobSpec) error {
	named := 0
	for _, t := range q.ten.Tenants {
		if t.Name != tenants.Default {
			named++
		}
	}
	if named == 0 {
		return nil
	}
	for i := range jobs {
		if q.ten.Names(jobs[i].VirtualCluster) {
			return nil
		}
	}
	return fmt.Errorf("tenants %s: none of its %d tenants is the VC of any job of the trace (the trace's VCs: %s); every job would be the default tenant's", q.ten.Path, named, tenants.TraceVCs(jobs))
}

// Policy is the quota wrapper. Create it with New.
type Policy struct {
	inner sim.Policy
	cfg   Config
	ten   *tenants.File
	est   estimator.Estimator
	c     *sim.Cluster

	T, K  int   // tenants (Default included), GPU types
	guar  []int // guar[t*K+k]: tenant t's guarantee of type k
	caps  []int // caps[t]: 0 = none
	prio  []int
	tenOf []int32 // tenant of a job, by ID; −1 not yet looked up

	since map[sim.JobID]sim.Time // eligible owners: first decision seen eligible
	stats Stats

	// back[id]: a job the wrapper suspended or refused to start, pending,
	// to be handed to the inner policy as an arrival at the next decision
	// (a policy that keeps its own queue learns of it that way); nBack
	// counts them. intervened: the wrapper has changed a batch or the
	// inner policy's queue at least once, so the inner policy's batches
	// are sanitised from then on (doc.go).
	back       []bool
	nBack      int
	intervened bool

	// per-decision scratch
	usage, total []int
	iv           sim.View
}

var (
	_ sim.Policy        = (*Policy)(nil)
	_ StatsReporter     = (*Policy)(nil)
	_ sim.QuotaReporter = (*Policy)(nil)
)

// New wraps inner for a run on cluster c; est is the view a wrapper-made
// start is checked with (the engine's own, estimator.ViewOptimal).
func New(inner sim.Policy, c *sim.Cluster, est estimator.Estimator, cfg Config) (*Policy, error) {
	ten := cfg.Tenants
	if ten == nil {
		var err error
		if ten, err = tenants.New("(no tenants file)", false); err != nil {
			return nil, err
		}
	}
	if err := ten.CheckCluster(c); err != nil {
		return nil, err
	}
	p := &Policy{inner: inner, cfg: cfg, ten: ten, est: est, c: c, T: ten.Len(), K: len(c.Types), since: map[sim.JobID]sim.Time{}}
	p.guar = make([]int, p.T*p.K)
	p.caps = make([]int, p.T)
	p.prio = make([]int, p.T)
	for t := range p.T {
		tt := ten.Tenant(t)
		p.caps[t], p.prio[t] = tt.Cap, tt.Priority
		for k, g := range c.Types {
			p.guar[t*p.K+k] = tt.Guaranteed[g]
		}
	}
	p.usage, p.total = make([]int, p.T*p.K), make([]int, p.T)
	return p, nil
}

// Name implements sim.Policy.
func (p *Policy) Name() string { return "quota(" + p.inner.Name() + ")" }

// Inner is the wrapped policy.
func (p *Policy) Inner() sim.Policy { return p.inner }

// QuotaStats implements StatsReporter.
func (p *Policy) QuotaStats() Stats { return p.stats }

// QuotaCounts implements sim.QuotaReporter: the counts the run's fairness
// figures carry (summary.json's fairness.quota).
func (p *Policy) QuotaCounts() sim.QuotaCounts {
	return sim.QuotaCounts{Reclaims: p.stats.Reclaims, ReclaimedGPUs: p.stats.ReclaimedGPUs, Vetoed: p.stats.Vetoed, Violations: p.stats.Violations}
}

// ReadsViewOnly implements sim.ViewReader as the inner policy does: the
// wrapper itself never writes to the View, and hands the inner policy
// either the View or fresh queues of its own.
func (p *Policy) ReadsViewOnly() bool {
	r, ok := p.inner.(sim.ViewReader)
	return ok && r.ReadsViewOnly()
}

// IdleWhenQuiet implements sim.QuietRounds only for a wrapper without
// tenants (it passes every decision through) around a policy idle when
// quiet itself. With tenants a decision with no arrival and no ended job
// can still act: a job the wrapper suspended or refused is handed back to
// the inner policy at the next decision, and a grace expires on elapsed
// time alone.
func (p *Policy) IdleWhenQuiet() bool {
	q, ok := p.inner.(sim.QuietRounds)
	return p.T == 1 && p.caps[0] == 0 && ok && q.IdleWhenQuiet()
}

// Close closes the inner policy if it holds a process (exec:).
func (p *Policy) Close() error {
	if c, ok := p.inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// BudgetHits forwards sim.BudgetReporter (0 when the inner has none).
func (p *Policy) BudgetHits() int {
	if b, ok := p.inner.(sim.BudgetReporter); ok {
		return b.BudgetHits()
	}
	return 0
}

// ArtifactAssertionsFailed forwards sim.AssertionReporter.
func (p *Policy) ArtifactAssertionsFailed() int {
	if a, ok := p.inner.(sim.AssertionReporter); ok {
		return a.ArtifactAssertionsFailed()
	}
	return 0
}

// ReportsThroughput forwards sim.ThroughputReporter (true when the inner
// has none, which is what the engine assumes then).
func (p *Policy) ReportsThroughput(v *sim.View, j *sim.Job) bool {
	if r, ok := p.inner.(sim.ThroughputReporter); ok {
		return r.ReportsThroughput(v, j)
	}
	return true
}

func (p *Policy) tenant(j *sim.Job) int {
	id := int(j.Spec.ID)
	if id < 0 {
		return p.ten.Index(j.Spec.VirtualCluster)
	}
	for len(p.tenOf) <= id {
		p.tenOf = append(p.tenOf, -1)
	}
	if p.tenOf[id] < 0 {
		p.tenOf[id] = int32(p.ten.Index(j.Spec.VirtualCluster))
	}
	return int(p.tenOf[id])
}

// typeOf is the Cluster.Types index of the GPUs gpus are on (−1 for none).
func (p *Policy) typeOf(gpus []int) int {
	if len(gpus) == 0 {
		return -1
	}
	return p.c.TypeIndex(p.c.Nodes[p.c.NodeOf(gpus[0])].GPU)
}

func (p *Policy) add(t int, gpus []int, sign int) {
	if k := p.typeOf(gpus); k >= 0 {
		p.usage[t*p.K+k] += sign * len(gpus)
		p.total[t] += sign * len(gpus)
	}
}

// Schedule implements sim.Policy: filter the View, decide with the inner
// policy, vet its actions, reclaim for owners whose grace is over.
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	clear(p.usage)
	clear(p.total)
	for _, j := range v.Running {
		p.add(p.tenant(j), j.GPUs, 1)
	}
	// 1. The inner policy sees only what it may act on.
	iv := v
	if p.nBack > 0 || p.hides(v.Pending) || p.hides(v.Arrivals) {
		iv = p.innerView(v)
		p.intervened = true
	}
	acts, err := p.inner.Schedule(iv)
	if err != nil {
		return nil, err
	}
	if p.intervened {
		acts = p.sanitize(v, acts)
	}

	// 2. Vet its actions against caps and guarantees.
	acts = p.vet(v, acts)

	// 3. Reclaim borrowed GPUs for owners whose grace is over.
	return p.reclaim(v, acts), nil
}

func (p *Policy) sendBack(id sim.JobID) {
	for len(p.back) <= int(id) {
		p.back = append(p.back, false)
	}
	if !p.back[id] {
		p.back[id] = true
		p.nBack++
	}
	p.intervened = true
}

func (p *Policy) isBack(id sim.JobID) bool { return int(id) < len(p.back) && p.back[id] }

// innerView builds the inner policy's View: the engine's, less the pending
// jobs it may not start, with the jobs sent back handed over as arrivals.
func (p *Policy) innerView(v *sim.View) *sim.View {
	p.iv = *v
	iv := &p.iv
	iv.Pending = make([]*sim.Job, 0, len(v.Pending))
	var back []*sim.Job
	for _, j := range v.Pending {
		switch {
		case p.hidden(j):
			p.stats.Hidden++
		case p.isBack(j.Spec.ID):
			back = append(back, j)
			p.back[j.Spec.ID] = false
			p.nBack--
		default:
			iv.Pending = append(iv.Pending, j)
		}
	}
	if p.nBack > 0 { // sent back but no longer pending (started, finished)
		for _, j := range v.Running {
			if p.isBack(j.Spec.ID) {
				p.back[j.Spec.ID] = false
				p.nBack--
			}
		}
		for _, j := range v.Ended {
			if p.isBack(j.Spec.ID) {
				p.back[j.Spec.ID] = false
				p.nBack--
			}
		}
	}
	iv.Arrivals = append(p.filter(v.Arrivals), back...)
	return iv
}

// sanitize drops what in the inner policy's batch no longer fits the
// cluster as the wrapper left it — a policy that keeps its own record of
// what runs may act on a job the wrapper started, suspended or refused:
// an action on a job in the wrong state, then, until none is left, a start
// or reallocation onto a GPU another job keeps or another action took. A
// dropped reallocation keeps its job's GPUs, which may make another action
// stale, hence the repetition.
func (p *Policy) sanitize(v *sim.View, acts []sim.Action) []sim.Action {
	if len(acts) == 0 {
		return acts
	}
	keep := make([]bool, len(acts))
	status := map[sim.JobID]sim.Status{}
	for i, a := range acts {
		j := lookup(v, a.Job)
		if j == nil {
			keep[i] = true // the engine names the bad job
			continue
		}
		st, ok := status[a.Job]
		if !ok {
			st = j.Status
		}
		switch a.Kind {
		case sim.Start:
			keep[i] = st == sim.Pending
			if keep[i] {
				status[a.Job] = sim.Running
			}
		case sim.Reallocate:
			keep[i] = st == sim.Running
		case sim.Suspend:
			keep[i] = st == sim.Running
			if keep[i] {
				status[a.Job] = sim.Pending
			}
		case sim.Drop:
			keep[i] = st == sim.Pending
			if keep[i] {
				status[a.Job] = sim.Dropped
			}
		default:
			keep[i] = true
		}
	}
	slots := len(v.Occupant)
	for changed := true; changed; {
		changed = false
		over := map[int]sim.JobID{}
		at := func(s int) sim.JobID {
			if o, ok := over[s]; ok {
				return o
			}
			return v.Occupant[s]
		}
		for i, a := range acts {
			if keep[i] && (a.Kind == sim.Suspend || a.Kind == sim.Reallocate) {
				if j := lookup(v, a.Job); j != nil {
					for _, s := range j.GPUs {
						if at(s) == a.Job {
							over[s] = sim.NoJob
						}
					}
				}
			}
		}
		for i, a := range acts {
			if !keep[i] || (a.Kind != sim.Start && a.Kind != sim.Reallocate) {
				continue
			}
			clash := false
			for _, s := range a.GPUs {
				if s < 0 || s >= slots {
					return acts // a slot out of range: a bug the engine names
				}
				if o := at(s); o != sim.NoJob && o != a.Job {
					clash = true
					break
				}
			}
			if _, ok := v.Cluster.ShapeOf(a.GPUs); !ok && !clash {
				clash = true // a policy planning on a stale record can mix types
			}
			if clash {
				keep[i], changed = false, true
				break
			}
			for _, s := range a.GPUs {
				if s >= 0 && s < slots {
					over[s] = a.Job
				}
			}
		}
	}
	out := acts[:0:0]
	for i, a := range acts {
		if keep[i] {
			out = append(out, a)
			continue
		}
		p.stats.Stale++
		if a.Kind == sim.Start {
			p.sendBack(a.Job) // the inner policy believes it started
		}
	}
	return out
}

// hidden reports whether pending job j is kept from the inner policy.
func (p *Policy) hidden(j *sim.Job) bool {
	t := p.tenant(j)
	if c := p.caps[t]; c > 0 && p.total[t]+j.Spec.GPUs > c {
		return true
	}
	if !p.cfg.Borrow {
		k := p.c.TypeIndex(j.Spec.GPU)
		return k < 0 || p.usage[t*p.K+k]+j.Spec.GPUs > p.guar[t*p.K+k]
	}
	return false
}

func (p *Policy) hides(q []*sim.Job) bool {
	return slices.ContainsFunc(q, p.hidden)
}

func (p *Policy) filter(q []*sim.Job) []*sim.Job {
	out := make([]*sim.Job, 0, len(q))
	for _, j := range q {
		if p.hidden(j) {
			p.stats.Hidden++
			continue
		}
		out = append(out, j)
	}
	return out
}

// eligibleOwners returns, in queue order, the jobs that would be pending
// after the batch acts and that fit in their tenant's unused guarantee on
// the GPU type they request, given the usage in p.usage (after the batch).
// Earlier owners claim the guarantee first.
func (p *Policy) eligibleOwners(v *sim.View, touched map[sim.JobID]sim.ActionKind, suspended []*sim.Job) []*sim.Job {
	claimed := make([]int, p.T*p.K)
	var out []*sim.Job
	visit := func(j *sim.Job) {
		k := p.c.TypeIndex(j.Spec.GPU)
		if k < 0 {
			return
		}
		t := p.tenant(j)
		i := t*p.K + k
		if p.guar[i] == 0 {
			return
		}
		if p.usage[i]+claimed[i]+j.Spec.GPUs <= p.guar[i] {
			claimed[i] += j.Spec.GPUs
			out = append(out, j)
		}
	}
	for _, q := range [][]*sim.Job{v.Pending, v.Arrivals} {
		for _, j := range q {
			if _, ok := touched[j.Spec.ID]; !ok {
				visit(j)
			}
		}
	}
	for _, j := range suspended {
		visit(j)
	}
	return out
}

// vet applies the inner policy's actions to p.usage in order and drops
// those the quotas forbid: a start or reallocation that puts its tenant
// over its cap, or beyond its guarantee when borrowing is off. A
// reallocation whose old GPUs another action of the batch reuses is kept
// (refusing it would break the batch) and counted as a violation.
func (p *Policy) vet(v *sim.View, acts []sim.Action) []sim.Action {
	if len(acts) == 0 {
		return acts
	}
	var reused map[int]bool // GPUs some action takes
	for _, a := range acts {
		if a.Kind == sim.Start || a.Kind == sim.Reallocate {
			if reused == nil {
				reused = map[int]bool{}
			}
			for _, s := range a.GPUs {
				reused[s] = true
			}
		}
	}
	out := acts[:0:0]
	for _, a := range acts {
		j := lookup(v, a.Job)
		if j == nil {
			out = append(out, a) // the engine names the bad job
			continue
		}
		t := p.tenant(j)
		switch a.Kind {
		case sim.Suspend:
			p.add(t, j.GPUs, -1)
		case sim.Start, sim.Reallocate:
			if a.Kind == sim.Reallocate {
				p.add(t, j.GPUs, -1)
			}
			p.add(t, a.GPUs, 1)
			if p.forbidden(t, p.typeOf(a.GPUs)) {
				safe := a.Kind == sim.Start || !slices.ContainsFunc(j.GPUs, func(s int) bool { return reused[s] && !slices.Contains(a.GPUs, s) })
				if safe {
					p.add(t, a.GPUs, -1)
					if a.Kind == sim.Reallocate {
						p.add(t, j.GPUs, 1)
					}
					p.stats.Vetoed++
					if a.Kind == sim.Start {
						p.sendBack(a.Job) // the inner policy believes it running
					}
					continue
				}
				p.stats.Violations++
			}
		}
		out = append(out, a)
	}
	return out
}

// lookup is v.Job, or nil for an ID no job has (the engine then rejects
// the action, naming it).
func lookup(v *sim.View, id sim.JobID) (j *sim.Job) {
	defer func() {
		if recover() != nil {
			j = nil
		}
	}()
	if id < 0 {
		return nil
	}
	return v.Job(id)
}

// forbidden: tenant t's usage (after an action onto type k) breaks its cap,
// or goes beyond its guarantee on k with borrowing off.
func (p *Policy) forbidden(t, k int) bool {
	if c := p.caps[t]; c > 0 && p.total[t] > c {
		return true
	}
	return k >= 0 && !p.cfg.Borrow && p.usage[t*p.K+k] > p.guar[t*p.K+k]
}

// borrower is a running job (after the batch) beyond its tenant's
// guarantee on its GPU type.
type borrower struct {
	j     *sim.Job
	gpus  []int
	t, k  int
	order int  // position in the running queue after the batch
	start bool // started by the inner policy in this batch
}

// reclaim starts eligible owners whose grace is over on GPUs taken back
// from borrowers (reclaim order: lowest tenant priority first, then the
// most recently started), and records when the others became eligible.
func (p *Policy) reclaim(v *sim.View, acts []sim.Action) []sim.Action {
	if p.T == 1 {
		return acts // only Default: nothing is guaranteed
	}
	touched := make(map[sim.JobID]sim.ActionKind, len(acts))
	var suspended []*sim.Job
	for _, a := range acts {
		touched[a.Job] = a.Kind
	}
	for _, a := range acts {
		// suspended and not started again in the same batch (a move)
		if a.Kind == sim.Suspend && touched[a.Job] == sim.Suspend && !slices.ContainsFunc(suspended, func(j *sim.Job) bool { return j.Spec.ID == a.Job }) {
			suspended = append(suspended, v.Job(a.Job))
		}
	}
	owners := p.eligibleOwners(v, touched, suspended)
	due := p.dueOwners(v.Now, owners)
	if len(due) == 0 {
		return acts
	}

	// The slot table after the batch, and the borrowers in it.
	table, running := afterBatch(v, acts, touched)
	lenders := p.lendersOf(running, touched)

	taken := map[sim.JobID]bool{}
	for _, o := range due {
		grid := placement.Best(v.Cluster, o.Spec.GPU, o.Spec.GPUs)
		if grid.Nodes == 0 || !p.est.Estimate(o.Spec.Workload, grid).Feasible() {
			continue
		}
		k := p.c.TypeIndex(o.Spec.GPU)
		trial := table.Clone()
		var victims []borrower
		if touched[o.Spec.ID] == sim.Suspend {
			// The inner policy suspended an owner within its guarantee:
			// keep it where it runs if borrowers can give its GPUs back,
			// rather than restart it (and pay the restart) elsewhere.
			if vs, ok := p.keepRunning(trial, o, lenders, taken); ok {
				table = trial
				acts = slices.DeleteFunc(acts, func(a sim.Action) bool { return a.Job == o.Spec.ID && a.Kind == sim.Suspend })
				p.stats.Vetoed++
				acts = p.takeBack(acts, vs, o, taken)
				delete(p.since, o.Spec.ID)
				continue
			}
			trial = table.Clone()
		}
		slots, ok := trial.PlaceMostFree(o.Spec.ID, grid)
		for _, b := range lenders {
			if ok {
				break
			}
			if b.k != k || taken[b.j.Spec.ID] || b.t == p.tenant(o) {
				continue
			}
			trial.Clear(b.j.Spec.ID)
			victims = append(victims, b)
			slots, ok = trial.PlaceMostFree(o.Spec.ID, grid)
		}
		if !ok {
			continue
		}
		table = trial
		acts = p.takeBack(acts, victims, o, taken)
		acts = append(acts, sim.Action{Kind: sim.Start, Job: o.Spec.ID, GPUs: slots, Reason: "quota: within guarantee"})
		p.stats.OwnerStarts++
		delete(p.since, o.Spec.ID)
		p.intervened = true
	}
	return acts
}

// dueOwners returns the owners (jobs within their tenant's guarantee that
// wait) that have waited the grace period, and restarts the wait of every
// one still waiting, forgetting those no longer waiting. Separate because
// it is the wrapper's one piece of memory across rounds.
func (p *Policy) dueOwners(now sim.Time, owners []*sim.Job) []*sim.Job {
	var due []*sim.Job
	next := make(map[sim.JobID]sim.Time, len(owners))
	for _, j := range owners {
		s, ok := p.since[j.Spec.ID]
		if !ok {
			s = now
		}
		next[j.Spec.ID] = s
		if now >= s+sim.Time(p.cfg.Grace) {
			due = append(due, j)
		}
	}
	p.since = next
	return due
}

// afterBatch returns the slot table as the inner policy's batch acts
// leaves it, and the jobs running after it (each with its GPUs after the
// batch, those the batch starts last, marked). Separate because reclaiming
// works on the state the batch makes, not on the View's.
func afterBatch(v *sim.View, acts []sim.Action, touched map[sim.JobID]sim.ActionKind) (*placement.Table, []borrower) {
	table := placement.FromView(v)
	for _, a := range acts {
		if a.Kind == sim.Suspend || a.Kind == sim.Reallocate {
			table.Clear(a.Job)
		}
	}
	var running []borrower
	for _, j := range v.Running {
		switch touched[j.Spec.ID] {
		case sim.Suspend:
			continue
		}
		gpus := j.GPUs
		if k, ok := touched[j.Spec.ID]; ok && k == sim.Reallocate {
			gpus = nil // its new GPUs come from the action below
			for _, a := range acts {
				if a.Job == j.Spec.ID && a.Kind == sim.Reallocate {
					gpus = a.GPUs
				}
			}
		}
		running = append(running, borrower{j: j, gpus: gpus})
	}
	for _, a := range acts {
		if a.Kind == sim.Start || a.Kind == sim.Reallocate {
			for _, s := range a.GPUs {
				table.Set(s, a.Job)
			}
		}
		if a.Kind == sim.Start {
			running = append(running, borrower{j: v.Job(a.Job), gpus: a.GPUs, start: true})
		}
	}
	return table, running
}

// lendersOf returns the running jobs beyond their tenant's guarantee of
// their GPU type (counted in running order; a job the batch reallocates is
// never one), in reclaim order: lower-priority tenants first, then the
// most recently started first. Separate because it is the reclaim order.
func (p *Policy) lendersOf(running []borrower, touched map[sim.JobID]sim.ActionKind) []borrower {
	cum := make([]int, p.T*p.K)
	var lenders []borrower
	for i, b := range running {
		b.t, b.k, b.order = p.tenant(b.j), p.typeOf(b.gpus), i
		if b.k < 0 {
			continue
		}
		cum[b.t*p.K+b.k] += len(b.gpus)
		if cum[b.t*p.K+b.k] > p.guar[b.t*p.K+b.k] && touched[b.j.Spec.ID] != sim.Reallocate {
			lenders = append(lenders, b)
		}
	}
	slices.SortStableFunc(lenders, func(a, b borrower) int {
		if c := cmp.Compare(p.prio[a.t], p.prio[b.t]); c != 0 {
			return c
		}
		return cmp.Compare(b.order, a.order) // most recently started first
	})
	return lenders
}

// takeBack turns the victims of a reclaim for owner o into actions: a
// borrower the inner policy started in this batch loses its start, any
// other is suspended.
func (p *Policy) takeBack(acts []sim.Action, victims []borrower, o *sim.Job, taken map[sim.JobID]bool) []sim.Action {
	for _, b := range victims {
		taken[b.j.Spec.ID] = true
		p.sendBack(b.j.Spec.ID)
		if b.start {
			acts = slices.DeleteFunc(acts, func(a sim.Action) bool { return a.Job == b.j.Spec.ID && a.Kind == sim.Start })
			p.stats.Vetoed++
			continue
		}
		acts = append(acts, sim.Action{Kind: sim.Suspend, Job: b.j.Spec.ID, Reason: fmt.Sprintf("quota: reclaimed for %s", o.Spec.Alias())})
		p.stats.Reclaims++
		p.stats.ReclaimedGPUs += len(b.gpus)
	}
	return acts
}

// keepRunning gives owner o (suspended by the inner policy in this batch)
// its GPUs back on table t: each is idle or held by a borrower of another
// tenant, cleared in turn. It returns those borrowers; on failure t may be
// changed (the caller discards it).
func (p *Policy) keepRunning(t *placement.Table, o *sim.Job, lenders []borrower, taken map[sim.JobID]bool) ([]borrower, bool) {
	var victims []borrower
	for _, s := range o.GPUs {
		occ := t.Occupant[s]
		if occ == sim.NoJob || occ == o.Spec.ID {
			continue
		}
		i := slices.IndexFunc(lenders, func(b borrower) bool { return b.j.Spec.ID == occ })
		if i < 0 || taken[occ] || lenders[i].t == p.tenant(o) {
			return nil, false
		}
		t.Clear(occ)
		victims = append(victims, lenders[i])
	}
	for _, s := range o.GPUs {
		t.Set(s, o.Spec.ID)
	}
	return victims, true
}
