package ilp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// enumerateAll returns the optimum of p by trying every integer point (small
// bounded problems only) and whether any point is feasible.
func enumerateAll(p *Problem) (float64, bool) {
	n := len(p.Obj)
	x := make([]float64, n)
	best, found := math.Inf(-1), false
	var rec func(j int)
	rec = func(j int) {
		if j == n {
			if p.Feasible(x) {
				if v := p.Value(x); !found || v > best {
					best, found = v, true
				}
			}
			return
		}
		for v := 0.0; v <= p.upper(j); v++ {
			x[j] = v
			rec(j + 1)
		}
		x[j] = 0
	}
	rec(0)
	return best, found
}

// randomProblem draws a small program: binary or {0,1,2} variables, a mix
// of ≤, ≥ and = rows (some lazy), integer or fractional coefficients.
func randomProblem(r *rand.Rand) *Problem {
	n := 1 + r.IntN(8)
	p := &Problem{Obj: make([]float64, n)}
	general := r.IntN(3) == 0
	if general {
		p.Upper = make([]float64, n)
		for j := range p.Upper {
			p.Upper[j] = float64(1 + r.IntN(2))
		}
	}
	for j := range p.Obj {
		p.Obj[j] = math.Round((r.Float64()*20-6)*100) / 100
	}
	rows := r.IntN(5)
	for i := 0; i < rows; i++ {
		var row Row
		for j := 0; j < n; j++ {
			if r.IntN(3) == 0 {
				continue
			}
			row.Vars = append(row.Vars, j)
			row.Coefs = append(row.Coefs, float64(r.IntN(9)-2))
		}
		switch k := r.IntN(6); {
		case k < 4:
			row.Sense = LE
			row.RHS = float64(r.IntN(8))
		case k == 4:
			row.Sense = GE
			row.RHS = float64(r.IntN(3))
		default:
			row.Sense = EQ
			row.RHS = float64(r.IntN(3))
		}
		row.Lazy = r.IntN(2) == 0
		p.Rows = append(p.Rows, row)
	}
	return p
}

func TestSolveMatchesEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const instances = 4000
	for k := 0; k < instances; k++ {
		p := randomProblem(r)
		want, feasible := enumerateAll(p)
		res, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("instance %d: %v", k, err)
		}
		if !feasible {
			if res.Status != Infeasible {
				t.Fatalf("instance %d: enumeration finds no solution, solver says %v (x=%v)\n%+v", k, res.Status, res.X, p)
			}
			continue
		}
		if res.Status != Optimal {
			t.Fatalf("instance %d: status %v, want optimal\n%+v", k, res.Status, p)
		}
		if !p.Feasible(res.X) {
			t.Fatalf("instance %d: returned x=%v is infeasible\n%+v", k, res.X, p)
		}
		if math.Abs(res.Objective-want) > 1e-6 {
			t.Fatalf("instance %d: objective %v, enumeration %v (x=%v)\n%+v", k, res.Objective, want, res.X, p)
		}
	}
}

// With a hint that is optimal, ties must resolve to the hint.
func TestHintWinsTies(t *testing.T) {
	// Two identical items, room for one: both x=(1,0) and (0,1) are optimal.
	p := &Problem{
		Obj:  []float64{5, 5},
		Rows: []Row{{Vars: []int{0, 1}, Coefs: []float64{1, 1}, Sense: LE, RHS: 1}},
	}
	for _, hint := range [][]float64{{1, 0}, {0, 1}} {
		res, err := Solve(p, Options{Hint: hint})
		if err != nil {
			t.Fatal(err)
		}
		if res.X[0] != hint[0] || res.X[1] != hint[1] {
			t.Errorf("hint %v: got %v", hint, res.X)
		}
	}
	// A strictly better solution replaces a feasible hint.
	p.Obj[1] = 6
	res, _ := Solve(p, Options{Hint: []float64{1, 0}})
	if res.X[1] != 1 || res.Objective != 6 {
		t.Errorf("better solution not found over hint: %v (%v)", res.X, res.Objective)
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for k := 0; k < 200; k++ {
		p := randomProblem(r)
		a, _ := Solve(p, Options{})
		b, _ := Solve(p, Options{})
		if a.Status != b.Status || a.Nodes != b.Nodes || len(a.X) != len(b.X) {
			t.Fatalf("instance %d: two runs differ: %+v vs %+v", k, a, b)
		}
		for j := range a.X {
			if a.X[j] != b.X[j] {
				t.Fatalf("instance %d: two runs return %v and %v", k, a.X, b.X)
			}
		}
	}
}

// knapsack builds a 0/1 knapsack whose LP bound is weak enough to need
// many nodes.
func knapsack(n int, seed uint64) *Problem {
	r := rand.New(rand.NewPCG(seed, 3))
	p := &Problem{Obj: make([]float64, n)}
	row := Row{Sense: LE}
	total := 0.0
	for j := 0; j < n; j++ {
		w := float64(10 + r.IntN(90))
		p.Obj[j] = w + float64(r.IntN(10))
		row.Vars = append(row.Vars, j)
		row.Coefs = append(row.Coefs, w)
		total += w
	}
	row.RHS = math.Floor(total / 2)
	p.Rows = []Row{row}
	return p
}

func TestNodeLimitReportsGap(t *testing.T) {
	p := knapsack(30, 5)
	full, _ := Solve(p, Options{})
	if full.Status != Optimal {
		t.Fatalf("full search: %v", full.Status)
	}
	lim, _ := Solve(p, Options{NodeLimit: 3})
	if lim.Status != Feasible && lim.Status != LimitNoSolution && lim.Status != Optimal {
		t.Fatalf("limited search: status %v", lim.Status)
	}
	if lim.Nodes > 3 {
		t.Errorf("explored %d nodes with a limit of 3", lim.Nodes)
	}
	if lim.Bound < full.Objective-1e-6 {
		t.Errorf("reported bound %v is below the optimum %v", lim.Bound, full.Objective)
	}
	if lim.Status == Feasible {
		if lim.Objective > full.Objective+1e-6 {
			t.Errorf("incumbent %v beats the optimum %v", lim.Objective, full.Objective)
		}
		if want := (lim.Bound - lim.Objective) / math.Max(1, math.Abs(lim.Objective)); math.Abs(lim.Gap-want) > 1e-12 || lim.Gap < 0 {
			t.Errorf("gap %v, want %v", lim.Gap, want)
		}
	}
}

// TestNodeBudgetIsDeterministic: a search stopped by its node budget returns
// the same incumbent every time (nothing depends on the wall clock).
func TestNodeBudgetIsDeterministic(t *testing.T) {
	p := knapsack(60, 9)
	first, _ := Solve(p, Options{NodeLimit: 5})
	if first.Status != Feasible && first.Status != LimitNoSolution {
		t.Fatalf("status %v after 5 nodes, want the budget to stop the search", first.Status)
	}
	for range 5 {
		again, _ := Solve(p, Options{NodeLimit: 5})
		if again.Objective != first.Objective || again.Nodes != first.Nodes || !slices.Equal(again.X, first.X) {
			t.Fatalf("budgeted search not reproducible: %v/%d vs %v/%d", again.Objective, again.Nodes, first.Objective, first.Nodes)
		}
	}
}

func TestMalformed(t *testing.T) {
	bad := []*Problem{
		{Obj: []float64{1}, Upper: []float64{1, 1}},
		{Obj: []float64{math.NaN()}},
		{Obj: []float64{1}, Rows: []Row{{Vars: []int{1}, Coefs: []float64{1}}}},
		{Obj: []float64{1}, Rows: []Row{{Vars: []int{0}, Coefs: []float64{1, 2}}}},
	}
	for i, p := range bad {
		if _, err := Solve(p, Options{}); err == nil {
			t.Errorf("problem %d: no error", i)
		}
	}
}

func TestUnboundedAndInfeasible(t *testing.T) {
	inf := math.Inf(1)
	res, _ := Solve(&Problem{Obj: []float64{1}, Upper: []float64{inf}}, Options{})
	if res.Status != Unbounded {
		t.Errorf("unbounded: got %v", res.Status)
	}
	res, _ = Solve(&Problem{Obj: []float64{1, 1}, Rows: []Row{
		{Vars: []int{0, 1}, Coefs: []float64{1, 1}, Sense: EQ, RHS: 1},
		{Vars: []int{0, 1}, Coefs: []float64{2, 2}, Sense: GE, RHS: 3},
	}}, Options{})
	if res.Status != Infeasible {
		t.Errorf("infeasible: got %v", res.Status)
	}
}

// BenchmarkKnapsack24: the generic branch and bound on a 24-item 0/1
// knapsack (weak LP bound, hundreds of nodes).
func BenchmarkKnapsack24(b *testing.B) {
	p := knapsack(24, 11)
	for i := 0; i < b.N; i++ {
		if _, err := Solve(p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
