package elasticflow

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Variant selects the deadline model.
type Variant int

const (
	// LongSlack is ElasticFlow-LS: deadline = submit + LongSlackDeadline.
	LongSlack Variant = iota
	// Deadlines uses the jobs' own deadlines, never restarts a pending job
	// whose deadline has passed and, like the artifact (which runs it with its
	// deadline-aware option), refuses a doubling that would miss the
	// deadline under the adaptive-parallelism estimate.
	Deadlines
)

// LongSlackDeadline is the slack the artifact gives every job in the LS
// setting (ElasticFlow's "improvement in cluster efficiency" experiment).
const LongSlackDeadline = 1e9

// MaxShare is the largest GPU count ElasticFlow gives a job of at most 16
// GPUs (the artifact's MAX_SUPPORTED_GPU_NUM); a larger job's cap is its
// own count rounded down to a power of two (maxShare).
const MaxShare = 16

// maxShare is the largest share of j: MaxShare, or for a job asking for
// more, the largest power of two not above its request (shares stay
// powers of two, so they fill whole power-of-two nodes).
func maxShare(j *sim.Job) int {
	m := MaxShare
	for m*2 <= j.Spec.GPUs {
		m *= 2
	}
	return m
}

// ElasticFlow is the policy. Create it with New.
type ElasticFlow struct {
	variant Variant
	cluster *sim.Cluster
	// dp is the view decisions use (DP memory filter, unscaled fallbacks).
	dp estimator.Estimator
	// opt is the adaptive-parallelism view, used only by the plain
	// variant's deadline check of a doubling.
	opt estimator.Estimator
	// overhead is the reconfiguration cost the minimum-share deadline test
	// charges (the policy's own; artifact: unpruned 150 s/GPU, at most
	// 600 s).
	overhead sim.Overhead
	// check is what the plain variant's deadline-aware test of a doubling
	// charges a job submitted within the last round: in the artifact
	// Arena's pruned search (10 s per GPU, at most 40 s), a quirk of that
	// variant, which reuses Arena's check.
	check sim.Overhead
	// timedOut marks pending jobs whose deadline passed (plain variant):
	// they stay in the pending queue, as in the artifact, but are never
	// restarted.
	timedOut map[sim.JobID]bool
	// maxFits bounds the fits of a decision (WithMaxFits); 0: no bound.
	maxFits int
	// keep: the keeping re-placement (WithKeep); keptPlacements and
	// keepFallbacks count its re-placements that kept the jobs that need
	// not move and those that fell back to the whole re-placement.
	keep                          bool
	keptPlacements, keepFallbacks int

	// State kept between decisions: the running jobs' states in
	// running-queue order as the last decision left it (spare is the other
	// buffer), the GPU types' states and the plan's scratch.
	order, spare []*jobState
	types        []*typeState
	scratch      *plan
	stamp        uint64
	// exact disables the deferred re-placement (tests compare the two);
	// deferred and full count the admissions of either kind.
	exact          bool
	deferred, full int
	// checkHeld (tests) compares every held-place answer of actions
	// with the answer read from the job's GPUs, and panics on a
	// difference; noHeld (tests) reads the GPUs always; heldUsed counts
	// the held-place answers.
	checkHeld, noHeld bool
	heldUsed          int
	// ovhLo[k], ovhHi[k]: the least and most overhead of a quota of 1, 2,
	// …, 2^k GPUs (overheadRange), once ovhSet.
	ovhLo, ovhHi [estCache]float64
	ovhSet       bool
}

var _ sim.Policy = (*ElasticFlow)(nil)

// New returns ElasticFlow on cluster c deciding with src's data-parallel
// view; overhead is the reconfiguration cost of the minimum-share deadline
// test and check that of the doubling's deadline test (registry.Options
// resolves both in the run's overhead profile).
func New(c *sim.Cluster, src estimator.Source, v Variant, overhead, check sim.Overhead) *ElasticFlow {
	return &ElasticFlow{
		variant: v, cluster: c, overhead: overhead, check: check, timedOut: map[sim.JobID]bool{},
		dp:  src.View(estimator.ViewDataParallel),
		opt: src.View(estimator.ViewOptimal),
	}
}

// WithMaxFits bounds the work of a decision to n fits (0 = no bound, the
// published algorithm). A fit is one admission attempt: a minimum share
// for the job and every running job of its type, the doubling and the
// re-placement of the type, up to O(running jobs of the type) estimates
// and steps (a rejected fit, or an ElasticFlow-LS admission whose
// re-placement is deferred, costs the job's own share). Once n fits were tried, the restart pass stops and the remaining
// arrivals join the pending queue unfitted, to be fitted by a later
// restart pass (a round with departures). The order in which jobs are
// fitted is unchanged, so a bound no decision reaches changes nothing.
func (e *ElasticFlow) WithMaxFits(n int) *ElasticFlow {
	e.maxFits = n
	return e
}

// Name implements sim.Policy.
func (e *ElasticFlow) Name() string {
	if e.variant == LongSlack {
		return "elasticflow-ls"
	}
	return "elasticflow"
}

// IdleWhenQuiet implements sim.QuietRounds: a decision with no arrival and
// no ended job returns nothing (the plain variant's timed-out marks are
// taken again from the pending queue at the next call).
func (*ElasticFlow) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (its plan copies the slot table and running queue it edits).
func (*ElasticFlow) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy: (plain variant) mark pending jobs whose
// deadline has passed as timed out, then in rounds with departures a restart pass over the pending
// queue, then the new jobs in arrival order.
func (e *ElasticFlow) Schedule(v *sim.View) ([]sim.Action, error) {
	if e.variant == Deadlines {
		for _, j := range v.Pending {
			if float64(v.Now) > e.deadline(v, j) {
				e.timedOut[j.Spec.ID] = true
			}
		}
	}
	if v.Quiet() {
		return nil, nil
	}
	p := e.newPlan(v)
	fits := 0
	spent := func() bool { return e.maxFits > 0 && fits >= e.maxFits }
	// With faults, interruptions and node changes free or bring capacity
	// as departures do.
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		// Once every type of the cluster is blocked the rest of the
		// queue (tens of thousands of jobs on a long trace) can change
		// nothing: its jobs are skipped, or ask for a type the cluster
		// lacks, whose fit fails without effect. So the pass stops there.
		var blocked []string
		clusterBlocked := 0
		for _, j := range v.Pending {
			if clusterBlocked == len(v.Cluster.Types) || spent() {
				break
			}
			if slices.Contains(blocked, j.Spec.GPU) || (len(e.timedOut) > 0 && e.timedOut[j.Spec.ID]) {
				continue
			}
			fits++
			if !p.fit(j) {
				blocked = append(blocked, j.Spec.GPU)
				if v.Cluster.TotalGPUs(j.Spec.GPU) > 0 {
					clusterBlocked++
				}
			}
		}
	}
	for _, j := range v.Arrivals {
		if spent() {
			break
		}
		fits++
		p.fit(j)
	}
	for _, ts := range e.types {
		if !p.flush(ts) {
			return nil, fmt.Errorf("elasticflow: the deferred re-placement of %s failed (a job admitted to a type with uniform nodes could not be placed)", ts.gpu)
		}
	}
	return p.actions(), nil
}

// deadline is the deadline ElasticFlow plans with.
func (e *ElasticFlow) deadline(v *sim.View, j *sim.Job) float64 {
	if e.variant == Deadlines || (v.Timing == sim.Artifact && j.Deadline == 0) {
		// The engine's deadline; in artifact timing it is 0 when the
		// artifact's "no progress" quirk fired, which EF-LS sees too.
		return float64(j.Deadline)
	}
	return float64(j.SubmitTime) + LongSlackDeadline
}

// jobState is what the policy keeps of a running job: between decisions
// its DP estimates (static: the view's answer depends on the job's
// workload and the best-locality config alone), within one decision its
// GPUs and placement in the plan and its memoized minimum share.
type jobState struct {
	job *sim.Job
	id  sim.JobID // job.Spec.ID, kept here so actions reads no JobSpec
	ts  *typeState
	max int // maxShare(job)
	// est[k] is the DP estimate on 2^k GPUs, valid if bit k of have is set.
	est  [estCache]dpFigures
	have uint16
	// first is firstFeasible's answer, 0 until asked.
	first int
	// n is the GPUs the job holds in the plan (its quota: the overhead of
	// the minimum share's deadline test is priced on it).
	n int
	// moved: the job's type was re-placed in this decision, at is where.
	moved bool
	at    place
	// gpus (keep) is where the job's type's last re-placement in this
	// decision put it, when moved: the slots, ascending per node.
	gpus []int
	// held is the place the job's slots are in, as the actions of the
	// decision that last moved or started it gave them, valid if heldOK:
	// in a run without faults, whose types' nodes are the same every
	// decision, so the place names the same slots (actions compares it
	// with at instead of reading the job's GPUs from the engine).
	held   place
	heldOK bool
	// The minimum share memoized for the decision stamp and overhead.
	minStamp uint64
	minOvh   float64
	min      int
	minOK    bool
	// fixed: the minimum share is the same for every quota the job can
	// hold from now on (memoized for the decision stamp and quota n).
	fixedStamp uint64
	fixedN     int
	fixed      bool
	fixedMin   int
	fixedOK    bool
}

// estCache is how many power-of-two GPU counts (1 … 2^(estCache−1)) a
// jobState caches estimates for.
const estCache = 8

// place is a job's slots in a re-placement: k slots from slot first of one
// node, or (multi) the first capacity slots of each of the k nodes from
// position first of its type's available nodes.
type place struct {
	multi    bool
	first, k int
}

// typeState is one GPU type's part of a decision: its running jobs in
// running-queue order, its available GPUs and nodes, and the sum of the
// running jobs' minimum shares (admission compares it with the GPUs; it
// holds until the type is re-placed, which changes the jobs' quotas).
type typeState struct {
	gpu  string
	jobs []*jobState
	// total, nodes: the type's GPUs and nodes that take jobs (set once a
	// decision, when have is false).
	have     bool
	total    int
	nodes    []int
	capacity int
	// uniform: every available node holds capacity GPUs, a power of two
	// (a re-placement of shares that fit the GPUs then always succeeds).
	uniform bool
	// sum of the jobs' minimum shares and the count of jobs without one,
	// valid while haveSum; fixed: every job's minimum share is fixed
	// (jobState.fixed; only computed where deferral is possible).
	haveSum  bool
	sum, bad int
	fixed    bool
	// pending is the job of the last admission whose re-placement was
	// deferred (fit), nil if none.
	pending *jobState
}

// plan is one decision's working state: the running jobs by type, as the
// passes re-place them, and the jobs started, before they become actions.
type plan struct {
	ef      *ElasticFlow
	v       *sim.View
	stamp   uint64
	all     []*jobState // the running jobs in running-queue order
	started []*jobState
	// Scratch reused by every fit.
	cand  jobState
	list  []*jobState
	share []int
	heap  gainHeap
	order []int
	vals  []int
	cnt   []int
	out   []place
	// changed is actions' scratch: the running jobs whose slots change.
	changed []*jobState
	// keepPlace's scratch: the used slots of each node (by node index),
	// the nodes of the type being placed (mark = markStamp), the movers
	// (positions in the list), their shares, slots and starts.
	used                []uint64
	mark                []uint64
	markStamp           uint64
	movers, moverShares []int
	keepSlots, keepAt   []int
	keepOf              []int
}

// newPlan indexes the running jobs by type. The states of the jobs still
// running are the last decision's (the running queue keeps its order and
// appends the jobs started, so one cursor over the last order finds them);
// a job found out of order is looked up, a job not found gets a new state.
func (e *ElasticFlow) newPlan(v *sim.View) *plan {
	e.stamp++
	p := e.scratch
	if p == nil {
		p = &plan{}
		e.scratch = p
	}
	p.ef, p.v, p.stamp = e, v, e.stamp
	p.started = p.started[:0]
	for _, ts := range e.types {
		ts.jobs, ts.have, ts.haveSum, ts.pending = ts.jobs[:0], false, false, nil
	}
	prev := e.order
	all := e.spare[:0]
	var lookup map[*sim.Job]*jobState
	cur := 0
	for _, j := range v.Running {
		// The kept state in order is compared first: only the states
		// of jobs that left are read through to the job.
		for cur < len(prev) && prev[cur].job != j && prev[cur].job.Status != sim.Running {
			cur++
		}
		var st *jobState
		if cur < len(prev) && prev[cur].job == j {
			st = prev[cur]
			cur++
		} else {
			if lookup == nil {
				lookup = make(map[*sim.Job]*jobState, len(prev)-cur)
				for _, s := range prev[cur:] {
					lookup[s.job] = s
				}
			}
			if st = lookup[j]; st == nil {
				st = &jobState{job: j, id: j.Spec.ID, max: maxShare(j)}
			}
		}
		if st.ts == nil { // a kept state has its type: the job's requested one, for good
			st.ts = e.typeOf(j.Spec.GPU)
		}
		if !st.heldOK { // else n is the count of its held place's slots: its GPUs
			st.n = len(j.GPUs)
		}
		st.moved, st.minStamp = false, 0
		st.ts.jobs = append(st.ts.jobs, st)
		all = append(all, st)
	}
	clear(prev)
	e.order, e.spare = all, prev[:0]
	p.all = all
	return p
}

// typeOf is the decision's state of GPU type gpu.
func (e *ElasticFlow) typeOf(gpu string) *typeState {
	for _, ts := range e.types {
		if ts.gpu == gpu {
			return ts
		}
	}
	ts := &typeState{gpu: gpu}
	e.types = append(e.types, ts)
	return ts
}

// prepare sets the type's available GPUs and nodes for the decision: all
// of them in a run without faults.
func (p *plan) prepare(ts *typeState) {
	if ts.have {
		return
	}
	c := p.v.Cluster
	ts.have, ts.total, ts.nodes, ts.capacity = true, 0, ts.nodes[:0], c.NodeCapacity(ts.gpu)
	ts.uniform = ts.capacity > 0 && ts.capacity&(ts.capacity-1) == 0
	for _, n := range c.NodesOfType(ts.gpu) {
		if p.v.Available(n) { // faults: no job on a node down or draining
			ts.nodes = append(ts.nodes, n)
			ts.total += c.Nodes[n].Capacity
			ts.uniform = ts.uniform && c.Nodes[n].Capacity == ts.capacity
		}
	}
	if p.v.Nodes == nil {
		ts.total = c.TotalGPUs(ts.gpu)
	}
}

// dpFigures are the two figures of an estimate the policy reads (a
// jobState keeps eight of them: the running jobs' states stay small).
type dpFigures struct {
	thr, it float64 // Estimate.Throughput, Estimate.IterTime
}

// feasible is Estimate.Feasible.
func (f dpFigures) feasible() bool { return f.thr > 0 }

func figures(e estimator.Estimate) dpFigures { return dpFigures{e.Throughput, e.IterTime} }

// dpEstimate is the data-parallel estimate of x on n GPUs at best locality.
func (p *plan) dpEstimate(x *jobState, n int) dpFigures {
	j := x.job
	if n <= 0 || n&(n-1) != 0 || n >= 1<<estCache {
		return figures(p.ef.dp.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n)))
	}
	k := bits.TrailingZeros(uint(n))
	if x.have&(1<<k) == 0 {
		x.est[k] = figures(p.ef.dp.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n)))
		x.have |= 1 << k
	}
	return x.est[k]
}

// minShare is the smallest power-of-two GPU count (up to maxShare) that is
// DP-feasible and meets the job's deadline; ok is false if none does. It
// is memoized for the decision and the quota's overhead (everything else
// it reads is fixed while the plan lives).
func (p *plan) minShare(x *jobState) (int, bool) {
	if x.fixedStamp == p.stamp && x.fixed {
		// The quota moves among the shares fixedShare covered.
		return x.fixedMin, x.fixedOK
	}
	overhead := float64(p.ef.overhead.For(x.n))
	if x.minStamp == p.stamp && x.minOvh == overhead {
		return x.min, x.minOK
	}
	share, ok := p.minShareAt(x, overhead)
	x.minStamp, x.minOvh, x.min, x.minOK = p.stamp, overhead, share, ok
	return share, ok
}

// minShareAt is the minimum share of x if the deadline test charges
// overhead seconds.
func (p *plan) minShareAt(x *jobState, overhead float64) (int, bool) {
	j := x.job
	deadline := p.ef.deadline(p.v, j)
	for n := p.firstFeasible(x); n <= x.max; n *= 2 {
		it := p.dpEstimate(x, n).it
		if it >= estimator.InfeasibleIterTime {
			continue
		}
		finish := float64(p.v.Now) + overhead + float64(p.v.RoundLength) + math.Trunc(float64(j.Remaining)*it)
		if finish <= deadline {
			return n, true
		}
	}
	return 0, false
}

// firstFeasible is the smallest power of two that is DP-feasible for x
// (2·maxShare if none), cached: no share can be smaller.
func (p *plan) firstFeasible(x *jobState) int {
	if x.first == 0 {
		x.first = 1
		for x.first <= x.max && p.dpEstimate(x, x.first).it >= estimator.InfeasibleIterTime {
			x.first *= 2
		}
	}
	return x.first
}

// fixedShare reports whether x's minimum share is the same whatever quota
// it holds, in this decision, among its quota now and the shares it can
// be given (powers of two up to its maximum). The deadline test only gets
// harder as the overhead grows, so a share that is the same at the least
// and the most overhead of those quotas is the same at every one.
func (p *plan) fixedShare(x *jobState) bool {
	if x.fixedStamp == p.stamp && (x.fixed || x.fixedN == x.n) {
		return x.fixed
	}
	lo, hi := p.ef.overheadRange(x.max)
	o := float64(p.ef.overhead.For(x.n))
	lo, hi = min(lo, o), max(hi, o)
	s2, ok2 := p.minShareAt(x, hi)
	fixed := ok2 && s2 == p.firstFeasible(x) // no share can be smaller
	if !fixed {
		s1, ok1 := p.minShareAt(x, lo)
		fixed = s1 == s2 && ok1 == ok2
	}
	x.fixedStamp, x.fixedN, x.fixed, x.fixedMin, x.fixedOK = p.stamp, x.n, fixed, s2, ok2
	return fixed
}

// overheadRange is the least and the most overhead of a quota of 1, 2,
// 4, … up to maxShare m (memoized by log2 m: the overhead is the policy's).
func (e *ElasticFlow) overheadRange(m int) (lo, hi float64) {
	k := bits.Len(uint(m)) - 1
	if k < 0 || k >= len(e.ovhLo) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for n := 1; n <= m; n *= 2 {
			o := float64(e.overhead.For(n))
			lo, hi = min(lo, o), max(hi, o)
		}
		return lo, hi
	}
	if !e.ovhSet {
		e.ovhSet = true
		for i := range e.ovhLo {
			o := float64(e.overhead.For(1 << i))
			e.ovhLo[i], e.ovhHi[i] = o, o
			if i > 0 {
				e.ovhLo[i], e.ovhHi[i] = min(e.ovhLo[i-1], o), max(e.ovhHi[i-1], o)
			}
		}
	}
	return e.ovhLo[k], e.ovhHi[k]
}

// defers reports whether admissions to ts may defer their re-placement:
// only ElasticFlow-LS reads no quota but in minimum shares (the plain
// variant's doubling test reads it too), and only uniform nodes guarantee
// that a re-placement of admitted shares succeeds.
func (p *plan) defers(ts *typeState) bool {
	return p.ef.variant == LongSlack && !p.ef.exact && ts.uniform
}

// sums sets the sum of the minimum shares of the type's running jobs.
func (p *plan) sums(ts *typeState) {
	if ts.haveSum {
		return
	}
	ts.haveSum, ts.sum, ts.bad, ts.fixed = true, 0, 0, p.defers(ts)
	for _, x := range ts.jobs {
		ts.fixed = ts.fixed && p.fixedShare(x) // first: a fixed share is the minimum share
		if s, ok := p.minShare(x); ok {
			ts.sum += s
		} else {
			ts.bad++
		}
	}
}

// gain is the DP throughput gained by doubling x from n GPUs, or
// InfeasibleThroughput if the doubled config is infeasible.
func (p *plan) gain(x *jobState, n int) float64 {
	if p.ef.variant == Deadlines && !p.meetsDeadlineAP(x, 2*n) {
		return estimator.InfeasibleThroughput
	}
	next := p.dpEstimate(x, 2*n)
	if !next.feasible() {
		return estimator.InfeasibleThroughput
	}
	prev := p.dpEstimate(x, n)
	if !prev.feasible() {
		return next.thr - estimator.InfeasibleThroughput
	}
	return next.thr - prev.thr
}

// meetsDeadlineAP is the artifact's deadline-aware test that the plain
// variant applies to a doubling: with the adaptive-parallelism iteration
// time, and as overhead the pruned search cost for a job submitted within
// the last round, else the job's outstanding time debt.
func (p *plan) meetsDeadlineAP(x *jobState, n int) bool {
	j := x.job
	it := p.ef.opt.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n)).IterTime
	if it >= estimator.InfeasibleIterTime {
		return false
	}
	var overhead float64
	if p.v.Now.Sub(j.SubmitTime) <= p.v.RoundLength {
		overhead = float64(p.ef.check.For(x.n))
	} else {
		overhead = float64(j.TimeDebt)
	}
	finish := float64(p.v.Now) + overhead + float64(p.v.RoundLength) + math.Trunc(float64(j.Remaining)*it)
	return finish <= p.ef.deadline(p.v, j)
}

// fit runs admission, allocation and re-placement for job j (pending or
// arriving) against the plan's state and applies the result if every job
// of j's type can be placed. It reports whether j was started.
//
// Admission takes j and the running jobs of its type by deadline and
// fails at the first without a minimum share or whose share exceeds what
// the ones before left of the type's GPUs. Shares are at least 1, so what
// is left only shrinks, and the test fails exactly when some job has no
// share or the shares add up to more than the GPUs, whatever the order:
// the running jobs' sum is kept for the decision (a failed fit changes
// nothing, so it costs j's share alone) until a fit re-places the type.
func (p *plan) fit(j *sim.Job) bool {
	ts := p.ef.typeOf(j.Spec.GPU)
	p.prepare(ts)
	x := &p.cand
	est, have, first := x.est, x.have, x.first
	if x.job != j {
		have, first = 0, 0
	}
	*x = jobState{job: j, id: j.Spec.ID, ts: ts, max: maxShare(j), n: j.Spec.GPUs, est: est, have: have, first: first}
	m, ok := p.minShare(x)
	if !ok || m > ts.total {
		return false
	}
	p.sums(ts)
	if ts.bad > 0 || ts.sum+m > ts.total {
		return false
	}
	st := new(jobState)
	*st = *x
	x.job = nil
	if ts.fixed && p.fixedShare(st) {
		// Every minimum share of the type is fixed: the next admission's
		// test and allocation read nothing this re-placement would write
		// (they restart from the minimum shares; the quotas it sets change
		// no share), so only the type's last admission of the decision
		// needs its re-placement (flush).
		ts.jobs = append(ts.jobs, st)
		ts.sum += m
		ts.pending = st
		p.started = append(p.started, st)
		p.ef.deferred++
		return true
	}
	if !p.flush(ts) {
		return false
	}
	ts.jobs = append(ts.jobs, st)
	if !p.allocate(ts) {
		// Cannot happen when every node of the type has the same power-of-
		// two capacity (shares are powers of two summing to at most the
		// total); on a cluster mixing node sizes the job simply pends.
		ts.jobs = ts.jobs[:len(ts.jobs)-1]
		return false
	}
	ts.haveSum = false
	p.started = append(p.started, st)
	p.ef.full++
	return true
}

// flush makes the deferred re-placement of ts, if any: the allocation of
// its last admission. It reports false if that fails, which uniform nodes
// rule out.
func (p *plan) flush(ts *typeState) bool {
	if ts.pending == nil {
		return true
	}
	ts.pending = nil
	return p.allocate(ts)
}

// allocate is the allocation and re-placement of an admission: the job
// admitted is the type's last, the list is it then the others in running
// order. Minimum shares, then repeated doubling of the job with the
// largest gain (strictly larger wins; a negative gain still counts), then
// the re-placement. It applies the result unless a job is left unplaced.
func (p *plan) allocate(ts *typeState) bool {
	n := len(ts.jobs)
	list := append(append(p.list[:0], ts.jobs[n-1]), ts.jobs[:n-1]...)
	share := p.share[:0]
	free := ts.total
	for _, y := range list {
		s, _ := p.minShare(y)
		share = append(share, s)
		free -= s
	}
	p.list, p.share = list, share
	p.double(list, share, free)
	if p.ef.keep {
		return p.keepPlace(ts, list, share) || p.replaceKeep(ts, list, share)
	}
	out, ok := p.replace(ts, share)
	if !ok {
		return false
	}
	for i, y := range list {
		y.moved, y.at = true, out[i]
		y.n = out[i].k
		if out[i].multi {
			y.n *= ts.capacity
		}
	}
	return true
}

// double is the greedy doubling: while GPUs are free, double the share of
// the job with the largest gain among those whose share still fits the
// free GPUs and is below its maximum share (strictly larger wins, so the
// earliest in list on ties; a gain of InfeasibleThroughput never wins).
//
// The artifact rescans every job for every doubling; here the candidates
// sit in a heap ordered by (gain, position) and only the doubled job's gain
// is recomputed (a gain depends on the job and its share alone). A job
// whose share exceeds the free GPUs, or reached its maximum, can never
// become eligible again (free only shrinks, a share only grows), so it
// leaves the heap: when it reaches the top, or at once when its own
// doubling made it so (its gain is then not asked: with tiers about a
// quarter of the doublings end a job's growth). The heap's order is a
// total order on (gain, position), so which eligible job is on top does
// not depend on when the others left. The choices are the artifact's, in
// O(doublings · log jobs) (TestDoubleIsTheRescan).
func (p *plan) double(list []*jobState, share []int, free int) {
	if free <= 0 {
		return
	}
	h := p.heap[:0]
	for i, x := range list {
		if share[i] < x.max && share[i] <= free {
			h = append(h, gainEntry{i, p.gain(x, share[i])})
		}
	}
	h.init()
	for free > 0 && len(h) > 0 {
		top := h[0]
		if share[top.i] > free || share[top.i] >= list[top.i].max {
			h.pop()
			continue
		}
		if !(top.gain > estimator.InfeasibleThroughput) {
			break
		}
		free -= share[top.i]
		share[top.i] *= 2
		if share[top.i] >= list[top.i].max || share[top.i] > free {
			// It can double no more (free only shrinks): out now, without
			// the gain of a share it will never double from.
			h.pop()
			continue
		}
		h[0].gain = p.gain(list[top.i], share[top.i])
		h.fix0()
	}
	p.heap = h
}

type gainEntry struct {
	i    int
	gain float64
}

// gainHeap is a max-heap on gain, then min on position. Its init, pop
// and fix0 are container/heap's Init, Pop and Fix(h, 0) with the sift
// steps written out (no interface call per comparison and swap, the
// element carried down instead of swapped at each step): the same
// comparisons and the same layout (TestGainHeapIsContainerHeap).
type gainHeap []gainEntry

// before reports whether a comes out of the heap before b.
func before(a, b *gainEntry) bool {
	if a.gain != b.gain {
		return a.gain > b.gain
	}
	return a.i < b.i
}

// down is container/heap's down: element i0 sifted down among h[:n];
// whether it moved.
func (h gainHeap) down(i0, n int) bool {
	x := h[i0]
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && before(&h[j2], &h[j1]) {
			j = j2
		}
		if !before(&h[j], &x) {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = x
	return i > i0
}

// up is container/heap's up: element j sifted up.
func (h gainHeap) up(j int) {
	x := h[j]
	for {
		i := (j - 1) / 2 // parent
		if i == j || !before(&x, &h[i]) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = x
}

// init is heap.Init.
func (h gainHeap) init() {
	n := len(h)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

// pop is heap.Pop, the entry dropped.
func (h *gainHeap) pop() {
	n := len(*h) - 1
	(*h)[0], (*h)[n] = (*h)[n], (*h)[0]
	h.down(0, n)
	*h = (*h)[:n]
}

// fix0 is heap.Fix(h, 0).
func (h gainHeap) fix0() {
	if !h.down(0, len(h)) {
		h.up(0)
	}
}

func (h gainHeap) Len() int { return len(h) }
func (h gainHeap) Less(a, b int) bool {
	if h[a].gain != h[b].gain {
		return h[a].gain > h[b].gain
	}
	return h[a].i < h[b].i
}
func (h gainHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *gainHeap) Push(x any)   { *h = append(*h, x.(gainEntry)) }
func (h *gainHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// replace computes where every job of the type goes (share[i] for the
// i-th job of the list), on the type's available nodes, all of them
// treated as idle (the type's running jobs are all in the list): jobs
// stably sorted by share, most first; those larger than a node take the
// first whole nodes in node order; then each remaining node, in node
// order, is filled by walking the sorted list. ok is false if a job is
// left unplaced. The result is the plan's scratch, valid until the next call.
func (p *plan) replace(ts *typeState, share []int) ([]place, bool) {
	c := p.v.Cluster
	capacity := ts.capacity
	order := p.sortByShare(share)
	out := slices.Grow(p.out[:0], len(share))[:len(share)]
	p.out = out
	nodes := ts.nodes
	pos := 0
	placed := 0
	k := 0
	for ; k < len(order) && share[order[k]] > capacity; k++ {
		i := order[k]
		need := share[i] / capacity
		if need > len(nodes)-pos {
			return nil, false
		}
		for _, n := range nodes[pos : pos+need] {
			if c.Nodes[n].Capacity < capacity {
				return nil, false
			}
		}
		out[i] = place{multi: true, first: pos, k: need}
		pos += need
		placed++
	}
	// Each node walks the sorted list from its start and takes every job
	// not yet placed that fits in what the node has left. The list is
	// sorted by share, most first, so the job such a walk takes next is
	// the first unplaced one of the largest share that fits (an unplaced
	// job the walk passed had a larger share than was left, or it would
	// have been taken): with the jobs grouped by share, a node costs the
	// groups and its placements, not a walk of the whole list (which made
	// the fill O(nodes × jobs)).
	type group struct {
		share     int
		head, end int // order[head:end] are the group's unplaced jobs
	}
	var groupBuf [8]group
	groups := groupBuf[:0]
	for x := k; x < len(order); x++ {
		if len(groups) == 0 || groups[len(groups)-1].share != share[order[x]] {
			groups = append(groups, group{share: share[order[x]], head: x})
		}
		groups[len(groups)-1].end = x + 1
	}
	for _, n := range nodes[pos:] {
		if placed == len(share) {
			break
		}
		node := c.Nodes[n]
		used := 0
		for used < node.Capacity {
			g := -1
			for x := range groups {
				if groups[x].head < groups[x].end && groups[x].share <= node.Capacity-used {
					g = x
					break
				}
			}
			if g < 0 {
				break
			}
			i := order[groups[g].head]
			groups[g].head++
			out[i] = place{first: node.FirstSlot + used, k: share[i]}
			placed++
			used += share[i]
		}
	}
	return out, placed == len(share)
}

// sortByShare returns the indices of share stably sorted by share, most
// first: a counting sort over the few distinct shares (powers of two).
func (p *plan) sortByShare(share []int) []int {
	vals := p.vals[:0]
	for _, s := range share {
		if !slices.Contains(vals, s) {
			vals = append(vals, s)
		}
	}
	slices.SortFunc(vals, func(a, b int) int { return b - a })
	p.vals = vals
	cnt := slices.Grow(p.cnt[:0], len(vals)+1)[:len(vals)+1]
	clear(cnt)
	for _, s := range share {
		cnt[slices.Index(vals, s)+1]++
	}
	for b := 1; b < len(cnt); b++ {
		cnt[b] += cnt[b-1]
	}
	order := slices.Grow(p.order[:0], len(share))[:len(share)]
	for i, s := range share {
		b := slices.Index(vals, s)
		order[cnt[b]] = i
		cnt[b]++
	}
	p.cnt, p.order = cnt, order
	return order
}

// slots are the slots of a placement of type ts, cut from the front of
// buf (which has room for them); rest is the rest of buf.
func (p *plan) slots(ts *typeState, at place, buf []int) (gpus, rest []int) {
	c := p.v.Cluster
	cnt := at.slotCount(ts)
	out := buf[:0:cnt] // capped: an append to it cannot reach the next job's
	if !at.multi {
		for x := range cnt {
			out = append(out, at.first+x)
		}
		return out, buf[cnt:]
	}
	for _, n := range ts.nodes[at.first : at.first+at.k] {
		for s := c.Nodes[n].FirstSlot; s < c.Nodes[n].FirstSlot+ts.capacity; s++ {
			out = append(out, s)
		}
	}
	return out, buf[cnt:]
}

// slotCount is the number of GPU slots of placement at.
func (at place) slotCount(ts *typeState) int {
	if !at.multi {
		return at.k
	}
	return at.k * ts.capacity
}

// holds reports whether gpus (distinct slots, as the engine keeps them)
// are the slots of placement at.
func (p *plan) holds(gpus []int, ts *typeState, at place) bool {
	if !at.multi {
		if len(gpus) != at.k {
			return false
		}
		for _, s := range gpus {
			if s < at.first || s >= at.first+at.k {
				return false
			}
		}
		return true
	}
	if len(gpus) != at.k*ts.capacity {
		return false
	}
	nodes := ts.nodes[at.first : at.first+at.k]
	for _, s := range gpus {
		in := false
		for _, n := range nodes {
			if f := p.v.Cluster.Nodes[n].FirstSlot; s >= f && s < f+ts.capacity {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// stays reports whether moved job x's place in the plan (x.at) is the
// slots it holds: its held place's when that is known (keep, heldOK:
// two places of one type name the same slots exactly when they are
// equal, a single node's place holding at most a node's capacity and a
// multi-node place more), else by reading its GPUs (holds). It records
// x.at as the held place.
func (p *plan) stays(x *jobState, keep bool) bool {
	var same bool
	if keep && x.heldOK {
		same = x.held == x.at
		p.ef.heldUsed++
	} else {
		same = p.holds(x.job.GPUs, x.ts, x.at)
	}
	if p.ef.checkHeld && keep && x.heldOK && same != p.holds(x.job.GPUs, x.ts, x.at) {
		panic(fmt.Sprintf("elasticflow: job %d's held place %+v and its GPUs %v disagree on %+v", x.id, x.held, x.job.GPUs, x.at))
	}
	x.held, x.heldOK = x.at, keep
	return same
}

// actions turns the plan into the decision's actions: Reallocate for
// running jobs whose slots changed, then Start for jobs started (in the
// order they started, which becomes their running-queue order), and
// records the running order for the next decision.
//
// The jobs whose slots change are found first, so that the actions and
// their slot lists are allocated once each (a decision at 1M jobs moves
// thousands of jobs: one append's regrowth and one slice per job cost more
// than the comparisons).
func (p *plan) actions() []sim.Action {
	if p.ef.keep {
		return p.keepActions()
	}
	moved, slots := p.changed[:0], 0
	keep := p.v.Nodes == nil && !p.ef.noHeld // no faults: a place names the same slots every decision
	for _, x := range p.all {
		if x.moved && !p.stays(x, keep) {
			moved = append(moved, x)
			slots += x.at.slotCount(x.ts)
		}
	}
	p.changed = moved
	for _, x := range p.started {
		slots += x.at.slotCount(x.ts)
		x.held, x.heldOK = x.at, keep
	}
	if len(moved)+len(p.started) == 0 {
		p.ef.order = append(p.ef.order, p.started...)
		return nil
	}
	out := make([]sim.Action, 0, len(moved)+len(p.started))
	buf := make([]int, slots)
	for _, x := range moved {
		var gpus []int
		gpus, buf = p.slots(x.ts, x.at, buf)
		out = append(out, sim.Action{Kind: sim.Reallocate, Job: x.id, GPUs: gpus})
	}
	clear(moved) // the next decision's scratch holds no job
	for _, x := range p.started {
		var gpus []int
		gpus, buf = p.slots(x.ts, x.at, buf)
		out = append(out, sim.Action{Kind: sim.Start, Job: x.id, GPUs: gpus})
	}
	p.ef.order = append(p.ef.order, p.started...)
	return out
}
