package arena

import "github.com/arena-sim/arena/sim"

// jobIndex lists, for one version of one table, every real job's slots in
// slot order (a counting sort of the slots by occupant, arrays indexed by
// job ID and reused through a generation stamp). The searches ask the same
// unchanged table — the round's real table, the node-swap fix-up's "before"
// snapshot — for many jobs' slots in a row; with the index each answer
// costs the job's slots instead of a scan of the whole table.
type jobIndex struct {
	tbl *table
	ver uint64

	// By job ID, valid where stamp (and placed) equal gen: the job's slot
	// count, where its slots start in slots, and the fill cursor.
	gen                         int
	stamp, placed, count, start []int32
	fill                        []int32
	slots                       []int32
}

// indexCache keeps the indexes of the last two tables queried twice
// between writes (the fix-up alternates between two tables). A table asked
// once is scanned directly: building an index costs about two scans.
type indexCache struct {
	idx     [2]jobIndex
	next    int
	missTbl *table
	missVer uint64
	scratch []int32
	numJobs int
}

// slotsOf returns the slots of real job id (≥ 0) in tb, in slot order. The
// slice is valid until the next call.
func (c *indexCache) slotsOf(tb *table, id sim.JobID) []int32 {
	if id < 0 {
		return c.scan(tb, id)
	}
	for i := range c.idx {
		x := &c.idx[i]
		if x.tbl == tb && x.ver == tb.ver {
			return x.lookup(id)
		}
	}
	if c.missTbl == tb && c.missVer == tb.ver {
		x := &c.idx[c.next]
		c.next = 1 - c.next
		x.build(tb, c.numJobs)
		return x.lookup(id)
	}
	c.missTbl, c.missVer = tb, tb.ver
	return c.scan(tb, id)
}

func (c *indexCache) scan(tb *table, id sim.JobID) []int32 {
	c.scratch = c.scratch[:0]
	for s, o := range tb.occ {
		if o == id {
			c.scratch = append(c.scratch, int32(s))
		}
	}
	return c.scratch
}

// clearPlacement releases every slot whose occupant is id in tb, whatever
// its status (_clear_placement). It reports whether anything changed.
func (r *round) clearPlacement(tb *table, id sim.JobID) bool {
	slots := r.p.idx.slotsOf(tb, id)
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
	for _, s := range r.p.idx.slotsOf(tb, id) {
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

func (x *jobIndex) lookup(id sim.JobID) []int32 {
	if int(id) >= len(x.stamp) || x.stamp[id] != int32(x.gen) {
		return nil
	}
	st := x.start[id]
	return x.slots[st : st+x.count[id]]
}

func (x *jobIndex) build(tb *table, numJobs int) {
	x.tbl, x.ver = tb, tb.ver
	x.grow(numJobs)
	x.gen++
	g := int32(x.gen)
	// Count per job, then lay the jobs out in order of first slot.
	n := 0
	for _, o := range tb.occ {
		if o < 0 {
			continue
		}
		if int(o) >= len(x.stamp) {
			x.grow(int(o) + 1)
		}
		if x.stamp[o] != g {
			x.stamp[o], x.count[o] = g, 0
		}
		x.count[o]++
		n++
	}
	if cap(x.slots) < n {
		x.slots = make([]int32, n)
	}
	x.slots = x.slots[:n]
	cursor := int32(0)
	for s, o := range tb.occ {
		if o < 0 {
			continue
		}
		if x.placed[o] != g {
			x.placed[o], x.start[o], x.fill[o] = g, cursor, cursor
			cursor += x.count[o]
		}
		x.slots[x.fill[o]] = int32(s)
		x.fill[o]++
	}
}

func (x *jobIndex) grow(n int) {
	if len(x.stamp) >= n {
		return
	}
	grow := func(a []int32) []int32 { return append(a, make([]int32, n-len(a))...) }
	x.stamp, x.placed, x.start, x.count, x.fill = grow(x.stamp), grow(x.placed), grow(x.start), grow(x.count), grow(x.fill)
}
