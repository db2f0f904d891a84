package srtf

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/arena-sim/arena/policy/preemptive"
	"github.com/arena-sim/arena/sim"
)

// entry is a waiting job in a heap, with its key when it was pushed.
type entry struct {
	r      float64
	submit sim.Time
	id     sim.JobID
	seq    uint64
}

// lessEntry is less on entries.
func lessEntry(a, b entry) bool {
	if a.r != b.r {
		return a.r < b.r
	}
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	return a.id < b.id
}

// pbucket is the heap of the waiting jobs of one GPU type and count.
type pbucket struct {
	gpus int
	h    []entry
}

func (b *pbucket) push(e entry) {
	b.h = append(b.h, e)
	for i := len(b.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !lessEntry(b.h[i], b.h[p]) {
			break
		}
		b.h[i], b.h[p] = b.h[p], b.h[i]
		i = p
	}
}

func (b *pbucket) pop() entry {
	top := b.h[0]
	n := len(b.h) - 1
	b.h[0] = b.h[n]
	b.h[n] = entry{}
	b.h = b.h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && lessEntry(b.h[r], b.h[l]) {
			m = r
		}
		if !lessEntry(b.h[m], b.h[i]) {
			break
		}
		b.h[i], b.h[m] = b.h[m], b.h[i]
		i = m
	}
	return top
}

// state returns job id's record, growing the table.
func (s *SRTF) state(id sim.JobID) *jobState {
	if int(id) >= len(s.jobs) {
		s.jobs = append(s.jobs, make([]jobState, int(id)+1-len(s.jobs))...)
	}
	return &s.jobs[id]
}

// bucket returns the heap of GPU type gpu and count n, adding it (a type's
// heaps stay ordered by count).
func (s *SRTF) bucket(gpu string, n int) *pbucket {
	bs := &s.byType[s.gpuIndex(gpu)]
	i, found := slices.BinarySearchFunc(*bs, n, func(b pbucket, n int) int { return cmp.Compare(b.gpus, n) })
	if !found {
		*bs = slices.Insert(*bs, i, pbucket{gpus: n})
	}
	return &(*bs)[i]
}

// push gives waiting job j (key r) a new heap entry; its old one, if
// any, is no longer current.
func (s *SRTF) push(j *sim.Job, st *jobState, r float64) {
	s.seq++
	st.seq, st.key, st.job = s.seq, r, j
	s.bucket(j.Spec.GPU, j.Spec.GPUs).push(entry{r, j.SubmitTime, j.Spec.ID, s.seq})
}

// current reports whether e is its job's current entry.
func (s *SRTF) current(e entry) bool { return s.jobs[e.id].seq == e.seq }

// incremental is the incremental decision; false (with nothing decided)
// when the decision must take the whole-View path.
func (s *SRTF) incremental(v *sim.View) ([]sim.Action, bool) {
	c := v.Cluster
	if !s.dirty && !s.follow(v) {
		s.dirty = true
	}
	if s.dirty && !s.rebuild(v) {
		return nil, false
	}
	// The running jobs, keyed now (their remaining time changes as they
	// run), sorted below.
	now := int32(s.decisions)
	for _, j := range v.Running {
		st := s.state(j.Spec.ID)
		if st.runAt == now || j.Status != sim.Running {
			return nil, false // twice in the View, or not running
		}
		st.runAt, st.key, st.job = now, s.runningTime(j, st), j
		if st.key != st.key {
			return nil, false
		}
	}
	// The arrivals: drops, and heap entries for the others.
	var drops []sim.Action
	arrived := s.arrived[:0]
	for _, j := range v.Arrivals {
		if !preemptive.Runnable(c, s.est, j) {
			drops = append(drops, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible at best locality on the requested GPUs"})
			continue
		}
		st := s.state(j.Spec.ID)
		r := s.RemainingTime(c, j)
		if r != r || st.seq >= s.seqBase || st.mirror == s.gen {
			s.dirty = true // NaN, or a job already in the View
			return nil, false
		}
		s.push(j, st, r)
		arrived = append(arrived, j)
	}
	s.arrived = arrived
	s.sortRunning(v)
	s.sorted = s.sorted[:0] // orderLive's last order is no longer the last

	s.sched.Begin()
	starts := s.starts[:0]
	taken := s.taken[:0]
	for _, name := range c.Types {
		left := v.UsableGPUs(name)
		g := slices.Index(s.gpus, name)
		if left <= 0 {
			continue
		}
		var bs []pbucket
		if g >= 0 {
			bs = s.byType[g]
		}
		// heads[b] is bucket b's least current entry, popped (ok false:
		// none); taken keeps every entry popped, pushed back after.
		type head struct {
			e  entry
			ok bool
		}
		heads := make([]head, len(bs))
		next := func(b int) {
			heads[b].ok = false
			for len(bs[b].h) > 0 {
				e := bs[b].pop()
				if !s.current(e) {
					continue
				}
				taken = append(taken, e)
				heads[b] = head{e, true}
				return
			}
		}
		for b := range bs {
			if bs[b].gpus <= left {
				next(b)
			}
		}
		var run []keyed // the running jobs of this type, in order
		if g >= 0 {
			run = s.runBy[g]
		}
		ri := 0
		for left > 0 {
			for ri < len(run) && run[ri].job.Spec.GPUs > left {
				ri++
			}
			best := -1
			for b := range bs {
				if heads[b].ok && bs[b].gpus <= left && (best < 0 || lessEntry(heads[b].e, heads[best].e)) {
					best = b
				}
			}
			if best >= 0 && ri < len(run) && less(run[ri], keyed{heads[best].e.r, s.jobs[heads[best].e.id].job}) {
				best = -1
			}
			switch {
			case best >= 0:
				e := heads[best].e
				left -= bs[best].gpus
				starts = append(starts, keyed{e.r, s.jobs[e.id].job})
				next(best)
			case ri < len(run):
				left -= run[ri].job.Spec.GPUs
				s.sched.Keep(run[ri].job.Spec.ID)
				ri++
			default:
				left = 0 // nothing left that fits
			}
		}
	}
	// Every entry popped goes back (a job started leaves its heap when it
	// leaves the pending queue).
	for _, e := range taken {
		j := s.jobs[e.id].job
		s.bucket(j.Spec.GPU, j.Spec.GPUs).push(e)
	}
	s.taken = taken[:0]
	slices.SortFunc(starts, func(a, b keyed) int {
		if less(a, b) {
			return -1
		}
		return 1
	})
	s.starts = starts
	jobs := make([]*sim.Job, len(starts))
	for i, k := range starts {
		jobs[i] = k.job
	}
	return append(drops, s.sched.Act(v, s.est, jobs)...), true
}

// follow brings the heaps to the View's pending queue: it is the last
// one with some jobs gone (started, or hidden by a wrapper) and jobs
// joined at its end (arrivals not started, suspended or interrupted
// jobs), compared pointer by pointer in order. A job gone loses its heap
// entry; a job joined gets one, keyed now (a last decision's arrival
// keeps the one it got then if its key is unchanged). Any other pending
// queue is still followed, at a cost: a job met out of order counts as
// gone and joined again. False if a job is twice in the View or a key is
// NaN (the heaps are then rebuilt).
func (s *SRTF) follow(v *sim.View) bool {
	old, pend := s.pend, v.Pending
	n := min(len(old), len(pend))
	k := 0
	for k < n && old[k] == pend[k] {
		k++
	}
	i, w := k, k
	for ; i < len(old); i++ {
		if k < len(pend) && pend[k] == old[i] {
			old[w] = old[i]
			w, k = w+1, k+1
			continue
		}
		st := &s.jobs[old[i].Spec.ID]
		st.seq, st.mirror = 0, 0
	}
	s.pend = old[:w]
	for _, j := range pend[k:] {
		st := s.state(j.Spec.ID)
		if st.mirror == s.gen {
			return false
		}
		r := s.RemainingTime(v.Cluster, j)
		if r != r {
			return false
		}
		if st.seq < s.seqBase || st.key != r || st.job != j {
			s.push(j, st, r)
		}
		st.mirror = s.gen
		s.pend = append(s.pend, j)
	}
	for _, j := range s.arrived { // the last decision's, not waiting now
		if st := &s.jobs[j.Spec.ID]; st.mirror != s.gen {
			st.seq = 0
		}
	}
	return true
}

// rebuild makes the heaps afresh from the View's pending queue; false if
// a job is twice in it or a key is NaN (the heaps stay dirty).
func (s *SRTF) rebuild(v *sim.View) bool {
	for _, bs := range s.byType {
		for b := range bs {
			clear(bs[b].h)
			bs[b].h = bs[b].h[:0]
		}
	}
	s.gen++
	s.seqBase = s.seq + 1
	s.pend = s.pend[:0]
	s.arrived = s.arrived[:0]
	for _, j := range v.Pending {
		st := s.state(j.Spec.ID)
		if st.mirror == s.gen {
			return false
		}
		r := s.RemainingTime(v.Cluster, j)
		if r != r {
			return false
		}
		s.push(j, st, r)
		st.mirror = s.gen
		s.pend = append(s.pend, j)
	}
	s.dirty = false
	return true
}

// gpuIndex returns the index of GPU type gpu in s.gpus, adding it.
func (s *SRTF) gpuIndex(gpu string) int {
	g := slices.Index(s.gpus, gpu)
	if g < 0 {
		s.gpus, s.byType, s.runBy = append(s.gpus, gpu), append(s.byType, nil), append(s.runBy, nil)
		g = len(s.gpus) - 1
	}
	return g
}

// runningTime is RemainingTime of running job j: its remaining
// iterations times the iteration time of its shape, asked of the
// estimator once per shape the job runs on (an estimator answers a
// workload and shape alike at every call).
func (s *SRTF) runningTime(j *sim.Job, st *jobState) float64 {
	c := j.Config
	if c.GPU != j.Spec.GPU {
		return float64(j.Remaining) * s.est.Estimate(j.Spec.Workload, c).IterTime
	}
	if !st.cfgOK || int(st.nodes) != c.Nodes || int(st.perNode) != c.PerNode {
		st.nodes, st.perNode, st.cfgOK = int32(c.Nodes), int32(c.PerNode), true
		st.iter = s.est.Estimate(j.Spec.Workload, c).IterTime
	}
	return float64(j.Remaining) * st.iter
}

// sortRunning puts the running jobs (keyed, runAt == s.decisions) in
// order by less into s.runBy, per GPU type. The last decision's order of
// the jobs still running is mostly still sorted — every running job's
// remaining time falls by the time elapsed — but not wholly: a job in
// its reconfiguration makes no progress, and a key is whole iterations
// times the iteration time, so two keys closer than an iteration may
// swap. The longest run of that order that is still ascending (keptRun)
// stays, and only the others are sorted and merged in: less is a strict
// total order, so this is the one sorted order.
func (s *SRTF) sortRunning(v *sim.View) {
	now := int32(s.decisions)
	seq := s.rseq[:0] // the last order's jobs still running, in that order
	for _, j := range s.runOrder {
		st := &s.jobs[j.Spec.ID]
		if st.runAt != now || st.inRun == now {
			continue
		}
		st.inRun = now
		seq = append(seq, keyed{st.key, st.job})
	}
	kept, fresh := s.keptRun(seq)
	s.resorted += len(fresh)
	for _, j := range v.Running {
		if st := &s.jobs[j.Spec.ID]; st.inRun != now {
			st.inRun = now
			fresh = append(fresh, keyed{st.key, j})
		}
	}
	slices.SortFunc(fresh, func(a, b keyed) int {
		if less(a, b) {
			return -1
		}
		return 1
	})
	for g := range s.runBy {
		clear(s.runBy[g])
		s.runBy[g] = s.runBy[g][:0]
	}
	order := s.runOrder[:0]
	a, b := kept, fresh
	for len(a) > 0 || len(b) > 0 {
		var k keyed
		if len(b) == 0 || (len(a) > 0 && less(a[0], b[0])) {
			k, a = a[0], a[1:]
		} else {
			k, b = b[0], b[1:]
		}
		order = append(order, k.job)
		st := &s.jobs[k.job.Spec.ID]
		if st.typ == 0 {
			st.typ = int32(s.gpuIndex(k.job.Spec.GPU)) + 1
		}
		g := int(st.typ) - 1
		s.runBy[g] = append(s.runBy[g], k)
	}
	s.runOrder = order
	if checkRunOrder {
		s.checkRunBy(v)
	}
	clear(seq)
	clear(kept)
	clear(fresh)
	s.rseq, s.rkept, s.rfresh = seq[:0], kept[:0], fresh[:0]
}

// keptRun splits seq into a longest subsequence ascending by less (kept)
// and the rest (fresh), both in seq's order, in s.rkept and s.rfresh.
// It is the patience method: tails[t] is the index of the least last
// element of an ascending subsequence of t+1 elements seen so far, and
// prev links each element to the one before it in the subsequence it
// ends. An element after the longest one so far is one comparison, so
// an order with few jobs out of place costs a walk plus a binary search
// per job out of place. A job whose key fell by less than the others'
// (in its reconfiguration) leaves itself alone in fresh, not the jobs
// it now comes after (as a greedy run would).
func (s *SRTF) keptRun(seq []keyed) (kept, fresh []keyed) {
	tails := s.tails[:0]
	prev := slices.Grow(s.prev[:0], len(seq))[:len(seq)]
	for i := range seq {
		n := len(tails)
		if n == 0 || less(seq[tails[n-1]], seq[i]) {
			prev[i] = -1
			if n > 0 {
				prev[i] = tails[n-1]
			}
			tails = append(tails, int32(i))
			continue
		}
		// The first tail seq[i] comes before (none is equal: less is strict).
		lo, hi := 0, n-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if less(seq[i], seq[tails[m]]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		prev[i] = -1
		if lo > 0 {
			prev[i] = tails[lo-1]
		}
		tails[lo] = int32(i)
	}
	// Mark the longest subsequence by prev = -2, from its last element back.
	if n := len(tails); n > 0 {
		for i := tails[n-1]; i >= 0; {
			p := prev[i]
			prev[i] = -2
			i = p
		}
	}
	kept, fresh = s.rkept[:0], s.rfresh[:0]
	for i, k := range seq {
		if prev[i] == -2 {
			kept = append(kept, k)
		} else {
			fresh = append(fresh, k)
		}
	}
	s.tails, s.prev = tails[:0], prev[:0]
	return kept, fresh
}

// checkRunOrder makes every incremental decision compare its order of the
// running jobs with a sort of the View's (checkRunBy; tests).
var checkRunOrder = false

// checkRunBy compares s.runBy with the running jobs of v keyed afresh
// (RemainingTime: the estimator asked now, not the iteration times kept)
// and sorted whole by less, per requested GPU type; the first difference
// is kept in s.orderErr.
func (s *SRTF) checkRunBy(v *sim.View) {
	if s.orderErr != nil {
		return
	}
	all := make([]keyed, 0, len(v.Running))
	for _, j := range v.Running {
		all = append(all, keyed{s.RemainingTime(v.Cluster, j), j})
	}
	sort.Stable(byKey(all))
	at := make([]int, len(s.gpus))
	for _, k := range all {
		g := slices.Index(s.gpus, k.job.Spec.GPU)
		if g < 0 || at[g] >= len(s.runBy[g]) || s.runBy[g][at[g]] != k {
			s.orderErr = fmt.Errorf("decision %d: running job %d (%s, remaining %v s) is not next in its type's order",
				s.decisions, k.job.Spec.ID, k.job.Spec.GPU, k.r)
			return
		}
		at[g]++
	}
	for g := range s.runBy {
		if at[g] != len(s.runBy[g]) {
			s.orderErr = fmt.Errorf("decision %d: %s's order holds %d jobs, %d running", s.decisions, s.gpus[g], len(s.runBy[g]), at[g])
			return
		}
	}
	s.orderChecks++
}
