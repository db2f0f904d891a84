package arena

import (
	"sync/atomic"

	"github.com/arena-sim/arena/sim"
)

// tablePool recycles scratch tables. The searches copy the table many
// thousands of times per round (the artifact deep-copies it at every
// step); most copies die within one search step, and a copy onto a
// recycled table of the same snapshot costs only the two deltas. Tables are handed
// out by clone and tracked in scopes: release(mark, keep) returns every
// table cloned since mark to the free list except keep, which moves to the
// enclosing scope. A table that escapes a scope other than as keep must not
// be released — callers keep at most one result per scope.
type tablePool struct {
	free []*table
	live []*table
}

func (tp *tablePool) clone(src *table) *table {
	// A copy costs the deltas when src and the recycled table share a
	// snapshot (index.go): rebase a detached src, which is then likely to
	// be copied again, and prefer a recently freed table of its snapshot.
	// A src whose delta was copied about as many slots as a rebase costs
	// (its delta is long and it is copied again and again, as the real
	// table is by every trial of a step) is rebased too.
	if !src.attached() || src.copied > 2*len(src.occ) {
		src.tp.snaps.rebase(src)
	}
	src.copied += len(src.dirty)
	var t *table
	if n := len(tp.free); n > 0 {
		k := n - 1
		for i := n - 1; i >= 0; i-- {
			if f := tp.free[i]; f.base == src.base && f.baseGen == src.baseGen {
				k = i
				break
			}
		}
		t = tp.free[k]
		tp.free[k] = tp.free[n-1]
		tp.free = tp.free[:n-1]
		t.copyFrom(src)
	} else {
		t = src.clone()
	}
	tp.live = append(tp.live, t)
	return t
}

func (tp *tablePool) mark() int { return len(tp.live) }

// drop returns t, a live table nothing refers to any more, to the free
// list (the newest live copy of it, searched from the end).
func (tp *tablePool) drop(t *table) {
	for i := len(tp.live) - 1; i >= 0; i-- {
		if tp.live[i] == t {
			tp.live = append(tp.live[:i], tp.live[i+1:]...)
			tp.free = append(tp.free, t)
			return
		}
	}
}

func (tp *tablePool) release(mark int, keep *table) {
	kept := false
	for _, t := range tp.live[mark:] {
		if t == keep {
			kept = true
			continue
		}
		tp.free = append(tp.free, t)
	}
	clear(tp.live[mark:])
	tp.live = tp.live[:mark]
	if kept {
		tp.live = append(tp.live, keep)
	}
}

// clone copies t from the round's pool.
func (r *round) clone(t *table) *table { return r.p.pool.clone(t) }

// roundTable builds the round's real table from the engine's occupant
// list (every occupied slot USED, as tableOf): the previous decision's
// final real table, taken back from the free list, with the slots where it
// differs from the list written. Between two decisions the engine changes
// the slots of the jobs that ended or were interrupted, and the statuses
// of the opportunistic jobs' slots (IDLE in the policy's table, USED in
// the list), so the round's table is a short delta against the last
// round's snapshot, whose job index and stats are reused (statsOf,
// refreshQuotas), instead of a loaded table that is then indexed and
// scanned slot by slot. The content is tableOf's
// (TestRoundTableMatchesLoad). One comparing pass over the slots.
func (r *round) roundTable(occupant []sim.JobID) *table {
	p := r.p
	t := p.last
	if !searchShortcuts || t == nil || len(t.occ) != len(occupant) || !t.attached() || !p.pool.take(t) {
		return r.tableOf(occupant)
	}
	roundTablesCarried.Add(1)
	t.undo, t.logging = t.undo[:0], 0
	for s, o := range occupant {
		if u := o != empty; t.occ[s] != o || t.used[s] != u {
			t.set(s, o, u)
		}
	}
	p.pool.live = append(p.pool.live, t)
	return t
}

// roundTablesCarried counts the rounds whose table roundTable carried
// over (for the test; runs may be concurrent).
var roundTablesCarried atomic.Int64

// take removes t from the free list, reporting whether it was there.
func (tp *tablePool) take(t *table) bool {
	for i, f := range tp.free {
		if f == t {
			tp.free = append(tp.free[:i], tp.free[i+1:]...)
			return true
		}
	}
	return false
}

// tableOf builds a pooled table from an occupant list.
func (r *round) tableOf(occupant []sim.JobID) *table {
	if len(r.p.pool.free) == 0 {
		t := newTable(r.p.tp, occupant)
		r.p.pool.live = append(r.p.pool.live, t)
		return t
	}
	t := r.p.pool.free[len(r.p.pool.free)-1]
	r.p.pool.free = r.p.pool.free[:len(r.p.pool.free)-1]
	t.load(occupant)
	r.p.pool.live = append(r.p.pool.live, t)
	return t
}
