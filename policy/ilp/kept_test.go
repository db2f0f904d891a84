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
	stopped, failedBound, undone := 0, 0, 0
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
			switch r.IntN(8) {
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
			case 6: // an admission reverted (its placement failed): undoAppend
				if r.IntN(2) == 0 && len(p.Rows) > 0 { // after a move: not undone
					i := r.IntN(len(p.Rows))
					p.Rows[i].Prev = r.IntN(len(p.Rows[i].Value))
					s.PrevChanged(p, i)
				}
				p.Rows = append(p.Rows, mk())
				s.Appended(p)
				p.Rows = p.Rows[:len(p.Rows)-1]
				s.Removed(len(p.Rows))
				if !s.kept.dirty {
					undone++
				}
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
	t.Logf("%d programs stopped by the node limit, %d of them with the LP bound failed (Bound +Inf); %d reverted admissions undone", stopped, failedBound, undone)
	if undone < 100 {
		t.Fatalf("only %d reverted admissions undone: undoAppend is barely exercised", undone)
	}
	if stopped < 100 {
		t.Fatalf("only %d programs stopped by the node limit: the gap path is barely exercised", stopped)
	}
}

// TestKeptUndoneAdmission: the mechanism of undoAppend, on a constructed
// case. A row appended and removed again with no other edit since the
// last program leaves the solver's moves, tables, first-pass bound and
// answers as they were (the path Gavel's and Sia's reverted admissions
// take: 98 % of Sia's fits on the most overloaded cluster of the GPUs
// axis); with a move before it (the artifact's stale rows), or another
// row removed, or a Solve in between, the rows differ from the last
// program's and everything is rebuilt. Either way the answer is that of
// a fresh SolveReassignment (the oracle, as in TestKeptRowsAnswerAsFresh).
func TestKeptUndoneAdmission(t *testing.T) {
	res, use := []int{0, 0, 1}, []float64{1, 2, 1}
	row := func(prev int, v ...float64) AssignRow {
		return AssignRow{Value: v, Resource: res, Use: use, Prev: prev}
	}
	base := func() *Reassignment {
		return &Reassignment{
			Capacity: []float64{5, 3}, MaxChanges: 2, HasPrev: true,
			Rows: []AssignRow{row(0, 1, 3, 2), row(2, 4, 1, 1), row(1, 2, 5, 0), row(0, 1, 1, 3)},
			New:  row(0, 2, 6, 3),
		}
	}
	check := func(name string, s *ReassignmentSolver, p *Reassignment) {
		t.Helper()
		got, ok, err := s.Solve(p, Options{})
		want, wok, werr := SolveReassignment(p, Options{})
		if err != nil || werr != nil || ok != wok || !slices.Equal(got.Changed, want.Changed) ||
			got.NewColumn != want.NewColumn || got.Objective != want.Objective || !slices.Equal(got.Result.X, want.Result.X) {
			t.Fatalf("%s: kept %+v %v %v, fresh %+v %v %v", name, got, ok, err, want, wok, werr)
		}
	}
	// undone reports whether the edits left the solver as after its
	// last program: what the next Solve reuses.
	undone := func(s *ReassignmentSolver) bool {
		return !s.kept.dirty && !s.kept.movesDirty && s.tables.built && len(s.answers) > 0
	}
	admitRevert := func(s *ReassignmentSolver, p *Reassignment, v ...float64) {
		p.Rows = append(p.Rows, row(1, v...))
		s.Appended(p)
		p.Rows = p.Rows[:len(p.Rows)-1]
		s.Removed(len(p.Rows))
	}

	// Undone: a reverted admission whose row enters two classes' best
	// moves (gains 4 and 6 beat every kept row's).
	var s ReassignmentSolver
	s.Keep()
	p := base()
	check("first", &s, p)
	admitRevert(&s, p, 0, -3, 6)
	if !undone(&s) {
		t.Fatalf("a reverted admission alone was not undone: dirty %v movesDirty %v tables %v answers %d",
			s.kept.dirty, s.kept.movesDirty, s.tables.built, len(s.answers))
	}
	check("after the undone admission", &s, p)
	if len(s.answers) != 1 {
		t.Fatalf("the same program again was solved anew (%d answers kept), not answered", len(s.answers))
	}

	// Not undone: a move before the admission (the stale rows).
	p.Rows[1].Prev = 0
	s.PrevChanged(p, 1)
	admitRevert(&s, p, 0, -3, 6)
	if undone(&s) || !s.kept.dirty {
		t.Fatal("an admission reverted after a move was undone")
	}
	check("after a move and a reverted admission", &s, p)

	// Not undone: the admission, then another row's departure.
	p.Rows = append(p.Rows, row(1, 0, -3, 6))
	s.Appended(p)
	p.Rows = slices.Delete(p.Rows, 0, 1)
	s.Removed(0)
	if undone(&s) {
		t.Fatal("an admission followed by another row's departure was undone")
	}
	check("after an admission and a departure", &s, p)

	// Not undone: a Solve between the admission and its removal (the
	// rows of the last program hold the appended row).
	p.Rows = append(p.Rows, row(1, 0, -3, 6))
	s.Appended(p)
	check("with the admitted row", &s, p)
	p.Rows = p.Rows[:len(p.Rows)-1]
	s.Removed(len(p.Rows))
	if undone(&s) {
		t.Fatal("a removal after a Solve was undone")
	}
	check("after the removal", &s, p)

	// The undone path and a solver that rebuilt everything (Reset) answer
	// the same program alike.
	var fresh ReassignmentSolver
	fresh.Keep()
	admitRevert(&s, p, 3, 3, 3)
	a, _, _ := s.Solve(p, Options{})
	b, _, _ := fresh.Solve(p, Options{})
	if !slices.Equal(a.Changed, b.Changed) || a.Objective != b.Objective || a.NewColumn != b.NewColumn {
		t.Fatalf("undone %+v, rebuilt %+v", a, b)
	}
}

// TestReducedObjective: Options.ReducedObjective changes nothing but the
// Result's Objective and Bound of a search that was not stopped, which
// then leave out the existing rows' previous values (their sum, hand
// computed here); a stopped search (Feasible) and its Gap are reported
// in full. Random programs, half with a small node limit, solved fresh
// and by a kept solver (Gavel's path). An anchor against the full form.
func TestReducedObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	stopped := 0
	for k := 0; k < 2000; k++ {
		p := randomReassignment(r)
		opt := Options{}
		if r.IntN(2) == 0 {
			opt.NodeLimit = 1 + r.IntN(10)
		}
		red := opt
		red.ReducedObjective = true
		var kept ReassignmentSolver
		kept.Keep()
		full, ok, err := SolveReassignment(p, opt)
		for _, s := range []func() (Assignment, bool, error){
			func() (Assignment, bool, error) { return SolveReassignment(p, red) },
			func() (Assignment, bool, error) { return kept.Solve(p, red) },
		} {
			got, gok, gerr := s()
			if (err == nil) != (gerr == nil) || ok != gok || !slices.Equal(got.Changed, full.Changed) ||
				got.NewColumn != full.NewColumn || got.Objective != full.Objective || got.Changes != full.Changes ||
				got.Result.Status != full.Result.Status || got.Result.Nodes != full.Result.Nodes ||
				!slices.Equal(got.Result.X, full.Result.X) || math.Float64bits(got.Result.Gap) != math.Float64bits(full.Result.Gap) {
				t.Fatalf("program %d: reduced %+v %v %v, full %+v %v %v", k, got, gok, gerr, full, ok, err)
			}
			if !ok {
				continue
			}
			if full.Result.Status == Feasible {
				if got.Result.Objective != full.Result.Objective || got.Result.Bound != full.Result.Bound {
					t.Fatalf("program %d, stopped: reduced objective %v bound %v, full %v %v", k, got.Result.Objective, got.Result.Bound, full.Result.Objective, full.Result.Bound)
				}
				continue
			}
			sum := 0.0
			for _, row := range p.Rows {
				sum += row.Value[row.Prev]
			}
			if d := full.Result.Objective - got.Result.Objective - sum; math.Abs(d) > 1e-9*math.Max(1, math.Abs(full.Result.Objective)) {
				t.Fatalf("program %d: full objective %v − reduced %v is not the rows' sum %v", k, full.Result.Objective, got.Result.Objective, sum)
			}
		}
		if full.Result.Status == Feasible {
			stopped++
		}
	}
	if stopped < 50 {
		t.Fatalf("only %d stopped searches: the full path is barely exercised", stopped)
	}
}

// TestKeptRowCheckMemo: rows sharing the Resource and Use slices last
// found good have only their values checked (keptRowOK's memo), but a
// NaN value among them, or a row with other slices holding a
// non-integer use, still switches the solver to its comparing path, as
// without the memo; and a Reset forgets the slices (their contents may
// change with it). Hand-built cases.
func TestKeptRowCheckMemo(t *testing.T) {
	res, use := []int{0, 1}, []float64{1, 1}
	mk := func(prev int, v ...float64) AssignRow {
		return AssignRow{Value: v, Resource: res, Use: use, Prev: prev}
	}
	p := &Reassignment{Capacity: []float64{3, 3}, MaxChanges: 2, HasPrev: true,
		Rows: []AssignRow{mk(0, 1, 2), mk(1, 3, 1)}, New: mk(0, 1, 1)}
	var s ReassignmentSolver
	s.Keep()
	solve := func(name string, wantKept bool) {
		t.Helper()
		if _, _, err := s.Solve(p, Options{}); err != nil {
			t.Fatal(err)
		}
		if s.keptUse != wantKept {
			t.Fatalf("%s: kept path %v, want %v", name, s.keptUse, wantKept)
		}
	}
	solve("good rows", true)
	p.Rows = append(p.Rows, mk(0, 2, 2)) // the memo's slices, good values
	s.Appended(p)
	solve("a good row with the same slices", true)
	p.Rows = append(p.Rows, mk(0, math.NaN(), 2)) // the memo's slices, a NaN value
	s.Appended(p)
	solve("a NaN value with the checked slices", false)
	p.Rows = p.Rows[:3]
	s.Reset()
	solve("after a Reset", true)
	use[1] = 0.5 // in place, then a Reset: the slices are checked again
	s.Reset()
	solve("a non-integer use in the checked slice after a Reset", false)
	use[1] = 1
	s.Reset()
	solve("integer again", true)
	p.Rows = append(p.Rows, AssignRow{Value: []float64{1, 1}, Resource: res, Use: []float64{1, 0.5}})
	s.Appended(p)
	solve("another Use slice with a non-integer use", false)
}
