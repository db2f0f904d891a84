package srtf

import (
	"cmp"
	"slices"

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
	if !s.followRunning(v) || !s.keyRunning() {
		return nil, false
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
		var run []int32 // the running jobs of this type, in order
		if g >= 0 {
			run = s.runBy[g]
		}
		// best is the least head that fits (-1: none). It is picked again
		// when its bucket's head changes or no longer fits: the heads
		// that fit only lose members as left falls, so otherwise it stays
		// the least.
		best := -1
		pick := func() {
			best = -1
			for b := range bs {
				if heads[b].ok && bs[b].gpus <= left && (best < 0 || lessEntry(heads[b].e, heads[best].e)) {
					best = b
				}
			}
		}
		pick()
		ri := 0
		for left > 0 {
			for ri < len(run) && int(s.rmir[run[ri]].gpus) > left {
				ri++
			}
			if best >= 0 && bs[best].gpus > left {
				pick()
			}
			admit := best >= 0
			if admit && ri < len(run) { // the waiting job if it comes first
				r, e := &s.rmir[run[ri]], heads[best].e
				if r.key != e.r {
					admit = e.r < r.key
				} else {
					admit = !less(r.keyed(), keyed{e.r, s.jobs[e.id].job})
				}
			}
			switch {
			case admit:
				e := heads[best].e
				left -= bs[best].gpus
				starts = append(starts, keyed{e.r, s.jobs[e.id].job})
				next(best)
				pick()
			case ri < len(run):
				r := &s.rmir[run[ri]]
				left -= int(r.gpus)
				s.sched.Keep(r.id)
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
