package ilp

import (
	"math"
	"slices"
	"sort"
)

// Kept rows: a caller that keeps one program's rows from one Solve to the
// next (Gavel and Sia admit, move and retire a few rows per fit among
// thousands) reports each edit (Keep, Appended, PrevChanged, Removed,
// RemovedRows, Reset) and the solver keeps what buildMoves would compute
// from the rows
// — the load at the previous columns and each capacity class's candidate
// moves in order — updated per edited row instead of rebuilt from every
// row per program. The moves read from it are those of buildMoves: each
// class holds every row's best move of the class (ties: the lower
// column), its first MaxChanges by gain descending, then admitted order,
// in that order and the others after them unordered; buildMoves keeps
// those first MaxChanges (keepBestMoves). A row appended and removed
// again with no other edit between two programs is undone (undoAppend):
// the last program's moves, tables and answers stay. The load is a sum
// of integer uses, exact in any order. Rows whose uses are not integers,
// or whose values are NaN, or which Solve would reject, switch the
// solver back to comparing and rebuilding (sameRows, buildMoves) until
// the next Reset.

// keptRows is the solver's per-row index of kept rows.
type keptRows struct {
	// on: the caller reports edits (Keep); ok: every row is indexed
	// (else Solve takes the comparing path); built: the index describes
	// the caller's rows (false after Reset until the next Solve);
	// dirty: rows changed since the moves were last read; movesDirty:
	// some class's first topK entries changed (the moves read are those
	// entries; topK is the last program's change limit), else the moves
	// changed at most by the rows removed since (removed, in order: their
	// later rows move up).
	on, ok, built, dirty bool
	movesDirty           bool
	// undoable: the only edit since the last program is an Appended
	// row (undoneConst: constOK before it), so that removing that row
	// again gives back the rows, load and moves of the last program
	// exactly (undoAppend).
	undoable    bool
	undoneConst bool
	topK        int
	removed     []int
	nres        int
	// Per row, in admitted order: a sequence number (ascending: admitted
	// order among the live rows), the previous column and its value, and
	// the row's candidates (one per class).
	seq     []uint64
	next    uint64
	prev    []int
	prevVal []float64
	prevRes []int
	prevUse []float64
	// prefix[j] is the sum of prevVal[:j] summed in order from 0 (the
	// objective's partial sums, readAssignment), valid for j <= prefixN.
	prefix  []float64
	prefixN int
	// constOK: constVal is the objective's constant (constant), the sum
	// from constShift, for the rows as they are.
	constOK    bool
	constShift float64
	constVal   float64
	cands      [][]cand
	// spare is RemovedRows's scratch.
	spare [][]cand
	load  []float64
	// Per class (numbered as met): its key and its candidates, the first
	// min(topK, len) of them its best by gain descending, then sequence,
	// in that order, the others after them in any order (reselect).
	keys    []classKey
	classes [][]centry
	index   map[classKey]int32
	// caches memoize classOf per column pair for rows sharing one
	// Resource and one Use slice (as buildMoves's classCache); emptied
	// by a rebuild, since a Reset allows those slices to change.
	caches []classCache
	// goodRes, goodUse: the Resource and Use slices keptRowOK last
	// checked (nil after a rebuild).
	goodRes []int
	goodUse []float64
	// bulk: rebuildKept appends the classes' entries unordered and
	// selects each class's first topK once at the end.
	bulk bool
}

// constant returns shift + prevVal[0] + prevVal[1] + … summed in that
// order (solveMoves's constant): from 0 it is the kept partial sums'
// last; otherwise the last such sum is kept for the rows as they are
// (Gavel asks again with the same shift until an admission).
func (k *keptRows) constant(shift float64) float64 {
	if math.Float64bits(shift) == 0 { // +0: the partial sums start there
		return k.prefixTo(len(k.prevVal))
	}
	if k.constOK && math.Float64bits(k.constShift) == math.Float64bits(shift) {
		return k.constVal
	}
	c := shift
	for _, v := range k.prevVal {
		c += v
	}
	k.constOK, k.constShift, k.constVal = true, shift, c
	return c
}

// Change is an existing row's new column (Assignment.Changed).
type Change struct{ Row, Column int }

// prefixTo returns prefix[j], extending the valid prefix as needed.
func (k *keptRows) prefixTo(j int) float64 {
	if len(k.prefix) < len(k.prevVal)+1 {
		k.prefix = append(k.prefix, make([]float64, len(k.prevVal)+1-len(k.prefix))...)
	}
	for ; k.prefixN < j; k.prefixN++ {
		k.prefix[k.prefixN+1] = k.prefix[k.prefixN] + k.prevVal[k.prefixN]
	}
	return k.prefix[j]
}

// cand is a row's best move of one class.
type cand struct {
	class int32
	col   int32
	gain  float64
}

// centry is a class's entry for one row.
type centry struct {
	gain float64
	seq  uint64
	col  int32
}

// maxKeptUse bounds the uses kept rows may have: integer sums below 2^53
// are exact in any order.
const maxKeptUse = 1 << 32

// Keep makes s trust the caller's edit reports about p.Rows from now on:
// between two Solves the caller changes the rows only through Appended,
// PrevChanged, Removed and Reset (a row's Value, Resource and Use must not
// change in place without a Reset). It starts with a Reset. Its answers
// then leave Assignment.Columns nil (a copy of every row's column per
// program): Assignment.Changed gives them from the rows' previous columns.
func (s *ReassignmentSolver) Keep() {
	s.kept.on = true
	s.Reset()
}

// Reset reports that any row may have changed: the next Solve indexes
// every row.
func (s *ReassignmentSolver) Reset() {
	s.kept.built, s.kept.dirty, s.kept.movesDirty = false, true, true
	s.kept.undoable = false
	s.kept.constOK = false
}

// Appended reports that a row was appended to p.Rows (its last row).
func (s *ReassignmentSolver) Appended(p *Reassignment) {
	k := &s.kept
	// The first edit since the last program (keptUpdate leaves dirty
	// and movesDirty false) can be undone by removing the row again.
	k.undoable, k.undoneConst = !k.dirty && !k.movesDirty, k.constOK
	k.dirty, k.constOK = true, false
	if !k.built || !k.ok {
		return
	}
	r := &p.Rows[len(p.Rows)-1]
	k.seq = append(k.seq, k.next)
	k.prev = append(k.prev, r.Prev)
	k.grow()
	k.next++
	s.indexRow(p, len(p.Rows)-1)
}

// PrevChanged reports that row i of p.Rows has a new Prev.
func (s *ReassignmentSolver) PrevChanged(p *Reassignment, i int) {
	k := &s.kept
	k.dirty, k.constOK, k.undoable = true, false, false
	if !k.built || !k.ok {
		return
	}
	k.unindexRow(i)
	k.prefixN = min(k.prefixN, i)
	k.prev[i] = p.Rows[i].Prev
	s.indexRow(p, i)
}

// Removed reports that row i was removed from p.Rows (the later rows
// moved up by one).
func (s *ReassignmentSolver) Removed(i int) {
	s.RemovedRows([]int{i})
}

// RemovedRows reports that the rows at indices idx (ascending, numbered
// as before the removal) were removed from p.Rows, the others keeping
// their order: one pass over the rows for a decision's departures.
func (s *ReassignmentSolver) RemovedRows(idx []int) {
	k := &s.kept
	if len(idx) == 0 {
		return
	}
	undo := k.undoable && len(idx) == 1 && idx[0] == len(k.seq)-1
	k.dirty, k.constOK, k.undoable = true, false, false
	if !k.built || !k.ok {
		return
	}
	for n, i := range idx {
		k.unindexRow(i)
		k.removed = append(k.removed, i-n) // as removed one by one
	}
	k.prefixN = min(k.prefixN, idx[0])
	// Compact the per-row entries; the emptied candidate lists move to
	// the end, for reuse.
	w, next := idx[0], 0
	spare := k.spare[:0]
	for r := idx[0]; r < len(k.seq); r++ {
		if next < len(idx) && idx[next] == r {
			next++
			spare = append(spare, k.cands[r])
			continue
		}
		k.seq[w], k.prev[w], k.prevVal[w], k.prevRes[w], k.prevUse[w], k.cands[w] = k.seq[r], k.prev[r], k.prevVal[r], k.prevRes[r], k.prevUse[r], k.cands[r]
		w++
	}
	copy(k.cands[w:], spare)
	clear(spare)
	k.spare = spare[:0]
	n := len(k.seq) - len(idx)
	k.seq, k.prev, k.prevVal, k.prevRes, k.prevUse, k.cands = k.seq[:n], k.prev[:n], k.prevVal[:n], k.prevRes[:n], k.prevUse[:n], k.cands[:n]
	if undo {
		k.undoAppend()
	}
}

// undoAppend marks the rows as those of the last program again, once the
// row appended since has been removed (Gavel and Sia revert an admission
// whose placement fails, most of their fits on an overloaded cluster).
// Nothing the next program reads differs: the load is a sum of integer
// uses (exact), each class's first topK entries are its best in one
// total order (gain, then sequence), so the row's insertion and removal
// leave them as they were (only the unordered rest may be permuted),
// the partial sums cover the rows before it (RemovedRows's prefixN), and
// the classes the row created are empty. So the moves, the
// enumeration's tables, the first pass's bound and the answers of the
// last program stay, as the comparing path keeps them for equal rows
// (sameRows): without this, every reverted fit rebuilt the moves and
// the tables and re-ran the first pass.
func (k *keptRows) undoAppend() {
	k.dirty, k.movesDirty = false, false
	k.removed = k.removed[:0]
	k.constOK = k.undoneConst
}

// rebuild indexes every row of p.
func (s *ReassignmentSolver) rebuildKept(p *Reassignment) {
	k := &s.kept
	k.built, k.ok, k.dirty, k.movesDirty = true, true, true, true
	k.constOK = false
	k.nres = len(p.Capacity)
	k.load = append(k.load[:0], make([]float64, k.nres)...)
	for c := range k.classes {
		k.classes[c] = k.classes[c][:0]
	}
	k.seq, k.prev, k.prevVal, k.prevRes, k.prevUse = k.seq[:0], k.prev[:0], k.prevVal[:0], k.prevRes[:0], k.prevUse[:0]
	k.cands = k.cands[:0]
	k.caches = k.caches[:0]
	k.goodRes, k.goodUse = nil, nil
	k.next = 0
	k.prefixN = 0
	k.bulk = true
	defer func() { k.bulk = false }()
	for j := range p.Rows {
		k.seq = append(k.seq, k.next)
		k.prev = append(k.prev, p.Rows[j].Prev)
		k.grow()
		k.next++
		if s.indexRow(p, j); !k.ok {
			return
		}
	}
	k.reselect(k.topK)
}

// before orders a class's entries: gain descending, then admitted order.
func before(a, b centry) bool {
	return a.gain > b.gain || (a.gain == b.gain && a.seq < b.seq)
}

// reselect makes every class's first min(K, len) entries its best K in
// order (the others in any order after them), and K the classes' bound.
// Only a class's best topK entries are ever read (keptMoves), so an
// entry that ranks below them is appended unordered: a round's rebuild
// (Sia) sorts no class.
func (k *keptRows) reselect(K int) {
	k.topK = K
	for _, l := range k.classes {
		if K >= len(l) || K > 16 {
			slices.SortFunc(l, func(a, b centry) int {
				if before(a, b) {
					return -1
				}
				if before(b, a) {
					return 1
				}
				return 0
			})
			continue
		}
		for i := range K {
			b := i
			for x := i + 1; x < len(l); x++ {
				if before(l[x], l[b]) {
					b = x
				}
			}
			l[i], l[b] = l[b], l[i]
		}
	}
}

// insert adds e to class ci, keeping its first topK entries its best in
// order.
func (k *keptRows) insert(ci int32, e centry) {
	l := k.classes[ci]
	K := k.topK
	pre := min(K, len(l))
	at := sort.Search(pre, func(x int) bool { return before(e, l[x]) })
	switch {
	case pre < K: // the whole class is in order
		l = slices.Insert(l, at, e)
	case at < pre: // the first K's last entry leaves them, to the end
		last := l[pre-1]
		copy(l[at+1:pre], l[at:pre-1])
		l[at] = e
		l = append(l, last)
	default: // below the first K
		k.classes[ci] = append(l, e)
		return
	}
	k.classes[ci] = l
	k.movesDirty = true
}

// remove takes row seq's entry (of gain gain) out of class ci; the best
// of the others joins the first topK if it left them.
func (k *keptRows) remove(ci int32, gain float64, seq uint64) {
	l := k.classes[ci]
	pre := min(k.topK, len(l))
	e := centry{gain: gain, seq: seq}
	at := sort.Search(pre, func(x int) bool { return !before(l[x], e) })
	if at < pre && l[at].seq == seq {
		copy(l[at:pre-1], l[at+1:pre])
		if len(l) > pre {
			b := pre
			for x := pre + 1; x < len(l); x++ {
				if before(l[x], l[b]) {
					b = x
				}
			}
			l[pre-1] = l[b]
			l[b] = l[len(l)-1]
		}
		k.classes[ci] = l[:len(l)-1]
		k.movesDirty = true
		return
	}
	for x := pre; x < len(l); x++ {
		if l[x].seq == seq {
			l[x] = l[len(l)-1]
			k.classes[ci] = l[:len(l)-1]
			return
		}
	}
	panic("ilp: kept row missing from its class")
}

// grow adds the per-row entries indexRow fills in for a new last row.
func (k *keptRows) grow() {
	k.prevVal = append(k.prevVal, 0)
	k.prevRes = append(k.prevRes, 0)
	k.prevUse = append(k.prevUse, 0)
	if len(k.cands) < cap(k.cands) {
		k.cands = k.cands[:len(k.cands)+1]
		k.cands[len(k.cands)-1] = k.cands[len(k.cands)-1][:0]
	} else {
		k.cands = append(k.cands, nil)
	}
}

// keptRowOK reports whether row r can be indexed: what Solve's checks
// accept, with integer uses and no NaN value.
// The Resource and Use slices last found good are not checked again
// (Sia's rows share one pair): they may change only with a Reset, and
// rebuildKept forgets them.
func (k *keptRows) keptRowOK(r *AssignRow, nres int) bool {
	if len(r.Resource) != len(r.Value) || len(r.Use) != len(r.Value) || r.Prev < 0 || r.Prev >= len(r.Value) {
		return false
	}
	if sameInts(r.Resource, k.goodRes) && sameFloats(r.Use, k.goodUse) && k.goodRes != nil {
		for _, v := range r.Value {
			if math.IsNaN(v) {
				return false
			}
		}
		return true
	}
	for c, res := range r.Resource {
		u := r.Use[c]
		if res < 0 || res >= nres || math.IsNaN(r.Value[c]) || u != math.Trunc(u) || math.Abs(u) > maxKeptUse {
			return false
		}
	}
	k.goodRes, k.goodUse = r.Resource, r.Use
	return true
}

// indexRow adds row i of p (its entries in k already sized) to the load
// and to its classes, as buildMoves would consider it.
func (s *ReassignmentSolver) indexRow(p *Reassignment, i int) {
	k := &s.kept
	r := &p.Rows[i]
	if !k.keptRowOK(r, k.nres) {
		k.ok = false
		return
	}
	from := r.Prev
	k.prevVal[i], k.prevRes[i], k.prevUse[i] = r.Value[from], r.Resource[from], r.Use[from]
	k.load[r.Resource[from]] += r.Use[from]
	cs := k.cands[i][:0]
	ncol := len(r.Value)
	var cache []int32
	for x := range k.caches {
		if sameInts(r.Resource, k.caches[x].res) && sameFloats(r.Use, k.caches[x].use) && len(k.caches[x].idx) == ncol*ncol {
			cache = k.caches[x].idx
			break
		}
	}
	if cache == nil && len(k.caches) < classCaches {
		cache = make([]int32, ncol*ncol)
		for x := range cache {
			cache[x] = -1
		}
		k.caches = append(k.caches, classCache{r.Resource, r.Use, cache})
	}
	for c := range r.Value {
		if c == from || r.Value[c] <= InfeasibleValue {
			continue
		}
		key := classKey{r.Resource[from], r.Resource[c], r.Use[from], r.Use[c]}
		gain := r.Value[c] - r.Value[from]
		if key.fromRes == key.toRes && key.fromUse == key.toUse && gain <= 0 {
			continue
		}
		if gain <= 0 && !frees(key) {
			continue
		}
		var ci int32
		if cache == nil {
			ci = k.classOf(key)
		} else if ci = cache[from*ncol+c]; ci < 0 {
			ci = k.classOf(key)
			cache[from*ncol+c] = ci
		}
		dup := -1
		for x := range cs {
			if cs[x].class == ci {
				dup = x
				break
			}
		}
		if dup >= 0 {
			if gain > cs[dup].gain { // ties: the lower column stays
				cs[dup].col, cs[dup].gain = int32(c), gain
			}
			continue
		}
		cs = append(cs, cand{class: ci, col: int32(c), gain: gain})
	}
	k.cands[i] = cs
	seq := k.seq[i]
	for _, c := range cs {
		if k.bulk {
			k.classes[c.class] = append(k.classes[c.class], centry{gain: c.gain, seq: seq, col: c.col})
			continue
		}
		k.insert(c.class, centry{gain: c.gain, seq: seq, col: c.col})
	}
}

// unindexRow takes row i out of the load and its classes.
func (k *keptRows) unindexRow(i int) {
	seq := k.seq[i]
	for _, c := range k.cands[i] {
		k.remove(c.class, c.gain, seq)
	}
	k.cands[i] = k.cands[i][:0]
	k.load[k.prevRes[i]] -= k.prevUse[i]
}

func (k *keptRows) classOf(key classKey) int32 {
	if k.index == nil {
		k.index = map[classKey]int32{}
	}
	ci, ok := k.index[key]
	if !ok {
		ci = int32(len(k.keys))
		k.index[key] = ci
		k.keys = append(k.keys, key)
		k.classes = append(k.classes, nil)
	}
	return ci
}

// keptUpdate brings s.load and s.moves (with the enumeration's tables and
// the caches that depend on them) up to the kept rows' edits since the
// last program.
func (s *ReassignmentSolver) keptUpdate(p *Reassignment, maxChanges int) {
	k := &s.kept
	if K := max(maxChanges, 0); K != k.topK {
		k.reselect(K)
		k.movesDirty = true
	}
	switch {
	case k.movesDirty || maxChanges != s.keyMax || !s.keptFresh:
		s.load, s.moves = s.keptMoves(maxChanges)
		s.tables.built = false
	case k.dirty:
		// The same moves; rows removed before a move's row move it up,
		// in the moves and in the tables alike (their order is unchanged).
		for _, r := range k.removed {
			for i := range s.moves {
				if s.moves[i].row > r {
					s.moves[i].row--
				}
			}
			if s.tables.built {
				for a := range s.tables.rowAt {
					if s.tables.rowAt[a] > r {
						s.tables.rowAt[a]--
					}
				}
			}
		}
		s.load = append(s.load[:0], k.load...)
	case sameBits(p.Capacity, s.keyCap):
		return // nothing changed
	}
	// The load, the capacities or the moves changed: the first pass's
	// bound and the answers are those of another program.
	s.gStarCache.valid = false
	s.answers = s.answers[:0]
	s.keyMax = maxChanges
	s.keyCap = append(s.keyCap[:0], p.Capacity...)
	k.dirty, k.movesDirty, k.removed = false, false, k.removed[:0]
	s.keptFresh = true
	// The comparing path's key no longer describes the moves.
	s.valid = false
}

// keptMoves returns the load and the moves buildMoves returns for the
// kept rows, sorted by row then column.
func (s *ReassignmentSolver) keptMoves(maxChanges int) ([]float64, []move) {
	k := &s.kept
	load := append(s.load[:0], k.load...)
	moves := s.moves[:0]
	for ci, l := range k.classes {
		for _, e := range l[:min(len(l), max(maxChanges, 0))] {
			row, _ := slices.BinarySearch(k.seq, e.seq)
			moves = append(moves, move{row: row, col: int(e.col), gain: e.gain, key: k.keys[ci]})
		}
	}
	slices.SortFunc(moves, func(a, b move) int {
		if a.row != b.row {
			return a.row - b.row
		}
		return a.col - b.col
	})
	return load, moves
}
