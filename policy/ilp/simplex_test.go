package ilp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// TestSimplexCyclingLPStops (anchor: two LPs on which gonum v0.17.0's
// lp.Simplex does not return — checked by calling it under `go test
// -timeout 20s`, which panics with "test timed out") must stop, the cycle
// found, with an error that solveLP reads as a numerical failure
// (not infeasible, not unbounded), so that the node is branched and the
// search stays exact. Both are LPs of TestKeptRowsAnswerAsFresh's
// node-limited gap bound. In the first, columns 0 and 3 are identical with
// cost −3 while column 7 (cost −1.000000004e9) is basic: the reduced cost
// of the non-basic twin comes out below −1e-9 by rounding error, gonum
// swaps the twins, nothing changes, and it swaps them back forever.
// Without the cycle check and the budget this test hangs until the test
// timeout.
func TestSimplexCyclingLPStops(t *testing.T) {
	for _, tc := range []struct {
		m, n int
		c, b []float64
		a    []float64
	}{
		{
			m: 6, n: 22,
			c: []float64{-3, -2, 3, -3, -2, -3, 1, -1.000000004e+09, 2, -1, 6, 2, -0, -1e+09, -2, -0, 5, 0, 0, 0, 0, 0},
			b: []float64{5, 3, 1, 2, 1, 1},
			a: []float64{-1, -1, 1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 4, 1, -4, 4, 1, 4, 1, -1, -1, -1, 0, 0, -3, 3, 3, 4, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, 1, 1, 1, -1, -1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		},
		{
			m: 3, n: 14,
			c: []float64{-4, -1.000000002e+09, -1.000000005e+09, -2, -3, -4, 2, 2, 1, -0, -2, -1.000000001e+09, 0, 0},
			b: []float64{7, 1, 1},
			a: []float64{3, 1, 3, -3, -2, -2, 1, 1, 2, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 0, 1},
		},
	} {
		A := mat.NewDense(tc.m, tc.n, tc.a)
		_, _, err := simplexSafe(tc.c, A, tc.b, nil)
		if err == nil || errors.Is(err, lp.ErrInfeasible) || errors.Is(err, lp.ErrUnbounded) {
			t.Fatalf("%dx%d LP: err %v, want a numerical failure (pivot budget)", tc.m, tc.n, err)
		}
		if !stoppedBy(err, errSimplexCycle) {
			t.Errorf("%dx%d LP: err %v, want a cycle found", tc.m, tc.n, err)
		}
	}
}

// stoppedBy reports whether err is stop, or stop wrapped by phase I.
func stoppedBy(err, stop error) bool {
	return errors.Is(err, stop) || (err != nil && err.Error() == "lp: error finding feasible basis: "+stop.Error())
}

// TestSimplexPivotBudget (hand-worked): max x1 + x2 subject to x1 ≤ 1,
// x2 ≤ 1 from the slack basis needs two pivots (x1 enters, then x2); with a
// budget of one pivot the call stops with errPivotLimit, with two it
// returns −2 at (1, 1).
func TestSimplexPivotBudget(t *testing.T) {
	defer func(f func(m, n int) int) { maxPivots = f }(maxPivots)
	c := []float64{-1, -1, 0, 0}
	A := mat.NewDense(2, 4, []float64{1, 0, 1, 0, 0, 1, 0, 1})
	b := []float64{1, 1}
	maxPivots = func(m, n int) int { return 1 }
	if _, _, err := simplexSafe(c, A, b, []int{2, 3}); !errors.Is(err, errPivotLimit) {
		t.Fatalf("budget 1: err %v, want errPivotLimit", err)
	}
	maxPivots = func(m, n int) int { return 3 } // two pivots and the optimality test
	opt, x, err := simplexSafe(c, A, b, []int{2, 3})
	if err != nil || opt != -2 || x[0] != 1 || x[1] != 1 {
		t.Fatalf("budget 3: %v %v %v, want -2 at (1, 1)", opt, x, err)
	}
}

// TestSimplexCountedIsGonums (anchor: gonum's own lp.Simplex) checks that
// the copy returns exactly gonum's bits — value, point and error — on
// random standard-form LPs of the kind the nodes build (small integer
// rows, slack columns, some −1e9 costs), so a program whose LPs gonum
// solves gets the same results as before the copy. An LP on which the
// copy spends its budget is skipped: gonum would not return on it.
func TestSimplexCountedIsGonums(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	compared, stopped := 0, 0
	for k := 0; k < 8000; k++ {
		m := 1 + r.IntN(6)
		nv := 1 + r.IntN(10)
		n := nv + m
		A := mat.NewDense(m, n, nil)
		b := make([]float64, m)
		c := make([]float64, n)
		for j := 0; j < nv; j++ {
			c[j] = float64(r.IntN(9) - 6)
			if r.IntN(8) == 0 {
				c[j] = -1e9 - float64(r.IntN(6))
			}
		}
		for i := 0; i < m; i++ {
			for j := 0; j < nv; j++ {
				if r.IntN(3) != 0 {
					A.Set(i, j, float64(r.IntN(9)-3))
				}
			}
			A.Set(i, nv+i, 1)
			if r.IntN(4) == 0 {
				A.Set(i, nv+i, -1)
			}
			b[i] = float64(r.IntN(8) - 1)
		}
		var init []int
		if r.IntN(2) == 0 {
			init = make([]int, m)
			for i := range init {
				init[i] = nv + i
				if A.At(i, nv+i) < 0 || b[i] < 0 {
					init = nil
					break
				}
			}
		}
		o1, x1, err1 := simplexSafe(c, A, b, init)
		if stoppedBy(err1, errSimplexCycle) || stoppedBy(err1, errPivotLimit) {
			stopped++
			continue
		}
		o2, x2, err2 := gonumSimplex(c, A, b, init)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("LP %d: copy err %v, gonum err %v", k, err1, err2)
		}
		if math.Float64bits(o1) != math.Float64bits(o2) && !(math.IsNaN(o1) && math.IsNaN(o2)) {
			t.Fatalf("LP %d: copy value %v, gonum %v", k, o1, o2)
		}
		if len(x1) != len(x2) {
			t.Fatalf("LP %d: copy point %v, gonum %v", k, x1, x2)
		}
		for j := range x1 {
			if math.Float64bits(x1[j]) != math.Float64bits(x2[j]) {
				t.Fatalf("LP %d: copy point %v, gonum %v", k, x1, x2)
			}
		}
		if err1 == nil {
			compared++
		}
	}
	t.Logf("%d LPs solved and compared, %d stopped", compared, stopped)
	if compared < 1000 {
		t.Fatalf("only %d LPs solved; the comparison is too weak", compared)
	}
}

// gonumSimplex is simplexSafe with gonum's lp.Simplex (the panics of
// ill-posed input turned into errors the same way).
func gonumSimplex(c []float64, A *mat.Dense, b []float64, init []int) (opt float64, x []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("ilp: simplex panicked: %v", r)
		}
	}()
	return lp.Simplex(c, A, b, lpTol, init)
}
