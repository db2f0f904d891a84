package elasticflow

import (
	"math/bits"
	"slices"

	"github.com/arena-sim/arena/sim"
)

// keepMaxCapacity is the largest node (in GPUs) the keeping placement
// handles: a node's used slots are one 64-bit mask. A type with a larger
// node is always re-placed whole.
const keepMaxCapacity = 64

// WithKeep turns on the keeping re-placement (option keep): admission
// and doubling, and so every job's share, are the artifact's, but a
// re-placement moves only the jobs that must move. A running job whose
// share equals the GPUs it holds keeps them; the others (the job
// admitted, jobs admitted earlier in the decision, jobs whose share
// changed, jobs on a node no longer available) are placed on the GPUs
// left by the artifact's packing rule (keepPlace); if some job cannot be
// placed there, the type is re-placed whole as the artifact does
// (replace), so no admission fails that the default would make. Kept
// jobs never move to make room, except in that fallback.
func (e *ElasticFlow) WithKeep(keep bool) *ElasticFlow {
	e.keep = keep
	return e
}

// current is the slots x holds in the plan: those its type's last
// re-placement in this decision gave it, else its GPUs (none for a job
// not yet running).
func (x *jobState) current() []int {
	if x.moved {
		return x.gpus
	}
	return x.job.GPUs
}

// keepPlace is the keeping re-placement of the type's jobs (list, with
// their shares): a job whose share is the count of the slots it holds in
// the plan, all on available nodes of the type, keeps them; the others
// (the movers) are stably sorted by share, most first; those larger than
// a node take the first wholly free nodes in node order; then each node,
// in node order, is packed by walking the sorted movers and taking every
// one whose share fits the node's free slots (its lowest free slots, not
// necessarily adjacent: the engine prices a node's GPUs alike). It
// reports false, with no job's place in the plan changed, if a mover is
// left unplaced or a node is larger than keepMaxCapacity.
func (p *plan) keepPlace(ts *typeState, list []*jobState, share []int) bool {
	c := p.v.Cluster
	if ts.capacity <= 0 || ts.capacity > keepMaxCapacity {
		return false
	}
	if len(p.used) < len(c.Nodes) {
		p.used, p.mark = make([]uint64, len(c.Nodes)), make([]uint64, len(c.Nodes))
	}
	used := p.used
	// The type's available nodes (ts.nodes) are marked with a fresh
	// stamp: a kept job's slots must all be on them.
	p.markStamp++
	for _, n := range ts.nodes {
		used[n], p.mark[n] = 0, p.markStamp
	}
	movers := p.movers[:0]
	for i, y := range list {
		cur := y.current()
		if len(cur) != share[i] || !p.keepable(cur) {
			movers = append(movers, i)
			continue
		}
		for _, s := range cur {
			n := c.NodeOf(s)
			used[n] |= 1 << uint(s-c.Nodes[n].FirstSlot)
		}
	}
	p.movers = movers
	if len(movers) == 0 {
		p.commitKeep(list, share)
		return true
	}
	// Stable sort by share, most first (few distinct shares).
	ms := p.moverShares[:0]
	for _, i := range movers {
		ms = append(ms, share[i])
	}
	p.moverShares = ms
	order := p.sortByShare(ms) // indices into movers
	gpus := p.keepSlots[:0]
	at := p.keepAt[:0] // at[k]: movers[order[k]]'s slots are gpus[at[k]:at[k+1]]
	capacity := ts.capacity
	full := uint64(1)<<uint(capacity) - 1
	if capacity == 64 {
		full = ^uint64(0)
	}
	k := 0
	cursor := 0
	for ; k < len(order) && ms[order[k]] > capacity; k++ {
		need := ms[order[k]] / capacity
		at = append(at, len(gpus))
		for ; need > 0 && cursor < len(ts.nodes); cursor++ {
			n := ts.nodes[cursor]
			if used[n] != 0 || c.Nodes[n].Capacity < capacity {
				continue
			}
			used[n] = full
			for s := range capacity {
				gpus = append(gpus, c.Nodes[n].FirstSlot+s)
			}
			need--
		}
		if need > 0 {
			p.keepSlots, p.keepAt = gpus, at
			return false
		}
	}
	multi := k
	// The single-node movers, grouped by share as replace groups them;
	// each node takes the first unplaced mover of the largest share that
	// fits what it has left, as a walk of the sorted list would.
	type group struct {
		share     int
		head, end int
	}
	var groupBuf [8]group
	groups := groupBuf[:0]
	for x := k; x < len(order); x++ {
		if len(groups) == 0 || groups[len(groups)-1].share != ms[order[x]] {
			groups = append(groups, group{share: ms[order[x]], head: x})
		}
		groups[len(groups)-1].end = x + 1
	}
	// slotOf[x] for x ≥ multi: where order[x]'s slots start in gpus.
	slotOf := slices.Grow(p.keepOf[:0], len(order))[:len(order)]
	placed := multi
	for _, n := range ts.nodes {
		if placed == len(order) {
			break
		}
		node := c.Nodes[n]
		nodeFull := uint64(1)<<uint(node.Capacity) - 1
		if node.Capacity >= 64 {
			nodeFull = ^uint64(0)
		}
		free := node.Capacity - bits.OnesCount64(used[n]&nodeFull)
		for free > 0 {
			g := -1
			for x := range groups {
				if groups[x].head < groups[x].end && groups[x].share <= free {
					g = x
					break
				}
			}
			if g < 0 {
				break
			}
			x := groups[g].head
			groups[g].head++
			slotOf[x] = len(gpus)
			for range ms[order[x]] {
				b := bits.TrailingZeros64(^used[n] & nodeFull)
				used[n] |= 1 << uint(b)
				gpus = append(gpus, node.FirstSlot+b)
			}
			free -= ms[order[x]]
			placed++
		}
	}
	p.keepSlots, p.keepAt, p.keepOf = gpus, at, slotOf
	if placed < len(order) {
		return false
	}
	// Every mover placed: write the plan.
	for x, o := range order {
		y := list[movers[o]]
		var from int
		if x < multi {
			from = at[x]
		} else {
			from = slotOf[x]
		}
		y.gpus = append(y.gpus[:0], gpus[from:from+ms[o]]...)
		y.moved = true
	}
	p.commitKeep(list, share)
	return true
}

// keepable reports whether slots cur are all on the marked nodes (the
// available nodes of the type), none marked used yet (a plan holds each
// slot once; the check keeps a stale slot from being kept twice).
func (p *plan) keepable(cur []int) bool {
	c := p.v.Cluster
	for _, s := range cur {
		n := c.NodeOf(s)
		if p.mark[n] != p.markStamp || p.used[n]&(1<<uint(s-c.Nodes[n].FirstSlot)) != 0 {
			return false
		}
	}
	return true
}

// commitKeep sets every job's quota to its share (the kept ones hold it
// already).
func (p *plan) commitKeep(list []*jobState, share []int) {
	for i, y := range list {
		y.n = share[i]
	}
	p.ef.keptPlacements++
}

// replaceKeep is the fallback of the keeping re-placement: the
// artifact's whole re-placement (replace), written as slot lists.
func (p *plan) replaceKeep(ts *typeState, list []*jobState, share []int) bool {
	out, ok := p.replace(ts, share)
	if !ok {
		return false
	}
	for i, y := range list {
		cnt := out[i].slotCount(ts)
		y.gpus, _ = p.slots(ts, out[i], slices.Grow(y.gpus[:0], cnt)[:cnt])
		y.moved, y.n = true, cnt
	}
	p.ef.keepFallbacks++
	return true
}

// keepActions is actions for the keeping re-placement: the moved jobs'
// slots are slot lists (jobState.gpus), compared with their GPUs.
func (p *plan) keepActions() []sim.Action {
	moved, slots := p.changed[:0], 0
	for _, x := range p.all {
		if x.moved && !sim.SameGPUs(x.gpus, x.job.GPUs) {
			moved = append(moved, x)
			slots += len(x.gpus)
		}
	}
	p.changed = moved
	for _, x := range p.started {
		slots += len(x.gpus)
	}
	p.ef.order = append(p.ef.order, p.started...)
	if len(moved)+len(p.started) == 0 {
		return nil
	}
	out := make([]sim.Action, 0, len(moved)+len(p.started))
	buf := make([]int, slots)
	take := func(x *jobState) []int {
		g := buf[:len(x.gpus):len(x.gpus)]
		copy(g, x.gpus)
		buf = buf[len(x.gpus):]
		return g
	}
	for _, x := range moved {
		out = append(out, sim.Action{Kind: sim.Reallocate, Job: x.id, GPUs: take(x)})
	}
	clear(moved)
	for _, x := range p.started {
		out = append(out, sim.Action{Kind: sim.Start, Job: x.id, GPUs: take(x)})
	}
	return out
}
