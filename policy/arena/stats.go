package arena

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// jobStat is what a table says about one job: its GPU type, slot count
// (any status) and USED slot count, nodes in node order, the slot count on
// its first node and its first USED slot (−1 if none).
//
// The counts are int32, as slot indexes are (pairKey, the job index):
// 48 bytes an entry instead of 72, for one entry per job ID in every
// statSet (seven sets of a million IDs at 1M jobs).
type jobStat struct {
	stamp      int32 // the statSet generation the entry belongs to
	t, num     int32
	used       int32
	firstCount int32
	firstUsed  int32
	nodes      []int
}

// statSet holds the stats of every real job of one table, indexed by job
// ID (a generation stamp in each entry marks those of the current scan:
// one cache line per job), and the
// order in which jobs first appear on a USED slot (the artifact's
// candidate order, _get_run_job_ids). A set built from a table's delta
// holds only the jobs the delta touched and reads the others from the
// stats of the table's snapshot (base), which it pins.
type statSet struct {
	gen   int32
	byID  []jobStat
	order []sim.JobID

	base   *statSet
	pinned *snapshot
	// jobs the delta touched, by first USED slot
	touched []sim.JobID
	// scratch of statsOf: jobs met (where seen equals gen), their slots
	seen  []int32
	jobs  []sim.JobID
	pairs []uint64
	keys  []uint64
}

// pairKey packs a job ID (or a slot) and a slot (or a job ID), both
// non-negative and below 2³¹, into one integer that sorts by the first,
// then the second.
func pairKey(hi sim.JobID, lo int32) uint64 { return uint64(hi)<<32 | uint64(uint32(lo)) }

func (s *statSet) get(id sim.JobID) *jobStat {
	if id < 0 {
		return nil
	}
	if int(id) < len(s.byID) && s.byID[id].stamp == s.gen {
		if js := &s.byID[id]; js.num > 0 {
			return js
		}
		return nil
	}
	if s.base != nil {
		return s.base.get(id)
	}
	return nil
}

// jobsOn lists, once each, the jobs that occupy one of slots in before or in
// after (s.jobs, marked seen in s's current generation): the jobs whose
// stats a change of those slots can touch.
func (s *statSet) jobsOn(slots []int32, before, after []sim.JobID) []sim.JobID {
	jobs := s.jobs[:0]
	for _, d := range slots {
		for _, o := range [2]sim.JobID{before[d], after[d]} {
			if o >= 0 && s.seen[o] != s.gen {
				s.seen[o] = s.gen
				jobs = append(jobs, o)
			}
		}
	}
	return jobs
}

// recomputed reports whether id's stats were computed for s's table (the
// delta touched it) rather than read from its snapshot's.
func (s *statSet) recomputed(id sim.JobID) bool {
	return int(id) < len(s.byID) && s.byID[id].stamp == s.gen
}

// begin starts a new generation of s for up to n jobs.
func (s *statSet) begin(n int) {
	if len(s.byID) < n {
		s.byID = append(s.byID, make([]jobStat, n-len(s.byID))...)
		s.seen = append(s.seen, make([]int32, n-len(s.seen))...)
	}
	if s.gen == math.MaxInt32 {
		// The stamps wrap: every entry is marked stale (stamp 0 is
		// below every generation handed out from here).
		for i := range s.byID {
			s.byID[i].stamp = 0
		}
		clear(s.seen)
		s.gen = 0
	}
	s.gen++
	s.order = s.order[:0]
	s.base = nil
	if s.pinned != nil {
		s.pinned.pins--
		s.pinned = nil
	}
}

// add counts slot sl (on node nd, USED or not) for job o.
func (s *statSet) add(tp *topology, o sim.JobID, sl, nd int, used bool) *jobStat {
	js := &s.byID[o]
	if js.stamp != s.gen {
		*js = jobStat{stamp: s.gen, t: int32(tp.nodeType[nd]), nodes: js.nodes[:0], firstUsed: -1}
	}
	if used {
		js.used++
		if js.firstUsed < 0 {
			js.firstUsed = int32(sl)
		}
	}
	js.num++
	if len(js.nodes) == 0 || js.nodes[len(js.nodes)-1] != nd {
		js.nodes = append(js.nodes, nd)
	}
	if js.nodes[0] == nd {
		js.firstCount++
	}
	return js
}

// scan fills s from a whole slot table.
func (s *statSet) scan(tp *topology, occ []sim.JobID, used []bool, n int) {
	s.begin(n)
	for sl, o := range occ {
		if o < 0 {
			continue
		}
		if js := s.add(tp, o, sl, tp.slotNode[sl], used[sl]); int(js.firstUsed) == sl {
			s.order = append(s.order, o)
		}
	}
}

// stats computes a table's job stats into dst: from its snapshot's stats
// and its delta when it has one (the snapshot's are computed once), else
// by a scan.
func (r *round) stats(tb *table, dst *statSet) *statSet {
	return r.statsOf(tb, dst, true)
}

// statsOf is stats; without withOrder, dst.order is left empty (it costs a
// step per job of the table).
func (r *round) statsOf(tb *table, dst *statSet, withOrder bool) *statSet {
	n := len(r.p.jobs)
	if !tb.attached() {
		tb.tp.snaps.rebase(tb)
	}
	snap := tb.base
	// dst's old content is dropped: its pin goes first, so that a
	// snapshot it read (the parent of tb's, typically) can pass its stats
	// on (inheritStats).
	if dst.pinned != nil {
		dst.pinned.pins--
		dst.pinned = nil
	}
	r.snapshotStats(snap)
	base := &snap.stats
	if len(tb.dirty) == 0 {
		dst.begin(0)
		dst.touched = dst.touched[:0]
		dst.base, dst.pinned = base, snap
		snap.pins++
		if withOrder {
			dst.order = append(dst.order, base.order...)
		}
		return dst
	}
	dst.begin(n)
	dst.base, dst.pinned = base, snap
	snap.pins++
	// The jobs the delta touched (on a delta slot, in tb or in the
	// snapshot), recomputed from their slots in tb: the snapshot's slots
	// they still hold and the delta slots they took, gathered in one pass
	// over the delta (a slotsOf per job walks the delta once per job).
	jobs := dst.jobsOn(tb.dirty, snap.occ, tb.occ)
	// Each (job, slot) pair is one sort key, job ID in the high half
	// (IDs and slots are non-negative and below 2³¹): a plain integer
	// sort in (job, slot) order.
	pairs := dst.pairs[:0]
	for _, o := range jobs {
		for _, s := range snap.lookup(o) {
			if tb.occ[s] == o {
				pairs = append(pairs, pairKey(o, s))
			}
		}
	}
	for _, s := range tb.dirty {
		if o := tb.occ[s]; o >= 0 && snap.occ[s] != o {
			pairs = append(pairs, pairKey(o, s))
		}
	}
	slices.Sort(pairs)
	for _, k := range pairs {
		o, s := sim.JobID(k>>32), int32(uint32(k))
		dst.add(tb.tp, o, int(s), tb.tp.slotNode[s], tb.used[s])
	}
	dst.jobs, dst.pairs = jobs, pairs
	// The touched jobs by first USED slot (a slot has one occupant, so
	// the keys are distinct).
	keys := dst.keys[:0]
	for _, o := range jobs {
		switch {
		case dst.byID[o].stamp != dst.gen: // gone from tb
			dst.byID[o] = jobStat{stamp: dst.gen, nodes: dst.byID[o].nodes[:0], firstUsed: -1}
		case dst.byID[o].firstUsed >= 0:
			keys = append(keys, pairKey(sim.JobID(dst.byID[o].firstUsed), int32(o)))
		}
	}
	slices.Sort(keys)
	touched := dst.touched[:0]
	for _, k := range keys {
		touched = append(touched, sim.JobID(uint32(k)))
	}
	dst.keys = keys
	dst.touched = touched
	if !withOrder {
		return dst
	}
	// Merge them into the snapshot's order of the untouched jobs; every
	// job's first USED slot is its own, so the merge is the scan's order.
	k := 0
	for _, o := range base.order {
		if dst.byID[o].stamp == dst.gen {
			continue
		}
		for k < len(touched) && dst.byID[touched[k]].firstUsed < base.byID[o].firstUsed {
			dst.order = append(dst.order, touched[k])
			k++
		}
		dst.order = append(dst.order, o)
	}
	dst.order = append(dst.order, touched[k:]...)
	return dst
}

// snapshotStats builds snap's job stats if they are not: its parent's,
// passed on (inheritStats), else a scan of its slots.
func (r *round) snapshotStats(snap *snapshot) {
	if snap.statsGen == snap.gen {
		return
	}
	snap.statsGen = snap.gen
	if n := len(r.p.jobs); !r.inheritStats(snap, n) {
		statsScans.Add(1)
		snap.stats.scan(r.p.tp, snap.occ, snap.used, n)
	}
}

// statsScans counts the snapshots whose stats were a scan of every slot
// (for the test; runs may be concurrent).
var statsScans atomic.Int64

// pinSnapshotStats sets dst to the job stats of tb's snapshot, built if
// they are not (snapshotStats), pinning the snapshot: a statsOf of tb
// without its delta. refreshQuotas, which reads no stats, calls it on the
// real table so that every snapshot of the real table gets its stats from
// its parent's while the parent still has them (a later statsOf of a
// grandchild would otherwise scan every slot) and stays pinned, as when
// it read the table's stats. dst then holds the snapshot's stats, not
// tb's: it must be recomputed before it is read (statsA is).
func (r *round) pinSnapshotStats(tb *table, dst *statSet) {
	if !tb.attached() {
		tb.tp.snaps.rebase(tb)
	}
	dst.begin(0)
	snap := tb.base
	r.snapshotStats(snap)
	dst.touched = dst.touched[:0]
	dst.base, dst.pinned = &snap.stats, snap
	snap.pins++
}

// unpinScratchStats drops the pins of the real table's and the plan's
// stats (statsA, statsB) once the real table was rebased: neither is read
// again before it is recomputed (refreshQuotas, the upgrade step and the
// downgrade search's candidates each fill theirs first), and a pin they
// kept on the new snapshot's parent would stop it from passing its stats
// on (inheritStats), so that the first stats of the new snapshot were a
// scan of every slot.
func (p *Policy) unpinScratchStats() {
	p.statsA.begin(0)
	p.statsB.begin(0)
}

// statsInherited counts the snapshots whose stats inheritStats derived
// from their parent's (for the test; runs may be concurrent).
var statsInherited atomic.Int64

// inheritStats gives snap the job stats of its parent snapshot (the one
// its table was a delta against), moved rather than copied, with the jobs
// on the parent's delta (snap.diff) recomputed from snap's index: what a
// scan of snap's slots would give, for the delta's cost and the running
// jobs' order instead of the cluster's slots. Only when the parent is
// alive with its stats built and no statSet reads them (unpinned): the
// parent loses its stats (they are rebuilt if asked for again).
func (r *round) inheritStats(snap *snapshot, n int) bool {
	par := snap.parent
	if !searchShortcuts || par == nil || par == snap || par.gen != snap.parentGen || par.statsGen != par.gen || par.pins > 0 {
		return false
	}
	statsInherited.Add(1)
	snap.stats, par.stats = par.stats, snap.stats
	par.statsGen = 0
	ss := &snap.stats
	if len(ss.byID) < n {
		ss.byID = append(ss.byID, make([]jobStat, n-len(ss.byID))...)
		ss.seen = append(ss.seen, make([]int32, n-len(ss.seen))...)
	}
	p := r.p
	for len(p.inheritMark) < n {
		p.inheritMark = append(p.inheritMark, 0)
	}
	p.inheritGen++
	g := p.inheritGen
	// The jobs on the changed slots, in the parent or in snap, each
	// recomputed from its slots in snap (slot order).
	jobs := ss.jobs[:0]
	for _, d := range snap.diff {
		for _, o := range [2]sim.JobID{par.occ[d], snap.occ[d]} {
			if o >= 0 && p.inheritMark[o] != g {
				p.inheritMark[o] = g
				jobs = append(jobs, o)
			}
		}
	}
	tp := r.p.tp
	keys := ss.keys[:0]
	for _, o := range jobs {
		ss.byID[o].stamp = ss.gen - 1 // absent unless it holds a slot
		for _, s := range snap.lookup(o) {
			ss.add(tp, o, int(s), tp.slotNode[s], snap.used[s])
		}
		if ss.byID[o].stamp == ss.gen && ss.byID[o].firstUsed >= 0 {
			keys = append(keys, pairKey(sim.JobID(ss.byID[o].firstUsed), int32(o)))
		}
	}
	slices.Sort(keys)
	// The order: the untouched jobs keep theirs, the touched ones with a
	// USED slot merged in by first USED slot.
	order := p.inheritOrder[:0]
	k := 0
	for _, o := range ss.order {
		if p.inheritMark[o] == g {
			continue
		}
		for k < len(keys) && int32(keys[k]>>32) < ss.byID[o].firstUsed {
			order = append(order, sim.JobID(uint32(keys[k])))
			k++
		}
		order = append(order, o)
	}
	for ; k < len(keys); k++ {
		order = append(order, sim.JobID(uint32(keys[k])))
	}
	p.inheritOrder, ss.order = ss.order, order
	ss.jobs, ss.keys = jobs, keys
	return true
}

// rtStat is _get_job_rt_stat: a job's type, GPU count and locality read
// from the table when it holds slots there (any status), else from the
// fallback quota (the overwrite job or the registered job). The locality
// is [num/nodes]·nodes, nodes = its node count or max(1, num/cap).
func (r *round) rtStat(tb *table, id sim.JobID, fbType, fbNum int) (int, int, loc, []int) {
	tp := tb.tp
	ty, num := -1, 0
	var nodes []int
	for _, s := range tb.slotsOf(id) {
		n := tp.slotNode[s]
		if ty < 0 {
			ty = tp.nodeType[n]
		}
		num++
		if len(nodes) == 0 || nodes[len(nodes)-1] != n {
			nodes = append(nodes, n)
		}
	}
	if ty < 0 {
		ty = fbType
	}
	if num == 0 {
		num = fbNum
	}
	if ty < 0 {
		return ty, num, loc{}, nodes
	}
	return ty, num, r.localityOf(ty, num, len(nodes)), nodes
}

// rtConfig is rtStat without the node list (it allocates nothing: the
// searches ask it once or twice per trial).
func (r *round) rtConfig(tb *table, id sim.JobID, fbType, fbNum int) (int, int, loc) {
	tp := tb.tp
	ty, num, nodes, last := -1, 0, 0, -1
	for _, s := range tb.slotsOf(id) {
		n := tp.slotNode[s]
		if ty < 0 {
			ty = tp.nodeType[n]
		}
		num++
		if n != last {
			nodes, last = nodes+1, n
		}
	}
	if ty < 0 {
		ty = fbType
	}
	if num == 0 {
		num = fbNum
	}
	if ty < 0 {
		return ty, num, loc{}
	}
	return ty, num, r.localityOf(ty, num, nodes)
}

// localityOf is the artifact's [num // k]·k with k = nodeCount, or
// max(1, num // cap) when the job holds no slot.
func (r *round) localityOf(ty, num, nodeCount int) loc {
	k := nodeCount
	if k == 0 {
		k = estimator.NodesFor(max(1, num), max(1, r.p.tp.typeCap[ty]))
	}
	return loc{k, num / k}
}

// statOf is rtStat from a precomputed statSet.
func (r *round) statOf(st *statSet, id sim.JobID, fbType, fbNum int) (int, int, loc, []int) {
	if js := st.get(id); js != nil && js.num > 0 {
		return int(js.t), int(js.num), r.localityOf(int(js.t), int(js.num), len(js.nodes)), js.nodes
	}
	return fbType, fbNum, r.localityOf(fbType, fbNum, 0), nil
}
