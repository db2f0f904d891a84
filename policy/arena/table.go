package arena

import (
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Occupant values of a slot besides real job IDs (≥ 0).
const (
	empty sim.JobID = sim.NoJob
	// fakeBase − t is the fake job that fills the idle slots of GPU type t
	// during introspective migration (the artifact's fake_job_id_<type>).
	fakeBase sim.JobID = -1000
)

func fakeOf(t int) sim.JobID   { return fakeBase - sim.JobID(t) }
func isFake(id sim.JobID) bool { return id <= fakeBase }

// topology is the static part of the cluster the planner needs: node types,
// capacities and slot ranges, in cluster (tie-break) order.
type topology struct {
	c           *sim.Cluster
	types       []string // cluster types in the artifact's order
	typeIndex   map[string]int
	typeCap     []int   // NODE_CAPACITY per type
	nodeType    []int   // type index per node
	nodeCap     []int   // capacity per node
	firstSlot   []int   // first slot per node
	slotNode    []int   // node per slot
	nodesOfType [][]int // node indices per type, node order
	uniformCap  []bool  // per type: every node has typeCap GPUs
	// clusterTypes is the number of types with nodes (the first ones).
	clusterTypes int

	// deltaLimit is the longest delta a table keeps against its snapshot
	// (index.go); past it, answering from the delta would cost about as
	// much as the flat table does.
	deltaLimit int
	// snaps holds the snapshots of this topology's tables.
	snaps *snapshotCache

	// blocked marks, for the decision under way, the slots of nodes that
	// take no new job (faults: View.Nodes); nil without faults.
	blocked []bool

	// packed places a multi-node grid on idle nodes in the fewest fast
	// domains and switch groups (placement.PackNodes) instead of the first
	// idle nodes in node order; only ever set on a cluster with a topology
	// (without one, Arena's choice is the artifact's, slot for slot).
	packed bool
	// packPartial and packIdle are packedIdle's lists of a type's nodes,
	// kept from call to call (a list of every idle node of the type, made
	// afresh at every packed placement, was most of Arena's allocation on
	// a large cluster with tiers).
	packPartial []nodeFree
	packIdle    []int
	// typeClock hands out the tables' type versions (table.tver).
	typeClock uint64
	// typeRoom keeps roomOf's answers per cluster type for the last few
	// versions of its slots asked (roomOfType).
	typeRoom [][roomWays]roomMemo
	typeWay  []int
}

// block sets blocked from the View's node availability.
func (tp *topology) block(v *sim.View) {
	if v.Nodes == nil {
		tp.blocked = nil
		return
	}
	if len(tp.blocked) != len(tp.slotNode) {
		tp.blocked = make([]bool, len(tp.slotNode))
	}
	for s, n := range tp.slotNode {
		tp.blocked[s] = !v.Available(n)
	}
}

func newTopology(c *sim.Cluster) *topology {
	tp := &topology{c: c, types: c.Types, typeIndex: map[string]int{}, clusterTypes: len(c.Types), snaps: &snapshotCache{}}
	for i, t := range c.Types {
		tp.typeIndex[t] = i
		tp.typeCap = append(tp.typeCap, c.NodeCapacity(t))
	}
	tp.nodesOfType = make([][]int, len(c.Types))
	for _, n := range c.Nodes {
		t := tp.typeIndex[n.GPU]
		tp.nodeType = append(tp.nodeType, t)
		tp.nodeCap = append(tp.nodeCap, n.Capacity)
		tp.firstSlot = append(tp.firstSlot, n.FirstSlot)
		tp.nodesOfType[t] = append(tp.nodesOfType[t], n.Index)
		for s := 0; s < n.Capacity; s++ {
			tp.slotNode = append(tp.slotNode, n.Index)
		}
	}
	for t, nodes := range tp.nodesOfType {
		uniform := true
		for _, n := range nodes {
			uniform = uniform && tp.nodeCap[n] == tp.typeCap[t]
		}
		tp.uniformCap = append(tp.uniformCap, uniform)
	}
	tp.deltaLimit = max(32, len(tp.slotNode)/32)
	tp.packed = c.Topology() != nil
	return tp
}

// typeOf returns the index of a GPU type. A type the cluster lacks (a job
// may ask for one) gets an index with no nodes, after the cluster's types,
// so the searches find no room of it, as the artifact's would.
func (tp *topology) typeOf(name string) int {
	if t, ok := tp.typeIndex[name]; ok {
		return t
	}
	capacity := 1
	if g, err := estimator.LookupGPU(name); err == nil {
		capacity = g.GPUsPerNode
	}
	t := len(tp.types)
	tp.types = append(append([]string(nil), tp.types...), name)
	tp.typeIndex[name] = t
	tp.typeCap = append(tp.typeCap, capacity)
	tp.nodesOfType = append(tp.nodesOfType, nil)
	return t
}

// table is a scratch copy of the artifact's cluster resource status table:
// per GPU slot a status (USED or IDLE) and an occupant. The two are kept
// apart because the artifact marks an opportunistic job's slots IDLE while
// keeping its ID on them (a blocker may take them), and fills idle slots
// with fake jobs during introspective migration.
type table struct {
	tp    *topology
	occ   []sim.JobID
	used  []bool
	free  []int // IDLE slots per node
	tfree []int // IDLE slots per cluster GPU type
	// ver changes with every write (tables are recycled through the pool:
	// the counter only grows); scanVer is the version of the last full
	// scan of a detached table (see slotsOf).
	ver, scanVer uint64

	// The delta against base (index.go), valid while base.gen equals
	// baseGen: the slots and nodes written since t last equalled base,
	// each listed once (marked in the bitsets).
	base               *snapshot
	baseGen            uint64
	dirty, dirtyNodes  []int32
	slotMark, nodeMark []uint64
	// copied counts the delta slots copied from t since its last rebase.
	copied int
	// undo logs the slots' previous content while a checkpoint is open
	// (logging > 0).
	undo    []undoEntry
	logging int
	// scratch of slotsOf and partialNodes, and of copyFrom
	qbuf, nbuf []int32
	kbuf       []uint64
	chainBuf   []*snapshot
	chainBuf2  []*snapshot
	// room keeps roomOf's answers per type (for the version they were
	// computed at).
	room []roomMemo
	// tver is, per cluster GPU type, the version of the content of the
	// type's slots (occupant and status): two tables of a topology, or
	// one at two moments, with the same version of a type hold the same
	// content on its slots. A write takes a new version from the
	// topology's clock; a copy takes the source's versions, a rollback
	// the versions it restores (the undo log keeps them). Read by the
	// type-change trials' memo (htcMemo).
	tver []uint64
}

func newTable(tp *topology, occupant []sim.JobID) *table {
	t := blankTable(tp)
	t.load(occupant)
	return t
}

func blankTable(tp *topology) *table {
	slots, nodes := len(tp.slotNode), len(tp.nodeCap)
	return &table{tp: tp, occ: make([]sim.JobID, slots), used: make([]bool, slots),
		free: make([]int, nodes), tfree: make([]int, tp.clusterTypes), tver: make([]uint64, tp.clusterTypes),
		slotMark: make([]uint64, (slots+63)/64), nodeMark: make([]uint64, (nodes+63)/64)}
}

// load resets t to an occupant list (every occupied slot USED). The table
// is detached.
func (t *table) load(occupant []sim.JobID) {
	t.ver++
	t.detach()
	t.undo, t.logging = t.undo[:0], 0
	copy(t.occ, occupant)
	for ty := range t.tver {
		t.tver[ty] = t.tp.nextTypeVer()
	}
	clear(t.tfree)
	for n := range t.free {
		t.free[n] = t.tp.nodeCap[n]
		t.tfree[t.tp.nodeType[n]] += t.tp.nodeCap[n]
	}
	for s, o := range t.occ {
		t.used[s] = o != empty
		if o != empty {
			n := t.tp.slotNode[s]
			t.free[n]--
			t.tfree[t.tp.nodeType[n]]--
		}
	}
}

// cells is the content a table and a snapshot both hold: each slot's
// occupant and status and each node's idle count.
type cells struct {
	occ  []sim.JobID
	used []bool
	free []int
}

func (t *table) cells() cells    { return cells{t.occ, t.used, t.free} }
func (s *snapshot) cells() cells { return cells{s.occ, s.used, s.free} }

// copyCells writes src's content at the given slots and nodes into dst:
// how copies, rebases and patches move a delta's content between tables
// and snapshots.
func copyCells(dst, src cells, slots, nodes []int32) {
	for _, s := range slots {
		dst.occ[s], dst.used[s] = src.occ[s], src.used[s]
	}
	for _, n := range nodes {
		dst.free[n] = src.free[n]
	}
}

// clone returns an independent copy (the artifact's deepcopy of the table).
func (t *table) clone() *table {
	u := blankTable(t.tp)
	u.copyFrom(t)
	return u
}

// copyFrom overwrites t with u's content (same topology). When both are
// deltas against the same snapshot, only the two deltas are copied: t's
// slots back to the snapshot's content, then u's slots from u.
func (t *table) copyFrom(u *table) {
	t.ver++
	copy(t.tver, u.tver)
	t.copied = 0
	t.undo, t.logging = t.undo[:0], 0
	if u.attached() && t.attached() && t.base == u.base {
		b := t.base
		copyCells(t.cells(), b.cells(), t.dirty, t.dirtyNodes)
		t.clearDelta()
		copyCells(t.cells(), u.cells(), u.dirty, u.dirtyNodes)
		copy(t.tfree, u.tfree)
		t.adoptDelta(u)
		return
	}
	if tc, uc, ok := t.kinship(u); ok {
		// The two snapshots descend from a common one, each generation
		// made from a delta against its parent: t differs from u's
		// snapshot only on its delta and on the slots either line of
		// descent changed, which take u's snapshot's content; then t
		// takes u's delta.
		dst, ub := t.cells(), u.base.cells()
		copyCells(dst, ub, t.dirty, t.dirtyNodes)
		for _, x := range tc {
			copyCells(dst, ub, x.diff, x.diffNodes)
		}
		for _, x := range uc {
			copyCells(dst, ub, x.diff, x.diffNodes)
		}
		t.clearDelta()
		copyCells(dst, u.cells(), u.dirty, u.dirtyNodes)
		copy(t.tfree, u.tfree)
		t.adoptDelta(u)
		return
	}
	t.detach()
	copy(t.occ, u.occ)
	copy(t.used, u.used)
	copy(t.free, u.free)
	copy(t.tfree, u.tfree)
	if u.attached() {
		t.adoptDelta(u)
	}
}

// kinship finds a common ancestor of t's and u's snapshots, both
// attached and different, a few live generations up (index.go: each
// snapshot made from a delta against its parent). It returns the
// snapshots of each line below the ancestor (each snapshot first).
func (t *table) kinship(u *table) (tc, uc []*snapshot, ok bool) {
	if !u.attached() || !t.attached() || u.base == t.base {
		return nil, nil, false
	}
	// t's line: its snapshot and up to three ancestors.
	line := t.chainBuf[:0]
	line = append(line, t.base)
	for s := t.base; len(line) < 4 && s.parent != nil && s.parent.gen == s.parentGen; s = s.parent {
		line = append(line, s.parent)
	}
	t.chainBuf = line
	uc = t.chainBuf2[:0]
	for s, k := u.base, 0; k < 4; k++ {
		for i, a := range line {
			if a == s {
				t.chainBuf2 = uc
				return line[:i], uc, true
			}
		}
		if s.parent == nil || s.parent.gen != s.parentGen {
			return nil, nil, false
		}
		uc = append(uc, s)
		s = s.parent
	}
	return nil, nil, false
}

// set writes one slot, keeping the per-node and per-type idle counts.
func (t *table) set(s int, occ sim.JobID, used bool) {
	if t.occ[s] == occ && t.used[s] == used {
		return
	}
	t.ver++
	t.touch(s)
	t.log(s)
	t.newTypeVer(s)
	t.write(s, occ, used)
}

// write sets a slot and the idle counts, leaving the delta and the log to
// the caller.
func (t *table) write(s int, occ sim.JobID, used bool) {
	if t.used[s] != used {
		n := t.tp.slotNode[s]
		if used {
			t.free[n]--
			t.tfree[t.tp.nodeType[n]]--
		} else {
			t.free[n]++
			t.tfree[t.tp.nodeType[n]]++
		}
	}
	t.occ[s], t.used[s] = occ, used
}

// moveNode is the node-swap fix-up's copy: node to takes node from's
// occupants slot for slot and node from's slots all become id's. Statuses
// are left as they are (both nodes are full).
func (t *table) moveNode(from, to int, id sim.JobID) {
	t.ver++
	flo, fhi := t.slots(from)
	tlo, _ := t.slots(to)
	for i := 0; i < fhi-flo; i++ {
		t.touch(tlo + i)
		t.touch(flo + i)
		t.log(tlo + i)
		t.log(flo + i)
		t.newTypeVer(tlo + i)
		t.newTypeVer(flo + i)
		t.occ[tlo+i] = t.occ[flo+i]
		t.occ[flo+i] = id
	}
}

// restoreNode writes node n's slots and idle count back from a saved
// copy (rhdPair's rollback), keeping the type's count.
func (t *table) restoreNode(n int, occ []sim.JobID, used []bool, f int) {
	t.ver++
	lo, hi := t.slots(n)
	for s := lo; s < hi; s++ {
		t.touch(s)
		t.log(s)
		t.newTypeVer(s)
	}
	copy(t.occ[lo:hi], occ)
	copy(t.used[lo:hi], used)
	t.tfree[t.tp.nodeType[n]] += f - t.free[n]
	t.free[n] = f
}

func (t *table) idle(s int) {
	if t.tp.blocked != nil && t.tp.blocked[s] {
		// faults: a slot left on a node that takes no new job stays
		// held, by sim.Unavailable
		t.set(s, sim.Unavailable, true)
		return
	}
	t.set(s, empty, false)
}

func (t *table) slots(n int) (int, int) {
	f := t.tp.firstSlot[n]
	return f, f + t.tp.nodeCap[n]
}

// freeOfType is the number of IDLE slots of type ty (_is_sufficient counts
// them until it reaches n); a type the cluster lacks has none.
func (t *table) freeOfType(ty int) int {
	if ty >= len(t.tfree) {
		return 0
	}
	return t.tfree[ty]
}

// placeJob puts count GPUs of job id evenly on nodes (_place_job): on each
// node the first count/len(nodes) slots, in slot order, that are IDLE or
// already the job's. The job's other slots on those nodes are released. It
// fails, changing nothing, when a node lacks such slots.
func (t *table) placeJob(id sim.JobID, count int, nodes []int) bool {
	per := count / len(nodes)
	var buf [32]int
	picked := buf[:0]
	for _, n := range nodes {
		got := 0
		lo, hi := t.slots(n)
		for s := lo; s < hi && got < per; s++ {
			if !t.used[s] || t.occ[s] == id {
				picked = append(picked, s)
				got++
			}
		}
		if got != per {
			return false
		}
	}
	for _, n := range nodes {
		lo, hi := t.slots(n)
		for s := lo; s < hi; s++ {
			if t.occ[s] == id {
				t.idle(s)
			}
		}
	}
	for _, s := range picked {
		t.set(s, id, true)
	}
	return true
}

// nodeFree is an entry of the partial-node list: a node and its idle GPUs.
type nodeFree struct{ node, free int }

// partialNodes is _sort_partial_occ_nodes: the nodes of type ty with
// 0 < idle < capacity, stably sorted by idle GPUs (most first) and cut to
// the shortest prefix holding at least n idle GPUs, plus the first n idle
// nodes in node order (no caller needs more: a job of n GPUs spans at most
// n nodes).
func (t *table) partialNodes(ty, n int, partial []nodeFree, idleNodes []int) ([]nodeFree, []int) {
	partial, idleNodes = partial[:0], idleNodes[:0]
	if !t.attached() {
		return t.scanPartialNodes(ty, n, partial, idleNodes)
	}
	tp := t.tp
	bk := t.base.bucketsOf(tp, ty)
	// The delta's nodes of type ty: idle ones in node order, then partial
	// ones by idle GPUs (most first), node order on ties.
	// Sorted as integer keys: not idle (1) or idle (0), then 2¹⁶ − 1 −
	// idle GPUs, then the node.
	full := func(nd int32) bool { return t.free[nd] == tp.nodeCap[nd] }
	keys := t.kbuf[:0]
	for _, nd := range t.dirtyNodes {
		if tp.nodeType[nd] == ty {
			k := uint64(0xFFFF-t.free[nd])<<32 | uint64(nd)
			if !full(nd) {
				k |= 1 << 48
			}
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	dn := t.nbuf[:0]
	for _, k := range keys {
		dn = append(dn, int32(uint32(k)))
	}
	t.kbuf, t.nbuf = keys, dn
	j := 0
	// Idle nodes: merge the snapshot's (those not in the delta) with the
	// delta's, in node order.
	for i := 0; len(idleNodes) < n; {
		var next int32 = -1
		for i < len(bk.idle) && t.nodeDirty(bk.idle[i]) {
			i++
		}
		if i < len(bk.idle) {
			next = bk.idle[i]
		}
		if j < len(dn) && full(dn[j]) && (next < 0 || dn[j] < next) {
			next = dn[j]
			j++
		} else if next >= 0 {
			i++
		} else {
			break
		}
		idleNodes = append(idleNodes, int(next))
	}
	for j < len(dn) && full(dn[j]) {
		j++
	}
	// Partial nodes, most idle GPUs first, until they hold n.
	sum := 0
	for f := len(bk.partial) - 1; f >= 1; f-- {
		list := bk.partial[f]
		for i := 0; ; {
			var next int32 = -1
			for i < len(list) && t.nodeDirty(list[i]) {
				i++
			}
			if i < len(list) {
				next = list[i]
			}
			if j < len(dn) && t.free[dn[j]] == f && (next < 0 || dn[j] < next) {
				next = dn[j]
				j++
			} else if next >= 0 {
				i++
			} else {
				break
			}
			partial = append(partial, nodeFree{int(next), f})
			if sum += f; sum >= n {
				return partial, idleNodes
			}
		}
	}
	return partial, idleNodes
}

// scanPartialNodes is partialNodes on a detached table: a scan of the
// type's nodes.
func (t *table) scanPartialNodes(ty, n int, partial []nodeFree, idleNodes []int) ([]nodeFree, []int) {
	for _, nd := range t.tp.nodesOfType[ty] {
		f := t.free[nd]
		if f > 0 && f < t.tp.nodeCap[nd] {
			partial = append(partial, nodeFree{nd, f})
		}
		if f == t.tp.nodeCap[nd] && len(idleNodes) < n {
			idleNodes = append(idleNodes, nd)
		}
	}
	// The artifact's sorted(..., reverse=True) is stable: node order on ties.
	slices.SortStableFunc(partial, func(a, b nodeFree) int { return b.free - a.free })
	sum := 0
	for i, r := range partial {
		sum += r.free
		if sum >= n {
			return partial[:i+1], idleNodes
		}
	}
	return partial, idleNodes
}

// jobNodesOfType returns the nodes (node order) holding slots of id, any
// status, among the nodes of type ty.
func (t *table) jobNodesOfType(id sim.JobID, ty int) []int {
	var out []int
	if id >= 0 && t.attached() {
		for _, s := range t.slotsOf(id) {
			n := t.tp.slotNode[s]
			if t.tp.nodeType[n] == ty && (len(out) == 0 || out[len(out)-1] != n) {
				out = append(out, n)
			}
		}
		return out
	}
	for _, n := range t.tp.nodesOfType[ty] {
		lo, hi := t.slots(n)
		for s := lo; s < hi; s++ {
			if t.occ[s] == id {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// jobSlots lists the slots of id in slot order.
func (t *table) jobSlots(id sim.JobID) []int {
	var out []int
	for _, s := range t.slotsOf(id) {
		out = append(out, int(s))
	}
	return out
}

// A checkpoint lets a trial run on a table in place and be undone,
// instead of running on a copy that is thrown away: rollback restores the
// slots the log recorded since, and, when the table kept its snapshot, its
// delta too (a slot first written after the checkpoint held the
// snapshot's content before it). Checkpoints nest.
type checkpoint struct {
	undo, dirty, dirtyNodes int
	base                    *snapshot
	baseGen                 uint64
}

type undoEntry struct {
	s    int32
	used bool
	occ  sim.JobID
	tver uint64 // the version of the slot's type before the write
}

func (t *table) checkpoint() checkpoint {
	t.logging++
	return checkpoint{undo: len(t.undo), dirty: len(t.dirty), dirtyNodes: len(t.dirtyNodes), base: t.base, baseGen: t.baseGen}
}

func (t *table) log(s int) {
	if t.logging > 0 {
		t.undo = append(t.undo, undoEntry{int32(s), t.used[s], t.occ[s], t.tver[t.tp.nodeType[t.tp.slotNode[s]]]})
	}
}

// rollback undoes every write since ck and closes it.
func (t *table) rollback(ck checkpoint) {
	t.ver++
	for i := len(t.undo) - 1; i >= ck.undo; i-- {
		e := t.undo[i]
		t.touch(int(e.s))
		t.write(int(e.s), e.occ, e.used)
		t.tver[t.tp.nodeType[t.tp.slotNode[e.s]]] = e.tver
	}
	t.undo = t.undo[:ck.undo]
	t.logging--
	if t.base != nil && t.base == ck.base && t.baseGen == ck.baseGen && t.attached() {
		for _, s := range t.dirty[ck.dirty:] {
			t.slotMark[s>>6] &^= 1 << (s & 63)
		}
		for _, n := range t.dirtyNodes[ck.dirtyNodes:] {
			t.nodeMark[n>>6] &^= 1 << (n & 63)
		}
		t.dirty, t.dirtyNodes = t.dirty[:ck.dirty], t.dirtyNodes[:ck.dirtyNodes]
	}
}

// nextTypeVer returns a new type version (table.tver).
func (tp *topology) nextTypeVer() uint64 {
	tp.typeClock++
	return tp.typeClock
}

// newTypeVer gives the type of slot s a new version in t: its content is
// about to change.
func (t *table) newTypeVer(s int) {
	t.tver[t.tp.nodeType[t.tp.slotNode[s]]] = t.tp.nextTypeVer()
}

// roomWays is the number of versions of a type whose roomOf answers the
// topology keeps.
const roomWays = 4

// roomOfType is roomOf kept by the version of type ty's slots (tver)
// rather than the table's: the answer reads only those slots, so it holds
// for every table of the topology with that version, across writes to
// other types, rollbacks and copies (the type-change trials of a step
// each write and roll back the table, which table.roomOf's memo, by table
// version, does not survive).
func (t *table) roomOfType(ty int) (idleNodes, maxPartial int) {
	tp := t.tp
	if ty >= len(t.tver) {
		return t.roomOf(ty)
	}
	if tp.typeRoom == nil {
		tp.typeRoom = make([][roomWays]roomMemo, len(t.tver))
		tp.typeWay = make([]int, len(t.tver))
	}
	v := t.tver[ty]
	ways := &tp.typeRoom[ty]
	for i := range ways {
		if ways[i].ver == v && v != 0 {
			return ways[i].idle, ways[i].maxPartial
		}
	}
	idleNodes, maxPartial = t.roomOf(ty)
	ways[tp.typeWay[ty]] = roomMemo{v, idleNodes, maxPartial}
	tp.typeWay[ty] = (tp.typeWay[ty] + 1) % roomWays
	return idleNodes, maxPartial
}
