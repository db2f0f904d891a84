package srtf

import (
	"fmt"
	"slices"
	"sort"

	"github.com/arena-sim/arena/sim"
)

// rjob is a running job in SRTF.rmir, the mirror of the View's running
// list: what the incremental decision reads of it, side by side, so that
// keying and ordering the running jobs reads no per-job record of the
// whole trace (jobState: one per job of the run, most of them cold).
type rjob struct {
	job *sim.Job
	// key is the job's remaining time at this decision (RemainingTime);
	// iter the iteration time of the shape nodes × perNode of its
	// requested type (cfgOK: asked of the estimator).
	key, iter      float64
	id             sim.JobID
	gpus, typ      int32 // requested count; index of its type in SRTF.gpus
	nodes, perNode int32
	cfgOK          bool
}

// keyed is r as the order's comparisons take it.
func (r *rjob) keyed() keyed { return keyed{r.key, r.job} }

// followRunning brings s.rmir to the View's running list: it is the last
// one with some jobs gone (ended, suspended) and jobs joined at its end
// (started), compared pointer by pointer in order, as follow does the
// pending queue. Each type's order (runBy) keeps its jobs still running,
// their indices moved with the mirror's compaction, and gets the jobs
// joined at its end (sortRunning puts them in place). Any other running
// list is still followed, at a cost: a job met out of order counts as
// gone and joined again. False if a job is twice in the list (the
// mirror is then made afresh at the next decision).
func (s *SRTF) followRunning(v *sim.View) bool {
	if s.runDirty {
		s.rgen++ // every job's rmir mark is stale
		clear(s.rmir)
		s.rmir = s.rmir[:0]
		for g := range s.runBy {
			s.runBy[g] = s.runBy[g][:0]
		}
		s.runDirty = false
	}
	old, run := s.rmir, v.Running
	remap := slices.Grow(s.remap[:0], len(old))[:len(old)]
	k, w := 0, 0
	for i := range old {
		if k < len(run) && run[k] == old[i].job {
			old[w] = old[i]
			remap[i] = int32(w)
			w, k = w+1, k+1
			continue
		}
		remap[i] = -1
		s.jobs[old[i].id].rmir = 0
	}
	clear(old[w:])
	s.rmir, s.remap = old[:w], remap
	for g, ord := range s.runBy {
		n := 0
		for _, i := range ord {
			if m := remap[i]; m >= 0 {
				ord[n] = m
				n++
			}
		}
		s.runBy[g] = ord[:n]
	}
	for _, j := range run[k:] {
		st := s.state(j.Spec.ID)
		if st.rmir == s.rgen {
			s.runDirty = true
			return false
		}
		st.rmir = s.rgen
		g := s.gpuIndex(j.Spec.GPU)
		s.runBy[g] = append(s.runBy[g], int32(len(s.rmir)))
		s.rmir = append(s.rmir, rjob{job: j, id: j.Spec.ID, gpus: int32(j.Spec.GPUs), typ: int32(g)})
	}
	return true
}

// keyRunning keys every running job now: its remaining iterations times
// the iteration time of its shape, asked of the estimator once per shape
// the job runs on (an estimator answers a workload and shape alike at
// every call). False if a job is not running or a key is NaN.
func (s *SRTF) keyRunning() bool {
	for i := range s.rmir {
		r := &s.rmir[i]
		j := r.job
		if j.Status != sim.Running {
			return false
		}
		c := j.Config
		if c.GPU != j.Spec.GPU {
			r.key = float64(j.Remaining) * s.est.Estimate(j.Spec.Workload, c).IterTime
		} else {
			if !r.cfgOK || int(r.nodes) != c.Nodes || int(r.perNode) != c.PerNode {
				r.nodes, r.perNode, r.cfgOK = int32(c.Nodes), int32(c.PerNode), true
				r.iter = s.est.Estimate(j.Spec.Workload, c).IterTime
			}
			r.key = float64(j.Remaining) * r.iter
		}
		if r.key != r.key {
			return false
		}
	}
	return true
}

// rkey is a running job in an order: its key, and its index in s.rmir.
type rkey struct {
	r float64
	i int32
}

// runLess is less on running jobs a and b (the mirror's jobs are read
// on equal keys only).
func (s *SRTF) runLess(a, b rkey) bool {
	if a.r != b.r {
		return a.r < b.r
	}
	return less(s.rmir[a.i].keyed(), s.rmir[b.i].keyed())
}

// sortRunning puts each type's running jobs (runBy) in order by less. The
// last decision's order of the jobs still running is mostly still sorted
// — every running job's remaining time falls by the time elapsed — but
// not wholly: a job in its reconfiguration makes no progress, and a key
// is whole iterations times the iteration time, so two keys closer than
// an iteration may swap. The longest run of that order that is still
// ascending (keptRun) stays, and only the others (with the jobs started
// since, at the end) are sorted and merged in: less is a strict total
// order, so this is the one sorted order.
func (s *SRTF) sortRunning(v *sim.View) {
	for g, ord := range s.runBy {
		seq := s.rseq[:0]
		for _, i := range ord {
			seq = append(seq, rkey{s.rmir[i].key, i})
		}
		kept, fresh := s.keptRun(seq)
		s.resorted += len(fresh)
		slices.SortFunc(fresh, func(a, b rkey) int {
			if s.runLess(a, b) {
				return -1
			}
			return 1 // a ≠ b: no two jobs are equal under less
		})
		ord = ord[:0]
		for len(kept) > 0 || len(fresh) > 0 {
			if len(fresh) == 0 || (len(kept) > 0 && s.runLess(kept[0], fresh[0])) {
				ord, kept = append(ord, kept[0].i), kept[1:]
			} else {
				ord, fresh = append(ord, fresh[0].i), fresh[1:]
			}
		}
		s.runBy[g], s.rseq = ord, seq[:0]
	}
	if checkRunOrder {
		s.checkRunBy(v)
	}
}

// keptRun splits seq into a longest subsequence ascending by less (kept)
// and the rest (fresh), both in seq's order, in s.rkept and s.rfresh.
// It is the patience method: tails[t] is the index in seq of the least
// last element of an ascending subsequence of t+1 elements seen so far,
// and prev links each element to the one before it in the subsequence it
// ends. An element after the longest one so far is one comparison, so
// an order with few jobs out of place costs a walk plus, per job out of
// place, a search of the tails from the end (about twice the logarithm of
// how far back it goes). A job whose key fell by less than the others'
// (in its reconfiguration) leaves itself alone in fresh, not the jobs it
// now comes after (as a greedy run would).
func (s *SRTF) keptRun(seq []rkey) (kept, fresh []rkey) {
	tails := s.tails[:0]
	prev := slices.Grow(s.prev[:0], len(seq))[:len(seq)]
	for i := range seq {
		n := len(tails)
		if n == 0 || s.runLess(seq[tails[n-1]], seq[i]) {
			prev[i] = -1
			if n > 0 {
				prev[i] = tails[n-1]
			}
			tails = append(tails, int32(i))
			continue
		}
		// The first tail seq[i] comes before (none is equal: less is
		// strict); it comes before the last. A job out of place by little
		// belongs near the end: gallop back from it, then halve.
		lo, hi := 0, n-1
		for step := 1; ; step <<= 1 {
			c := hi - step
			if c < 0 {
				break
			}
			if !s.runLess(seq[i], seq[tails[c]]) {
				lo = c + 1
				break
			}
			hi = c
		}
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if s.runLess(seq[i], seq[tails[m]]) {
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
	s.tails, s.prev, s.rkept, s.rfresh = tails[:0], prev[:0], kept[:0], fresh[:0]
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
		if g < 0 || at[g] >= len(s.runBy[g]) || s.rmir[s.runBy[g][at[g]]].keyed() != k {
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
