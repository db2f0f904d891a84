package ilp

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomReassignment draws a small Gavel/Sia-shaped program whose previous
// columns fit the capacity.
func randomReassignment(r *rand.Rand) *Reassignment {
	nres := 1 + r.IntN(3)
	ncol := 2 + r.IntN(3)
	rows := r.IntN(5)
	p := &Reassignment{Capacity: make([]float64, nres), NewRequired: r.IntN(2) == 0,
		MaxChanges: 1 + r.IntN(3), HasPrev: r.IntN(8) != 0 || rows == 0}
	colRes := make([]int, ncol)
	colUse := make([]float64, ncol)
	for c := range colRes {
		colRes[c] = r.IntN(nres)
		colUse[c] = float64(int(1) << r.IntN(3))
	}
	fillRandomRows(r, p, colRes, colUse, rows, 12, 5, 6)
	return p
}

// fillRandomRows gives p rows admitted rows over the columns (colRes,
// colUse) with previous columns drawn at random, integer values below
// values (the new row also −1e9 one time in infeasibleOneIn), and each
// capacity the previous load plus up to spare−1.
func fillRandomRows(r *rand.Rand, p *Reassignment, colRes []int, colUse []float64, rows, values, infeasibleOneIn, spare int) {
	mk := func(infeasibleOK bool) AssignRow {
		row := AssignRow{Value: make([]float64, len(colRes)), Resource: colRes, Use: colUse}
		for c := range row.Value {
			row.Value[c] = float64(r.IntN(values)) // small integers: many ties
			if infeasibleOK && r.IntN(infeasibleOneIn) == 0 {
				row.Value[c] = -1e9
			}
		}
		return row
	}
	load := make([]float64, len(p.Capacity))
	for j := 0; j < rows; j++ {
		row := mk(false)
		row.Prev = r.IntN(len(colRes))
		load[colRes[row.Prev]] += colUse[row.Prev]
		p.Rows = append(p.Rows, row)
	}
	for k := range p.Capacity {
		p.Capacity[k] = load[k] + float64(r.IntN(spare))
	}
	p.New = mk(true)
}

// bruteForce enumerates every assignment of the full program (existing rows
// never take Infeasible columns, as SolveReassignment assumes).
func bruteForce(p *Reassignment) (float64, bool) {
	n := len(p.Rows)
	cols := make([]int, n+1)
	best, found := math.Inf(-1), false
	var rec func(j int)
	rec = func(j int) {
		if j == n {
			lo := 0
			if !p.NewRequired {
				lo = -1
			}
			for c := lo; c < len(p.New.Value); c++ {
				if c >= 0 && !p.NewRequired && p.New.Value[c] <= InfeasibleValue {
					continue
				}
				cols[n] = c
				load := make([]float64, len(p.Capacity))
				val, changes := 0.0, 0
				for i := 0; i < n; i++ {
					r := &p.Rows[i]
					load[r.Resource[cols[i]]] += r.Use[cols[i]]
					val += r.Value[cols[i]]
					if cols[i] != r.Prev {
						changes++
					}
				}
				assigned := 0
				if c >= 0 {
					load[p.New.Resource[c]] += p.New.Use[c]
					val += p.New.Value[c]
					assigned = 1
				}
				ok := true
				for k := range load {
					if load[k] > p.Capacity[k] {
						ok = false
					}
				}
				if p.HasPrev && changes+(1-assigned) > p.MaxChanges {
					ok = false
				}
				if ok && (!found || val > best) {
					best, found = val, true
				}
			}
			return
		}
		for c := range p.Rows[j].Value {
			if p.Rows[j].Value[c] <= InfeasibleValue {
				continue
			}
			cols[j] = c
			rec(j + 1)
		}
	}
	rec(0)
	return best, found
}

// fullProgram writes the artifact's formulation as a generic Problem.
func fullProgram(p *Reassignment) *Problem {
	n, ncol := len(p.Rows), len(p.New.Value)
	idx := func(j, c int) int { return j*ncol + c }
	prob := &Problem{Obj: make([]float64, (n+1)*ncol)}
	capRows := make([]Row, len(p.Capacity))
	for k := range capRows {
		capRows[k] = Row{Sense: LE, RHS: p.Capacity[k]}
	}
	changes := Row{Sense: GE, RHS: float64(n + 1 - p.MaxChanges)}
	for j := 0; j <= n; j++ {
		r := &p.New
		if j < n {
			r = &p.Rows[j]
		}
		one := Row{Sense: EQ, RHS: 1}
		if j == n && !p.NewRequired {
			one.Sense = LE
		}
		for c := 0; c < ncol; c++ {
			v := idx(j, c)
			prob.Obj[v] = r.Value[c]
			one.Vars, one.Coefs = append(one.Vars, v), append(one.Coefs, 1)
			capRows[r.Resource[c]].Vars = append(capRows[r.Resource[c]].Vars, v)
			capRows[r.Resource[c]].Coefs = append(capRows[r.Resource[c]].Coefs, r.Use[c])
			if j == n || c == r.Prev {
				changes.Vars, changes.Coefs = append(changes.Vars, v), append(changes.Coefs, 1)
			}
			if r.Value[c] <= InfeasibleValue && (j < n || !p.NewRequired) {
				// Mirror SolveReassignment's rule: never entered.
				prob.Rows = append(prob.Rows, Row{Vars: []int{v}, Coefs: []float64{1}, Sense: EQ, RHS: 0})
			}
		}
		prob.Rows = append(prob.Rows, one)
	}
	prob.Rows = append(prob.Rows, capRows...)
	if p.HasPrev {
		prob.Rows = append(prob.Rows, changes)
	}
	return prob
}

func TestReassignmentMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 3000; k++ {
		p := randomReassignment(r)
		want, feasible := bruteForce(p)
		got, ok, err := SolveReassignment(p, Options{})
		if err != nil {
			t.Fatalf("instance %d: %v", k, err)
		}
		if ok != feasible {
			t.Fatalf("instance %d: solved=%v, brute force feasible=%v (%+v)", k, ok, feasible, got)
		}
		if !ok {
			continue
		}
		// The tolerance is relative to the −1e9 entries a forced new row
		// may carry.
		if math.Abs(got.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("instance %d: objective %v, brute force %v\n%+v\n%+v", k, got.Objective, want, p, got)
		}
		if p.HasPrev && got.Changes > p.MaxChanges {
			t.Fatalf("instance %d: %d changes", k, got.Changes)
		}
		// The branch and bound on the reduced program agrees.
		if k%3 == 0 {
			q := *p
			q.BranchAndBound = true
			bb, ok, err := SolveReassignment(&q, Options{})
			if err != nil || !ok || math.Abs(bb.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("instance %d: branch and bound %v %v %v, brute force %v", k, ok, err, bb.Objective, want)
			}
		}
		// The generic solver on the artifact's own formulation agrees.
		if k%5 == 0 {
			full := fullProgram(p)
			res, err := Solve(full, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Optimal || math.Abs(res.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("instance %d: full program %v %v, brute force %v", k, res.Status, res.Objective, want)
			}
		}
	}
}

// Among equally good solutions, previous columns are kept.
func TestReassignmentKeepsPrevious(t *testing.T) {
	cols := AssignRow{Resource: []int{0, 1}, Use: []float64{1, 1}}
	row := func(prev int) AssignRow {
		r := cols
		r.Value, r.Prev = []float64{5, 5}, prev
		return r
	}
	p := &Reassignment{
		Capacity: []float64{2, 2}, Rows: []AssignRow{row(0), row(1), row(0)},
		New:         AssignRow{Value: []float64{3, 3}, Resource: cols.Resource, Use: cols.Use},
		NewRequired: true, MaxChanges: 3, HasPrev: true,
	}
	got, ok, err := SolveReassignment(p, Options{})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got.Changes != 0 || got.Columns[0] != 0 || got.Columns[1] != 1 || got.Columns[2] != 0 || got.NewColumn != 1 {
		t.Errorf("got %+v, want no changes and the new job on column 1", got)
	}
}

func BenchmarkReassignment200x20(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 8))
	const rows, types = 200, 4
	counts := []float64{1, 2, 4, 8, 16}
	var res, colRes []int
	var use []float64
	for t := 0; t < types; t++ {
		for _, n := range counts {
			colRes = append(colRes, t)
			use = append(use, n)
		}
	}
	_ = res
	p := &Reassignment{Capacity: []float64{320, 320, 320, 320}, MaxChanges: 3, HasPrev: true}
	load := make([]float64, types)
	for j := 0; j < rows; j++ {
		row := AssignRow{Value: make([]float64, len(colRes)), Resource: colRes, Use: use}
		speed := 0.5 + r.Float64()
		for c := range row.Value {
			row.Value[c] = math.Sqrt(use[c] * speed * (1 + float64(colRes[c])/4))
		}
		for {
			row.Prev = r.IntN(len(colRes))
			if load[colRes[row.Prev]]+use[row.Prev] <= 320 {
				break
			}
		}
		load[colRes[row.Prev]] += use[row.Prev]
		p.Rows = append(p.Rows, row)
	}
	p.New = AssignRow{Value: make([]float64, len(colRes)), Resource: colRes, Use: use}
	for c := range p.New.Value {
		p.New.Value[c] = 1000 + math.Sqrt(use[c]*0.01)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := SolveReassignment(p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A search stopped by its limit returns its incumbent with a bound at
// least the optimum.
func TestReassignmentLimitKeepsIncumbent(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for k := 0; k < 300; k++ {
		p := randomReassignment(r)
		want, feasible := bruteForce(p)
		got, ok, err := SolveReassignment(p, Options{NodeLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		if !feasible || got.Objective > want+1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("instance %d: limited search returns %v, optimum %v (feasible %v)", k, got.Objective, want, feasible)
		}
		if got.Result.Status == Feasible && got.Result.Bound < want-1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("instance %d: bound %v below the optimum %v", k, got.Result.Bound, want)
		}
	}
}

// TestReassignmentGapSampling: with a relative gap, the answer is a
// feasible assignment (capacities, change limit) within the gap of the
// brute-force optimum, the same for the same seed; over seeds it varies
// when several assignments are within the gap. Gap 0 keeps the optimum.
func TestReassignmentGapSampling(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	varied := 0
	for k := 0; k < 600; k++ {
		p := randomReassignment(r)
		want, feasible := bruteForce(p)
		if !feasible {
			continue
		}
		gap := 0.2
		tol := gap * math.Max(1, math.Abs(want))
		objs := map[float64]bool{}
		for seed := range uint64(8) {
			a, ok, err := SolveReassignment(p, Options{Gap: gap, Rand: rand.New(rand.NewPCG(seed, 1))})
			if err != nil || !ok {
				t.Fatalf("instance %d seed %d: %v %v", k, seed, ok, err)
			}
			if a.Objective < want-tol-1e-6*math.Max(1, math.Abs(want)) || a.Objective > want+1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("instance %d seed %d: objective %v outside [%v, %v]", k, seed, a.Objective, want-tol, want)
			}
			if p.HasPrev && a.Changes > p.MaxChanges {
				t.Fatalf("instance %d: %d changes", k, a.Changes)
			}
			if !fits(p, a) {
				t.Fatalf("instance %d seed %d: assignment over capacity: %+v", k, seed, a)
			}
			again, _, _ := SolveReassignment(p, Options{Gap: gap, Rand: rand.New(rand.NewPCG(seed, 1))})
			if again.Objective != a.Objective || !slices.Equal(again.Columns, a.Columns) || again.NewColumn != a.NewColumn {
				t.Fatalf("instance %d seed %d: not reproducible", k, seed)
			}
			objs[a.Objective] = true
		}
		if len(objs) > 1 {
			varied++
		}
	}
	if varied == 0 {
		t.Error("no instance gave different assignments over seeds")
	}
	t.Logf("%d instances varied over seeds", varied)
}

// fits checks an assignment's capacity use.
func fits(p *Reassignment, a Assignment) bool {
	use := make([]float64, len(p.Capacity))
	for j, c := range a.Columns {
		use[p.Rows[j].Resource[c]] += p.Rows[j].Use[c]
	}
	if a.NewColumn >= 0 {
		use[p.New.Resource[a.NewColumn]] += p.New.Use[a.NewColumn]
	}
	for k := range use {
		if use[k] > p.Capacity[k]+1e-7 {
			return false
		}
	}
	return true
}

// TestReassignmentSolverReuse: one ReassignmentSolver kept across a
// sequence of programs — the same rows with other new rows, options and
// limits, rows overwritten in place, rows added — answers exactly as a
// fresh SolveReassignment on each.
func TestReassignmentSolverReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var s ReassignmentSolver
	same := func(a, b Assignment) bool {
		a.Result.Elapsed, b.Result.Elapsed = 0, 0
		return a.Objective == b.Objective && a.NewColumn == b.NewColumn && a.Changes == b.Changes &&
			slices.Equal(a.Columns, b.Columns) && a.ReducedVars == b.ReducedVars &&
			a.Result.Status == b.Result.Status && a.Result.Nodes == b.Result.Nodes &&
			a.Result.Objective == b.Result.Objective && a.Result.Bound == b.Result.Bound &&
			slices.Equal(a.Result.X, b.Result.X)
	}
	for k := 0; k < 400; k++ {
		p := randomReassignment(r)
		for step := 0; step < 8; step++ {
			switch r.IntN(5) {
			case 0: // a new row of the same shape
				for c := range p.New.Value {
					p.New.Value[c] = float64(r.IntN(12))
				}
			case 1: // an existing row's values overwritten in place
				if len(p.Rows) > 0 {
					row := p.Rows[r.IntN(len(p.Rows))]
					row.Value[r.IntN(len(row.Value))] = float64(r.IntN(12))
				}
			case 2: // a previous column changed (it may no longer fit)
				if len(p.Rows) > 0 {
					j := r.IntN(len(p.Rows))
					p.Rows[j].Prev = r.IntN(len(p.Rows[j].Value))
				}
			case 3: // the capacity
				p.Capacity[r.IntN(len(p.Capacity))] += float64(r.IntN(3) - 1)
			}
			opt := Options{NodeLimit: []int{0, 2, 5}[r.IntN(3)]}
			var gapSeed uint64
			if r.IntN(4) == 0 {
				opt.Gap, gapSeed = 0.2, r.Uint64()
				opt.Rand = rand.New(rand.NewPCG(gapSeed, 1))
			}
			got, ok, err := s.Solve(p, opt)
			if opt.Rand != nil {
				opt.Rand = rand.New(rand.NewPCG(gapSeed, 1))
			}
			want, wok, werr := SolveReassignment(p, opt)
			if (err == nil) != (werr == nil) || ok != wok || !same(got, want) {
				t.Fatalf("instance %d step %d: reused solver %+v %v %v, fresh %+v %v %v", k, step, got, ok, err, want, wok, werr)
			}
		}
	}
}

// TestLastChangeLoopIsTheGeneralOne: enumerate's loop for the last change
// (dfsLast) is the general loop made cheaper, so it must visit the same
// change sets in the same order: the same answer, tie-break, node count
// (hence the same budget stops) and gap draw. The oracle is the general
// loop (lastChangeLoop off), on random programs from a few rows (those of
// randomReassignment) to a few dozen with up to three changes, tight
// capacities, small node budgets and gap sampling.
func TestLastChangeLoopIsTheGeneralOne(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for k := range 3000 {
		p := randomReassignment(r)
		if k%2 == 1 {
			p = largerReassignment(r)
		}
		opt := Options{NodeLimit: []int{0, 3, 20, 200}[r.IntN(4)]}
		var seed uint64
		if r.IntN(4) == 0 {
			opt.Gap, seed = 0.2, r.Uint64()
		}
		solve := func(last bool) (Assignment, bool, error) {
			defer func(prev bool) { lastChangeLoop = prev }(lastChangeLoop)
			lastChangeLoop = last
			o := opt
			if o.Gap > 0 {
				o.Rand = rand.New(rand.NewPCG(seed, 1))
			}
			return SolveReassignment(p, o)
		}
		want, wok, werr := solve(false)
		got, ok, err := solve(true)
		got.Result.Elapsed, want.Result.Elapsed = 0, 0
		if (err == nil) != (werr == nil) || ok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("program %d (%d rows, limit %d, gap %v): last-change loop %+v %v %v, general loop %+v %v %v",
				k, len(p.Rows), opt.NodeLimit, opt.Gap, got, ok, err, want, wok, werr)
		}
	}
}

// largerReassignment is randomReassignment with 10–40 rows, 4 resources,
// Sia's counts (1–16 GPUs) and at most 3 changes, the capacities a little
// above the previous load.
func largerReassignment(r *rand.Rand) *Reassignment {
	const nres = 4
	counts := []float64{1, 2, 4, 8, 16}
	var colRes []int
	var colUse []float64
	for k := range nres {
		for _, n := range counts {
			colRes, colUse = append(colRes, k), append(colUse, n)
		}
	}
	p := &Reassignment{Capacity: make([]float64, nres), NewRequired: r.IntN(2) == 0, MaxChanges: 3, HasPrev: true}
	fillRandomRows(r, p, colRes, colUse, 10+r.IntN(31), 30, 4, 12)
	return p
}
