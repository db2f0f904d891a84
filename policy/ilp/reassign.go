package ilp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Reassignment is the shape of the Gavel and Sia programs: every existing
// job (row) holds exactly one column (a GPU type, or a (type, count)
// configuration) and a new job may take one; each column consumes some
// capacity of one resource (a GPU type's total GPUs); at most MaxChanges
// existing rows may leave their previous column. In the artifact's words
// (ARENA.md §7):
//
//	maximize   Σ v[j][c]·x[j][c]
//	subject to Σ_c x[j][c] = 1                    every existing row j
//	           Σ_c x[new][c] = 1 (or ≤ 1)          the new row
//	           Σ_j,c use[j][c]·x[j][c] ≤ Cap[r]    every resource r (columns of r)
//	           Σ x ⊙ [prev; all-ones row] ≥ N − MaxChanges
//
// Solve does not hand this to the branch and bound as written (N equality
// rows make every dense LP slow). Because every existing row has exactly
// one previous column, the program is rewritten, exactly, in terms of
// changes: a binary y[j][c] per existing row j and column c ≠ prev(j), worth
// v[j][c] − v[j][prev(j)], and a binary z[c] per column of the new row. Then
//
//   - capacity: load at the previous columns + Σ y·(use change) + Σ z·use ≤ Cap;
//   - changes:  Σ y − Σ z ≤ MaxChanges − 1 (the artifact's N − 3 row);
//   - one move per job: Σ_c y[j][c] ≤ 1 (lazy rows);
//   - the new row: Σ z = 1, or ≤ 1.
//
// Two exact reductions shrink it further. (1) Moves with the same capacity
// effect (from resource/use to resource/use) are interchangeable but for
// their gain, and a solution makes at most MaxChanges moves, so only the
// MaxChanges best moves of each such class can be needed (ties: lower row,
// then lower column). (2) A move that gains nothing and frees no capacity
// is never needed. Columns whose value is InfeasibleValue or lower are never
// entered by an existing row, and new-row columns that low are dropped
// unless the new row must be assigned (Gavel); for Sia this is exact
// because leaving the new job out is always allowed and worth more.
type Reassignment struct {
	// Capacity per resource.
	Capacity []float64
	// Rows are the existing jobs, in the artifact's admitted order.
	Rows []AssignRow
	// New is the new job's row (Prev ignored). NewRequired: it must take a
	// column (Gavel); otherwise at most one (Sia).
	New         AssignRow
	NewRequired bool
	// MaxChanges is the artifact's MAX_MGRT_JOB_NUM (3). HasPrev false means
	// the artifact had no previous matrix (first ever decision): no change
	// limit.
	MaxChanges int
	HasPrev    bool
	// BranchAndBound solves the reduced program with Solve (LP-based
	// branch and bound) instead of the default exact enumeration of move
	// sets; both are exact, the enumeration is much faster on these
	// programs (see the package doc).
	BranchAndBound bool
}

// AssignRow is one job's columns.
type AssignRow struct {
	// Value per column (the objective coefficient).
	Value []float64
	// Resource and Use per column: which capacity the column consumes and
	// how much.
	Resource []int
	Use      []float64
	// Prev is the row's previous column (existing rows).
	Prev int
}

// InfeasibleValue: column values at or below it are the artifact's −1e9
// "cannot run here" entries.
const InfeasibleValue = -1e8

// Assignment is the solution of a Reassignment.
type Assignment struct {
	// Column per existing row, and the new row's column (−1: none).
	// Columns is nil when the solver keeps the rows
	// (ReassignmentSolver.Keep): Changed says the same from the rows'
	// previous columns.
	Columns   []int
	NewColumn int
	// Changed lists the existing rows whose column changed, by row, with
	// their new column.
	Changed []Change
	// Objective is Σ v·x over all rows (the artifact's objective).
	Objective float64
	// Changes counts existing rows whose column changed.
	Changes int
	// Solver statistics of the underlying branch and bound.
	Result Result
	// Columns of the reduced program actually solved.
	ReducedVars int
}

// move is one candidate change of an existing row.
type move struct {
	row, col int
	gain     float64
	key      classKey
}

type classKey struct {
	fromRes, toRes int
	fromUse, toUse float64
}

// SolveReassignment solves p; ok is false when the program has no
// solution (the artifact's "status ≠ optimal" rejection).
func SolveReassignment(p *Reassignment, opt Options) (Assignment, bool, error) {
	return new(ReassignmentSolver).Solve(p, opt)
}

// ReassignmentSolver solves Reassignment programs exactly as
// SolveReassignment does, keeping from one call to the next what depends
// only on the existing rows, the capacities and the change limit: the
// candidate moves, the enumeration's tables and the change sets' bound
// (gStar, with the sets it examined). The baselines solve one program per
// pending job against the same admitted rows — 98% of Sia's programs on a
// four-fold Philly workload have the previous program's rows — so that
// work is done once per set of rows. Rows are compared by content, never
// by slice identity, so callers may reuse and overwrite their slices. The
// zero value is ready to use; a ReassignmentSolver is not safe for
// concurrent use.
type ReassignmentSolver struct {
	// The previous program's rows, capacities and change limit (the key of
	// everything below); valid is false before the first program.
	valid      bool
	keyCap     []float64
	keyMax     int
	keyLen     []int
	keyPrev    []int
	keyRes     []int
	keyVal     []float64
	keyUse     []float64
	load       []float64
	moves      []move
	tables     enumTables
	gStarCache gStarPass
	// Scratch of the moves' construction.
	index map[classKey]int
	lists [][]move
	// answers are the programs answered since the rows last changed.
	answers []answer
	// kept indexes the caller's kept rows (Keep); keptUse: the program
	// being solved reads it.
	kept    keptRows
	keptUse bool
	// keptFresh: load, moves and tables were last made by keptUpdate.
	keptFresh bool
}

// enumTables are enumerate's move tables (see there); built reports they
// match the solver's moves.
type enumTables struct {
	built bool
	order []int
	// rowAt, gainAt and effAt (nres entries per position) are the moves'
	// rows, gains and capacity effects by sorted position, contiguous for
	// the search's inner loop; resAt (two per position) the resources a
	// move takes from and gives to (the only nonzero effects).
	rowAt        []int
	gainAt       []float64
	effAt        []float64
	resAt        []int
	eff          [][]float64
	maxFree      []float64
	bestFreeFrom [][]float64
	posPrefix    []float64
	// usedRow is the searches' scratch (one flag per row).
	usedRow []bool
}

// lastChangeLoop enables enumerate's loop for the last change (dfsLast);
// a test turns it off to check it against the general loop.
var lastChangeLoop = true

// gStarPass is the outcome of enumerate's first pass (the best change set
// with the full slack), which depends on the rows and on the node limit
// and tolerance only: gStar, the sets it examined, whether the limit
// stopped it, and the capacity effect vector it left behind (its
// additions and subtractions need not cancel exactly in floating point,
// and the next pass starts from it).
type gStarPass struct {
	valid    bool
	limit    int
	tol      float64
	gStar    float64
	examined int
	stopped  bool
	e        []float64
}

// sameRows reports whether p has the rows, capacities and change limit of
// the previous program, and records them otherwise.
func (s *ReassignmentSolver) sameRows(p *Reassignment, maxChanges int) bool {
	same := s.valid && maxChanges == s.keyMax && sameBits(p.Capacity, s.keyCap) && len(p.Rows) == len(s.keyLen)
	if same {
		off := 0
		for j := range p.Rows {
			r := &p.Rows[j]
			n := len(r.Value)
			if n != s.keyLen[j] || r.Prev != s.keyPrev[j] || !slices.Equal(r.Resource, s.keyRes[off:off+n]) ||
				!sameBits(r.Value, s.keyVal[off:off+n]) || !sameBits(r.Use, s.keyUse[off:off+n]) {
				same = false
				break
			}
			off += n
		}
	}
	if same {
		return true
	}
	s.valid, s.keyMax = true, maxChanges
	s.keyCap = append(s.keyCap[:0], p.Capacity...)
	s.keyLen, s.keyPrev = s.keyLen[:0], s.keyPrev[:0]
	s.keyRes, s.keyVal, s.keyUse = s.keyRes[:0], s.keyVal[:0], s.keyUse[:0]
	for j := range p.Rows {
		r := &p.Rows[j]
		s.keyLen = append(s.keyLen, len(r.Value))
		s.keyPrev = append(s.keyPrev, r.Prev)
		s.keyRes = append(s.keyRes, r.Resource...)
		s.keyVal = append(s.keyVal, r.Value...)
		s.keyUse = append(s.keyUse, r.Use...)
	}
	s.tables.built, s.gStarCache.valid = false, false
	return false
}

// sameBits compares float slices bit for bit (so NaN equals NaN and 0
// differs from −0: the cached results must be those of these very values).
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// Solve solves p as SolveReassignment does.
func (s *ReassignmentSolver) Solve(p *Reassignment, opt Options) (Assignment, bool, error) {
	start := time.Now()
	nres := len(p.Capacity)
	// check names the row (j < 0: the new row) only on error: formatting
	// the name up front cost as much as the rest of the validation.
	check := func(r *AssignRow, j int) error {
		name := func() string {
			if j < 0 {
				return "new row"
			}
			return fmt.Sprintf("row %d", j)
		}
		if len(r.Resource) != len(r.Value) || len(r.Use) != len(r.Value) {
			return fmt.Errorf("%w: %s: %d values, %d resources, %d uses", ErrProblem, name(), len(r.Value), len(r.Resource), len(r.Use))
		}
		for c, res := range r.Resource {
			if res < 0 || res >= nres {
				return fmt.Errorf("%w: %s, column %d: resource %d out of range [0,%d)", ErrProblem, name(), c, res, nres)
			}
		}
		return nil
	}
	s.keptUse = false
	if s.kept.on {
		k := &s.kept
		k.undoable = false // an admission removed after this is not undone
		if !k.built || k.nres != len(p.Capacity) || (k.ok && len(k.seq) != len(p.Rows)) {
			s.rebuildKept(p)
		}
		s.keptUse = k.ok
	}
	if !s.keptUse { // kept rows were checked as they were indexed
		for j := range p.Rows {
			r := &p.Rows[j]
			if err := check(r, j); err != nil {
				return Assignment{}, false, err
			}
			if r.Prev < 0 || r.Prev >= len(r.Value) {
				return Assignment{}, false, fmt.Errorf("%w: row %d: previous column %d out of range", ErrProblem, j, r.Prev)
			}
		}
	}
	if err := check(&p.New, -1); err != nil {
		return Assignment{}, false, err
	}
	maxChanges := p.MaxChanges
	if !p.HasPrev {
		maxChanges = len(p.Rows) + 1 // no limit
	}

	if s.keptUse {
		s.keptUpdate(p, maxChanges)
	} else if !s.sameRows(p, maxChanges) {
		s.keptFresh = false
		s.load, s.moves = s.buildMoves(p, maxChanges)
		s.answers = s.answers[:0]
	}
	// The search is deterministic: a program equal to one answered since
	// the rows last changed (Sia's restart pass asks the same question for
	// every pending job of one workload that never ran) has its answer. A
	// gap draw consumes opt.Rand, so it is always run.
	memo := opt.Gap <= 0
	if memo {
		if a, ok, hit := s.answered(p, opt); hit {
			a.Result.Elapsed = time.Since(start)
			return a, ok, nil
		}
	}
	out, ok, err := s.solveMoves(p, opt, maxChanges, start)
	if memo && err == nil {
		s.remember(p, opt, out, ok)
	}
	return out, ok, err
}

// answer is a program's result kept by ReassignmentSolver.Solve: what
// distinguishes the program from the others of the same rows (its new
// row and the options) and the answer.
type answer struct {
	value, use []float64
	resource   []int
	required   bool
	bnb        bool
	reduced    bool
	nodeLimit  int
	tol        float64
	out        Assignment
	ok         bool
}

func (a *answer) matches(p *Reassignment, opt Options) bool {
	return a.required == p.NewRequired && a.bnb == p.BranchAndBound && a.reduced == opt.ReducedObjective && a.nodeLimit == opt.NodeLimit &&
		math.Float64bits(a.tol) == math.Float64bits(opt.Tol) && sameBits(a.value, p.New.Value) &&
		sameBits(a.use, p.New.Use) && slices.Equal(a.resource, p.New.Resource)
}

// answered returns the kept answer to p, if any (its Columns and Changed
// copies).
func (s *ReassignmentSolver) answered(p *Reassignment, opt Options) (Assignment, bool, bool) {
	for i := range s.answers {
		if a := &s.answers[i]; a.matches(p, opt) {
			out := a.out
			out.Columns = slices.Clone(a.out.Columns)
			out.Changed = slices.Clone(a.out.Changed)
			return out, a.ok, true
		}
	}
	return Assignment{}, false, false
}

func (s *ReassignmentSolver) remember(p *Reassignment, opt Options, out Assignment, ok bool) {
	a := answer{
		value: slices.Clone(p.New.Value), use: slices.Clone(p.New.Use), resource: slices.Clone(p.New.Resource),
		required: p.NewRequired, bnb: p.BranchAndBound, reduced: opt.ReducedObjective, nodeLimit: opt.NodeLimit, tol: opt.Tol, ok: ok,
	}
	out.Columns = slices.Clone(out.Columns)
	out.Changed = slices.Clone(out.Changed)
	a.out = out
	s.answers = append(s.answers, a)
}

// solveMoves is Solve once the moves of p's rows are built: the reduced
// program over the moves and the new job's columns, solved by branch and
// bound or by enumeration, then read back as an Assignment.
func (s *ReassignmentSolver) solveMoves(p *Reassignment, opt Options, maxChanges int, start time.Time) (Assignment, bool, error) {
	load, moves := s.load, s.moves
	newCols, shift := newColumns(p)
	if p.NewRequired && len(newCols) == 0 {
		return Assignment{}, false, nil
	}
	nv := len(moves) + len(newCols)
	prob := &Problem{Obj: make([]float64, nv)}
	for i, m := range moves {
		prob.Obj[i] = m.gain
	}
	for i, c := range newCols {
		prob.Obj[len(moves)+i] = p.New.Value[c] - shift
	}
	if rejectedEarly(p, moves, newCols, load, nv, maxChanges) {
		return Assignment{}, false, nil
	}
	// The rows themselves are built only when something reads them (the
	// branch and bound, the polish below, the gap LP of a stopped
	// enumeration): the enumeration works on the moves directly, and
	// building rows for every program was a fifth of Sia's solver time.
	built := false
	rows := func() *Problem {
		if !built {
			built = true
			buildRows(prob, p, moves, newCols, load, maxChanges)
		}
		return prob
	}
	var res Result
	if p.BranchAndBound {
		var err error
		if res, err = branchAndBound(rows(), len(moves), len(newCols), opt); err != nil {
			return Assignment{}, false, err
		}
	} else {
		// The enumeration ignores the hint and the priorities.
		res = enumerate(prob, rows, moves, newCols, load, p, maxChanges, opt, &s.tables, &s.gStarCache)
	}
	// Report the search in the artifact's terms: the reduced objective
	// plus the previous columns' values and the new row's shift.
	constant := shift
	switch {
	case opt.ReducedObjective && res.Status != Feasible:
		// Left out: nothing the caller reads needs the rows' sum.
	case s.keptUse:
		constant = s.kept.constant(shift) // the same sum, kept
	default:
		for j := range p.Rows {
			constant += p.Rows[j].Value[p.Rows[j].Prev]
		}
	}
	if res.Status == Optimal || res.Status == Feasible {
		res.Objective += constant
		res.Bound += constant
		if res.Status == Feasible {
			res.Gap = (res.Bound - res.Objective) / math.Max(1, math.Abs(res.Objective))
		}
	}
	out := Assignment{Result: res, ReducedVars: nv, NewColumn: -1}
	if res.Status != Optimal && res.Status != Feasible {
		out.Result.Elapsed = time.Since(start)
		return out, false, nil
	}
	var k *keptRows
	if s.keptUse {
		k = &s.kept
	}
	readAssignment(&out, p, moves, newCols, rows, k)
	out.Result.Elapsed = time.Since(start)
	return out, true, nil
}

// newColumns lists the new row's columns the program may give it (all
// when it is required, else the feasible ones) and the shift of their
// values: with Σz = 1 a constant shift of the new row's values changes
// nothing but keeps −1e9 entries from swamping the tolerances.
func newColumns(p *Reassignment) (newCols []int, shift float64) {
	newMax := math.Inf(-1)
	for c, v := range p.New.Value {
		if v > InfeasibleValue || p.NewRequired {
			newCols = append(newCols, c)
			newMax = math.Max(newMax, v)
		}
	}
	if p.NewRequired && len(newCols) > 0 {
		shift = newMax
	}
	return newCols, shift
}

// rejectedEarly is the rows' early rejections, decided without building
// the rows: a resource no column touches still constrains "keep
// everything", and a program without variables must allow no change.
func rejectedEarly(p *Reassignment, moves []move, newCols []int, load []float64, nv, maxChanges int) bool {
	touched := make([]bool, len(p.Capacity))
	for _, m := range moves {
		k := m.key
		if k.fromRes == k.toRes {
			touched[k.toRes] = touched[k.toRes] || k.toUse-k.fromUse != 0
			continue
		}
		touched[k.fromRes], touched[k.toRes] = true, true
	}
	for _, c := range newCols {
		touched[p.New.Resource[c]] = true
	}
	for r := range touched {
		if !touched[r] && p.Capacity[r]-load[r] < -feasTol {
			return true
		}
	}
	return nv == 0 && maxChanges-1 < 0
}

// branchAndBound solves the reduced program (rows built) with Solve,
// warm-started and deciding the new job's column first.
func branchAndBound(prob *Problem, nMoves, nNew int, opt Options) (Result, error) {
	nv := nMoves + nNew
	// Warm start: nobody moves; the new job takes its best column that fits
	// (or none, when allowed).
	hint := make([]float64, nv)
	order := make([]int, nNew)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(prob.Obj[nMoves+b], prob.Obj[nMoves+a]) })
	for _, i := range order {
		hint[nMoves+i] = 1
		if prob.Feasible(hint) {
			break
		}
		hint[nMoves+i] = 0
	}
	opt.Hint = hint
	// Decide the new job's column first: it moves the bound the most.
	opt.Priority = make([]int, nv)
	for i := range nNew {
		opt.Priority[nMoves+i] = 1
	}
	return Solve(prob, opt)
}

// readAssignment fills out's columns, changes and objective from the
// solution out.Result.X, polished first: moves that gain nothing are
// undone if the rest stays feasible, so that among equally good solutions
// previous assignments are kept.
// k, when set, holds p's rows' previous columns and their values.
func readAssignment(out *Assignment, p *Reassignment, moves []move, newCols []int, rows func() *Problem, k *keptRows) {
	x := out.Result.X
	for i := len(moves) - 1; i >= 0; i-- {
		if x[i] == 1 && moves[i].gain <= 0 {
			x[i] = 0
			if !rows().Feasible(x) {
				x[i] = 1
			}
		}
	}
	if k == nil {
		out.Columns = make([]int, len(p.Rows))
		for j := range p.Rows {
			out.Columns[j] = p.Rows[j].Prev
		}
	}
	for i, m := range moves { // by row
		if x[i] > 0.5 {
			if k == nil {
				out.Columns[m.row] = m.col
			}
			out.Changes++
			out.Changed = append(out.Changed, Change{m.row, m.col})
		}
	}
	for i, c := range newCols {
		if x[len(moves)+i] > 0.5 {
			out.NewColumn = c
		}
	}
	if k != nil {
		// The loop below from the first changed row on; before it, the
		// kept partial sums of the same values in the same order.
		first := len(k.prevVal)
		if len(out.Changed) > 0 {
			first = out.Changed[0].Row
		}
		out.Objective = k.prefixTo(first)
		next := 0 // the next change
		for j := first; j < len(k.prevVal); j++ {
			v := k.prevVal[j]
			if next < len(out.Changed) && out.Changed[next].Row == j {
				v = p.Rows[j].Value[out.Changed[next].Column]
				next++
			}
			out.Objective += v
		}
	} else {
		for j := range p.Rows {
			out.Objective += p.Rows[j].Value[out.Columns[j]]
		}
	}
	if out.NewColumn >= 0 {
		out.Objective += p.New.Value[out.NewColumn]
	}
}

// buildMoves returns the load at the previous columns and the candidate
// moves, sorted by row then column (reusing s's buffers).
func (s *ReassignmentSolver) buildMoves(p *Reassignment, maxChanges int) ([]float64, []move) {
	// Load at the previous columns.
	load := s.load[:0]
	for range len(p.Capacity) {
		load = append(load, 0)
	}
	for j := range p.Rows {
		r := &p.Rows[j]
		load[r.Resource[r.Prev]] += r.Use[r.Prev]
	}

	// Candidate moves: the best MaxChanges of each capacity class, kept by
	// insertion (stable: on equal gains the lower row stays first). Rows
	// sharing their Resource and Use slices (Sia's) share a column-pair →
	// class cache, which saves hashing.
	// The class lists and the index are the previous call's, emptied.
	s.lists = s.lists[:0]
	if s.index == nil {
		s.index = map[classKey]int{}
	}
	clear(s.index)
	// A cache per distinct (Resource, Use) pair met, up to classCaches of
	// them: Gavel's rows alternate among a few Use slices (one per GPU
	// count), which a single cache would drop at nearly every row. The
	// caches only memoize classIndex, so the classes are numbered as
	// without them.
	var caches []classCache
	var cache []int32
	for j := range p.Rows {
		r := &p.Rows[j]
		ncol := len(r.Value)
		cache = nil
		for i := range caches {
			if sameInts(r.Resource, caches[i].res) && sameFloats(r.Use, caches[i].use) && len(caches[i].idx) == ncol*ncol {
				cache = caches[i].idx
				break
			}
		}
		if cache == nil {
			if len(caches) == classCaches {
				caches = caches[:0]
			}
			cache = make([]int32, ncol*ncol)
			for i := range cache {
				cache[i] = -1
			}
			caches = append(caches, classCache{r.Resource, r.Use, cache})
		}
		from := r.Prev
		for c := range r.Value {
			if c == from || r.Value[c] <= InfeasibleValue {
				continue
			}
			k := classKey{r.Resource[from], r.Resource[c], r.Use[from], r.Use[c]}
			gain := r.Value[c] - r.Value[from]
			if k.fromRes == k.toRes && k.fromUse == k.toUse {
				// Same capacity effect as staying: only worth it if it gains.
				if gain <= 0 {
					continue
				}
			}
			if gain <= 0 && !frees(k) {
				continue
			}
			ci := cache[from*ncol+c]
			if ci < 0 {
				ci = int32(s.classIndex(k))
				cache[from*ncol+c] = ci
			}
			keepBestMoves(&s.lists[ci], move{row: j, col: c, gain: gain, key: k}, maxChanges)
		}
	}
	moves := s.moves[:0]
	for _, l := range s.lists {
		moves = append(moves, l...)
	}
	// Deterministic variable order: by row, then column.
	slices.SortFunc(moves, func(a, b move) int {
		if a.row != b.row {
			return a.row - b.row
		}
		return a.col - b.col
	})

	return load, moves
}

// classIndex returns the index of class k's list in s.lists, adding an
// empty list (reusing the previous call's storage) for a new class.
// classCache is buildMoves's column-pair → class cache for the rows that
// share one Resource and one Use slice.
type classCache struct {
	res []int
	use []float64
	idx []int32
}

// classCaches bounds the caches buildMoves keeps in one call.
const classCaches = 16

func (s *ReassignmentSolver) classIndex(k classKey) int {
	id, ok := s.index[k]
	if !ok {
		id = len(s.lists)
		s.index[k] = id
		if len(s.lists) < cap(s.lists) {
			s.lists = s.lists[:len(s.lists)+1]
			s.lists[len(s.lists)-1] = s.lists[len(s.lists)-1][:0]
		} else {
			s.lists = append(s.lists, nil)
		}
	}
	return id
}

// keepBestMoves inserts m into a class's list, which holds the class's
// best maxChanges moves by gain, descending (stable: on equal gains the
// earlier move stays first), and at most one move per row (its best:
// several columns may share a capacity effect).
func keepBestMoves(l *[]move, m move, maxChanges int) {
	if n := len(*l); n > 0 {
		dup := -1
		for i := range *l {
			if (*l)[i].row == m.row {
				dup = i
			}
		}
		if dup >= 0 {
			if m.gain <= (*l)[dup].gain {
				return
			}
			*l = append((*l)[:dup], (*l)[dup+1:]...)
		}
	}
	if len(*l) >= maxChanges && m.gain <= (*l)[len(*l)-1].gain {
		return
	}
	at := len(*l)
	for at > 0 && (*l)[at-1].gain < m.gain {
		at--
	}
	*l = append(*l, move{})
	copy((*l)[at+1:], (*l)[at:])
	(*l)[at] = m
	if len(*l) > maxChanges {
		*l = (*l)[:maxChanges]
	}
}

// build fills t in for moves: the moves' order by gain, their capacity
// effects, the largest release of each resource, the best releasing gain
// from each sorted position on, and the prefix sums of positive gains.
func (t *enumTables) build(moves []move, nres int) {
	// Moves by gain, descending (ties: row, then column order as built).
	order := t.order[:0]
	for range moves {
		order = append(order, 0)
	}
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(moves[b].gain, moves[a].gain) })
	eff := t.eff[:0]
	maxFree := make([]float64, nres)
	for _, m := range moves {
		e := make([]float64, nres)
		e[m.key.fromRes] -= m.key.fromUse
		e[m.key.toRes] += m.key.toUse
		eff = append(eff, e)
		for r := range e {
			maxFree[r] = math.Max(maxFree[r], -e[r])
		}
	}
	// bestFreeFrom[r][a]: the largest gain of a move at sorted position ≥ a
	// that frees resource r; posPrefix: prefix sums of positive gains.
	bestFreeFrom := t.bestFreeFrom[:0]
	for range nres {
		bestFreeFrom = append(bestFreeFrom, nil)
	}
	for r := range bestFreeFrom {
		b := make([]float64, len(order)+1)
		b[len(order)] = math.Inf(-1)
		for a := len(order) - 1; a >= 0; a-- {
			b[a] = b[a+1]
			if eff[order[a]][r] < 0 {
				b[a] = moves[order[a]].gain // gains descend: the first is the best
			}
		}
		bestFreeFrom[r] = b
	}
	posPrefix := make([]float64, len(order)+1)
	for a, i := range order {
		posPrefix[a+1] = posPrefix[a] + math.Max(0, moves[i].gain)
	}
	t.rowAt, t.gainAt, t.effAt, t.resAt = t.rowAt[:0], t.gainAt[:0], t.effAt[:0], t.resAt[:0]
	for _, i := range order {
		t.rowAt = append(t.rowAt, moves[i].row)
		t.gainAt = append(t.gainAt, moves[i].gain)
		t.effAt = append(t.effAt, eff[i]...)
		t.resAt = append(t.resAt, moves[i].key.fromRes, moves[i].key.toRes)
	}
	t.built = true
	t.order, t.eff, t.maxFree, t.bestFreeFrom, t.posPrefix = order, eff, maxFree, bestFreeFrom, posPrefix
}

// buildRows adds the reduced program's rows to prob (whose Obj is set).
func buildRows(prob *Problem, p *Reassignment, moves []move, newCols []int, load []float64, maxChanges int) {
	nres := len(p.Capacity)
	// Capacity rows.
	capRows := make([]Row, nres)
	for r := range capRows {
		capRows[r] = Row{Sense: LE, RHS: p.Capacity[r] - load[r]}
	}
	for i, m := range moves {
		k := m.key
		if k.fromRes == k.toRes {
			if d := k.toUse - k.fromUse; d != 0 {
				capRows[k.toRes].Vars = append(capRows[k.toRes].Vars, i)
				capRows[k.toRes].Coefs = append(capRows[k.toRes].Coefs, d)
			}
			continue
		}
		capRows[k.fromRes].Vars = append(capRows[k.fromRes].Vars, i)
		capRows[k.fromRes].Coefs = append(capRows[k.fromRes].Coefs, -k.fromUse)
		capRows[k.toRes].Vars = append(capRows[k.toRes].Vars, i)
		capRows[k.toRes].Coefs = append(capRows[k.toRes].Coefs, k.toUse)
	}
	for i, c := range newCols {
		r := p.New.Resource[c]
		capRows[r].Vars = append(capRows[r].Vars, len(moves)+i)
		capRows[r].Coefs = append(capRows[r].Coefs, p.New.Use[c])
	}
	for _, r := range capRows {
		if len(r.Vars) > 0 {
			prob.Rows = append(prob.Rows, r)
		}
	}
	// New row: Σz = 1 or ≤ 1; changes: Σy − Σz ≤ K − 1.
	newRow := Row{Sense: LE, RHS: 1}
	if p.NewRequired {
		newRow.Sense = EQ
	}
	changes := Row{Sense: LE, RHS: float64(maxChanges - 1)}
	for i := range moves {
		changes.Vars = append(changes.Vars, i)
		changes.Coefs = append(changes.Coefs, 1)
	}
	for i := range newCols {
		newRow.Vars = append(newRow.Vars, len(moves)+i)
		newRow.Coefs = append(newRow.Coefs, 1)
		changes.Vars = append(changes.Vars, len(moves)+i)
		changes.Coefs = append(changes.Coefs, -1)
	}
	if len(newRow.Vars) > 0 {
		prob.Rows = append(prob.Rows, newRow)
	}
	if len(changes.Vars) > 0 {
		prob.Rows = append(prob.Rows, changes)
	}
	// One move per job (lazy: rarely binding).
	for a := 0; a < len(moves); {
		b := a
		for b < len(moves) && moves[b].row == moves[a].row {
			b++
		}
		if b-a > 1 {
			row := Row{Sense: LE, RHS: 1, Lazy: true}
			for i := a; i < b; i++ {
				row.Vars = append(row.Vars, i)
				row.Coefs = append(row.Coefs, 1)
			}
			prob.Rows = append(prob.Rows, row)
		}
		a = b
	}
}

// frees reports whether a move of class k releases capacity somewhere.
func frees(k classKey) bool {
	if k.fromRes == k.toRes {
		return k.toUse < k.fromUse
	}
	return k.fromUse > 0
}

// enumerate solves the reduced program exactly by enumerating, for every
// column of the new job (best value first, then "none" if allowed), the
// sets of at most MaxChanges moves in descending order of gain, with two
// prunings: a bound (the gain so far plus the best remaining gains cannot
// beat the incumbent: stop, since later moves gain less) and a capacity
// test (the deficit left cannot be covered by the moves still allowed).
// The incumbent is replaced only by a strictly better value (tolerance
// opt.Tol), or an equal value with fewer changes, so the search order is
// the tie-break. opt.NodeLimit caps the sets examined (a deterministic
// budget); when it stops the search the result is Feasible and the gap
// comes from the LP relaxation.
//
// It runs in up to three passes over one enumSearch: the changes' best
// gain with the full slack (gStarPass, a bound for every option), the
// options' searches (searchOptions), and with opt.Gap the sampling of a
// near-optimal set (sampleNearOptimal).
func enumerate(prob *Problem, rows func() *Problem, moves []move, newCols []int, load []float64, p *Reassignment, maxChanges int, opt Options, t *enumTables, gs *gStarPass) Result {
	start := time.Now()
	s := newEnumSearch(p, opt, t, moves)
	o := enumOptions{opts: newJobOptions(prob, len(moves), newCols, p.NewRequired), p: p, load: load, newCols: newCols, nMoves: len(moves), maxChanges: maxChanges}
	gStar := s.gStarPass(&o, gs)
	s.searchOptions(&o, gStar)
	firstPass := 0
	if opt.Gap > 0 && opt.Rand != nil && s.bestOpt >= 0 && !s.stopped {
		firstPass = s.sampleNearOptimal(&o, gStar)
	}
	return s.result(prob, rows, o.opts, firstPass, start)
}

// enumOption is one choice for the new job: its variable (−1 for none)
// and its value.
type enumOption struct {
	v   int
	val float64
}

// newJobOptions lists the new job's options: its columns by value (the
// −shift keeps Σz = 1 values comparable), then "none" unless required.
func newJobOptions(prob *Problem, nMoves int, newCols []int, required bool) []enumOption {
	var opts []enumOption
	for i := range newCols {
		opts = append(opts, enumOption{nMoves + i, prob.Obj[nMoves+i]})
	}
	slices.SortStableFunc(opts, func(a, b enumOption) int { return cmp.Compare(b.val, a.val) })
	if !required {
		opts = append(opts, enumOption{-1, 0})
	}
	return opts
}

// enumOptions is what the passes over the new job's options read.
type enumOptions struct {
	opts       []enumOption
	p          *Reassignment
	load       []float64
	newCols    []int
	nMoves     int
	maxChanges int
}

// enumSearch is enumerate's state: the depth-first search over change
// sets, its incumbent, and the gap-sampling pass's reservoir.
type enumSearch struct {
	t     *enumTables
	opt   Options
	nres  int
	tol   float64
	limit int

	// The incumbent: its value, number of changes, set of moves and
	// new-job option (−2: none yet; −3: found by the option being
	// searched, which the caller's loop records).
	best      float64
	bestMoves int
	bestSet   []int
	bestOpt   int
	// bestLo, bestHi: the incumbent ∓ the tolerance (prune).
	bestLo, bestHi float64

	set      []int  // the moves of the set being extended
	usedRow  []bool // rows that have a move in set
	examined int
	stopped  bool
	slack    []float64 // capacity left per resource under the current option
	e        []float64 // set's capacity effect per resource

	// Gap sampling (second pass): every fitting set worth ≥ floor is a
	// candidate; one is kept by reservoir sampling.
	collect         bool
	floor           float64
	seen            int
	pickSet         []int
	pickOpt, curOpt int
}

func newEnumSearch(p *Reassignment, opt Options, t *enumTables, moves []move) *enumSearch {
	s := &enumSearch{t: t, opt: opt, nres: len(p.Capacity), tol: opt.Tol, limit: opt.NodeLimit}
	if s.tol <= 0 {
		s.tol = 1e-9
	}
	if s.limit <= 0 {
		s.limit = 200000
	}
	if !t.built {
		t.build(moves, s.nres)
	}
	// Every entry is false again when a search returns (descend).
	if cap(t.usedRow) < len(p.Rows) {
		t.usedRow = make([]bool, len(p.Rows))
	}
	s.usedRow = t.usedRow[:len(p.Rows)]
	clear(s.usedRow)
	s.slack = make([]float64, s.nres)
	s.e = make([]float64, s.nres)
	s.resetIncumbent()
	return s
}

func (s *enumSearch) resetIncumbent() {
	s.best, s.bestMoves, s.bestSet, s.bestOpt = math.Inf(-1), 0, nil, -2
	s.bestLo, s.bestHi = math.Inf(-1), math.Inf(-1)
}

// topPositive is the sum of the positive gains of the cnt moves from
// sorted position from on (the most the next cnt moves can gain).
func (s *enumSearch) topPositive(from, cnt int) float64 {
	if cnt <= 0 || from >= len(s.t.order) {
		return 0
	}
	return s.t.posPrefix[min(from+cnt, len(s.t.order))] - s.t.posPrefix[from]
}

// better reports whether a set worth v with n changes replaces the
// incumbent.
func (s *enumSearch) better(v float64, n int) bool {
	if math.IsInf(s.best, -1) {
		return true
	}
	d := s.tol * math.Max(1, math.Abs(s.best))
	return v > s.best+d || (v >= s.best-d && n < s.bestMoves)
}

// prune: a completion worth at most ub with n changes cannot replace the
// incumbent (or, sampling, cannot reach the floor).
func (s *enumSearch) prune(ub float64, n int) bool {
	if s.collect {
		return ub < s.floor
	}
	return ub < s.bestLo || (ub <= s.bestHi && n >= s.bestMoves)
}

// startOption sets the slack for the new job's option o and returns the
// changes left for the existing rows (negative: the option is out).
func (s *enumSearch) startOption(o *enumOptions, opt enumOption) int {
	k := o.maxChanges
	for r := range s.slack {
		s.slack[r] = o.p.Capacity[r] - o.load[r]
	}
	if opt.v >= 0 {
		c := o.newCols[opt.v-o.nMoves]
		s.slack[o.p.New.Resource[c]] -= o.p.New.Use[c]
	} else {
		k--
	}
	return k
}

// gStarPass bounds the changes' gain whatever the new job takes: the best
// change set with the full slack (a new column only removes slack).
// Options come best-first, so once val + gStar cannot reach the
// incumbent, no later option can either. The pass depends on the rows
// only, so the previous program's outcome (gs) is reused when valid.
func (s *enumSearch) gStarPass(o *enumOptions, gs *gStarPass) float64 {
	gStar := math.Inf(1)
	if len(o.opts) > 1 && gs.valid && gs.limit == s.limit && gs.tol == s.tol {
		// The previous program's rows: the pass's outcome is the same.
		gStar, s.examined, s.stopped = gs.gStar, gs.examined, gs.stopped
		copy(s.e, gs.e)
	} else if len(o.opts) > 1 {
		for r := range s.slack {
			s.slack[r] = o.p.Capacity[r] - o.load[r]
		}
		s.dfs(0, o.maxChanges, 0, 0)
		if !s.stopped && !math.IsInf(s.best, -1) {
			gStar = s.best
		}
		s.resetIncumbent()
		gs.valid, gs.limit, gs.tol = true, s.limit, s.tol
		gs.gStar, gs.examined, gs.stopped = gStar, s.examined, s.stopped
		gs.e = append(gs.e[:0], s.e...)
	}
	return gStar
}

// searchOptions searches the change sets under each option of the new
// job, best option first, keeping the best (value, fewest changes).
func (s *enumSearch) searchOptions(o *enumOptions, gStar float64) {
	for oi, opt := range o.opts {
		if !math.IsInf(s.best, -1) && opt.val+gStar < s.best-s.tol*math.Max(1, math.Abs(s.best)) {
			break
		}
		k := s.startOption(o, opt)
		if k < 0 {
			continue
		}
		before := s.bestOpt
		s.dfs(0, k, opt.val, 0)
		if s.bestOpt == -3 {
			s.bestOpt = oi
		} else {
			s.bestOpt = before
		}
		if s.stopped {
			break
		}
	}
}

// sampleNearOptimal replaces the proven optimum by a set drawn uniformly
// (opt.Rand) among the fitting sets within opt.Gap of it, and returns the
// sets the first passes examined.
func (s *enumSearch) sampleNearOptimal(o *enumOptions, gStar float64) (firstPass int) {
	// The objective's magnitude: the previous columns' values plus the
	// optimum's gain (the new row's values were shifted by its best when
	// it is required).
	p := o.p
	total := s.best
	for j := range p.Rows {
		total += p.Rows[j].Value[p.Rows[j].Prev]
	}
	if p.NewRequired {
		shift := math.Inf(-1)
		for _, c := range o.newCols {
			shift = math.Max(shift, p.New.Value[c])
		}
		total += shift
	}
	s.collect, s.floor = true, s.best-s.opt.Gap*math.Max(1, math.Abs(total))
	firstPass = s.examined
	s.examined, s.seen = 0, 0
	for oi, opt := range o.opts {
		if opt.val+gStar < s.floor {
			continue
		}
		k := s.startOption(o, opt)
		if k < 0 {
			continue
		}
		s.curOpt = oi
		s.dfs(0, k, opt.val, 0)
		if s.stopped {
			break
		}
	}
	if s.seen > 0 {
		s.bestSet, s.bestOpt = s.pickSet, s.pickOpt
	}
	s.stopped = false // the optimum was proven; the sample is from the sets visited
	return firstPass
}

// result turns the incumbent into the program's Result, bounding the gap
// with the LP relaxation when the node limit stopped the search.
func (s *enumSearch) result(prob *Problem, rows func() *Problem, opts []enumOption, firstPass int, start time.Time) Result {
	var res Result
	res.Nodes = firstPass + s.examined
	res.Elapsed = time.Since(start)
	if s.bestOpt < 0 {
		if s.stopped {
			res.Status = LimitNoSolution
		} else {
			res.Status = Infeasible
		}
		res.Gap = math.Inf(1)
		return res
	}
	x := make([]float64, len(prob.Obj))
	for _, i := range s.bestSet {
		x[i] = 1
	}
	if v := opts[s.bestOpt].v; v >= 0 {
		x[v] = 1
	}
	res.X, res.Objective = x, prob.Value(x)
	res.Status, res.Bound = Optimal, res.Objective
	if s.stopped {
		// Bound the gap with the LP relaxation (one LP).
		lpRes, err := Solve(rows(), Options{NodeLimit: 1})
		res.Status, res.Bound = Feasible, math.Inf(1)
		if err == nil && !math.IsInf(lpRes.Bound, 0) {
			res.Bound = math.Max(lpRes.Bound, res.Objective)
		}
		res.Gap = (res.Bound - res.Objective) / math.Max(1, math.Abs(res.Objective))
	}
	return res
}

// descend adds the move at sorted position a to the set, searches on from
// there, and takes it out again.
func (s *enumSearch) descend(a, k int, base, gain float64) {
	t, nres := s.t, s.nres
	effAt := t.effAt[a*nres : (a+1)*nres]
	for r := range s.e {
		s.e[r] += effAt[r]
	}
	s.usedRow[t.rowAt[a]] = true
	s.set = append(s.set, t.order[a])
	s.dfs(a+1, k, base, gain+t.gainAt[a])
	s.set = s.set[:len(s.set)-1]
	s.usedRow[t.rowAt[a]] = false
	for r := range s.e {
		s.e[r] -= effAt[r]
	}
}

// dfs examines the set (a new incumbent if it fits and is better; a
// candidate when sampling) and extends it by each later move that can
// still lead to a better set, up to k changes.
func (s *enumSearch) dfs(from, k int, base, gain float64) {
	if s.stopped {
		return
	}
	s.examined++
	if s.examined > s.limit {
		s.stopped = true
		return
	}
	fits := true
	for r := range s.e {
		if s.e[r] > s.slack[r]+feasTol {
			fits = false
			break
		}
	}
	if fits && s.collect {
		if base+gain >= s.floor {
			s.seen++
			if s.opt.Rand.IntN(s.seen) == 0 {
				s.pickSet, s.pickOpt = append(s.pickSet[:0], s.set...), s.curOpt
			}
		}
	} else if fits && s.better(base+gain, len(s.set)) {
		s.best, s.bestMoves, s.bestSet = base+gain, len(s.set), append([]int(nil), s.set...)
		d := s.tol * math.Max(1, math.Abs(s.best))
		s.bestLo, s.bestHi = s.best-d, s.best+d
		s.bestOpt = -3 // set by the caller loop
	}
	left := k - len(s.set)
	if left == 0 {
		return
	}
	if left == 1 && s.nres <= 64 && lastChangeLoop {
		s.dfsLast(from, k, base, gain)
		return
	}
	s.dfsMoves(from, k, left, base, gain)
}

// dfsMoves is dfs's general loop over the moves from sorted position
// from, with left changes still allowed.
func (s *enumSearch) dfsMoves(from, k, left int, base, gain float64) {
	t, nres, e, slack := s.t, s.nres, s.e, s.slack
	order, maxFree, bestFreeFrom := t.order, t.maxFree, t.bestFreeFrom
	for a := from; a < len(order); a++ {
		// Bound: later moves gain no more than this one.
		if s.prune(base+gain+s.topPositive(a, left), len(s.set)+1) {
			return
		}
		effAt := t.effAt[a*nres : (a+1)*nres]
		if s.usedRow[t.rowAt[a]] {
			continue
		}
		// Capacity-aware bound: every resource left short needs at least
		// ⌈deficit/maxFree⌉ of the remaining moves to free it (a move
		// frees one resource), each gaining at most the best freeing move
		// still ahead; the others at most the best gains.
		need, ubFree, ok := 0, 0.0, true
		for r := range e {
			d := e[r] + effAt[r] - slack[r]
			if d <= feasTol {
				continue
			}
			if maxFree[r] <= 0 {
				ok = false
				break
			}
			n := int(math.Ceil((d - feasTol) / maxFree[r]))
			need += n
			if need > left-1 || a+1 >= len(order) || math.IsInf(bestFreeFrom[r][a+1], -1) {
				ok = false
				break
			}
			ubFree += float64(n) * bestFreeFrom[r][a+1]
		}
		if !ok {
			continue
		}
		if s.prune(base+gain+t.gainAt[a]+ubFree+s.topPositive(a+1, left-1-need), len(s.set)+1) {
			continue
		}
		s.descend(a, k, base, gain)
	}
}

// dfsLast is dfs's loop over the moves when one change is left, the
// search's most frequent case, visiting the same children in the same
// order. With no change left to free a resource, the capacity-aware bound
// admits only a move that leaves no resource short: one whose two
// resources (from, to) end within their slack while no other is short
// already. That test reads the move's two resources instead of all, and
// the bound test is made only at a move that passes it: the bound falls
// along the moves (gains descend), so it stops the loop at a passing move
// exactly when it would have at or before it.
func (s *enumSearch) dfsLast(from, k int, base, gain float64) {
	t, nres, e, slack := s.t, s.nres, s.e, s.slack
	var short uint64 // resources short before the move
	for r := range e {
		// As the general loop computes it (the move adds +0 here).
		if e[r]-slack[r] > feasTol {
			short |= 1 << r
		}
	}
	for a := from; a < len(t.order); a++ {
		if s.usedRow[t.rowAt[a]] {
			continue
		}
		rf, rt := t.resAt[2*a], t.resAt[2*a+1]
		if short&^(1<<rf|1<<rt) != 0 {
			continue
		}
		effAt := t.effAt[a*nres : (a+1)*nres]
		if e[rf]+effAt[rf]-slack[rf] > feasTol || e[rt]+effAt[rt]-slack[rt] > feasTol {
			continue
		}
		if s.prune(base+gain+s.topPositive(a, 1), len(s.set)+1) {
			return
		}
		// The general loop's bound with no resource short and no change
		// left: base + gain + this move's gain (+0 + 0). It falls along
		// the moves too, so no later move passes it.
		if s.prune(base+gain+t.gainAt[a], len(s.set)+1) {
			return
		}
		s.descend(a, k, base, gain)
		if s.stopped {
			return
		}
	}
}

func sameInts(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func sameFloats(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
