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
// -timeout 20s`, which panics with "test timed out") must stop within the
// pivot budget with an error that solveLP reads as a numerical failure
// (not infeasible, not unbounded), so that the node is branched and the
// search stays exact. Both are LPs of TestKeptRowsAnswerAsFresh's
// node-limited gap bound. In the first, columns 0 and 3 are identical with
// cost −3 while column 7 (cost −1.000000004e9) is basic: the reduced cost
// of the non-basic twin comes out below −1e-9 by rounding error, gonum
// swaps the twins, nothing changes, and it swaps them back forever.
// Without the budget this test hangs until the test timeout.
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
		if !errors.Is(err, errPivotLimit) && err.Error() != "lp: error finding feasible basis: "+errPivotLimit.Error() {
			t.Errorf("%dx%d LP: err %v, want the pivot budget", tc.m, tc.n, err)
		}
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
	compared := 0
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
		if errors.Is(err1, errPivotLimit) || (err1 != nil && err1.Error() == "lp: error finding feasible basis: "+errPivotLimit.Error()) {
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
	t.Logf("%d LPs solved and compared", compared)
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
