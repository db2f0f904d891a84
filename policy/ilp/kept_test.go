package ilp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeptRowsAnswerAsFresh: a solver told each edit of its kept rows
// (Keep, Appended, PrevChanged, Removed, RemovedRows, Reset), an anchor of exactness against another path, answers every program
// exactly as a fresh SolveReassignment of the same rows does (the oracle:
// the comparing and rebuilding path, itself checked against brute force
// by TestReassignmentMatchesBruteForce). Programs of up to 60 rows with
// many ties (small integer values) and few capacity classes make the
// classes' MaxChanges best moves change as rows come, move and go; a
// non-integer use switches the solver to its comparing path until the next
// Reset, which must answer the same.
func TestKeptRowsAnswerAsFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	same := func(a, b Assignment) bool {
		if !slices.Equal(a.Changed, b.Changed) {
			return false
		}
		return a.Objective == b.Objective && a.NewColumn == b.NewColumn && a.Changes == b.Changes &&
			slices.Equal(a.Columns, b.Columns) && a.ReducedVars == b.ReducedVars &&
			a.Result.Status == b.Result.Status && a.Result.Nodes == b.Result.Nodes &&
			a.Result.Objective == b.Result.Objective && a.Result.Bound == b.Result.Bound &&
			slices.Equal(a.Result.X, b.Result.X)
	}
	stopped, failedBound := 0, 0
	for k := 0; k < 150; k++ {
		p := randomReassignment(r)
		p.HasPrev = true
		colRes, colUse := p.New.Resource, p.New.Use
		mk := func() AssignRow {
			row := AssignRow{Value: make([]float64, len(colRes)), Resource: colRes, Use: colUse, Prev: r.IntN(len(colRes))}
			for c := range row.Value {
				row.Value[c] = float64(r.IntN(6))
				if r.IntN(9) == 0 {
					row.Value[c] = -1e9
				}
			}
			return row
		}
		for i := range p.Rows {
			p.Rows[i] = mk()
		}
		var s ReassignmentSolver
		s.Keep()
		for step := 0; step < 60; step++ {
			switch r.IntN(7) {
			case 0, 1: // admitted
				p.Rows = append(p.Rows, mk())
				s.Appended(p)
				for c := range p.Capacity {
					p.Capacity[c] += float64(r.IntN(3))
				}
			case 2: // departed
				if len(p.Rows) > 0 {
					i := r.IntN(len(p.Rows))
					p.Rows = slices.Delete(p.Rows, i, i+1)
					s.Removed(i)
				}
				if len(p.Rows) > 3 && r.IntN(2) == 0 { // a decision's departures at once
					var idx []int
					for i := range p.Rows {
						if r.IntN(4) == 0 {
							idx = append(idx, i)
						}
					}
					for n, i := range idx {
						p.Rows = slices.Delete(p.Rows, i-n, i-n+1)
					}
					s.RemovedRows(idx)
				}
			case 3: // moved
				if len(p.Rows) > 0 {
					i := r.IntN(len(p.Rows))
					p.Rows[i].Prev = r.IntN(len(p.Rows[i].Value))
					s.PrevChanged(p, i)
				}
			case 4: // every value changed (Sia's next round)
				for i := range p.Rows {
					for c := range p.Rows[i].Value {
						p.Rows[i].Value[c] = float64(r.IntN(6))
					}
				}
				if r.IntN(10) == 0 && len(p.Rows) > 0 { // not kept: compared until the next Reset
					u := slices.Clone(p.Rows[0].Use)
					u[0] += 0.5
					p.Rows[0].Use = u
				}
				s.Reset()
			case 5:
				p.Capacity[r.IntN(len(p.Capacity))] += float64(r.IntN(3) - 1)
			}
			for c := range p.New.Value {
				p.New.Value[c] = float64(r.IntN(8))
			}
			// Half the programs with a node limit: a stopped search bounds
			// its gap by an LP (of which five cycled in gonum's Simplex;
			// see TestSimplexCyclingLPStops) and must answer as fresh too.
			opt := Options{}
			if r.IntN(2) == 0 {
				opt.NodeLimit = 1 + r.IntN(20)
			}
			// No previous matrix (no change limit): a small program too.
			p.HasPrev = len(p.Rows) > 6 || r.IntN(3) != 0
			// Kept rows answer with Changed only: the columns are the
			// rows' previous ones with those changes.
			columns := func(a Assignment) Assignment {
				if a.Columns == nil && a.Result.X != nil {
					for _, r := range p.Rows {
						a.Columns = append(a.Columns, r.Prev)
					}
					for _, c := range a.Changed {
						a.Columns[c.Row] = c.Column
					}
				}
				return a
			}
			got, ok, err := s.Solve(p, opt)
			got = columns(got)
			want, wok, werr := SolveReassignment(p, opt)
			if want.Result.Status == Feasible {
				stopped++
				if math.IsInf(want.Result.Bound, 1) {
					failedBound++
				}
			}
			if (err == nil) != (werr == nil) || ok != wok || !same(got, want) {
				t.Fatalf("instance %d step %d (%d rows): kept %+v %v %v, fresh %+v %v %v", k, step, len(p.Rows), got, ok, err, want, wok, werr)
			}
			if r.IntN(3) == 0 { // the same program again: the kept answer
				got, ok, err = s.Solve(p, opt)
				got = columns(got)
				if (err == nil) != (werr == nil) || ok != wok || !same(got, want) {
					t.Fatalf("instance %d step %d, repeated: kept %+v %v %v, fresh %+v %v %v", k, step, got, ok, err, want, wok, werr)
				}
			}
		}
	}
	t.Logf("%d programs stopped by the node limit, %d of them with the LP bound failed (Bound +Inf)", stopped, failedBound)
	if stopped < 100 {
		t.Fatalf("only %d programs stopped by the node limit: the gap path is barely exercised", stopped)
	}
}
