package ilp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Sense is a row's relation.
type Sense int

const (
	// LE is aᵀx ≤ b.
	LE Sense = iota
	// GE is aᵀx ≥ b.
	GE
	// EQ is aᵀx = b.
	EQ
)

func (s Sense) String() string {
	switch s {
	case LE:
		return "<="
	case GE:
		return ">="
	case EQ:
		return "="
	}
	return fmt.Sprintf("Sense(%d)", int(s))
}

// Row is one linear constraint Σ Coefs[k]·x[Vars[k]] (Sense) RHS.
type Row struct {
	Vars  []int
	Coefs []float64
	Sense Sense
	RHS   float64
	// Lazy rows enter a node's LP only once its solution violates them
	// (see the package doc). Use it for rows that are rarely binding.
	Lazy bool
}

// Problem is maximize Obj·x over integer x with 0 ≤ x ≤ Upper and Rows.
type Problem struct {
	Obj []float64
	// Upper bounds; nil means every variable is binary (upper bound 1).
	// math.Inf(1) means unbounded above.
	Upper []float64
	Rows  []Row
}

// Options are the search limits and the warm start.
type Options struct {
	// NodeLimit caps the number of branch-and-bound nodes (0: 200,000).
	// It is the only limit: a search never depends on the wall clock, so a
	// decision is the same on any machine under any load.
	NodeLimit int
	// Hint is a starting solution; if it is feasible it is the first
	// incumbent and, among optimal solutions, the one returned when it is
	// optimal (the deterministic tie-break).
	Hint []float64
	// Priority, if set, orders branching: among fractional variables the
	// highest priority is branched on first (then the most fractional, then
	// the lowest index).
	Priority []int
	// Gap and Rand (SolveReassignment only): when Gap > 0, the answer is
	// drawn uniformly (with Rand) among the change sets the exact search
	// visits whose objective is within Gap·max(1, |optimum|) of the
	// optimum — what a solver stopping at relative gap Gap (CPLEX's
	// default is 1e-4) may return. Deterministic for a given Rand state.
	Gap  float64
	Rand *rand.Rand
	// Tol is the relative optimality tolerance (0: 1e-9): a solution
	// replaces the incumbent only if better by more than
	// Tol·max(1, |incumbent|).
	Tol float64
	// ReducedObjective (SolveReassignment, ReassignmentSolver.Solve):
	// an answer whose search was not stopped (Status other than
	// Feasible) reports Result.Objective and Result.Bound without the
	// existing rows' previous values, which are a sum over every row per
	// program; a caller that reads the Assignment's own Objective, its
	// columns and the Result's Status, Gap and counts (Gavel) loses
	// nothing. A stopped search reports them in full (its Gap is computed
	// from them). The Assignment is otherwise the same.
	ReducedObjective bool
}

// Status is the outcome of a search.
type Status int

const (
	// Optimal: the returned solution is optimal (within Tol).
	Optimal Status = iota
	// Feasible: a limit stopped the search; X is the best solution found
	// and Gap says how far from optimal it can be.
	Feasible
	// Infeasible: no integer solution exists.
	Infeasible
	// LimitNoSolution: a limit stopped the search before any solution.
	LimitNoSolution
	// Unbounded: the relaxation is unbounded.
	Unbounded
)

func (s Status) String() string {
	return [...]string{"optimal", "feasible (limit reached)", "infeasible", "no solution (limit reached)", "unbounded"}[s]
}

// Result of Solve.
type Result struct {
	Status Status
	// X is the solution (integral values) when Status is Optimal or
	// Feasible; Objective its value.
	X         []float64
	Objective float64
	// Bound is an upper bound on the optimum: Objective when Optimal,
	// otherwise the largest bound of the nodes left open.
	Bound float64
	// Gap = (Bound − Objective)/max(1, |Objective|); 0 when Optimal,
	// +Inf without a solution.
	Gap float64
	// Nodes explored, LPs solved (re-solves after adding lazy rows
	// included) and nodes whose LP failed numerically.
	Nodes, LPs, LPFailures int
	Elapsed                time.Duration
}

// ErrProblem wraps every malformed-input error.
var ErrProblem = errors.New("ilp: malformed problem")

const (
	intTol  = 1e-6
	feasTol = 1e-7
	lpTol   = 1e-9
)

// Validate checks the problem's shape.
func (p *Problem) Validate() error {
	n := len(p.Obj)
	if p.Upper != nil && len(p.Upper) != n {
		return fmt.Errorf("%w: %d upper bounds for %d variables", ErrProblem, len(p.Upper), n)
	}
	for j, c := range p.Obj {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("%w: objective coefficient %d is %v", ErrProblem, j, c)
		}
		if p.Upper != nil && (p.Upper[j] < 0 || math.IsNaN(p.Upper[j])) {
			return fmt.Errorf("%w: variable %d has upper bound %v", ErrProblem, j, p.Upper[j])
		}
	}
	for i, r := range p.Rows {
		if len(r.Vars) != len(r.Coefs) {
			return fmt.Errorf("%w: row %d has %d variables but %d coefficients", ErrProblem, i, len(r.Vars), len(r.Coefs))
		}
		if math.IsNaN(r.RHS) || math.IsInf(r.RHS, 0) {
			return fmt.Errorf("%w: row %d has right-hand side %v", ErrProblem, i, r.RHS)
		}
		if r.Sense < LE || r.Sense > EQ {
			return fmt.Errorf("%w: row %d has sense %d", ErrProblem, i, r.Sense)
		}
		for k, v := range r.Vars {
			if v < 0 || v >= n {
				return fmt.Errorf("%w: row %d, term %d: variable %d out of range [0,%d)", ErrProblem, i, k, v, n)
			}
			if c := r.Coefs[k]; math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("%w: row %d, term %d: coefficient %v", ErrProblem, i, k, c)
			}
		}
	}
	return nil
}

// upper returns variable j's upper bound.
func (p *Problem) upper(j int) float64 {
	if p.Upper == nil {
		return 1
	}
	return p.Upper[j]
}

// Feasible reports whether integer x satisfies every row and bound.
func (p *Problem) Feasible(x []float64) bool {
	if len(x) != len(p.Obj) {
		return false
	}
	for j, v := range x {
		if v < -intTol || v > p.upper(j)+intTol || math.Abs(v-math.Round(v)) > intTol {
			return false
		}
	}
	for i := range p.Rows {
		if violated(&p.Rows[i], x) {
			return false
		}
	}
	return true
}

// Value is Obj·x.
func (p *Problem) Value(x []float64) float64 {
	s := 0.0
	for j, c := range p.Obj {
		s += c * x[j]
	}
	return s
}

func violated(r *Row, x []float64) bool {
	lhs := 0.0
	for k, v := range r.Vars {
		lhs += r.Coefs[k] * x[v]
	}
	tol := feasTol * (1 + math.Abs(r.RHS))
	switch r.Sense {
	case LE:
		return lhs > r.RHS+tol
	case GE:
		return lhs < r.RHS-tol
	default:
		return math.Abs(lhs-r.RHS) > tol
	}
}

// node is one subproblem: variable bounds plus the lazy rows and upper
// bounds already active in its LP.
type node struct {
	lo, hi      []float64
	activeRow   []bool // lazy rows in the LP
	activeBound []bool // upper bounds in the LP
	bound       float64
}

// search is the state of one Solve.
type search struct {
	p      *Problem
	opt    Options
	n      int
	inc    []float64
	incVal float64
	hasInc bool
	res    Result
}

// Solve maximises p. The error is non-nil only for a malformed problem.
func Solve(p *Problem, opt Options) (Result, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	if opt.NodeLimit <= 0 {
		opt.NodeLimit = 200000
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-9
	}
	if opt.Priority != nil && len(opt.Priority) != len(p.Obj) {
		return Result{}, fmt.Errorf("%w: %d priorities for %d variables", ErrProblem, len(opt.Priority), len(p.Obj))
	}
	s := &search{p: p, opt: opt, n: len(p.Obj)}
	if opt.Hint != nil && len(opt.Hint) == s.n {
		h := make([]float64, s.n)
		for j, v := range opt.Hint {
			h[j] = math.Round(v)
		}
		if p.Feasible(h) {
			s.inc, s.incVal, s.hasInc = h, p.Value(h), true
		}
	}
	root := &node{
		lo: make([]float64, s.n), hi: make([]float64, s.n),
		activeRow: make([]bool, len(p.Rows)), activeBound: make([]bool, s.n),
		bound: math.Inf(1),
	}
	for j := range root.hi {
		root.hi[j] = p.upper(j)
	}
	status := s.run(root)
	s.res.Elapsed = time.Since(start)
	s.res.Status = status
	if s.hasInc {
		s.res.X, s.res.Objective = s.inc, s.incVal
	}
	switch status {
	case Optimal:
		s.res.Bound, s.res.Gap = s.incVal, 0
	case Feasible:
		s.res.Bound = math.Max(s.res.Bound, s.incVal)
		s.res.Gap = (s.res.Bound - s.incVal) / math.Max(1, math.Abs(s.incVal))
	default:
		s.res.Gap = math.Inf(1)
	}
	return s.res, nil
}

// better reports whether v beats the incumbent by more than the tolerance.
func (s *search) better(v float64) bool {
	if !s.hasInc {
		return true
	}
	return v > s.incVal+s.opt.Tol*math.Max(1, math.Abs(s.incVal))
}

func (s *search) offer(x []float64) {
	v := s.p.Value(x)
	if s.better(v) {
		s.inc, s.incVal, s.hasInc = append([]float64(nil), x...), v, true
	}
}

// run is the depth-first loop. It returns the final status and leaves the
// open nodes' best bound in s.res.Bound when a limit stops it.
func (s *search) run(root *node) Status {
	stack := []*node{root}
	for len(stack) > 0 {
		if s.res.Nodes >= s.opt.NodeLimit {
			s.res.Bound = math.Inf(-1)
			for _, nd := range stack {
				s.res.Bound = math.Max(s.res.Bound, nd.bound)
			}
			if s.hasInc {
				if !s.better(s.res.Bound) {
					return Optimal
				}
				return Feasible
			}
			return LimitNoSolution
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !s.better(nd.bound) {
			continue
		}
		s.res.Nodes++
		children, unbounded := s.expand(nd)
		if unbounded {
			return Unbounded
		}
		// Push in reverse so the preferred child is explored first.
		for k := len(children) - 1; k >= 0; k-- {
			stack = append(stack, children[k])
		}
	}
	if s.hasInc {
		return Optimal
	}
	return Infeasible
}

// expand solves a node's relaxation and returns its children (preferred
// first); none when the node is pruned, infeasible or solved.
func (s *search) expand(nd *node) (children []*node, unbounded bool) {
	free := -1
	for j := 0; j < s.n; j++ {
		if nd.lo[j] < nd.hi[j] {
			free = j
			break
		}
	}
	if free < 0 { // every variable fixed
		if s.p.Feasible(nd.lo) {
			s.offer(nd.lo)
		}
		return nil, false
	}
	x, val, st := s.relax(nd)
	switch st {
	case lpInfeasible:
		return nil, false
	case lpUnbounded:
		return nil, true
	case lpFailed:
		s.res.LPFailures++
		return s.branch(nd, free, nd.lo[free], nd.bound), false
	}
	if !s.better(val) {
		return nil, false
	}
	// Integral relaxation: it is this node's optimum.
	branchVar, bestFrac, bestPrio := -1, 0.0, math.MinInt
	for j := 0; j < s.n; j++ {
		if nd.lo[j] == nd.hi[j] {
			continue
		}
		f := x[j] - math.Floor(x[j])
		frac := math.Min(f, 1-f)
		if frac <= intTol {
			continue
		}
		prio := 0
		if s.opt.Priority != nil {
			prio = s.opt.Priority[j]
		}
		if prio > bestPrio || (prio == bestPrio && frac > bestFrac+1e-12) {
			branchVar, bestFrac, bestPrio = j, frac, prio
		}
	}
	rounded := make([]float64, s.n)
	for j, v := range x {
		rounded[j] = math.Round(v)
	}
	if branchVar < 0 {
		if s.p.Feasible(rounded) {
			s.offer(rounded)
			return nil, false
		}
		// Numerically integral but not feasible: branch on the first free
		// variable to settle it exactly.
		return s.branch(nd, free, x[free], val), false
	}
	if s.p.Feasible(rounded) { // rounding heuristic
		s.offer(rounded)
		if !s.better(val) {
			return nil, false
		}
	}
	return s.branch(nd, branchVar, x[branchVar], val), false
}

// branch splits nd on variable j at value v: x_j ≤ ⌊v⌋ and x_j ≥ ⌊v⌋+1
// (for an integral v: x_j ≤ v and x_j ≥ v+1 unless at a bound).
func (s *search) branch(nd *node, j int, v float64, bound float64) []*node {
	fl := math.Floor(v + intTol)
	if fl >= nd.hi[j] {
		fl = nd.hi[j] - 1
	}
	if fl < nd.lo[j] {
		fl = nd.lo[j]
	}
	down := s.child(nd, bound)
	down.hi[j] = fl
	up := s.child(nd, bound)
	up.lo[j] = fl + 1
	preferUp := true
	if s.opt.Hint != nil {
		preferUp = math.Round(s.opt.Hint[j]) > fl
	}
	if preferUp {
		return []*node{up, down}
	}
	return []*node{down, up}
}

func (s *search) child(nd *node, bound float64) *node {
	return &node{
		lo: append([]float64(nil), nd.lo...), hi: append([]float64(nil), nd.hi...),
		activeRow:   append([]bool(nil), nd.activeRow...),
		activeBound: append([]bool(nil), nd.activeBound...),
		bound:       bound,
	}
}

type lpStatus int

const (
	lpOptimal lpStatus = iota
	lpInfeasible
	lpUnbounded
	lpFailed
)

// relax solves the node's LP relaxation, adding violated lazy rows and
// bounds until the solution satisfies them all. It returns x in the
// original variables and the relaxation's value.
func (s *search) relax(nd *node) ([]float64, float64, lpStatus) {
	for {
		x, val, st := s.solveLP(nd)
		if st == lpUnbounded {
			// The ray may only exist because upper bounds are still lazy:
			// activate them all and solve again.
			added := false
			for j := 0; j < s.n; j++ {
				if !nd.activeBound[j] && nd.lo[j] < nd.hi[j] && !math.IsInf(nd.hi[j], 1) {
					nd.activeBound[j], added = true, true
				}
			}
			if added {
				continue
			}
		}
		if st != lpOptimal {
			return nil, 0, st
		}
		added := false
		for i := range s.p.Rows {
			r := &s.p.Rows[i]
			if r.Lazy && !nd.activeRow[i] && violated(r, x) {
				nd.activeRow[i], added = true, true
			}
		}
		for j := 0; j < s.n; j++ {
			if !nd.activeBound[j] && x[j] > nd.hi[j]+feasTol*(1+math.Abs(nd.hi[j])) {
				nd.activeBound[j], added = true, true
			}
		}
		if !added {
			return x, val, lpOptimal
		}
	}
}

// solveLP builds and solves the standard form of the node's current LP.
func (s *search) solveLP(nd *node) ([]float64, float64, lpStatus) {
	s.res.LPs++
	p := s.p
	// Columns: free variables that occur in an active row or bound.
	col := make([]int, s.n) // variable → column, −1 if none
	for j := range col {
		col[j] = -1
	}
	x := append([]float64(nil), nd.lo...)
	constVal := 0.0
	for j := 0; j < s.n; j++ {
		constVal += p.Obj[j] * nd.lo[j]
	}
	rows, ok := s.nodeRows(nd)
	if !ok {
		return nil, 0, lpInfeasible
	}
	var vars []int
	for _, r := range rows {
		for _, v := range r.vars {
			if col[v] < 0 && r.coef[v] != 0 {
				col[v] = len(vars)
				vars = append(vars, v)
			}
		}
	}
	// Free variables in no active row: their best value is a bound.
	for j := 0; j < s.n; j++ {
		if nd.lo[j] == nd.hi[j] || col[j] >= 0 {
			continue
		}
		if p.Obj[j] > 0 {
			if math.IsInf(nd.hi[j], 1) {
				return nil, 0, lpUnbounded
			}
			x[j] = nd.hi[j]
			constVal += p.Obj[j] * (nd.hi[j] - nd.lo[j])
		}
	}
	if len(rows) == 0 {
		return x, constVal, lpOptimal
	}
	A, b, c, init, ok := standardForm(rows, vars, col, p.Obj)
	if !ok {
		return nil, 0, lpFailed
	}
	opt, y, err := simplexSafe(c, A, b, init)
	switch {
	case errors.Is(err, lp.ErrInfeasible):
		return nil, 0, lpInfeasible
	case errors.Is(err, lp.ErrUnbounded):
		return nil, 0, lpUnbounded
	case err != nil:
		return nil, 0, lpFailed
	}
	for k, v := range vars {
		x[v] = nd.lo[v] + y[k]
	}
	return x, constVal - opt, lpOptimal
}

// lpRow is a row of a node's LP over its free variables (the fixed ones
// moved into rhs).
type lpRow struct {
	coef  map[int]float64 // by variable
	vars  []int           // free variables in first-occurrence order
	sense Sense
	rhs   float64
}

// nodeRows returns the node's LP rows: its active rows with the fixed
// variables substituted (a row left without a free variable is checked
// and dropped; ok is false if it is violated), then its active upper
// bounds as rows.
func (s *search) nodeRows(nd *node) (rows []lpRow, ok bool) {
	p := s.p
	for i := range p.Rows {
		r := &p.Rows[i]
		if r.Lazy && !nd.activeRow[i] {
			continue
		}
		lr := lpRow{sense: r.Sense, rhs: r.RHS}
		for k, v := range r.Vars {
			c := r.Coefs[k]
			lr.rhs -= c * nd.lo[v]
			if nd.lo[v] == nd.hi[v] || c == 0 {
				continue
			}
			if lr.coef == nil {
				lr.coef = map[int]float64{}
			}
			if _, seen := lr.coef[v]; !seen {
				lr.vars = append(lr.vars, v)
			}
			lr.coef[v] += c
		}
		nonzero := false
		for _, v := range lr.vars {
			if lr.coef[v] != 0 {
				nonzero = true
				break
			}
		}
		if !nonzero {
			tol := feasTol * (1 + math.Abs(r.RHS))
			if (lr.sense == LE && lr.rhs < -tol) || (lr.sense == GE && lr.rhs > tol) || (lr.sense == EQ && math.Abs(lr.rhs) > tol) {
				return nil, false
			}
			continue
		}
		rows = append(rows, lr)
	}
	for j := 0; j < s.n; j++ {
		if nd.activeBound[j] && nd.lo[j] < nd.hi[j] && !math.IsInf(nd.hi[j], 1) {
			rows = append(rows, lpRow{coef: map[int]float64{j: 1}, vars: []int{j}, sense: LE, rhs: nd.hi[j] - nd.lo[j]})
		}
	}
	return rows, true
}

// standardForm writes rows as min c·y, A·y = b, y ≥ 0 over the columns
// vars (col maps a variable to its column) plus one slack per inequality,
// and the slack basis to start from when it is feasible (init, else nil).
// ok is false when there are fewer columns than rows.
func standardForm(rows []lpRow, vars, col []int, obj []float64) (A *mat.Dense, b, c []float64, init []int, ok bool) {
	nIneq := 0
	for _, r := range rows {
		if r.sense != EQ {
			nIneq++
		}
	}
	m, nc := len(rows), len(vars)+nIneq
	if nc < m {
		return nil, nil, nil, nil, false
	}
	A = mat.NewDense(m, nc, nil)
	b = make([]float64, m)
	c = make([]float64, nc)
	for k, v := range vars {
		c[k] = -obj[v]
	}
	slackBasis := true
	basis := make([]int, 0, m)
	slack := len(vars)
	for i, r := range rows {
		for _, v := range r.vars {
			if k := col[v]; k >= 0 {
				A.Set(i, k, r.coef[v])
			}
		}
		b[i] = r.rhs
		switch r.sense {
		case LE:
			A.Set(i, slack, 1)
			basis = append(basis, slack)
			if r.rhs < 0 {
				slackBasis = false
			}
			slack++
		case GE:
			A.Set(i, slack, -1)
			slackBasis = false
			slack++
		default:
			slackBasis = false
		}
	}
	if slackBasis {
		init = basis
	}
	return A, b, c, init, true
}

// simplexSafe calls gonum's Simplex (simplexCounted, the copy with a pivot
// budget), turning its panics on ill-posed input into errors. A square system (as many columns as rows) has a single
// point, which gonum checks for x ≥ 0 without tolerance; it is solved here
// with the feasibility tolerance instead.
func simplexSafe(c []float64, A *mat.Dense, b []float64, init []int) (opt float64, x []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("ilp: simplex panicked: %v", r)
		}
	}()
	if m, n := A.Dims(); m == n {
		var xv mat.VecDense
		if err := xv.SolveVec(A, mat.NewVecDense(m, b)); err != nil {
			return 0, nil, lp.ErrSingular
		}
		x = make([]float64, n)
		for i := range x {
			v := xv.AtVec(i)
			if v < -feasTol {
				return 0, nil, lp.ErrInfeasible
			}
			x[i] = math.Max(v, 0)
			opt += c[i] * x[i]
		}
		return opt, x, nil
	}
	opt, x, _, err = simplexCounted(init, c, A, b, lpTol)
	return opt, x, err
}
