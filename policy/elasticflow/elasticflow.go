package elasticflow

import (
	"container/heap"
	"math"
	"slices"
	"sort"

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
// re-placement of the type, O(running jobs of the type) estimates and
// steps. Once n fits were tried, the restart pass stops and the remaining
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
	p := newPlan(e, v)
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

// plan is one round's working state: the slot table and running queue as
// the passes change them, before they become actions.
type plan struct {
	ef      *ElasticFlow
	v       *sim.View
	occ     []sim.JobID
	running []*sim.Job
	// slots holds the current slots of every running job.
	slots   map[sim.JobID][]int
	started []*sim.Job
	// dp memoizes dpEstimate by job and GPU count within the decision
	// (admission re-checks every running job of the type per arrival;
	// the view, hence every estimate, is fixed while the plan lives).
	dp map[uint64]estimator.Estimate
}

func newPlan(e *ElasticFlow, v *sim.View) *plan {
	p := &plan{
		ef: e, v: v,
		occ:     append([]sim.JobID(nil), v.Occupant...),
		running: append([]*sim.Job(nil), v.Running...),
		slots:   make(map[sim.JobID][]int, len(v.Running)),
		dp:      map[uint64]estimator.Estimate{},
	}
	for _, j := range v.Running {
		p.slots[j.Spec.ID] = j.GPUs
	}
	return p
}

// currentGPUs is the job's quota as the artifact sees it mid-round: its
// current allocation if running, else the user's request (EF never
// preempts, so a pending job has never run).
func (p *plan) currentGPUs(j *sim.Job) int {
	if s, ok := p.slots[j.Spec.ID]; ok {
		return len(s)
	}
	return j.Spec.GPUs
}

// availableGPUs is the type's GPUs on nodes that take jobs: all of them
// in a run without faults.
func (p *plan) availableGPUs(gpu string) int {
	if p.v.Nodes == nil {
		return p.v.Cluster.TotalGPUs(gpu)
	}
	n := 0
	for _, i := range p.v.Cluster.NodesOfType(gpu) {
		if p.v.Available(i) {
			n += p.v.Cluster.Nodes[i].Capacity
		}
	}
	return n
}

// dpEstimate is the data-parallel estimate of j on n GPUs at best locality.
func (p *plan) dpEstimate(j *sim.Job, n int) estimator.Estimate {
	if n < 0 || n >= 1<<32 {
		return p.ef.dp.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n))
	}
	k := uint64(uint32(j.Spec.ID))<<32 | uint64(n)
	if e, ok := p.dp[k]; ok {
		return e
	}
	e := p.ef.dp.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n))
	p.dp[k] = e
	return e
}

// minShare is the smallest power-of-two GPU count (up to MaxShare) that is
// DP-feasible and meets the job's deadline; ok is false if none does.
func (p *plan) minShare(j *sim.Job) (int, bool) {
	deadline := p.ef.deadline(p.v, j)
	overhead := float64(p.ef.overhead.For(p.currentGPUs(j)))
	for n := 1; n <= maxShare(j); n *= 2 {
		it := p.dpEstimate(j, n).IterTime
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

// gain is the DP throughput gained by doubling j from n GPUs, or
// InfeasibleThroughput if the doubled config is infeasible.
func (p *plan) gain(j *sim.Job, n int) float64 {
	if p.ef.variant == Deadlines && !p.meetsDeadlineAP(j, 2*n) {
		return estimator.InfeasibleThroughput
	}
	next := p.dpEstimate(j, 2*n)
	if !next.Feasible() {
		return estimator.InfeasibleThroughput
	}
	prev := p.dpEstimate(j, n)
	if !prev.Feasible() {
		return next.Throughput - estimator.InfeasibleThroughput
	}
	return next.Throughput - prev.Throughput
}

// meetsDeadlineAP is the artifact's deadline-aware test that the plain
// variant applies to a doubling: with the adaptive-parallelism iteration
// time, and as overhead the pruned search cost for a job submitted within
// the last round, else the job's outstanding time debt.
func (p *plan) meetsDeadlineAP(j *sim.Job, n int) bool {
	it := p.ef.opt.Estimate(j.Spec.Workload, placement.Best(p.v.Cluster, j.Spec.GPU, n)).IterTime
	if it >= estimator.InfeasibleIterTime {
		return false
	}
	var overhead float64
	if p.v.Now.Sub(j.SubmitTime) <= p.v.RoundLength {
		overhead = float64(p.ef.check.For(p.currentGPUs(j)))
	} else {
		overhead = float64(j.TimeDebt)
	}
	finish := float64(p.v.Now) + overhead + float64(p.v.RoundLength) + math.Trunc(float64(j.Remaining)*it)
	return finish <= p.ef.deadline(p.v, j)
}

// fit runs admission, allocation and re-placement for job j (pending or
// arriving) against the plan's state and applies the result if every job
// of j's type can be placed. It reports whether j was started.
func (p *plan) fit(j *sim.Job) bool {
	gpu := j.Spec.GPU
	total := p.availableGPUs(gpu)
	var ofType []*sim.Job
	for _, r := range p.running {
		if r.Spec.GPU == gpu {
			ofType = append(ofType, r)
		}
	}

	// Admission: by deadline, everyone's minimum share out of the type's
	// total GPUs.
	byDeadline := append(append([]*sim.Job(nil), ofType...), j)
	sort.SliceStable(byDeadline, func(a, b int) bool {
		return p.ef.deadline(p.v, byDeadline[a]) < p.ef.deadline(p.v, byDeadline[b])
	})
	left := total
	for _, x := range byDeadline {
		s, ok := p.minShare(x)
		if !ok || s > left {
			return false
		}
		left -= s
	}

	// Allocation: minimum shares, then repeated doubling of the job with
	// the largest gain (strictly larger wins; a negative gain still counts).
	list := append([]*sim.Job{j}, ofType...)
	share := make([]int, len(list))
	free := total
	for i, x := range list {
		share[i], _ = p.minShare(x)
		free -= share[i]
	}
	p.double(list, share, free)

	newSlots, ok := p.replace(gpu, list, share)
	if !ok {
		// Cannot happen when every node of the type has the same power-of-
		// two capacity (shares are powers of two summing to at most the
		// total); on a cluster mixing node sizes the job simply pends.
		return false
	}
	for _, n := range p.v.Cluster.NodesOfType(gpu) {
		node := p.v.Cluster.Nodes[n]
		free := sim.NoJob
		if !p.v.Available(n) {
			free = sim.Unavailable
		}
		for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
			p.occ[s] = free
		}
	}
	for i, x := range list {
		for _, s := range newSlots[i] {
			p.occ[s] = x.Spec.ID
		}
		p.slots[x.Spec.ID] = newSlots[i]
	}
	p.running = append(p.running, j)
	p.started = append(p.started, j)
	return true
}

// double is the greedy doubling: while GPUs are free, double the share of
// the job with the largest gain among those whose share still fits the
// free GPUs and is below MaxShare (strictly larger wins, so the earliest in
// list on ties; a gain of InfeasibleThroughput never wins).
//
// The artifact rescans every job for every doubling; here the candidates
// sit in a heap ordered by (gain, position) and only the doubled job's gain
// is recomputed (a gain depends on the job and its share alone). A job
// whose share exceeds the free GPUs, or reached MaxShare, can never become
// eligible again (free only shrinks, a share only grows), so it leaves the
// heap. The choices are the artifact's, in O(doublings · log jobs).
func (p *plan) double(list []*sim.Job, share []int, free int) {
	h := make(gainHeap, 0, len(list))
	for i, x := range list {
		if share[i] < maxShare(x) {
			h = append(h, gainEntry{i, p.gain(x, share[i])})
		}
	}
	heap.Init(&h)
	for free > 0 && len(h) > 0 {
		top := h[0]
		if share[top.i] > free || share[top.i] >= maxShare(list[top.i]) {
			heap.Pop(&h)
			continue
		}
		if !(top.gain > estimator.InfeasibleThroughput) {
			break
		}
		free -= share[top.i]
		share[top.i] *= 2
		h[0].gain = p.gain(list[top.i], share[top.i])
		heap.Fix(&h, 0)
	}
}

type gainEntry struct {
	i    int
	gain float64
}

// gainHeap is a max-heap on gain, then min on position.
type gainHeap []gainEntry

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

// replace computes the slots of every job of list on the nodes of type gpu,
// all of which are treated as idle (the type's running jobs are all in
// list): jobs stably sorted by share, most first; those larger than a node
// take the first whole nodes in node order; then each remaining node, in
// node order, is filled by walking the sorted list. ok is false if a job is
// left unplaced.
func (p *plan) replace(gpu string, list []*sim.Job, share []int) ([][]int, bool) {
	c := p.v.Cluster
	capacity := c.NodeCapacity(gpu)
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return share[order[a]] > share[order[b]] })

	var nodes []int
	for _, n := range c.NodesOfType(gpu) {
		if p.v.Available(n) { // faults: no job on a node down or draining
			nodes = append(nodes, n)
		}
	}
	used := make(map[int]int, len(nodes)) // node → slots taken so far
	take := func(n, q int) []int {
		node := c.Nodes[n]
		if node.Capacity-used[n] < q {
			return nil
		}
		first := node.FirstSlot + used[n]
		used[n] += q
		out := make([]int, q)
		for k := range out {
			out[k] = first + k
		}
		return out
	}
	slots := make([][]int, len(list))
	placed := 0
	k := 0
	for ; k < len(order) && share[order[k]] > capacity; k++ {
		i := order[k]
		need := share[i] / capacity
		if need > len(nodes) {
			return nil, false
		}
		for _, n := range nodes[:need] {
			got := take(n, capacity)
			if got == nil {
				return nil, false
			}
			slots[i] = append(slots[i], got...)
		}
		nodes = nodes[need:]
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
		share int
		jobs  []int // list indices, in sorted order
		head  int   // jobs[:head] are placed
	}
	var groups []group
	for _, i := range order[k:] {
		if len(groups) == 0 || groups[len(groups)-1].share != share[i] {
			groups = append(groups, group{share: share[i]})
		}
		g := &groups[len(groups)-1]
		g.jobs = append(g.jobs, i)
	}
	for _, n := range nodes {
		left := c.Nodes[n].Capacity - used[n]
		for left > 0 {
			g := -1
			for x := range groups {
				if groups[x].head < len(groups[x].jobs) && groups[x].share <= left {
					g = x
					break
				}
			}
			if g < 0 {
				break
			}
			i := groups[g].jobs[groups[g].head]
			groups[g].head++
			slots[i] = take(n, share[i])
			placed++
			left -= share[i]
		}
	}
	return slots, placed == len(list)
}

// actions turns the plan into the round's actions: Start for jobs started
// (in the order they started, which becomes their running-queue order) and
// Reallocate for running jobs whose slots changed.
func (p *plan) actions() []sim.Action {
	var out []sim.Action
	for _, j := range p.v.Running {
		if now := p.slots[j.Spec.ID]; !sim.SameGPUs(j.GPUs, now) {
			out = append(out, sim.Action{Kind: sim.Reallocate, Job: j.Spec.ID, GPUs: now})
		}
	}
	for _, j := range p.started {
		out = append(out, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: p.slots[j.Spec.ID]})
	}
	return out
}
