package arena

import (
	"iter"
	"slices"
	"sync/atomic"

	"github.com/arena-sim/arena/sim"
)

// Tables and their snapshots.
//
// The searches copy a table, change a few of its slots, read it and throw
// it away, many thousands of times per round; a copy of the whole table and
// a scan of it for one job's slots or for the partial nodes of a type both
// cost the cluster's size, which made a round's cost grow with jobs × GPUs.
// So a table is kept as a delta against a snapshot: a frozen copy of some
// earlier content of it (or of the table it was copied from), with every
// real job's slots indexed. The table lists the slots (and nodes) it wrote
// since it last equalled the snapshot; the snapshot's content plus those
// slots, read from the table, is the table. Then:
//   - copying a table over a pooled table of the same snapshot undoes the
//     pooled table's delta and writes the source's (copyFrom);
//   - a job's slots are its slots in the snapshot, and the listed slots it
//     holds now, each read from the table (slotsOf);
//   - the partial nodes of a type are the snapshot's nodes bucketed by idle
//     GPUs, with the listed nodes taken out and put back in their current
//     bucket (partialNodes); a snapshot takes its buckets over from its
//     parent's with the parent's delta's nodes moved (inheritBuckets), as
//     it does its job index (inheritIndex).
//
// Each costs the deltas, not the table. A delta that grows past
// topology.deltaLimit is dropped (the table detaches and works as a plain
// flat table until it is rebased); so is one whose snapshot was recycled,
// which the generation stamp tells.

// snapshot is a frozen table content with its job index.
type snapshot struct {
	gen  uint64
	occ  []sim.JobID
	used []bool
	free []int

	// The job index, by job ID, valid where an entry's stamp equals gen: a
	// job's slot count and where its slots (in slot order) start in slots.
	// One entry per job (not three arrays), so that a job costs one cache
	// line to index or look up.
	index []indexEntry
	slots []int32
	// indexOK tells that index and slots are this snapshot's (a child
	// may have taken them over: inheritIndex); indexFloor is the oldest
	// stamp of a valid entry (the generation of their last full build:
	// entries the child patched carry its generation, a job that left
	// stamp 0); live counts the slots the valid entries hold (the rest of
	// slots are lists a patch abandoned).
	indexOK    bool
	indexFloor uint64
	live       int
	rebuilt    bool

	// buckets per GPU type, built on first use (valid where bucketGen
	// equals gen).
	bucketGen []uint64
	buckets   []typeBuckets

	// stats are the snapshot's job stats, built on first use (valid when
	// statsGen equals gen). A statSet reading them pins the snapshot
	// (pins > 0), which is then not recycled.
	stats    statSet
	statsGen uint64
	pins     int
	// groups are its jobs grouped by trial key, built on first use
	// (round.snapshotGroups).
	groups jobGroups

	// parent is the snapshot the rebased table was a delta against (nil
	// if it was detached), while parentGen is its generation: this
	// snapshot differs from it only on the slots diff and the nodes
	// diffNodes (that table's delta), so a table of the parent is moved
	// onto this one by those (table.copyFrom).
	parent          *snapshot
	parentGen       uint64
	diff, diffNodes []int32

	// scratch of inheritIndex
	reindex  []sim.JobID
	saved    []indexEntry
	listBuf  []int32
	diffKeys []uint64
	runBuf   []int32
	// scratch of inheritBuckets
	bucketOut, bucketIn []uint64
}

// typeBuckets are a type's nodes by idle GPUs in a snapshot, each list in
// node order: partial[f] the nodes with f idle GPUs and some used; idle the
// nodes with none used.
type typeBuckets struct {
	partial [][]int32
	idle    []int32
}

// snapshotCache recycles a few snapshots round robin, skipping pinned
// ones: the round's real table, the fix-up's "before" table and whatever
// the searches rebased since. A table whose snapshot is recycled detaches
// (its delta stays correct against nothing, so it is dropped). At most three
// statSets pin a snapshot at a time (Policy.statsA, statsB, statsC), so one
// ring slot is always free.
type snapshotCache struct {
	ring [4]*snapshot
	next int
	gen  uint64
	// pool holds the tables that may be attached to the snapshots
	// (reattach); nil for tables made outside a policy (tests).
	pool *tablePool
}

// rebase makes t's current content a new snapshot and attaches t to it
// with an empty delta. It costs a few passes over the table.
func (c *snapshotCache) rebase(t *table) {
	for c.ring[c.next] != nil && c.ring[c.next].pins > 0 {
		c.next = (c.next + 1) % len(c.ring)
	}
	s := c.ring[c.next]
	if s == nil {
		s = &snapshot{}
		c.ring[c.next] = s
	}
	c.next = (c.next + 1) % len(c.ring)
	// When the recycled snapshot is t's or one of its live ancestors, its
	// content differs from t's only on t's delta and on the diffs of the
	// snapshots in between: those are written instead of the whole table.
	var lineBuf [len(c.ring)]*snapshot
	line, patch := lineBuf[:0], false
	if searchShortcuts && s.gen != 0 && len(s.occ) == len(t.occ) && t.attached() {
		for x := t.base; len(line) < len(lineBuf); x = x.parent {
			if x == s {
				patch = true
				break
			}
			if x.parent == nil || x.parent.gen != x.parentGen {
				break
			}
			line = append(line, x)
		}
	}
	if patch {
		dst, src := s.cells(), t.cells()
		copyCells(dst, src, t.dirty, t.dirtyNodes)
		for _, x := range line {
			copyCells(dst, src, x.diff, x.diffNodes)
		}
		snapshotsPatched.Add(1)
	}
	if s.gen != 0 {
		c.reattach(s, t)
	}
	s.parent, s.diff, s.diffNodes = nil, s.diff[:0], s.diffNodes[:0]
	if t.attached() && t.base != s {
		s.parent, s.parentGen = t.base, t.baseGen
		s.diff = append(s.diff, t.dirty...)
		s.diffNodes = append(s.diffNodes, t.dirtyNodes...)
	}
	c.gen++
	s.gen = c.gen
	s.rebuilt = false
	if !patch {
		s.occ = append(s.occ[:0], t.occ...)
		s.used = append(s.used[:0], t.used...)
		s.free = append(s.free[:0], t.free...)
	}
	if !s.inheritIndex() {
		s.buildIndex()
	}
	t.detach()
	t.base, t.baseGen = s, s.gen
	t.copied = 0
}

// reattach moves the pool's tables attached to s, which is about to be
// recycled, onto a live child of s (a snapshot made from a delta against
// it), so that they stay deltas instead of detaching: a table equal to s
// but on its delta is the child but on its delta and the child's diff
// (the slots the child changed hold s's content in the table, which its
// own arrays already have). Without it, every pooled table of the oldest
// snapshot detached when the ring came round, and the next copy onto it
// moved the whole table (table.copyFrom's last case). A table whose
// delta would pass the delta limit detaches as before; skip is the table
// being rebased.
func (c *snapshotCache) reattach(s *snapshot, skip *table) {
	if c.pool == nil || !searchShortcuts {
		return
	}
	var child *snapshot
	for _, x := range c.ring {
		if x != nil && x != s && x.parent == s && x.parentGen == s.gen {
			child = x
			break
		}
	}
	if child == nil {
		return
	}
	move := func(t *table) {
		if t == skip || t.base != s || t.baseGen != s.gen {
			return
		}
		if len(t.dirty)+len(child.diff) > t.tp.deltaLimit {
			t.detach()
			return
		}
		reattached.Add(1)
		t.base, t.baseGen = child, child.gen
		for _, d := range child.diff {
			if bit := uint64(1) << (d & 63); t.slotMark[d>>6]&bit == 0 {
				t.slotMark[d>>6] |= bit
				t.dirty = append(t.dirty, d)
			}
		}
		for _, n := range child.diffNodes {
			if bit := uint64(1) << (n & 63); t.nodeMark[n>>6]&bit == 0 {
				t.nodeMark[n>>6] |= bit
				t.dirtyNodes = append(t.dirtyNodes, n)
			}
		}
	}
	for _, t := range c.pool.free {
		move(t)
	}
	for _, t := range c.pool.live {
		move(t)
	}
}

// snapshotsPatched counts the rebases that wrote only the slots where the
// recycled snapshot differed (for the test; runs may be concurrent).
var snapshotsPatched atomic.Int64

// reattached counts the tables reattach moved (for the test; runs may be
// concurrent).
var reattached atomic.Int64

// indexEntry is one job's entry of a snapshot's index.
type indexEntry struct {
	stamp        uint64
	count, start int32
}

// buildIndex is a counting sort of the slots by occupant, the jobs laid
// out in order of first slot. A job's slots are mostly consecutive: each
// pass reads a job's entry once per run of its slots, not once per slot.
func (s *snapshot) buildIndex() {
	g := s.gen
	s.indexOK, s.indexFloor = true, g
	occ := s.occ
	n := 0
	for i := 0; i < len(occ); {
		o := occ[i]
		j := i + 1
		for j < len(occ) && occ[j] == o {
			j++
		}
		if o >= 0 {
			if int(o) >= len(s.index) {
				s.grow(int(o) + 1)
			}
			e := &s.index[o]
			if e.stamp != g {
				*e = indexEntry{stamp: g, start: -1}
			}
			e.count += int32(j - i)
			n += j - i
		}
		i = j
	}
	if cap(s.slots) < n {
		s.slots = make([]int32, n)
	}
	s.slots = s.slots[:n]
	cursor := int32(0)
	for i := 0; i < len(occ); {
		o := occ[i]
		j := i + 1
		for j < len(occ) && occ[j] == o {
			j++
		}
		if o >= 0 {
			e := &s.index[o]
			if e.start < 0 {
				e.start = cursor
				cursor += e.count
				e.count = 0 // refilled below as the fill cursor
			}
			at := e.start + e.count
			for k := i; k < j; k++ {
				s.slots[at] = int32(k)
				at++
			}
			e.count += int32(j - i)
		}
		i = j
	}
	s.live = n
}

// indexInherited counts the snapshots whose index inheritIndex derived
// from their parent's (for the test; runs may be concurrent).
var indexInherited atomic.Int64

// inheritIndex gives s the job index of its parent snapshot, moved rather
// than copied, with the jobs on the parent's delta (s.diff) re-indexed:
// what buildIndex would give, for the delta's cost instead of a pass over
// every slot with a cache miss per running job. A re-indexed job's list is
// written over its old one if it fits, else appended to slots; once the
// abandoned lists outweigh the live ones, the index is built afresh. The
// parent keeps no index: it is built again if asked for (lookup), which
// only a table still attached to the parent does (its pooled copies are
// moved onto s by the deltas, table.copyFrom, without reading it).
func (s *snapshot) inheritIndex() bool {
	par := s.parent
	if !searchShortcuts || par == nil || par == s || par.gen != s.parentGen || !par.indexOK || par.rebuilt || len(par.slots) > 2*par.live+4096 {
		return false
	}
	indexInherited.Add(1)
	s.index, par.index = par.index, s.index
	s.slots, par.slots = par.slots, s.slots
	s.indexOK, s.indexFloor, s.live = true, par.indexFloor, par.live
	par.indexOK = false
	// The jobs on the changed slots, in the parent or in s: each one's
	// slots in s are those of its old list it still holds and the
	// changed slots it took, in slot order.
	jobs := s.reindex[:0]
	for _, d := range s.diff {
		for _, o := range [2]sim.JobID{par.occ[d], s.occ[d]} {
			if o >= 0 && (int(o) >= len(s.index) || s.index[o].stamp != s.gen+1<<63) {
				if int(o) >= len(s.index) {
					s.grow(int(o) + 1)
				}
				jobs = append(jobs, o)
				// marked as met (a stamp no entry otherwise has); the
				// old list is read below from the saved entries
				s.saved = append(s.saved, s.index[o])
				s.index[o].stamp = s.gen + 1<<63
			}
		}
	}
	// The delta's slots by their occupant in s (keys occupant<<32 | slot,
	// sorted): a job's changed slots are one run of them, found by binary
	// search, instead of a pass over the whole delta per job (heldSlots
	// reads the run as it would the delta: the run holds every slot of the
	// delta the job occupies).
	keys := s.diffKeys[:0]
	for _, d := range s.diff {
		if o := s.occ[d]; o >= 0 {
			keys = append(keys, uint64(o)<<32|uint64(uint32(d)))
		}
	}
	slices.Sort(keys)
	s.diffKeys = keys
	run := s.runBuf[:0]
	for i, o := range jobs {
		old := s.saved[i]
		var list []int32
		if old.stamp >= s.indexFloor && old.stamp != 0 {
			list = s.slots[old.start : old.start+old.count]
			s.live -= int(old.count)
		}
		run = run[:0]
		k, _ := slices.BinarySearch(keys, uint64(o)<<32)
		for ; k < len(keys) && keys[k]>>32 == uint64(o); k++ {
			run = append(run, int32(uint32(keys[k])))
		}
		buf := heldSlots(s.listBuf[:0], list, run, s.occ, par.occ, o)
		s.listBuf = buf
		if len(buf) == 0 {
			s.index[o] = indexEntry{}
			continue
		}
		e := indexEntry{stamp: s.gen, count: int32(len(buf))}
		if len(buf) <= len(list) {
			e.start = old.start
		} else {
			e.start = int32(len(s.slots))
			s.slots = append(s.slots, buf...)
		}
		copy(s.slots[e.start:], buf)
		s.index[o] = e
		s.live += len(buf)
	}
	s.reindex, s.saved, s.runBuf = jobs, s.saved[:0], run
	return true
}

func (s *snapshot) grow(n int) {
	n = max(n, 2*len(s.index))
	s.index = append(s.index, make([]indexEntry, n-len(s.index))...)
}

// lookup returns the slots of real job id in the snapshot, in slot order.
func (s *snapshot) lookup(id sim.JobID) []int32 {
	if !s.indexOK {
		// Its index went to a child: built again in an array that may
		// hold a later snapshot's stamps, above this one's generation
		// (lookup rejects them), so not handed on to a child.
		s.buildIndex()
		s.rebuilt = true
	}
	if int(id) >= len(s.index) {
		return nil
	}
	if st := s.index[id].stamp; st < s.indexFloor || st > s.gen {
		return nil
	}
	e := &s.index[id]
	return s.slots[e.start : e.start+e.count]
}

// bucketsOf returns type ty's node buckets, building them on first use.
func (s *snapshot) bucketsOf(tp *topology, ty int) *typeBuckets {
	if len(s.bucketGen) < len(tp.nodesOfType) {
		s.bucketGen = append(s.bucketGen, make([]uint64, len(tp.nodesOfType)-len(s.bucketGen))...)
		s.buckets = append(s.buckets, make([]typeBuckets, len(tp.nodesOfType)-len(s.buckets))...)
	}
	b := &s.buckets[ty]
	if s.bucketGen[ty] == s.gen {
		return b
	}
	s.bucketGen[ty] = s.gen
	if !s.inheritBuckets(tp, ty) {
		s.buildBuckets(tp, ty)
	}
	return b
}

// bucketsInherited counts the type buckets inheritBuckets derived from a
// parent's (for the test; runs may be concurrent).
var bucketsInherited atomic.Int64

// inheritBuckets gives s type ty's buckets of its parent snapshot, moved
// rather than copied, with the parent's delta's nodes of the type
// (s.diffNodes) moved between buckets: what buildBuckets would give (each
// list in node order), for the delta's cost instead of a pass over the
// type's nodes. The parent keeps no buckets of the type: they are built
// again if asked for (by a table still attached to it).
//
// The moves are made a bucket at a time (a long delta moves many nodes in
// and out of the same few buckets): the nodes leaving a bucket are taken
// out and those entering it merged in by one pass over the bucket's list
// from the first node concerned, instead of a shift of the list's tail per
// node.
func (s *snapshot) inheritBuckets(tp *topology, ty int) bool {
	par := s.parent
	if !searchShortcuts || par == nil || par == s || par.gen != s.parentGen || ty >= len(par.bucketGen) || par.bucketGen[ty] != par.gen {
		return false
	}
	bucketsInherited.Add(1)
	s.buckets[ty], par.buckets[ty] = par.buckets[ty], s.buckets[ty]
	par.bucketGen[ty] = 0
	b := &s.buckets[ty]
	// Keys bucket<<32 | node (bucket 0: idle, f: f idle GPUs), sorted: a
	// bucket's nodes leaving (out) or entering (in) are a run in order.
	out, in := s.bucketOut[:0], s.bucketIn[:0]
	for _, nd := range s.diffNodes {
		was, now := par.free[nd], s.free[nd]
		if tp.nodeType[nd] != ty || was == now {
			continue
		}
		c := tp.nodeCap[nd]
		if k, ok := bucketKey(was, c, nd); ok {
			out = append(out, k)
		}
		if k, ok := bucketKey(now, c, nd); ok {
			in = append(in, k)
		}
	}
	slices.Sort(out)
	slices.Sort(in)
	for bucket, run := range bucketRuns(out) {
		l := b.bucket(bucket)
		*l = removeNodes(*l, run)
	}
	for bucket, run := range bucketRuns(in) {
		l := b.bucket(bucket)
		*l = mergeNodes(*l, run)
	}
	s.bucketOut, s.bucketIn = out, in
	return true
}

// bucketRuns yields, for sorted bucket keys (bucketKey), each bucket and
// the run of its keys.
func bucketRuns(keys []uint64) iter.Seq2[int, []uint64] {
	return func(yield func(int, []uint64) bool) {
		for i := 0; i < len(keys); {
			j := i + 1
			for j < len(keys) && keys[j]>>32 == keys[i]>>32 {
				j++
			}
			if !yield(int(keys[i]>>32), keys[i:j]) {
				return
			}
			i = j
		}
	}
}

// bucketKey is the key bucket<<32 | node of node nd with f idle GPUs of
// capacity c (inheritBuckets); false for a full node (in no bucket).
func bucketKey(f, c int, nd int32) (uint64, bool) {
	switch {
	case f == c:
		return uint64(uint32(nd)), true
	case f > 0:
		return uint64(f)<<32 | uint64(uint32(nd)), true
	}
	return 0, false
}

// bucket is the list of bucket k (0: idle, f: f idle GPUs).
func (b *typeBuckets) bucket(k int) *[]int32 {
	if k == 0 {
		return &b.idle
	}
	return &b.partial[k]
}

// removeNodes removes from the node-ordered list l the nodes of keys (in
// node order, each in l), in one pass from the first of them.
func removeNodes(l []int32, keys []uint64) []int32 {
	w, _ := slices.BinarySearch(l, int32(uint32(keys[0])))
	k := 0
	for r := w; r < len(l); r++ {
		if k < len(keys) && l[r] == int32(uint32(keys[k])) {
			k++
			continue
		}
		l[w] = l[r]
		w++
	}
	return l[:w]
}

// mergeNodes merges into the node-ordered list l the nodes of keys (in
// node order, none in l), from the back, each of l's nodes moved once.
func mergeNodes(l []int32, keys []uint64) []int32 {
	n := len(l)
	l = slices.Grow(l, len(keys))[:n+len(keys)]
	i, w := n-1, len(l)-1
	for k := len(keys) - 1; k >= 0; w-- {
		if nd := int32(uint32(keys[k])); i >= 0 && l[i] > nd {
			l[w] = l[i]
			i--
		} else {
			l[w] = nd
			k--
		}
	}
	return l
}

// buildBuckets builds type ty's buckets from the snapshot's nodes.
func (s *snapshot) buildBuckets(tp *topology, ty int) {
	b := &s.buckets[ty]
	maxCap := 0
	for _, nd := range tp.nodesOfType[ty] {
		maxCap = max(maxCap, tp.nodeCap[nd])
	}
	for len(b.partial) < maxCap {
		b.partial = append(b.partial, nil)
	}
	for f := range b.partial {
		b.partial[f] = b.partial[f][:0]
	}
	b.idle = b.idle[:0]
	for _, nd := range tp.nodesOfType[ty] {
		f := s.free[nd]
		switch {
		case f == tp.nodeCap[nd]:
			b.idle = append(b.idle, int32(nd))
		case f > 0:
			b.partial[f] = append(b.partial[f], int32(nd))
		}
	}
}

// roomOf returns how many nodes of type ty are idle in t and the most idle
// GPUs of a partly used one (0 if none): what tells whether a job can be
// placed without moving anyone (directPlace). It costs the delta, not the
// type's nodes, and writes nothing.
func (t *table) roomOf(ty int) (idleNodes, maxPartial int) {
	// Asked again of the same content (ver), the answer is kept.
	for len(t.room) <= ty {
		t.room = append(t.room, roomMemo{})
	}
	if m := &t.room[ty]; m.ver == t.ver+1 {
		return m.idle, m.maxPartial
	}
	idleNodes, maxPartial = t.roomScan(ty)
	t.room[ty] = roomMemo{t.ver + 1, idleNodes, maxPartial}
	return idleNodes, maxPartial
}

// roomMemo is a type's roomOf answer for table version ver − 1 (0: none).
type roomMemo struct {
	ver              uint64
	idle, maxPartial int
}

// roomScan computes roomOf.
func (t *table) roomScan(ty int) (idleNodes, maxPartial int) {
	tp := t.tp
	if !t.attached() {
		for _, nd := range tp.nodesOfType[ty] {
			switch f := t.free[nd]; {
			case f == tp.nodeCap[nd]:
				idleNodes++
			case f > 0:
				maxPartial = max(maxPartial, f)
			}
		}
		return idleNodes, maxPartial
	}
	bk := t.base.bucketsOf(tp, ty)
	idleNodes = len(bk.idle)
	for _, nd := range t.dirtyNodes {
		if tp.nodeType[nd] != ty {
			continue
		}
		if t.base.free[nd] == tp.nodeCap[nd] {
			idleNodes-- // counted in the snapshot's bucket
		}
		switch f := t.free[nd]; {
		case f == tp.nodeCap[nd]:
			idleNodes++
		case f > 0:
			maxPartial = max(maxPartial, f)
		}
	}
	// The snapshot's fullest bucket with a node the delta left alone.
	for f := len(bk.partial) - 1; f > maxPartial; f-- {
		for _, nd := range bk.partial[f] {
			if !t.nodeDirty(nd) {
				return idleNodes, f
			}
		}
	}
	return idleNodes, maxPartial
}

// roomExcept is roomOf over the nodes of type ty other than those in
// excl (a job's nodes, a handful).
func (t *table) roomExcept(ty int, excl []int) (idleNodes, maxPartial int) {
	tp := t.tp
	if !t.attached() {
		for _, nd := range tp.nodesOfType[ty] {
			if containsInt(excl, nd) {
				continue
			}
			switch f := t.free[nd]; {
			case f == tp.nodeCap[nd]:
				idleNodes++
			case f > 0:
				maxPartial = max(maxPartial, f)
			}
		}
		return idleNodes, maxPartial
	}
	bk := t.base.bucketsOf(tp, ty)
	idleNodes = len(bk.idle)
	for i, nd := range excl {
		if tp.nodeType[nd] == ty && !t.nodeDirty(int32(nd)) && t.base.free[nd] == tp.nodeCap[nd] && !containsInt(excl[:i], nd) {
			idleNodes-- // counted in the snapshot's bucket
		}
	}
	for _, nd := range t.dirtyNodes {
		if tp.nodeType[nd] != ty {
			continue
		}
		if t.base.free[nd] == tp.nodeCap[nd] {
			idleNodes--
		}
		if containsInt(excl, int(nd)) {
			continue
		}
		switch f := t.free[nd]; {
		case f == tp.nodeCap[nd]:
			idleNodes++
		case f > 0:
			maxPartial = max(maxPartial, f)
		}
	}
	for f := len(bk.partial) - 1; f > maxPartial; f-- {
		for _, nd := range bk.partial[f] {
			if !t.nodeDirty(nd) && !containsInt(excl, int(nd)) {
				return idleNodes, f
			}
		}
	}
	return idleNodes, maxPartial
}

// attached reports whether t's delta is against a live snapshot, dropping
// the delta if its snapshot was recycled.
func (t *table) attached() bool {
	if t.base != nil && t.base.gen == t.baseGen {
		return true
	}
	if t.base != nil {
		t.detach()
	}
	return false
}

// detach drops t's delta: t is a plain table until it is rebased.
func (t *table) detach() {
	t.clearDelta()
	t.base = nil
}

// clearDelta empties the delta lists and their marks, keeping the base.
func (t *table) clearDelta() {
	for _, s := range t.dirty {
		t.slotMark[s>>6] &^= 1 << (s & 63)
	}
	for _, n := range t.dirtyNodes {
		t.nodeMark[n>>6] &^= 1 << (n & 63)
	}
	t.dirty, t.dirtyNodes = t.dirty[:0], t.dirtyNodes[:0]
}

// touch records that slot s is about to change.
func (t *table) touch(s int) {
	if t.base == nil {
		return
	}
	bit := uint64(1) << (s & 63)
	if t.slotMark[s>>6]&bit != 0 {
		return
	}
	if len(t.dirty) >= t.tp.deltaLimit {
		t.detach()
		return
	}
	t.slotMark[s>>6] |= bit
	t.dirty = append(t.dirty, int32(s))
	n := t.tp.slotNode[s]
	if nb := uint64(1) << (n & 63); t.nodeMark[n>>6]&nb == 0 {
		t.nodeMark[n>>6] |= nb
		t.dirtyNodes = append(t.dirtyNodes, int32(n))
	}
}

func (t *table) nodeDirty(n int32) bool { return t.nodeMark[n>>6]&(1<<(n&63)) != 0 }

// adoptDelta copies u's delta (and base) into t, whose delta is empty and
// whose content already equals u's.
func (t *table) adoptDelta(u *table) {
	t.base, t.baseGen = u.base, u.baseGen
	t.dirty = append(t.dirty[:0], u.dirty...)
	t.dirtyNodes = append(t.dirtyNodes[:0], u.dirtyNodes...)
	for _, s := range t.dirty {
		t.slotMark[s>>6] |= 1 << (s & 63)
	}
	for _, n := range t.dirtyNodes {
		t.nodeMark[n>>6] |= 1 << (n & 63)
	}
}

// slotsOf returns the slots of job id in t, any status, in slot order. The
// slice is valid until the next slotsOf on t. A detached table is scanned;
// asked again unchanged, it is rebased so that it and its copies answer
// from the index.
func (t *table) slotsOf(id sim.JobID) []int32 {
	if id >= 0 && !t.attached() && t.scanVer == t.ver {
		t.tp.snaps.rebase(t)
	}
	out := t.qbuf[:0]
	if id < 0 || !t.attached() {
		t.scanVer = t.ver
		for s, o := range t.occ {
			if o == id {
				out = append(out, int32(s))
			}
		}
		t.qbuf = out
		return out
	}
	b := t.base
	out = heldSlots(out, b.lookup(id), t.dirty, t.occ, b.occ, id)
	t.qbuf = out
	return out
}

// heldSlots appends to out, in slot order, the slots job o holds in occ: those
// of from (its slots in the table occ was derived from, whose occupants were
// was) it still holds, then the changed slots delta it took. A changed slot
// that was o's already is in from, so it is not counted twice. from is in slot
// order; the whole is sorted only when delta added a slot.
func heldSlots(out, from, delta []int32, occ, was []sim.JobID, o sim.JobID) []int32 {
	start := len(out)
	for _, x := range from {
		if occ[x] == o {
			out = append(out, x)
		}
	}
	n := len(out)
	for _, d := range delta {
		if occ[d] == o && was[d] != o {
			out = append(out, d)
		}
	}
	if len(out) > n {
		slices.Sort(out[start:])
	}
	return out
}

// clearPlacement releases every slot whose occupant is id in tb, whatever
// its status (_clear_placement). It reports whether anything changed.
func (r *round) clearPlacement(tb *table, id sim.JobID) bool {
	slots := tb.slotsOf(id)
	for _, s := range slots {
		tb.idle(int(s))
	}
	return len(slots) > 0
}

// nodesAndFirstCount lists the nodes holding id in tb and its slot count
// on the first of them.
func (r *round) nodesAndFirstCount(tb *table, id sim.JobID) ([]int, int) {
	var nodes []int
	first := 0
	for _, s := range tb.slotsOf(id) {
		n := tb.tp.slotNode[s]
		if len(nodes) == 0 || nodes[len(nodes)-1] != n {
			nodes = append(nodes, n)
		}
		if nodes[0] == n {
			first++
		}
	}
	return nodes, first
}
