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
	// clusterTypes is the number of types with nodes (the first ones).
	clusterTypes int
}

func newTopology(c *sim.Cluster) *topology {
	tp := &topology{c: c, types: c.Types, typeIndex: map[string]int{}, clusterTypes: len(c.Types)}
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
	// ver changes with every write, so a jobIndex built on the table can
	// tell it is stale (tables are recycled through the pool: the counter
	// only grows).
	ver uint64
}

func newTable(tp *topology, occupant []sim.JobID) *table {
	t := &table{tp: tp, occ: make([]sim.JobID, len(occupant)), used: make([]bool, len(occupant)),
		free: make([]int, len(tp.nodeCap)), tfree: make([]int, tp.clusterTypes)}
	t.load(occupant)
	return t
}

// load resets t to an occupant list (every occupied slot USED).
func (t *table) load(occupant []sim.JobID) {
	t.ver++
	copy(t.occ, occupant)
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

// clone returns an independent copy (the artifact's deepcopy of the table).
func (t *table) clone() *table {
	u := &table{tp: t.tp, occ: make([]sim.JobID, len(t.occ)), used: make([]bool, len(t.used)),
		free: make([]int, len(t.free)), tfree: make([]int, len(t.tfree))}
	u.copyFrom(t)
	return u
}

// copyFrom overwrites t with u's content (same topology).
func (t *table) copyFrom(u *table) {
	t.ver++
	copy(t.occ, u.occ)
	copy(t.used, u.used)
	copy(t.free, u.free)
	copy(t.tfree, u.tfree)
}

// set writes one slot, keeping the per-node and per-type idle counts.
func (t *table) set(s int, occ sim.JobID, used bool) {
	t.ver++
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
		t.occ[tlo+i] = t.occ[flo+i]
		t.occ[flo+i] = id
	}
}

// restoreNodeFree sets node n's idle count to f after its slots were
// restored behind set's back (rhdPair's rollback), keeping the type's count.
func (t *table) restoreNodeFree(n, f int) {
	t.ver++
	t.tfree[t.tp.nodeType[n]] += f - t.free[n]
	t.free[n] = f
}

func (t *table) idle(s int) { t.set(s, empty, false) }

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
// the shortest prefix holding at least n idle GPUs, plus the idle nodes in
// node order.
func (t *table) partialNodes(ty, n int, partial []nodeFree, idleNodes []int) ([]nodeFree, []int) {
	partial, idleNodes = partial[:0], idleNodes[:0]
	for _, nd := range t.tp.nodesOfType[ty] {
		f := t.free[nd]
		if f > 0 && f < t.tp.nodeCap[nd] {
			partial = append(partial, nodeFree{nd, f})
		}
		if f == t.tp.nodeCap[nd] {
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

// jobNodes returns the nodes (node order) holding slots of id, any status,
// among the nodes of type ty.
func (t *table) jobNodesOfType(id sim.JobID, ty int) []int {
	var out []int
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
	for s, o := range t.occ {
		if o == id {
			out = append(out, s)
		}
	}
	return out
}
