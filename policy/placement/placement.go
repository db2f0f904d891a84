// Package placement holds the slot-level placement helpers the policies
// share. A Table is a policy's scratch copy of the cluster's slot table
// (GPU slot → occupant); policies plan on it and turn the result into
// sim.Actions, so the engine's state is never touched while planning.
//
// The helpers reproduce the artifact's rules (ARENA.md §5, §7): nodes are
// visited in cluster order, stable sorts break ties by that order, and a job
// placed on a node takes the first idle slots of it. On a cluster with a
// network topology, PlacePacked and PlaceWithin (topology.go) pack a job
// into the fewest fast domains and switch groups, or confine it to one
// group of a level; without one they are PlaceMostFree.
package placement

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Table is a mutable copy of the slot table. Write to it through its
// methods (Take, Release, Set, Clear, Refill), never to Occupant directly:
// it keeps an index of the idle slots of every node (index.go).
type Table struct {
	Cluster  *sim.Cluster
	Occupant []sim.JobID

	// blocked marks the slots of nodes that take no new job (faults:
	// down, draining, reclaimed); nil without faults. A slot a job leaves
	// there reads sim.Unavailable, not idle.
	blocked []bool

	cands []nodeFree // byFree's result, reused from call to call

	ix *freeIndex // idle slots per node, built on first use (index.go)

	// journal records the writes of a trial (Begin … Undo or Keep).
	journal    []slotWrite
	journaling bool

	// RefillView's state: seen is the number (View.Written) of the View
	// the table was last refilled from (0: none, or since refilled by
	// Refill); mine lists the slots the table's methods wrote since
	// (mineAll: too many to list).
	seen    uint64
	mine    []int32
	mineAll bool
}

type nodeFree struct{ node, free int }

// NewTable copies occupant.
func NewTable(c *sim.Cluster, occupant []sim.JobID) *Table {
	return &Table{Cluster: c, Occupant: append([]sim.JobID(nil), occupant...)}
}

// FromView copies a View's slot table, with the availability of its
// nodes (View.Nodes): slots released on a node that takes no new job stay
// unavailable.
func FromView(v *sim.View) *Table {
	t := NewTable(v.Cluster, v.Occupant)
	if v.Nodes != nil {
		t.blocked = make([]bool, len(v.Occupant))
		for n, node := range v.Cluster.Nodes {
			if !v.Available(n) {
				for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
					t.blocked[s] = true
				}
			}
		}
	}
	return t
}

// Clone returns an independent copy.
func (t *Table) Clone() *Table {
	c := NewTable(t.Cluster, t.Occupant)
	c.blocked = t.blocked // never written after FromView
	if t.ix != nil {
		c.ix = t.ix.clone()
	}
	return c
}

// Release makes slot s idle, or unavailable on a node that takes no new
// job.
func (t *Table) Release(s int) {
	if t.blocked != nil && t.blocked[s] {
		t.set(s, sim.Unavailable)
		return
	}
	t.set(s, sim.NoJob)
}

// Free returns the idle slots of node n.
func (t *Table) Free(n int) int {
	if t.ix != nil {
		return int(t.ix.free[n])
	}
	node := t.Cluster.Nodes[n]
	free := 0
	for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
		if t.Occupant[s] == sim.NoJob {
			free++
		}
	}
	return free
}

// FreeOfType returns the idle GPUs of a type.
func (t *Table) FreeOfType(gpu string) int {
	free := 0
	for _, n := range t.Cluster.NodesOfType(gpu) {
		free += t.Free(n)
	}
	return free
}

// Clear releases every slot job holds.
func (t *Table) Clear(job sim.JobID) {
	for s, occ := range t.Occupant {
		if occ == job {
			t.Release(s)
		}
	}
}

// Take gives job the first q slots of node n that are idle or already its
// own and returns them; ok is false (and nothing changes) if fewer exist.
func (t *Table) Take(job sim.JobID, n, q int) ([]int, bool) {
	got, ok := t.takeAppend(nil, job, n, q)
	if !ok {
		return nil, false
	}
	return got, true
}

// takeAppend is Take appending the slots to dst; on failure it returns
// dst as it was (nothing written to the table).
func (t *Table) takeAppend(dst []int, job sim.JobID, n, q int) ([]int, bool) {
	node := t.Cluster.Nodes[n]
	got := dst
	for s := node.FirstSlot; s < node.FirstSlot+node.Capacity && len(got)-len(dst) < q; s++ {
		if occ := t.Occupant[s]; occ == sim.NoJob || occ == job {
			got = append(got, s)
		}
	}
	if len(got)-len(dst) < q {
		return dst, false
	}
	d := 0
	for _, s := range got[len(dst):] {
		d += t.write(s, job)
	}
	if d != 0 && t.ix != nil {
		t.ix.add(n, d)
	}
	return got, true
}

// SlotsOf lists the slots job holds, in slot order.
func (t *Table) SlotsOf(job sim.JobID) []int {
	var out []int
	for s, occ := range t.Occupant {
		if occ == job {
			out = append(out, s)
		}
	}
	return out
}

// NodesByFree returns the nodes of a type with at least q idle GPUs, in
// node order stably sorted by idle GPUs, most first.
func (t *Table) NodesByFree(gpu string, q int) []int {
	cands := t.byFree(gpu, q)
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c.node
	}
	return out
}

// byFree is NodesByFree as (node, idle GPUs) pairs in the table's scratch
// buffer, valid until the next call.
func (t *Table) byFree(gpu string, q int) []nodeFree {
	// Most idle first, node order among nodes with equal idle GPUs (the
	// artifact's stable-sort tie-break), read off the index.
	t.cands = t.nodesByFree(t.cands[:0], gpu, q, -1)
	return t.cands
}

// PlaceMostFree is the baselines' placement helper (FCFS, Gavel, Sia): for
// shape c, take the first c.Nodes nodes of NodesByFree(c.GPU, c.PerNode)
// and on each the first c.PerNode idle slots. It returns the slots, or
// ok = false with the table unchanged.
func (t *Table) PlaceMostFree(job sim.JobID, c estimator.Config) ([]int, bool) {
	// Only the first c.Nodes nodes are used: the index hands out no more.
	nodes := t.nodesByFree(t.cands[:0], c.GPU, c.PerNode, c.Nodes)
	t.cands = nodes
	if len(nodes) < c.Nodes {
		return nil, false
	}
	var slots []int // the Action's, one allocation (nil for no GPUs, as before)
	if k := c.Nodes * c.PerNode; k > 0 {
		slots = make([]int, 0, k)
	}
	for _, n := range nodes[:c.Nodes] {
		var ok bool
		if slots, ok = t.takeAppend(slots, job, n.node, c.PerNode); !ok { // cannot happen: the node had ≥ PerNode idle slots
			for _, s := range slots {
				t.Release(s)
			}
			return nil, false
		}
	}
	return slots, true
}

// PlaceRelaxed is the relaxed-locality variant (Gavel, Sia, fcfs-r): try
// the best locality, then halve the GPUs per node while the shape stays
// feasible under est; it gives up at the first infeasible locality and
// never relaxes below one GPU per node.
func (t *Table) PlaceRelaxed(job sim.JobID, w estimator.Workload, best estimator.Config, est estimator.Estimator) ([]int, estimator.Config, bool) {
	c := best
	for {
		if !est.Estimate(w, c).Feasible() {
			return nil, c, false
		}
		if slots, ok := t.PlaceMostFree(job, c); ok {
			return slots, c, true
		}
		if c.PerNode <= 1 {
			return nil, c, false
		}
		c = Relax(c)
	}
}

// Relax is the next shape of the relaxed-locality walk from c (PerNode >
// 1): the same GPUs with at most half as many per node, the largest per-node
// count d ≤ PerNode/2 that divides them, on GPUs/d nodes. For a
// power-of-two job that is (2·Nodes) × (PerNode/2), the artifact's halving;
// 24 GPUs go 2 × 12 → 4 × 6 → 8 × 3 → 24 × 1, never an uneven grid.
func Relax(c estimator.Config) estimator.Config {
	n := c.GPUs()
	d := c.PerNode / 2
	for d > 1 && n%d != 0 {
		d--
	}
	d = max(d, 1)
	return estimator.Config{GPU: c.GPU, Nodes: n / d, PerNode: d}
}

// Best returns the best-locality shape of n GPUs of type gpu on cluster c.
func Best(c *sim.Cluster, gpu string, n int) estimator.Config {
	return estimator.BestLocality(gpu, n, c.NodeCapacity(gpu))
}
