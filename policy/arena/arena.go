package arena

import (
	"fmt"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Artifact constants (ARENA.md §9).
const (
	infeasibleThr      = estimator.InfeasibleThroughput // −1e9
	globalMigrationEta = 4096                           // GLOBAL_ETA per phase
	localMigrationEta  = 256                            // LOCAL_ETA per migration search
	maxUpgradeSteps    = 10
	maxRestartPasses   = 100
	maxGPUsPerJob      = 16
	// Downgrade-search depth: 3 while at most 150 jobs run, else 2.
	deepSearchMaxRunning = 150
)

// Variant selects Arena or one of its ablations.
type Variant struct {
	// Name is the registered policy name.
	Name string
	// NoScaling disables shrink and grow (arena-ns).
	NoScaling bool
	// NoTypeChange disables hardware-type changes (arena-nh).
	NoTypeChange bool
	// NoOpportunistic makes a job wait while any pending job has its GPU
	// type (arena-no).
	NoOpportunistic bool
	// Deadline makes configs feasible only if the job still meets its
	// deadline, and skips timed-out pending jobs in restarts (arena-ddl).
	Deadline bool
}

// Variants lists Arena and its ablations by registered name. arena-dp and
// arena-noprune are plain Arena with another estimator view or overhead.
var Variants = map[string]Variant{
	"arena":         {Name: "arena"},
	"arena-ns":      {Name: "arena-ns", NoScaling: true},
	"arena-nh":      {Name: "arena-nh", NoTypeChange: true},
	"arena-no":      {Name: "arena-no", NoOpportunistic: true},
	"arena-dp":      {Name: "arena-dp"},
	"arena-ddl":     {Name: "arena-ddl", Deadline: true},
	"arena-noprune": {Name: "arena-noprune"},
}

// Policy is the Arena scheduler. It keeps, between rounds, each job's
// resource quota and the decision queue (blockers and opportunistic jobs).
type Policy struct {
	variant Variant
	tp      *topology
	// decide answers throughput questions in the policy's view; opt is the
	// adaptive-parallelism view the deadline check always uses.
	decide, opt estimator.Estimator

	jobs     []*jobState // by job ID
	decision []sim.JobID // the decision queue
	timedOut map[sim.JobID]bool
	thrCache memo
	optCache memo
	wIndex   map[estimator.Workload]int
	// workloads are the workloads met, by index (jobState.wi).
	workloads []estimator.Workload
	pool      tablePool
	// statsA and statsB are the job stats of the real table and of the
	// plan being expanded, statsC those of the node-swap fix-up's "before"
	// table while it runs; kept across rounds (they pin snapshots, which
	// stay at most three, and their arrays are reused).
	statsA, statsB, statsC statSet
	// trials is the upgrade trial's memo (upgrade.go), kept for its array;
	// trialKeys numbers the (workload, quota) pairs its keyed part has met.
	trials    trialMemo
	trialKeys map[trialKey]int
	// htc is the downgrade search's memo of type-change trials
	// (downgrade.go).
	htc htcMemo
	// seen marks the trial keys met in one type-change step (where seen
	// equals seenGen).
	seen    []uint64
	seenGen uint64
	// twinRecs are the upgrade trial's records of the running jobs, by
	// index in the running queue, and runIdx a job's index there (by job
	// ID; valid where the record's ID matches): see twinRec.
	twinRecs []twinRec
	runIdx   []int32
	// twinNodes and twinUsed hold the records' node lists (twinRec).
	twinNodes, twinUsed []int
	// runMark[id] equals runGen while job id is in the round's running
	// queue; jobMark is scratch marking jobs (where it equals markGen).
	runMark, jobMark []uint64
	runGen, markGen  uint64
	// The real table refreshQuotas last read: its snapshot, and the jobs
	// its delta touched (see refreshQuotas).
	quotaBase    *snapshot
	quotaBaseGen uint64
	quotaTouched []sim.JobID
	quotaScratch []sim.JobID
	// keyMark marks trial keys (where it equals markGen); keyGroup is a
	// key's group while snapshotGroups runs; the rest is scratch of
	// groupHeads and snapshotGroups.
	keyMark        []uint64
	keyGroup       []int32
	headsA, headsB []groupHead
	heads          []sim.JobID
	groupScratch   []int
	groupFill      []int32
	// inheritMark marks jobs (where it equals inheritGen) and
	// inheritOrder is spare order storage, for inheritStats.
	inheritMark  []uint64
	inheritGen   uint64
	inheritOrder []sim.JobID
	// fixMark marks slots (a bit each) and fixChanged lists them, for
	// beforeStats.
	fixMark    []uint64
	fixChanged []int32
	// last is the real table the previous decision ended with (in the
	// pool's free list), which the next round's table starts from
	// (roundTable); nil after a failed decision.
	last *table
	// assertionsFailed counts, in artifact timing, the artifact's
	// assertions found false (see round.assertionFailed).
	assertionsFailed int
	// bound is the upgrade trial's counted bound (bound.go).
	bound bounds
}

var _ sim.Policy = (*Policy)(nil)

// New returns the Arena policy variant v on cluster c deciding with the
// estimator decide (opt is the adaptive-parallelism view, used for the
// deadline check of arena-ddl).
func New(v Variant, c *sim.Cluster, decide, opt estimator.Estimator) *Policy {
	p := &Policy{
		variant: v, tp: newTopology(c), decide: decide, opt: opt,
		timedOut: map[sim.JobID]bool{}, thrCache: newMemo(), optCache: newMemo(),
		wIndex: map[estimator.Workload]int{}, trialKeys: map[trialKey]int{},
	}
	p.tp.snaps.pool = &p.pool
	return p
}

// Name implements sim.Policy.
func (p *Policy) Name() string { return p.variant.Name }

// quota is a job's resource request as the artifact tracks it: GPU type
// (index into the cluster's types), GPU count and locality (nodes × GPUs on
// the first node).
type quota struct {
	t, num int
	loc    loc
}

// loc is a uniform locality: nodes × per GPUs.
type loc struct{ nodes, per int }

// jobState is the policy's record of one job.
type jobState struct {
	id sim.JobID
	// wi is the index of the job's workload (Policy.workloads): the
	// workload itself is kept once per workload, not per job (a million
	// jobs' states are live at once).
	wi    int
	quota quota
	// key is the index of (workload, keyQ) among the trial keys (keyOK:
	// computed; Policy.keyOf).
	key  int
	keyQ quota
	// the flags last: 96 bytes in all (a size class) rather than 104
	opp     bool // running opportunistically (in the decision queue)
	blocker bool // pending, and an opportunistic job runs below it
	keyOK   bool
}

func (p *Policy) state(j *sim.Job) *jobState {
	id := int(j.Spec.ID)
	for len(p.jobs) <= id {
		p.jobs = append(p.jobs, nil)
	}
	js := p.jobs[id]
	if js == nil {
		w := j.Spec.Workload
		wi, ok := p.wIndex[w]
		if !ok {
			wi = len(p.wIndex)
			p.wIndex[w] = wi
			p.workloads = append(p.workloads, w)
		}
		ty := p.tp.typeOf(j.Spec.GPU)
		js = &jobState{id: j.Spec.ID, wi: wi}
		js.quota = quota{t: ty, num: j.Spec.GPUs, loc: p.bestLocality(ty, j.Spec.GPUs)}
		p.jobs[id] = js
	}
	return js
}

// bestLocality is [n] if n fits a node, else full nodes, or — for a count
// the node capacity does not divide (24 on nodes of 16) — the fewest nodes
// that split it evenly (estimator.NodesFor: 2 × 12).
func (p *Policy) bestLocality(t, n int) loc {
	c := p.tp.typeCap[t]
	if n <= c {
		return loc{1, n}
	}
	k := estimator.NodesFor(n, c)
	return loc{k, n / k}
}

// Schedule implements sim.Policy: the artifact's schedule() from the
// release of ended jobs to the node-swap fix-up (ARENA.md §5 "Per round").
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	if p.variant.Deadline {
		p.markTimedOut(v)
	}
	if v.Quiet() {
		return nil, nil
	}
	p.tp.block(v)
	r := p.newRound(v)
	p.last = nil
	for _, j := range v.Interrupted {
		if err := r.requeue(j.Spec.ID); err != nil {
			p.pool.release(0, nil)
			return nil, err
		}
	}
	// With faults, interruptions and node changes free or bring capacity
	// as ended jobs do.
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		if err := r.optimizeRunningJobs(len(v.Arrivals) == 0); err != nil {
			p.pool.release(0, nil)
			return nil, err
		}
	}
	if len(v.Arrivals) > 0 {
		if err := r.fitNewJobs(); err != nil {
			p.pool.release(0, nil)
			return nil, err
		}
	}
	acts := r.actions()
	if v.Nodes != nil {
		acts = r.dropUnrunnableStarts(acts)
	}
	p.pool.release(0, nil)
	p.last = r.real
	return acts, nil
}

// IdleWhenQuiet implements sim.QuietRounds: a decision with no arrival and
// no ended job returns nothing. (arena-ddl's timed-out marks are taken
// again from the pending queue at the next call, so skipping quiet calls
// changes nothing.)
func (p *Policy) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (its slot tables are loaded from copies of the View's).
func (*Policy) ReadsViewOnly() bool { return true }

// ArtifactAssertionsFailed implements sim.AssertionReporter.
func (p *Policy) ArtifactAssertionsFailed() int { return p.assertionsFailed }

var _ sim.AssertionReporter = (*Policy)(nil)

// Engine returns the policy as the engine should run it: arena-ddl with
// the sim.ThroughputReporter capability, the other variants without it, so
// that the engine builds no per-round View just to hear that they report
// every job's throughput.
func (p *Policy) Engine() sim.Policy {
	if p.variant.Deadline {
		return reporting{p}
	}
	return p
}

// reporting is arena-ddl as the engine sees it (see Engine).
type reporting struct{ *Policy }

var _ sim.ThroughputReporter = reporting{}

// ReportsThroughput implements sim.ThroughputReporter for arena-ddl. The
// artifact's per-round throughput asks _get_delta_thr for each running job,
// and its deadline check comes first, so a job that can no longer meet its
// deadline on its current allocation counts 0 samples/s in the reported
// throughput (its progress is unaffected). Other variants report all.
func (p *Policy) ReportsThroughput(v *sim.View, j *sim.Job) bool {
	if !p.variant.Deadline {
		return true
	}
	p.state(j)
	r := &round{p: p, v: v}
	t := p.tp.typeOf(j.Config.GPU)
	return r.deadlineMet(inst{id: j.Spec.ID, t: t, num: j.Config.GPUs()}, t, loc{j.Config.Nodes, j.Config.PerNode})
}

// markTimedOut records pending jobs whose deadline has passed; the artifact
// does it at the end of the previous round with the advanced timer, which
// is this round's Now.
func (p *Policy) markTimedOut(v *sim.View) {
	for _, j := range v.Pending {
		if float64(j.Deadline) <= float64(v.Now) {
			p.timedOut[j.Spec.ID] = true
		}
	}
}

// round is the planning state of one Schedule call: the real table as the
// artifact's scheduler would hold it, and its queues.
type round struct {
	p       *Policy
	v       *sim.View
	real    *table
	running []sim.JobID
	pending []sim.JobID
	ops     []sim.Action // Start/Suspend in the order the queues moved
	started map[sim.JobID]bool
	// buffers of the migration search's partial-node and idle-node lists
	twinsBuf   twins
	partialBuf []nodeFree
	idleBuf    []int
	shrinkBuf  shrinkView
}

func (p *Policy) newRound(v *sim.View) *round {
	r := &round{p: p, v: v, started: map[sim.JobID]bool{}}
	r.real = r.roundTable(v.Occupant)
	p.runGen++
	for _, j := range v.Running {
		p.state(j)
		r.running = append(r.running, j.Spec.ID)
		p.markRunning(j.Spec.ID, true)
	}
	for _, j := range v.Pending {
		p.state(j)
		r.pending = append(r.pending, j.Spec.ID)
	}
	for _, j := range v.Arrivals {
		p.state(j)
	}
	for _, j := range v.Ended {
		p.state(j)
	}
	r.refreshQuotas()
	return r
}

func (r *round) js(id sim.JobID) *jobState { return r.p.jobs[id] }

// refreshQuotas is _update_run_jobs: every running job's quota becomes what
// it holds in the real table.
//
// A job's quota changes only with its slots. When the real table is a
// delta against the snapshot of the table last refreshed, the slots that
// changed since are among that table's delta and this one's, so only the
// jobs on them (in either table or in the snapshot) are read again: the
// fit of each arrival costs its changes, not every running job.
func (r *round) refreshQuotas() {
	p := r.p
	tb := r.real
	if searchShortcuts && tb.attached() && tb.base == p.quotaBase && tb.baseGen == p.quotaBaseGen {
		p.markGen++
		now := r.deltaJobs(tb, p.quotaScratch[:0])
		all := now
		for _, id := range p.quotaTouched {
			if p.jobMark[id] != p.markGen {
				p.jobMark[id] = p.markGen
				all = append(all, id)
			}
		}
		now = all[:len(now)]
		// A job the delta leaves alone holds its snapshot slots.
		st := r.statsOf(tb, &p.statsA, false)
		for _, id := range all {
			if !p.isRunning(id) {
				continue
			}
			s := st.get(id)
			if s == nil || s.num == 0 {
				continue
			}
			p.setQuota(id, p.jobs[id], quota{t: int(s.t), num: int(s.num), loc: loc{len(s.nodes), int(s.firstCount)}})
		}
		p.quotaTouched, p.quotaScratch = now, p.quotaTouched[:0]
		return
	}
	st := r.statsOf(tb, &r.p.statsA, false) // read by job, not in order
	for _, id := range r.running {
		s := st.get(id)
		js := p.jobs[id]
		if s == nil || s.num == 0 {
			continue
		}
		p.setQuota(id, js, quota{t: int(s.t), num: int(s.num), loc: loc{len(s.nodes), int(s.firstCount)}})
	}
	p.quotaBase, p.quotaBaseGen = tb.base, tb.baseGen
	p.markGen++
	p.quotaTouched = r.deltaJobs(tb, p.quotaTouched[:0])
}

// setQuota sets running job id's quota (js its state), marking its upgrade
// trial record stale when the quota changes (twinRec).
func (p *Policy) setQuota(id sim.JobID, js *jobState, q quota) {
	if js.quota == q {
		return
	}
	js.quota = q
	if int(id) < len(p.runIdx) {
		if i := p.runIdx[id]; int(i) < len(p.twinRecs) && p.twinRecs[i].id == id {
			p.twinRecs[i].ok = false
		}
	}
}

// deltaJobs appends to out the real jobs on tb's delta slots, as tb and
// its snapshot hold them, each once (marked in jobMark with markGen).
func (r *round) deltaJobs(tb *table, out []sim.JobID) []sim.JobID {
	p := r.p
	for len(p.jobMark) < len(p.jobs) {
		p.jobMark = append(p.jobMark, 0)
	}
	for _, s := range tb.dirty {
		for _, o := range [2]sim.JobID{tb.base.occ[s], tb.occ[s]} {
			if o >= 0 && p.jobMark[o] != p.markGen {
				p.jobMark[o] = p.markGen
				out = append(out, o)
			}
		}
	}
	return out
}

// markRunning records whether job id is in the round's running queue.
func (p *Policy) markRunning(id sim.JobID, on bool) {
	for len(p.runMark) <= int(id) {
		p.runMark = append(p.runMark, 0)
	}
	if on {
		p.runMark[id] = p.runGen
	} else {
		p.runMark[id] = 0
	}
}

// isRunning reports whether job id is in the round's running queue.
func (p *Policy) isRunning(id sim.JobID) bool {
	return int(id) < len(p.runMark) && p.runMark[id] == p.runGen
}

// actions turns the plan into engine actions: Start and Suspend in the
// order the artifact moved its queues, then Reallocate for running jobs
// whose slots changed.
func (r *round) actions() []sim.Action {
	var out []sim.Action
	gpus := func(id sim.JobID) []int {
		var s []int
		for _, x := range r.real.slotsOf(id) {
			s = append(s, int(x))
		}
		return s
	}
	for _, a := range r.ops {
		if a.Kind == sim.Start {
			a.GPUs = gpus(a.Job)
		}
		out = append(out, a)
	}
	// A job's slots changed iff a slot changed occupant to or from it.
	changed := map[sim.JobID]bool{}
	for s, o := range r.v.Occupant {
		if n := r.real.occ[s]; n != o {
			changed[o], changed[n] = true, true
		}
	}
	for _, id := range r.running {
		if !r.started[id] && changed[id] {
			out = append(out, sim.Action{Kind: sim.Reallocate, Job: id, GPUs: gpus(id)})
		}
	}
	return out
}

// dropUnrunnableStarts (faults only) takes out the starts on a grid the
// execution view cannot run, putting their jobs back in the decision
// queue. Under lost capacity a job's registered quota can shrink to such
// a grid (arena-dp decides with data-parallel data); fault-free runs keep
// the artifact's decisions untouched.
func (r *round) dropUnrunnableStarts(acts []sim.Action) []sim.Action {
	out := acts[:0]
	for _, a := range acts {
		if a.Kind == sim.Start {
			cfg, ok := r.v.Cluster.ShapeOf(a.GPUs)
			if !ok || !r.p.opt.Estimate(r.v.Job(a.Job).Spec.Workload, cfg).Feasible() {
				_ = r.requeue(a.Job)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func (r *round) startJob(id sim.JobID) {
	r.running = append(r.running, id)
	r.p.markRunning(id, true)
	r.pending = removeID(r.pending, id)
	r.started[id] = true
	r.ops = append(r.ops, sim.Action{Kind: sim.Start, Job: id})
}

func (r *round) suspendJob(id sim.JobID) {
	r.running = removeID(r.running, id)
	r.p.markRunning(id, false)
	r.pending = append(r.pending, id)
	delete(r.started, id)
	r.ops = append(r.ops, sim.Action{Kind: sim.Suspend, Job: id, Reason: "opportunistic job preempted by a blocker"})
}

func removeID(q []sim.JobID, id sim.JobID) []sim.JobID {
	for i, x := range q {
		if x == id {
			return append(q[:i:i], q[i+1:]...)
		}
	}
	return q
}

func indexOf(q []sim.JobID, id sim.JobID) int {
	for i, x := range q {
		if x == id {
			return i
		}
	}
	return -1
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("arena: "+format, args...)
}
