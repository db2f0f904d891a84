package gavel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/ilp"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// MaxChanges is the artifact's MAX_MGRT_JOB_NUM: at most this many admitted
// jobs may change GPU type in one decision.
const MaxChanges = 3

// NodeLimit bounds each decision's branch and bound (CPLEX has no limit in
// the artifact; this one is never reached on the Philly run).
const NodeLimit = 200000

// Version selects which version of the authors' Gavel is reproduced. The
// two differ in one call: the feasibility check of the placement after an
// accepted decision (docs/ilp-baselines.md, "Which version"). Package sia
// uses the same type for its own two versions.
type Version int

const (
	// Head is the artifact's ae-eurosys head as ARENA.md §7 describes it:
	// placements are checked with the DP memory filter (the artifact
	// passes force_opt=self._sched_with_opt, false for baselines), so a job
	// that is DP-infeasible on every type never runs and, through the
	// restart pass's type blocking, keeps its type's pending queue blocked.
	Head Version = iota
	// StoredRun is the version behind the authors' stored Philly results:
	// placements are checked without the memory filter (force_opt, the
	// "deploy with optimal parallelism" rule of the artifact's
	// baselines/README.md and of the comment above the head's call), while
	// the program's throughputs keep it. A job infeasible under the filter
	// on every type is admitted with an all −1e9 row and runs wherever its
	// placement is feasible without it.
	StoredRun
)

func (v Version) String() string {
	switch v {
	case Head:
		return "head"
	case StoredRun:
		return "stored-run"
	}
	return fmt.Sprintf("Version(%d)", int(v))
}

// Gavel is the policy. Create it with New or NewVersion.
type Gavel struct {
	cluster *sim.Cluster
	version Version
	name    string
	// maxFits bounds the programs solved per decision (0: no bound;
	// WithMaxFits).
	maxFits int
	// decide is the DP view with the memory check (the program's
	// throughputs); anyFeasible is the force_opt view (no memory check) of
	// the arrival pre-filter; deployable is the placements' feasibility
	// check (decide at Head, anyFeasible in StoredRun).
	decide, anyFeasible, deployable estimator.Estimator
	// admit, when set (WithAdmission), replaces anyFeasible in the arrival
	// pre-filter.
	admit    estimator.Estimator
	types    []string
	capacity []float64

	// gap and rng: WithGap.
	gap float64
	rng *rand.Rand

	rows Rows
	// thr caches the ILP rows: DP throughput at best locality of a
	// requested GPU count, per type. A row depends on the job's workload
	// and GPU count only (the cluster and the estimator view are fixed for
	// the run), so jobs that ask alike share one: a trace names a few
	// hundred (workload, count) pairs, not a row per job (95 MB of 1M
	// jobs' rows). The solver only reads rows (Use rows are shared too).
	thr   map[rowKey][]float64
	stats Stats
	// solver is ilp.SolveReassignment with its state kept between
	// programs (the admitted rows rarely change between two programs);
	// it is told each edit of prob's rows (ilp.ReassignmentSolver.Keep).
	solver ilp.ReassignmentSolver
	// prob is the program: its Rows are the admitted rows (rows), kept
	// from one fit to the next and edited as rows is; the resource row and
	// the use rows by GPU count are shared by every row.
	prob     ilp.Reassignment
	resource []int
	use      map[int][]float64

	// queue mirrors the pending queue between decisions; blocked is the
	// restart pass's scratch (by Queued.Type).
	queue   PendingMirror
	blocked []bool
	// gone and goneIdx: removeRows's scratch.
	gone    []sim.JobID
	goneIdx []int
}

var (
	_ sim.Policy         = (*Gavel)(nil)
	_ sim.BudgetReporter = (*Gavel)(nil)
)

// Stats summarises the integer programs a run solved.
type Stats struct {
	// Solves counts integer programs; Rejected those without a solution
	// or with a zero objective; PlacementFailures accepted solutions
	// whose placement failed (the decision was reverted).
	Solves, Rejected, PlacementFailures int
	// Nodes is the total of branch-and-bound nodes, MaxNodes the largest
	// single search; ReducedVars the largest reduced program solved.
	Nodes, MaxNodes, ReducedVars int
	// LimitHits counts searches stopped by the node or time limit (the
	// incumbent was used); MaxGap is the largest relative gap they left.
	LimitHits int
	MaxGap    float64
	// SolverTime is the wall time spent in the solver (it is part of the
	// engine's recorded decision latency).
	SolverTime time.Duration
}

// Record adds one search's figures.
func (s *Stats) Record(a ilp.Assignment) {
	s.Solves++
	s.Nodes += a.Result.Nodes
	s.MaxNodes = max(s.MaxNodes, a.Result.Nodes)
	s.ReducedVars = max(s.ReducedVars, a.ReducedVars)
	if a.Result.Status == ilp.Feasible || a.Result.Status == ilp.LimitNoSolution {
		s.LimitHits++
		s.MaxGap = max(s.MaxGap, a.Result.Gap)
	}
	s.SolverTime += a.Result.Elapsed
}

func (s Stats) String() string {
	return fmt.Sprintf("%d programs (%d rejected, %d placement failures), %d nodes (max %d), largest %d vars, %d limit hits (max gap %.2g), solver %v",
		s.Solves, s.Rejected, s.PlacementFailures, s.Nodes, s.MaxNodes, s.ReducedVars, s.LimitHits, s.MaxGap, s.SolverTime.Round(time.Millisecond))
}

// New returns Gavel at the artifact's head (Head) on cluster c, deciding
// with src's data-parallel views.
func New(c *sim.Cluster, src estimator.Source) *Gavel {
	return NewVersion(c, src, Head)
}

// NewVersion returns Gavel as version v of the authors' code.
func NewVersion(c *sim.Cluster, src estimator.Source, v Version) *Gavel {
	g := &Gavel{
		cluster: c, types: c.Types, version: v,
		decide:      src.View(estimator.ViewDataParallel),
		anyFeasible: src.View(estimator.ViewDataParallelNoMemCheck),
		thr:         map[rowKey][]float64{},
		use:         map[int][]float64{},
	}
	g.solver.Keep()
	g.deployable = g.decide
	if v == StoredRun {
		g.deployable = g.anyFeasible
	}
	for _, t := range g.types {
		g.capacity = append(g.capacity, float64(c.TotalGPUs(t)))
	}
	return g
}

// Name implements sim.Policy: "gavel", or the name given by Named.
func (g *Gavel) Name() string {
	if g.name != "" {
		return g.name
	}
	return "gavel"
}

// Named sets the name g reports (a registry entry other than "gavel", so
// results of two versions in one run do not share a name); it returns g.
func (g *Gavel) Named(name string) *Gavel {
	g.name = name
	return g
}

// WithMaxFits bounds the work of a decision to n fits (one program solved
// and placed per fit; 0 = no bound, the published algorithm): once n fits
// were made, the restart pass stops and the remaining arrivals join the
// pending queue unfitted, to be fitted by a later restart pass (a round
// with departures). A decision's work is then O(n × admitted jobs)
// whatever the queue's length; the order in which jobs are fitted is
// unchanged, so a bound no decision reaches changes nothing.
func (g *Gavel) WithMaxFits(n int) *Gavel {
	g.maxFits = n
	return g
}

// WithGap makes every program's answer a seeded draw among the change sets
// within relative gap gap of the optimum (ilp.Options.Gap), as a solver
// stopping at that gap may return: CPLEX, behind the authors' stored run,
// stops at 1e-4, and the programs' −1e9 "infeasible" entries make that
// gap larger than the whole feasible objective. gap 0 keeps the exact
// optimum.
func (g *Gavel) WithGap(gap float64, seed uint64) *Gavel {
	g.gap = gap
	g.rng = rand.New(rand.NewPCG(seed, 0x9a7e1))
	return g
}

// WithAdmission makes the arrival pre-filter use admit instead of the
// memory-blind view: the artifact's runtime admits with the DP memory
// filter (estimator.DPMemoryAdmission), its simulator without. It returns
// g.
func (g *Gavel) WithAdmission(admit estimator.Estimator) *Gavel {
	g.admit = admit
	return g
}

// Version reports which version of the authors' code g reproduces.
func (g *Gavel) Version() Version { return g.version }

// Stats returns the solver figures so far.
func (g *Gavel) Stats() Stats { return g.stats }

// BudgetHits implements sim.BudgetReporter: searches stopped by the node
// budget.
func (g *Gavel) BudgetHits() int { return g.stats.LimitHits }

// IdleWhenQuiet implements sim.QuietRounds: a decision with no arrival and
// no ended job returns nothing and changes no state.
func (*Gavel) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (its plan copies the slot table it edits).
func (*Gavel) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy: departures leave the admitted table; in
// rounds with departures a restart pass walks the pending queue (a failure
// blocks the job's type for the pass); then each arrival is pre-filtered
// and fitted in trace order.
func (g *Gavel) Schedule(v *sim.View) ([]sim.Action, error) {
	g.removeRows(v.Ended, v.Interrupted) // faults: stopped, back in the queue
	if v.Quiet() {
		return nil, nil
	}
	plan := NewPlan(v)
	fits := 0 // programs solved this decision (maxFits)
	if plainRestart {
		g.queue.Invalidate()
	}
	g.queue.Sync(v)
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		// The pass walks the whole queue (tens of thousands of jobs on a
		// long trace) after every type is blocked, since a job may ask
		// for a type the cluster lacks and still fit on another; the
		// mirror numbers the types, so the per-job test reads a flag.
		g.blocked = append(g.blocked[:0], make([]bool, g.queue.Types())...)
		for i, q := range g.queue.Jobs {
			if g.blocked[q.Type] {
				continue
			}
			if g.maxFits > 0 && fits >= g.maxFits {
				break
			}
			fits++
			ok, err := g.fit(v, plan, v.Pending[i])
			if err != nil {
				return nil, err
			}
			if ok {
				g.queue.Started(i)
			} else {
				g.blocked[q.Type] = true
			}
		}
		g.queue.Compact()
	}
	admit := g.anyFeasible
	if g.admit != nil {
		admit = g.admit
	}
	for _, j := range v.Arrivals {
		if !RunnableSomewhere(g.cluster, admit, j) {
			// Never queued, never counted (ARENA.md §6).
			plan.Drop(j.Spec.ID, "infeasible on every GPU type at best locality")
			continue
		}
		if g.maxFits > 0 && fits >= g.maxFits {
			g.queue.Append(j) // fitted by a later restart pass
			continue
		}
		fits++
		ok, err := g.fit(v, plan, j)
		if err != nil {
			return nil, err
		}
		if !ok {
			g.queue.Append(j) // joins the queue's end
		}
	}
	return plan.Actions(), nil
}

// plainRestart makes every decision rebuild the queue mirror from the View
// (tests: the oracle the carried mirror is compared with).
var plainRestart = false

// RunnableSomewhere is the Gavel and Sia arrival pre-filter: the job is
// feasible under est (the artifact passes force_opt: no memory filter) on
// some GPU type of c at best locality for its requested count.
func RunnableSomewhere(c *sim.Cluster, est estimator.Estimator, j *sim.Job) bool {
	for _, t := range c.Types {
		cfg := placement.Best(c, t, j.Spec.GPUs)
		if cfg.PerNode > 0 && est.Estimate(j.Spec.Workload, cfg).Feasible() {
			return true
		}
	}
	return false
}

// rowKey is what an ILP row depends on: the workload and the GPU count.
type rowKey struct {
	w    estimator.Workload
	gpus int
}

// throughputs returns job j's ILP row (cached by rowKey; read-only).
func (g *Gavel) throughputs(j *sim.Job) []float64 {
	key := rowKey{j.Spec.Workload, j.Spec.GPUs}
	if row, ok := g.thr[key]; ok {
		return row
	}
	row := make([]float64, len(g.types))
	for k, t := range g.types {
		c := placement.Best(g.cluster, t, j.Spec.GPUs)
		if c.PerNode == 0 {
			row[k] = estimator.InfeasibleThroughput
			continue
		}
		row[k] = g.decide.Estimate(j.Spec.Workload, c).Throughput
	}
	g.thr[key] = row
	return row
}

// removeRows deletes the departed jobs' rows from rows and from the
// program in one pass (the program's rows hold pointers: moving them up
// once per departure was a quarter of Gavel's time at 1M jobs).
func (g *Gavel) removeRows(lists ...[]*sim.Job) {
	gone := g.gone[:0]
	for _, l := range lists {
		for _, j := range l {
			gone = append(gone, j.Spec.ID)
		}
	}
	g.gone = gone
	if len(gone) == 0 {
		return
	}
	slices.Sort(gone)
	idx := g.goneIdx[:0]
	w := 0
	for i, id := range g.rows.Jobs {
		if _, found := slices.BinarySearch(gone, id); found {
			idx = append(idx, i)
			continue
		}
		g.rows.Jobs[w], g.rows.Prev[w], g.prob.Rows[w] = id, g.rows.Prev[i], g.prob.Rows[i]
		w++
	}
	g.goneIdx = idx
	if len(idx) == 0 {
		return
	}
	clear(g.prob.Rows[w:])
	g.rows.Jobs, g.rows.Prev, g.prob.Rows = g.rows.Jobs[:w], g.rows.Prev[:w], g.prob.Rows[:w]
	g.solver.RemovedRows(idx)
}

// useOf is the use row of a job of n GPUs: n of every type.
func (g *Gavel) useOf(n int) []float64 {
	if u, ok := g.use[n]; ok {
		return u
	}
	u := make([]float64, len(g.types))
	for k := range u {
		u[k] = float64(n)
	}
	g.use[n] = u
	return u
}

// fit is the artifact's _gavel_fit_one_job: admit job into the program,
// solve, and re-place every job whose type changed plus the new one on a
// copy of the table; revert on failure (keeping the quirk that the other
// rows keep the program's new types).
func (g *Gavel) fit(v *sim.View, plan *Plan, job *sim.Job) (bool, error) {
	// The program reuses fit's scratch: the solver copies what it keeps.
	prob := &g.prob
	capacity := g.capacity
	if v.Nodes != nil { // faults: the GPUs usable now
		capacity = make([]float64, len(g.types))
		for k, t := range g.types {
			capacity[k] = float64(v.UsableGPUs(t))
		}
	}
	prob.Capacity, prob.NewRequired, prob.MaxChanges, prob.HasPrev = capacity, true, MaxChanges, g.rows.HasPrev
	if len(g.resource) != len(g.types) {
		g.resource = make([]int, len(g.types))
		for k := range g.resource {
			g.resource[k] = k
		}
	}
	row := func(j *sim.Job, prev int) ilp.AssignRow {
		return ilp.AssignRow{Value: g.throughputs(j), Resource: g.resource, Use: g.useOf(j.Spec.GPUs), Prev: prev}
	}
	prob.New = row(job, 0)
	// Nothing here reads the solver's objective (only the answer's own,
	// and a stopped search's gap, which the solver computes in full), so
	// it leaves out the admitted rows' sum: one pass over them per
	// program, a tenth of Gavel at a million jobs.
	opt := ilp.Options{NodeLimit: NodeLimit, ReducedObjective: true}
	if g.gap > 0 {
		opt.Gap, opt.Rand = g.gap, g.rng
	}
	sol, ok, err := g.solver.Solve(prob, opt)
	if err != nil {
		return false, fmt.Errorf("gavel: job %s: %w", job.Spec.Alias(), err)
	}
	g.stats.Record(sol)
	// Rejection: no solution, or a total throughput of exactly 0.
	if !ok || sol.Objective == 0 {
		g.stats.Rejected++
		return false, nil
	}
	// Jobs whose type changed (admitted order), then the new job. The
	// rows take the program's columns and the new row.
	var moved []sim.JobID
	var movedCol []int
	for _, c := range sol.Changed {
		i := c.Row
		moved = append(moved, g.rows.Jobs[i])
		movedCol = append(movedCol, c.Column)
		g.rows.Prev[i] = c.Column
		prob.Rows[i].Prev = c.Column
		g.solver.PrevChanged(prob, i)
	}
	g.rows.Prev = append(g.rows.Prev, sol.NewColumn)
	g.rows.Jobs = append(g.rows.Jobs, job.Spec.ID)
	g.rows.HasPrev = true
	prob.Rows = append(prob.Rows, row(job, sol.NewColumn))
	g.solver.Appended(prob)
	// The trial is made on the plan's table itself and undone on failure
	// (a copy of the table per fit was most of gavel's allocation).
	t := plan.Table
	t.Begin()
	for _, id := range moved {
		t.Clear(id)
	}
	placed := true
	for k, id := range append(moved, job.Spec.ID) {
		j := v.Job(id)
		col := sol.NewColumn
		if k < len(moved) {
			col = movedCol[k]
		}
		if _, ok := Place(t, id, j.Spec.Workload, g.types[col], j.Spec.GPUs, g.deployable); !ok {
			placed = false
			break
		}
	}
	if !placed {
		t.Undo()
		g.stats.PlacementFailures++
		// The other rows keep the program's columns (the quirk).
		g.rows.Jobs = g.rows.Jobs[:len(g.rows.Jobs)-1]
		g.rows.Prev = g.rows.Prev[:len(g.rows.Prev)-1]
		prob.Rows = prob.Rows[:len(prob.Rows)-1]
		g.solver.Removed(len(prob.Rows))
		return false, nil
	}
	t.Keep()
	plan.Commit(t, job.Spec.ID, moved)
	return true, nil
}
