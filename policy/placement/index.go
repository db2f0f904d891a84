package placement

import (
	"math/bits"
	"slices"
	"sync"

	"github.com/arena-sim/arena/sim"
)

// freeIndex keeps, for a Table, the idle slots of every node and, per GPU
// type, the nodes grouped by their idle count (one bitset over the type's
// node list per count). byFree then reads the nodes in the artifact's
// order (most idle first, node order among equals) without counting
// every slot and sorting every node of the type on each placement: on a
// 100,000-GPU cluster that count and sort was nearly all of an FCFS run.
// The index is built on the first call that needs it and kept up to date
// by every write through the Table's methods (Take, Release, Set, Refill).
type freeIndex struct {
	shape *clusterShape
	free  []int32      // idle slots per node
	sets  [][][]uint64 // per type (shape order), per idle count: bitset over the type's nodes
	count [][]int      // per type, per idle count: nodes in the set
	grp   *groupIndex  // per topology group, built on first use (groupindex.go)
}

// clusterShape is what the index needs of a cluster that never changes:
// each node's type and position in NodesOfType, each type's node list.
type clusterShape struct {
	cluster *sim.Cluster
	types   map[string]int
	nodes   [][]int // per type: NodesOfType
	cap     []int   // per type: the largest node's slots
	typeOf  []int32 // per node
	pos     []int32 // per node: position in its type's list
}

var shapeCache struct {
	sync.Mutex
	last *clusterShape
}

// shapeOf returns c's shape, kept for the last cluster asked about.
func shapeOf(c *sim.Cluster) *clusterShape {
	shapeCache.Lock()
	defer shapeCache.Unlock()
	if s := shapeCache.last; s != nil && s.cluster == c {
		return s
	}
	s := &clusterShape{cluster: c, types: map[string]int{}, typeOf: make([]int32, len(c.Nodes)), pos: make([]int32, len(c.Nodes))}
	for _, n := range c.Nodes {
		t, ok := s.types[n.GPU]
		if !ok {
			t = len(s.nodes)
			s.types[n.GPU] = t
			s.nodes = append(s.nodes, c.NodesOfType(n.GPU))
			s.cap = append(s.cap, 0)
		}
		s.typeOf[n.Index] = int32(t)
		s.cap[t] = max(s.cap[t], n.Capacity)
	}
	for _, list := range s.nodes {
		for i, n := range list {
			s.pos[n] = int32(i)
		}
	}
	shapeCache.last = s
	return s
}

// index returns t's index, building it from the slot table if needed.
func (t *Table) index() *freeIndex {
	if t.ix != nil {
		return t.ix
	}
	s := shapeOf(t.Cluster)
	ix := &freeIndex{shape: s, free: make([]int32, len(t.Cluster.Nodes)),
		sets: make([][][]uint64, len(s.nodes)), count: make([][]int, len(s.nodes))}
	for ty, list := range s.nodes {
		words := (len(list) + 63) / 64
		ix.sets[ty] = make([][]uint64, s.cap[ty]+1)
		backing := make([]uint64, words*(s.cap[ty]+1))
		for f := range ix.sets[ty] {
			ix.sets[ty][f] = backing[f*words : (f+1)*words : (f+1)*words]
		}
		ix.count[ty] = make([]int, s.cap[ty]+1)
	}
	for n, node := range t.Cluster.Nodes {
		f := 0
		for sl := node.FirstSlot; sl < node.FirstSlot+node.Capacity; sl++ {
			if t.Occupant[sl] == sim.NoJob {
				f++
			}
		}
		ix.free[n] = int32(f)
		ty, p := s.typeOf[n], s.pos[n]
		ix.sets[ty][f][p>>6] |= 1 << (p & 63)
		ix.count[ty][f]++
	}
	t.ix = ix
	return ix
}

// clone returns an independent copy of ix (without its group index,
// rebuilt when asked for).
func (ix *freeIndex) clone() *freeIndex {
	c := &freeIndex{shape: ix.shape, free: append([]int32(nil), ix.free...),
		sets: make([][][]uint64, len(ix.sets)), count: make([][]int, len(ix.count))}
	for ty, sets := range ix.sets {
		c.sets[ty] = make([][]uint64, len(sets))
		words := 0
		if len(sets) > 0 {
			words = len(sets[0])
		}
		backing := make([]uint64, words*len(sets))
		for f, set := range sets {
			c.sets[ty][f] = backing[f*words : (f+1)*words : (f+1)*words]
			copy(c.sets[ty][f], set)
		}
		c.count[ty] = append([]int(nil), ix.count[ty]...)
	}
	return c
}

// add changes node n's idle count by d.
func (ix *freeIndex) add(n int, d int) {
	if d == 0 {
		return
	}
	s := ix.shape
	ty, p := s.typeOf[n], s.pos[n]
	f := ix.free[n]
	ix.sets[ty][f][p>>6] &^= 1 << (p & 63)
	ix.count[ty][f]--
	if ix.grp != nil {
		ix.grp.moved(ty, n, f, f+int32(d))
	}
	f += int32(d)
	ix.free[n] = f
	ix.sets[ty][f][p>>6] |= 1 << (p & 63)
	ix.count[ty][f]++
}

// set writes occ to slot s, keeping the index (if any) current.
func (t *Table) set(s int, occ sim.JobID) {
	if d := t.write(s, occ); d != 0 && t.ix != nil {
		t.ix.add(t.Cluster.NodeOf(s), d)
	}
}

// write writes occ to slot s (journaled) and returns how the idle slots
// of its node change (−1, 0 or 1), for the caller to apply to the index:
// a caller writing several slots of one node moves the node in the index
// once (Take, Refill), not once per slot.
func (t *Table) write(s int, occ sim.JobID) int {
	old := t.Occupant[s]
	if t.journaling && old != occ {
		t.journal = append(t.journal, slotWrite{s, old})
	}
	if t.seen != 0 && !t.mineAll && old != occ {
		if len(t.mine) >= len(t.Occupant)/4 {
			t.mineAll = true
		} else {
			t.mine = append(t.mine, int32(s))
		}
	}
	t.Occupant[s] = occ
	switch {
	case old == sim.NoJob && occ != sim.NoJob:
		return -1
	case old != sim.NoJob && occ == sim.NoJob:
		return 1
	}
	return 0
}

// slotWrite is a journal entry: slot s held old before a write.
type slotWrite struct {
	s   int
	old sim.JobID
}

// Begin starts a trial: the writes from here on can be reverted by Undo
// (or kept by Keep). A policy that tries a plan on its table and may
// abandon it pays for the slots it wrote, not for a copy of the table.
func (t *Table) Begin() {
	t.journal, t.journaling = t.journal[:0], true
}

// Undo reverts every write since Begin and ends the trial.
func (t *Table) Undo() {
	t.journaling = false
	for i := len(t.journal) - 1; i >= 0; i-- {
		t.set(t.journal[i].s, t.journal[i].old)
	}
	t.journal = t.journal[:0]
}

// Keep ends the trial, keeping its writes.
func (t *Table) Keep() {
	t.journal, t.journaling = t.journal[:0], false
}

// SlotsOfEach returns, for each of ids, the slots it holds in slot order
// (SlotsOf for each, in one pass over the table).
func (t *Table) SlotsOfEach(ids []sim.JobID) map[sim.JobID][]int {
	out := make(map[sim.JobID][]int, len(ids))
	for _, id := range ids {
		out[id] = nil
	}
	for s, occ := range t.Occupant {
		if occ < 0 {
			continue
		}
		if slots, ok := out[occ]; ok {
			out[occ] = append(slots, s)
		}
	}
	return out
}

// Set gives slot s to occ (sim.NoJob: idle). Writes to a Table go
// through its methods, never to Occupant directly: the Table keeps an
// index of idle slots per node.
func (t *Table) Set(s int, occ sim.JobID) { t.set(s, occ) }

// Refill makes t a copy of occupant on cluster c, reusing t's storage;
// with the same cluster and an index built, only the slots that differ
// are rewritten (a policy that refills its table every decision pays for
// the comparison, not for rebuilding the index).
func (t *Table) Refill(c *sim.Cluster, occupant []sim.JobID) {
	t.seen, t.mine, t.mineAll = 0, t.mine[:0], false
	if t.ix == nil || t.Cluster != c || len(t.Occupant) != len(occupant) {
		t.Cluster, t.Occupant, t.ix, t.blocked = c, append(t.Occupant[:0], occupant...), nil, nil
		return
	}
	const block = 512 // compared a block at a time (memequal), walked only where they differ
	node, d := -1, 0  // the node whose slots are being written, its idle change
	for lo := 0; lo < len(occupant); lo += block {
		hi := min(lo+block, len(occupant))
		if slices.Equal(t.Occupant[lo:hi], occupant[lo:hi]) {
			continue
		}
		for s := lo; s < hi; s++ {
			if o := occupant[s]; t.Occupant[s] != o {
				if n := t.Cluster.NodeOf(s); n != node {
					if d != 0 {
						t.ix.add(node, d)
					}
					node, d = n, 0
				}
				d += t.write(s, o)
			}
		}
	}
	if d != 0 {
		t.ix.add(node, d)
	}
}

// RefillView is Refill(v.Cluster, v.Occupant) for a policy that refills
// its table at every decision: when the table was last refilled from the
// engine's View numbered just before v's (View.Written), it rewrites only
// the slots the engine wrote since and those the table's own methods
// wrote since (the policy's plan, which the engine may not have carried
// out: a wrapper vetoes starts), not the whole table. Otherwise — the
// first decision, a decision the policy did not see (a wrapper that calls
// it only sometimes), a View the engine did not build, too many slots
// written, another cluster, a Refill in between — it compares the whole
// table (Refill).
func (t *Table) RefillView(v *sim.View) {
	seq, slots, all := v.Written()
	if seq == 0 || all || t.mineAll || t.seen == 0 || seq != t.seen+1 ||
		t.Cluster != v.Cluster || len(t.Occupant) != len(v.Occupant) {
		t.Refill(v.Cluster, v.Occupant)
		t.seen = seq
		return
	}
	mine := t.mine
	t.seen = 0 // no tracking of the refill's own writes
	t.rewrite(mine, v.Occupant)
	t.rewrite(slots, v.Occupant)
	t.seen, t.mine = seq, mine[:0]
}

// rewrite makes the listed slots of t those of occupant, moving a node in
// the index once per run of its slots in the list (a job's slots are
// listed together), not once per slot.
func (t *Table) rewrite(slots []int32, occupant []sim.JobID) {
	node, d := -1, 0 // the node whose slots are being written, its idle change
	for _, s := range slots {
		o := occupant[s]
		if t.Occupant[s] == o {
			continue
		}
		if n := t.Cluster.NodeOf(int(s)); n != node {
			if d != 0 && t.ix != nil {
				t.ix.add(node, d)
			}
			node, d = n, 0
		}
		d += t.write(int(s), o)
	}
	if d != 0 && t.ix != nil {
		t.ix.add(node, d)
	}
}

// FillFromView makes t what FromView(v) returns, reusing t's storage and,
// through Refill, its index.
func (t *Table) FillFromView(v *sim.View) {
	t.Refill(v.Cluster, v.Occupant)
	t.blocked = nil
	if v.Nodes == nil {
		return
	}
	t.blocked = make([]bool, len(v.Occupant))
	for n, node := range v.Cluster.Nodes {
		if !v.Available(n) {
			for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
				t.blocked[s] = true
			}
		}
	}
}

// nodesByFree appends to out, in the artifact's order, the nodes of type
// gpu with at least q idle slots, stopping once out holds limit pairs
// (limit < 0: all of them).
func (t *Table) nodesByFree(out []nodeFree, gpu string, q, limit int) []nodeFree {
	ix := t.index()
	ty, ok := ix.shape.types[gpu]
	if !ok {
		return out
	}
	list := ix.shape.nodes[ty]
	q = max(q, 0)
	for f := len(ix.sets[ty]) - 1; f >= q; f-- {
		if ix.count[ty][f] == 0 {
			continue
		}
		for w, word := range ix.sets[ty][f] {
			for word != 0 {
				if limit >= 0 && len(out) >= limit {
					return out
				}
				b := bits.TrailingZeros64(word)
				word &= word - 1
				out = append(out, nodeFree{list[w<<6|b], f})
			}
		}
	}
	return out
}

// countFree returns how many nodes of type gpu have at least q idle slots.
func (t *Table) countFree(gpu string, q int) int {
	ix := t.index()
	ty, ok := ix.shape.types[gpu]
	if !ok {
		return 0
	}
	n := 0
	for f := max(q, 0); f < len(ix.count[ty]); f++ {
		n += ix.count[ty][f]
	}
	return n
}
