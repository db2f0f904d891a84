package arena

import (
	"fmt"
	"slices"
	"sync/atomic"

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
	// plan being expanded (after refreshQuotas, statsA holds the real
	// table's snapshot's only: see pinSnapshotStats), statsC those of the
	// node-swap fix-up's "before" table while it runs; kept across rounds
	// (they pin snapshots, which stay at most three, and their arrays are
	// reused).
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
	// twinGroups are the records' groups by trial key (twins.walk),
	// twinKeys the keys with a group in the trial numbered twinTrial,
	// twinStale the records marked stale since the last walk; twinCand
	// and twinList are scratch.
	twinGroups []twinGroup
	twinKeys   []int32
	twinTrial  uint64
	twinStale  []int32
	twinCand   []uint64
	twinList   []int32
	// runMark[id] equals runGen while job id is in the round's running
	// queue; jobMark is scratch marking jobs (where it equals markGen).
	runMark, jobMark []uint64
	runGen, markGen  uint64
	// What refreshQuotas last read (see there): the real table's
	// occupant of every slot (quotaOcc; empty before the first read), its
	// snapshot and delta slots, and the jobs holding slots outside the
	// running queue (read again when they run); the rest is scratch.
	quotaOcc     []sim.JobID
	quotaBase    *snapshot
	quotaBaseGen uint64
	quotaDirty   []int32
	quotaCarry   []sim.JobID
	quotaJobs    []sim.JobID
	quotaPairs   []uint64
	quotaChain   []*snapshot
	// keyMark marks trial keys (where it equals markGen); keyGroup is a
	// key's group while snapshotGroups runs; the rest is scratch of
	// groupHeads and snapshotGroups.
	keyMark        []uint64
	keyGroup       []int32
	headsA, headsB []groupHead
	heads          []sim.JobID
	groupScratch   []int
	groupFill      []int32
	// statKeys caches, by job ID, the trial key of a job's stats as the
	// snapshots' groups read them (keyOfStat).
	statKeys []statKey
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
// A job's quota is a function of its slots (their occupant, whatever their
// status), and only refreshQuotas sets it: so after the first read, only
// the jobs on a slot whose occupant changed since the last read are read
// again, plus the jobs that held slots outside the running queue then
// (quotaCarry; they are read when they run). The slots that can have
// changed are the last read table's delta, the delta of this one and, when
// this one's snapshot descends from that one's (rebases since), the
// snapshots' diffs on the way (else every slot): each is compared with
// the occupant the last read saw (quotaOcc), so that the fit of an arrival
// costs the slots it changed and a pass over the delta, not a recount of
// every job on the delta. The quotas are those of a full read
// (checkQuotas compares them at every call).
func (r *round) refreshQuotas() {
	p := r.p
	tb := r.real
	if !searchShortcuts {
		r.readAllQuotas(tb)
		return
	}
	if !tb.attached() {
		tb.tp.snaps.rebase(tb)
	}
	for len(p.jobMark) < len(p.jobs) {
		p.jobMark = append(p.jobMark, 0)
	}
	if len(p.quotaOcc) != len(tb.occ) {
		r.readAllQuotas(tb)
		p.quotaOcc = append(p.quotaOcc[:0], tb.occ...)
		p.quotaCarry = p.quotaCarry[:0]
		p.markGen++
		for _, o := range tb.occ {
			if o >= 0 && p.jobMark[o] != p.markGen && !p.isRunning(o) {
				p.jobMark[o] = p.markGen
				p.quotaCarry = append(p.quotaCarry, o)
			}
		}
	} else {
		r.pinSnapshotStats(tb, &p.statsA)
		r.readChangedQuotas(tb)
	}
	p.quotaBase, p.quotaBaseGen = tb.base, tb.baseGen
	p.quotaDirty = append(p.quotaDirty[:0], tb.dirty...)
	if checkQuotas {
		r.checkQuotasNow(tb)
	}
}

// readAllQuotas sets every running job's quota from tb's stats (the
// artifact's whole read).
func (r *round) readAllQuotas(tb *table) {
	p := r.p
	st := r.statsOf(tb, &p.statsA, false) // read by job, not in order
	for _, id := range r.running {
		s := st.get(id)
		if s == nil || s.num == 0 {
			continue
		}
		p.setQuota(id, p.jobs[id], quota{t: int(s.t), num: int(s.num), loc: loc{len(s.nodes), int(s.firstCount)}})
	}
}

// readChangedQuotas is refreshQuotas after the first read: the jobs on
// the slots whose occupant changed since the last read, and those carried,
// are counted from their slots in tb (tb is attached).
func (r *round) readChangedQuotas(tb *table) {
	p := r.p
	p.markGen++
	g := p.markGen
	jobs := p.quotaJobs[:0]
	mark := func(o sim.JobID) {
		if o >= 0 && p.jobMark[o] != g {
			p.jobMark[o] = g
			jobs = append(jobs, o)
		}
	}
	was := p.quotaOcc
	compare := func(slots []int32) {
		for _, s := range slots {
			if o := tb.occ[s]; o != was[s] {
				mark(was[s])
				mark(o)
				was[s] = o
			}
		}
	}
	compare(p.quotaDirty)
	if chain, ok := r.snapshotsSince(tb.base, p.quotaBase, p.quotaBaseGen); ok {
		for _, x := range chain {
			compare(x.diff)
		}
	} else {
		for s, o := range tb.occ {
			if o != was[s] {
				mark(was[s])
				mark(o)
				was[s] = o
			}
		}
	}
	compare(tb.dirty)
	for _, o := range p.quotaCarry {
		mark(o)
	}
	// The marked jobs' slots in tb, as (job, slot) keys in order: their
	// snapshot slots they still hold, and the delta slots they took.
	snap := tb.base
	pairs := p.quotaPairs[:0]
	for _, o := range jobs {
		for _, s := range snap.lookup(o) {
			if tb.occ[s] == o {
				pairs = append(pairs, pairKey(o, s))
			}
		}
	}
	for _, s := range tb.dirty {
		if o := tb.occ[s]; o >= 0 && p.jobMark[o] == g && snap.occ[s] != o {
			pairs = append(pairs, pairKey(o, s))
		}
	}
	slices.Sort(pairs)
	tp := tb.tp
	carry := p.quotaCarry[:0]
	for i := 0; i < len(pairs); {
		o := sim.JobID(pairs[i] >> 32)
		first := tp.slotNode[int32(uint32(pairs[i]))]
		num, nodes, firstCount, last := 0, 0, 0, -1
		for ; i < len(pairs) && sim.JobID(pairs[i]>>32) == o; i++ {
			n := tp.slotNode[int32(uint32(pairs[i]))]
			num++
			if n != last {
				nodes, last = nodes+1, n
			}
			if n == first {
				firstCount++
			}
		}
		if !p.isRunning(o) {
			carry = append(carry, o)
			continue
		}
		p.setQuota(o, p.jobs[o], quota{t: tp.nodeType[first], num: num, loc: loc{nodes, firstCount}})
	}
	p.quotaCarry, p.quotaJobs, p.quotaPairs = carry, jobs, pairs
}

// snapshotsSince lists the snapshots from s up to, not including, the
// snapshot base of generation gen, following parents (each differs from
// its parent on its diff); false if base is not among s's live ancestors a
// few generations up.
func (r *round) snapshotsSince(s, base *snapshot, gen uint64) ([]*snapshot, bool) {
	chain := r.p.quotaChain[:0]
	for k := 0; s != nil && k < 8; k++ {
		if s == base && s.gen == gen {
			r.p.quotaChain = chain
			return chain, true
		}
		if s.parent == nil || s.parent.gen != s.parentGen {
			break
		}
		chain = append(chain, s)
		s = s.parent
	}
	r.p.quotaChain = chain
	return nil, false
}

// checkQuotas makes every refreshQuotas compare each running job's quota
// with a full read of the real table's stats (for the test: quotaChecks
// counts the jobs compared, quotaMismatches those that differ).
var (
	checkQuotas                  bool
	quotaChecks, quotaMismatches atomic.Int64
)

// checkQuotasNow is checkQuotas's comparison.
func (r *round) checkQuotasNow(tb *table) {
	st := &statSet{}
	st.scan(tb.tp, tb.occ, tb.used, len(r.p.jobs))
	for _, id := range r.running {
		s := st.get(id)
		if s == nil || s.num == 0 {
			continue
		}
		quotaChecks.Add(1)
		if r.p.jobs[id].quota != (quota{t: int(s.t), num: int(s.num), loc: loc{len(s.nodes), int(s.firstCount)}}) {
			quotaMismatches.Add(1)
		}
	}
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
			p.staleTwin(i)
		}
	}
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
