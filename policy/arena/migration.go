package arena

import (
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// migration is the outcome of a migration search.
type migration struct {
	ok      bool
	gain    float64 // throughput of the new placement − that of the old one
	relaxed bool    // placed below the best locality
	budget  int     // remaining global migration budget
	tbl     *table  // the table holding the result (see migrationSearch)
}

// migrationSearch is _migration_search: place the job instance in at its
// type and GPU count on tb, clearing its current placement first if asked.
// The gain is the new placement's throughput minus that of the placement
// the job had in tb (0 if none).
//
// It works on tb in place. Like the artifact, when an RHD pair aborts the
// search carries on with a fresh copy of the table, so tb keeps the
// half-done state of the aborted pair; the result is always in
// migration.tbl, which is tb itself unless a pair aborted.
func (r *round) migrationSearch(in inst, tb *table, budget, local int, clear bool) migration {
	return r.migrationSearchOn(in, tb, budget, local, clear, nil, false)
}

// migrationSearchOn is migrationSearch when the caller knows which nodes
// hold the job in tb (known; none if the job is not there), which spares a
// scan of the whole table.
func (r *round) migrationSearchOn(in inst, tb *table, budget, local int, clear bool, nodes []int, known bool) migration {
	// Find the job's slots: its current config (for the gain of leaving
	// it) and what to clear.
	var buf [64]int
	slots := buf[:0]
	if known {
		for _, nd := range nodes {
			lo, hi := tb.slots(nd)
			for s := lo; s < hi; s++ {
				if tb.occ[s] == in.id {
					slots = append(slots, s)
				}
			}
		}
	} else {
		for _, s := range tb.slotsOf(in.id) {
			slots = append(slots, int(s))
		}
	}
	prev := 0.0
	ty, n := in.t, in.num
	if len(slots) > 0 {
		tp := tb.tp
		ty = tp.nodeType[tp.slotNode[slots[0]]]
		n = len(slots)
		nodeCount := 1
		for i := 1; i < len(slots); i++ {
			if tp.slotNode[slots[i]] != tp.slotNode[slots[i-1]] {
				nodeCount++
			}
		}
		prev = r.gainNew(in, ty, r.localityOf(ty, n, nodeCount))
	}
	if clear {
		for _, s := range slots {
			tb.idle(s)
		}
		ty, n = in.t, in.num
	}
	m := r.migrationSearchInternal(in, ty, n, tb, budget, local)
	m.gain -= prev
	return m
}

// migrationSearchInternal is _migration_search_internal (ARENA.md §5 A):
// idle nodes, then the freest partial node, then RHD bubble-migration
// passes, then relaxed locality.
//
// ty and n are the job's GPU type and count as the artifact reads them
// (_get_job_rt_stat: from the table if the job holds slots there, else
// from the instance).
func (r *round) migrationSearchInternal(in inst, ty, n int, tb *table, budget, local int) migration {
	pl := r.placeSearch(in, ty, n, tb, budget, local, false)
	if !pl.ok {
		return migration{gain: infeasibleThr, budget: budget, tbl: pl.tbl}
	}
	return migration{ok: true, gain: r.gainNew(in, ty, pl.l), relaxed: pl.relaxed, budget: budget - pl.used, tbl: pl.tbl}
}

// searchEnd is where placeSearch put a job: at locality l (below the best
// one if relaxed), after using used of the budget, on table tbl; !ok if
// nowhere.
type searchEnd struct {
	ok, relaxed bool
	l           loc
	used        int
	tbl         *table
}

// placeSearch is migrationSearchInternal's search, its gain left to the
// caller. With anyFeasible it takes every locality as feasible: then what
// it does reads of the job only its ID, type ty and count n (the shape of
// the search, see searchShape).
func (r *round) placeSearch(in inst, ty, n int, tb *table, budget, local int, anyFeasible bool) searchEnd {
	capacity := r.p.tp.typeCap[ty]
	best := r.p.bestLocality(ty, n)
	partial, idle := tb.partialNodes(ty, n, r.partialBuf, r.idleBuf)
	defer func() { r.partialBuf, r.idleBuf = partial, idle }()
	if !anyFeasible && !r.feasible(in, ty, best) {
		return searchEnd{tbl: tb}
	}
	need := nodesNeeded(n, capacity)
	if tryDirect(tb, in.id, n, need, partial, idle) {
		return searchEnd{ok: true, l: best, tbl: tb}
	}
	upper := min(budget, local)
	for c := 1; c <= upper; c++ {
		var changed bool
		tb, changed = r.rhdPass(tb, partial, capacity)
		partial, idle = tb.partialNodes(ty, n, partial, idle)
		if tryDirect(tb, in.id, n, need, partial, idle) {
			return searchEnd{ok: true, l: best, used: c, tbl: tb}
		}
		if !changed {
			// A pass that moved nothing is a fixed point: every later pass
			// would repeat it, so the artifact would run out its passes.
			break
		}
	}
	if ok, l := r.relaxedLocality(in, ty, n, tb, anyFeasible); ok {
		return searchEnd{ok: true, relaxed: true, l: l, used: upper, tbl: tb}
	}
	return searchEnd{tbl: tb}
}

// directFit tells how migrationSearchInternal ends for job in on its GPU
// type when nobody has to move, without writing tb: the best locality is
// infeasible (known, !ok), or tryDirect places the job at its best
// locality (known, ok): on the first idle nodes, n/k GPUs on each of k,
// or on the partial node with the most idle GPUs. known is false when the
// search must run (bubble migration, relaxed locality, or a placement
// placeJob could refuse). tb must hold no slot of the job on that type.
func (r *round) directFit(tb *table, in inst) (ok, known bool) {
	if !r.feasible(in, in.t, r.p.bestLocality(in.t, in.num)) {
		return false, true
	}
	return r.roomFit(tb, in.t, in.num)
}

// roomFit is directFit for a job whose best locality is feasible: it reads
// of the job only its type ty and count n. known is false when the search
// must run; else the job is placed directly (ok).
func (r *round) roomFit(tb *table, ty, n int) (ok, known bool) {
	tp := r.p.tp
	if ty >= tp.clusterTypes {
		return false, false // no nodes: let the search tell
	}
	// directPlace on partialNodes' lists, which hold the first n idle
	// nodes and the partial nodes from the most idle GPUs down.
	need := nodesNeeded(n, tp.typeCap[ty])
	idleNodes, maxPartial := tb.roomOfType(ty)
	switch {
	case need <= idleNodes:
		// n/need GPUs on each: the best locality unless n does not fill
		// whole nodes (6 on nodes of 4), where placeJob fails, as it may
		// on a smaller node of the type.
		if !tp.uniformCap[ty] || n/need > tp.typeCap[ty] {
			return false, false
		}
		return true, true
	case n <= maxPartial:
		return true, true
	}
	return false, false
}

// nodesNeeded is the number of nodes a job of n GPUs fills at best
// locality on nodes of the given capacity (estimator.NodesFor: n/capacity
// when the capacity divides n).
func nodesNeeded(n, capacity int) int {
	if n > capacity {
		return estimator.NodesFor(n, capacity)
	}
	return 1
}

// tryDirect places a job at best locality without moving anyone (see
// directPlace).
func tryDirect(tb *table, id sim.JobID, n, need int, partial []nodeFree, idle []int) bool {
	fromIdle, node, ok := directPlace(n, need, partial, idle)
	switch {
	case !ok:
		return false
	case fromIdle:
		tb.placeJob(id, n, packedIdle(tb, need, idle))
	default:
		tb.placeJob(id, n, []int{node})
	}
	return true
}

// packedIdle is the need idle nodes a multi-node grid goes on: the first
// need of idle (the artifact's choice) unless the cluster has a topology
// and packing is on; then, of every idle node of the type, the need in the
// fewest fast domains and switch groups (placement.PackNodes, as tas and
// PlacePacked choose). Which idle nodes a job takes changes neither its
// locality nor its gain, only where its traffic goes.
func packedIdle(tb *table, need int, idle []int) []int {
	tp := tb.tp
	if !tp.packed || need <= 1 {
		return idle[:need]
	}
	ty := tp.nodeType[idle[0]]
	tp.packPartial, tp.packIdle = tb.partialNodes(ty, len(tp.nodesOfType[ty]), tp.packPartial, tp.packIdle)
	return placement.PackNodes(tp.c, tp.packIdle, need)
}

// directPlace is where tryDirect puts a job of n GPUs on need nodes: the
// first need idle nodes (fromIdle), else the first partial node with n
// idle GPUs (node); ok is false when there is neither.
func directPlace(n, need int, partial []nodeFree, idle []int) (fromIdle bool, node int, ok bool) {
	if need <= len(idle) {
		return true, 0, true
	}
	for _, rec := range partial {
		if n <= rec.free {
			return false, rec.node, true
		}
	}
	return false, 0, false
}

// relaxedLocality is _place_job_with_relaxted_locality: halve the GPUs per
// node from the job's count; stop at the first infeasible locality (none
// with anyFeasible); take the first n/q nodes (idle nodes, then the
// partial list) with q idle GPUs. It returns the locality placed at.
func (r *round) relaxedLocality(in inst, ty, n int, tb *table, anyFeasible bool) (bool, loc) {
	capacity := r.p.tp.typeCap[ty]
	partial, idle := tb.partialNodes(ty, n, nil, nil)
	var wideBuf [512]nodeFree
	wide := wideBuf[:0]
	for _, nd := range idle {
		wide = append(wide, nodeFree{nd, capacity})
	}
	wide = append(wide, partial...)
	for q := n; q > 1; {
		q /= 2
		if q > capacity || n%q != 0 {
			continue // a count q does not divide cannot spread evenly
		}
		l := loc{n / q, q}
		if !anyFeasible && !r.feasible(in, ty, l) {
			return false, loc{}
		}
		var nodes []int
		for _, rec := range wide {
			if rec.free >= q {
				nodes = append(nodes, rec.node)
				if len(nodes) == l.nodes {
					tb.placeJob(in.id, n, nodes)
					return true, l
				}
			}
		}
	}
	return false, loc{}
}

// rhdPass is _rhd_bubble_migration: pair the i-th partial node with the
// (len−1−i)-th and migrate bubbles between them. It returns the table the
// pass ended on and whether any pair changed it.
func (r *round) rhdPass(tb *table, partial []nodeFree, capacity int) (*table, bool) {
	changed := false
	half := len(partial) / 2
	// Copy the pairs first: partial aliases a scratch buffer.
	type pair struct{ a, b nodeFree }
	var pairsBuf [64]pair
	pairs := pairsBuf[:0]
	for i := 0; i < half; i++ {
		pairs = append(pairs, pair{partial[i], partial[len(partial)-1-i]})
	}
	for _, pr := range pairs {
		var ch bool
		tb, ch = r.rhdPair(tb, pr.a.node, pr.a.free, pr.b.node, pr.b.free, capacity)
		changed = changed || ch
	}
	return tb, changed
}

// recorded is one job found on the nodes an RHD pair clears.
type recorded struct {
	id    sim.JobID
	count int
	nodes []int // which of the pair's nodes it was on
}

// rhdPair is _rhd_bubble_migration_internal for nodes a and b (idle GPUs
// fa, fb as listed). If fa + fb > cap one node empties into the other;
// else both are cleared and their jobs re-packed, largest first, so that
// one fills up. A pair that would break a job's uniform locality aborts:
// the pair's changes are undone in a new table that is returned, and tb
// keeps the half-done state (the artifact's quirk).
func (r *round) rhdPair(tb *table, a, fa, b, fb, capacity int) (*table, bool) {
	tp := tb.tp
	ty := tp.nodeType[a]
	// Save both nodes for the rollback and the change check.
	alo, ahi := tb.slots(a)
	blo, bhi := tb.slots(b)
	var saveOccA, saveOccB [16]sim.JobID
	var saveUsedA, saveUsedB [16]bool
	copy(saveOccA[:], tb.occ[alo:ahi])
	copy(saveUsedA[:], tb.used[alo:ahi])
	copy(saveOccB[:], tb.occ[blo:bhi])
	copy(saveUsedB[:], tb.used[blo:bhi])
	saveFreeA, saveFreeB := tb.free[a], tb.free[b]
	abort := func() (*table, bool) {
		nt := r.clone(tb)
		nt.restoreNode(a, saveOccA[:ahi-alo], saveUsedA[:ahi-alo], saveFreeA)
		nt.restoreNode(b, saveOccB[:bhi-blo], saveUsedB[:bhi-blo], saveFreeB)
		return nt, false
	}
	changed := func() bool {
		for i := 0; i < ahi-alo; i++ {
			if tb.occ[alo+i] != saveOccA[i] || tb.used[alo+i] != saveUsedA[i] {
				return true
			}
		}
		for i := 0; i < bhi-blo; i++ {
			if tb.occ[blo+i] != saveOccB[i] || tb.used[blo+i] != saveUsedB[i] {
				return true
			}
		}
		return false
	}

	if fa+fb > capacity {
		// One node empties: move everything from the node with more bubbles.
		src, dst := a, b
		if fa < fb {
			src, dst = b, a
		}
		jobs := recordAndClear(tb, []int{src})
		for _, j := range jobs {
			// Nodes of the job before this pair (it is cleared from src only).
			nodes := prevNodes(tb, j.id, ty, src)
			if len(nodes) == 1 {
				tb.placeJob(j.id, j.count, []int{dst})
				continue
			}
			if containsInt(nodes, dst) && !isFake(j.id) {
				return abort()
			}
			tb.placeJob(j.id, j.count, []int{dst})
		}
		return tb, changed()
	}
	// One node fills: re-pack both nodes, largest job first.
	jobs := recordAndClear(tb, []int{a, b})
	if len(jobs) == 0 {
		return tb, false
	}
	slices.SortStableFunc(jobs, func(x, y recorded) int { return y.count - x.count })
	first := jobs[0].nodes[0]
	if len(jobs[0].nodes) > 1 {
		if fa <= fb {
			first = a
		} else {
			first = b
		}
	}
	second := a
	if first == a {
		second = b
	}
	for idx, j := range jobs {
		nodes := prevNodesPair(tb, j, ty, a, b)
		if len(nodes) > 2 && containsInt(nodes, a) && containsInt(nodes, b) && !isFake(j.id) {
			return abort()
		}
		if j.count > capacity {
			return abort()
		}
		// The artifact compares the job's node list with a node ID here
		// ("already on the first node"), which is never true.
		rest := 0
		for _, k := range jobs[idx+1:] {
			rest += k.count
		}
		target, other := first, second
		if rest >= tb.free[first] {
			target, other = second, first
		}
		if !tb.placeJob(j.id, j.count, []int{target}) {
			tb.placeJob(j.id, j.count, []int{other})
		}
	}
	return tb, changed()
}

// recordAndClear is _record_and_clear_nodes: the jobs on USED slots of the
// nodes (first appearance), their slot counts there and which of the nodes
// they were on; those slots become idle.
func recordAndClear(tb *table, nodes []int) []recorded {
	var out []recorded
	for _, n := range nodes {
		lo, hi := tb.slots(n)
		for s := lo; s < hi; s++ {
			if !tb.used[s] {
				continue
			}
			id := tb.occ[s]
			k := -1
			for i := range out {
				if out[i].id == id {
					k = i
					break
				}
			}
			if k < 0 {
				out = append(out, recorded{id: id})
				k = len(out) - 1
			}
			out[k].count++
			if len(out[k].nodes) == 0 || out[k].nodes[len(out[k].nodes)-1] != n {
				out[k].nodes = append(out[k].nodes, n)
			}
			tb.idle(s)
		}
	}
	return out
}

// prevNodes returns the nodes the job held before the pair cleared `cleared`
// from the table: its remaining nodes plus the cleared one, in node order.
func prevNodes(tb *table, id sim.JobID, ty, cleared int) []int {
	nodes := tb.jobNodesOfType(id, ty)
	return insertSorted(nodes, cleared)
}

// prevNodesPair is prevNodes for a one-fills pair that cleared both a and b.
func prevNodesPair(tb *table, j recorded, ty, a, b int) []int {
	nodes := tb.jobNodesOfType(j.id, ty)
	// Drop a and b (the job may have been re-placed there already) and add
	// back those it held before the pair.
	out := nodes[:0]
	for _, n := range nodes {
		if n != a && n != b {
			out = append(out, n)
		}
	}
	for _, n := range j.nodes {
		out = insertSorted(out, n)
	}
	return out
}

func insertSorted(s []int, x int) []int {
	for i, v := range s {
		if v == x {
			return s
		}
		if v > x {
			s = append(s, 0)
			copy(s[i+1:], s[i:])
			s[i] = x
			return s
		}
	}
	return append(s, x)
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
