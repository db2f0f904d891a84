package sia

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/gavel"
	"github.com/arena-sim/arena/policy/ilp"
	"github.com/arena-sim/arena/sim"
)

// Parameters of the artifact's Sia (ARENA.md §7, §9).
const (
	// MaxChanges is MAX_MGRT_JOB_NUM.
	MaxChanges = 3
	// Fairness is p_fairness: weights are goodput^p.
	Fairness = 0.5
	// GoodputClip caps a weight.
	GoodputClip = 3000.0
	// NewJobBonus is the objective's reward for allocating the new job.
	NewJobBonus = 1000.0
	// RestartCost is MAX_RESCHED_OVERHEAD_WITHOUT_PRUNE in the restart
	// factor (seconds).
	RestartCost = 600.0
	// MinRestartFactor is the restart factor's floor.
	MinRestartFactor = 0.01
	// NodeLimit bounds each branch and bound: a deterministic budget in
	// place of the artifact's 30-s GLPK tm_lim, which made decisions depend
	// on the machine's load. Searches it stops are counted (BudgetHits,
	// summary.json's solver_budget_hits); none on the Philly run.
	NodeLimit = 200000
)

// Counts are the GPU counts of the configuration columns.
var Counts = []int{1, 2, 4, 8, 16}

// Version selects which version of the authors' Sia is reproduced; it is
// the same notion as gavel.Version (the ae-eurosys head, or the earlier code
// behind the authors' stored Philly results). For Sia the two differ in the
// restart pass (docs/ilp-baselines.md, "Which version"):
//   - Head: the restart pass tries every pending job in queue order
//     (ARENA.md §7).
//   - StoredRun: the restart pass blocks a job's requested type for the rest
//     of the pass once the job fails, as Gavel, FCFS and ElasticFlow do (the
//     line survives, commented out, in later versions of sia_sched.py).
//     Pending jobs that no configuration can run under the DP memory filter
//     then keep their types blocked, and pending jobs almost never restart,
//     as in the stored run.
type Version = gavel.Version

// The versions, as in package gavel.
const (
	Head      = gavel.Head
	StoredRun = gavel.StoredRun
)

// Sia is the policy. Create it with New or NewVersion.
type Sia struct {
	cluster *sim.Cluster
	version Version
	name    string
	// maxFits bounds the programs fitted per decision (0: no bound;
	// WithMaxFits).
	maxFits int
	closer  io.Closer // external solver to release, if any
	// dp: the throughput model and the restart pass's placement check (DP
	// memory filter on); noMem: the arrival pre-filter and the new-job
	// pass's placement check (force_opt).
	dp, noMem estimator.Estimator
	types     []string
	capacity  []float64
	// columns: (type index, count) per configuration, type-major.
	colType  []int
	colCount []int
	// artifactCounts enables the artifact's quirk: running jobs keep the
	// GPU count of their previous row (one decision behind) and a
	// count-only change never moves them.
	artifactCounts bool

	// solve solves each program; nil means reassign (exact).
	solve Solver
	// reassign is ilp.SolveReassignment with its state kept between
	// programs (the admitted rows rarely change between two programs); it
	// is told each edit of prob's rows (ilp.ReassignmentSolver.Keep).
	reassign ilp.ReassignmentSolver

	rows    gavel.Rows
	goodput map[estimator.Workload][]float64
	// weights caches a job's weight row for one round (exec time and
	// reschedule count only change between rounds), by job ID; a finished
	// job's row is dropped (dropRow).
	// The entries are pointers (nil until the job's first fit and after
	// it finished): a million jobs' table is then 8 MB, not 32.
	weights []*cachedRow
	// never says, by job ID, whether no configuration can ever run the
	// job: 1 yes, −1 no, 0 not known yet (see neverRunnable). One byte per
	// job apart from the rows: the restart pass reads it for every pending
	// job at every departure, thousands on a long trace.
	never []int8
	stats gavel.Stats

	// prob is the program of the admitted rows (rows), built at a round's
	// first fit (the weight rows change between rounds) and then edited
	// as rows is; use is each column's GPU count; newValue is the new
	// row's scratch.
	prob     ilp.Reassignment
	use      []float64
	newValue []float64
	// probRound is the round prob's rows were built for (−1: none, or
	// rows changed otherwise: departures).
	probRound int

	// failed remembers the fits that failed since the rows, the plan or
	// the pass last changed (sameFit).
	failed map[fitKey]failedFit
	// repeats counts the fits answered by a remembered failure.
	repeats int

	// queue mirrors the engine's pending queue between decisions
	// (gavel.PendingMirror), so that the restart pass passes over the jobs
	// no configuration can run by a byte each in never, without reading
	// their records: on a long trace they are most of the queue.
	queue gavel.PendingMirror
}

// fitKey is what fit reads of the job it fits: its workload (goodput row
// and placement check) and the two inputs of its restart factor.
type fitKey struct {
	w        estimator.Workload
	exec     float64
	rescheds int
}

// failedFit is a remembered failed fit: the solver's figures and where it
// failed, for the statistics a repeat would add.
type failedFit struct {
	sol       ilp.Assignment // Columns dropped
	placement bool           // the program accepted it; placement failed
}

// cachedRow is a job's cached objective row and the round it is for.
type cachedRow struct {
	round int
	row   []float64
}

// cachedRow returns job j's entry of the weights cache.
func (s *Sia) cachedRow(j *sim.Job) *cachedRow {
	id := int(j.Spec.ID)
	for len(s.weights) <= id {
		s.weights = append(s.weights, nil)
	}
	if s.weights[id] == nil {
		s.weights[id] = &cachedRow{round: -1}
	}
	return s.weights[id]
}

// dropRow forgets the weight row of job id, which finished: it is never
// fitted again, and the program that held its row is rebuilt (Schedule).
// Kept, the rows of every job that ever ran were Sia's largest table (a
// row of a dozen figures per job: 120 MB at 1M jobs).
func (s *Sia) dropRow(id sim.JobID) {
	if int(id) < len(s.weights) {
		s.weights[id] = nil
	}
}

var (
	_ sim.Policy         = (*Sia)(nil)
	_ sim.BudgetReporter = (*Sia)(nil)
)

// New returns Sia on cluster c deciding with src's data-parallel views.
// artifactCounts selects the artifact's one-decision-behind GPU counts
// (used in artifact timing); otherwise running jobs take the program's
// count.
func New(c *sim.Cluster, src estimator.Source, artifactCounts bool) *Sia {
	return NewVersion(c, src, Head, artifactCounts)
}

// NewVersion returns Sia as version v of the authors' code; artifactCounts
// as for New.
func NewVersion(c *sim.Cluster, src estimator.Source, v Version, artifactCounts bool) *Sia {
	s := &Sia{
		cluster: c, types: c.Types, artifactCounts: artifactCounts, version: v,
		dp:      src.View(estimator.ViewDataParallel),
		noMem:   src.View(estimator.ViewDataParallelNoMemCheck),
		goodput: map[estimator.Workload][]float64{}, probRound: -1,
	}
	s.reassign.Keep()
	for k, t := range s.types {
		s.capacity = append(s.capacity, float64(c.TotalGPUs(t)))
		for _, n := range Counts {
			s.colType = append(s.colType, k)
			s.colCount = append(s.colCount, n)
			s.use = append(s.use, float64(n))
		}
	}
	return s
}

// Name implements sim.Policy: "sia", or the name given by Named.
func (s *Sia) Name() string {
	if s.name != "" {
		return s.name
	}
	return "sia"
}

// WithMaxFits bounds a decision to n fits (0 = no bound, the published
// algorithm), as gavel.WithMaxFits does: past n, the restart pass stops
// and arrivals join the queue unfitted, for a later restart pass. A job
// the restart pass settles without a program (the jobs that can never
// run) does not count.
func (s *Sia) WithMaxFits(n int) *Sia {
	s.maxFits = n
	return s
}

// Named sets the name s reports (a registry entry other than "sia", so
// results of two versions in one run do not share a name); it returns s.
func (s *Sia) Named(name string) *Sia {
	s.name = name
	return s
}

// Solver solves one of Sia's programs: the columns of the admitted rows and
// of the new row (−1: left out), and false if the program was not solved to
// an optimum (the artifact's rejection on a status other than optimal).
// Its Assignment must set Columns and NewColumn; Sia recomputes the rest.
type Solver func(*ilp.Reassignment, ilp.Options) (ilp.Assignment, bool, error)

// WithSolver replaces the exact solver (ilp.SolveReassignment) by f, e.g. an
// external MIP solver, to compare decisions with another solver's; it
// returns s. The artifact's GLPK does not return exact optima on these
// programs (docs/ilp-baselines.md, "What remains"); glpk_test.go uses this
// to run Sia with GLPK itself.
func (s *Sia) WithSolver(f Solver) *Sia {
	s.solve = f
	return s
}

// WithGLPK makes s solve its programs with GLPK, as the artifact did, and
// makes Close end the GLPK helper; it returns s.
func (s *Sia) WithGLPK(g *GLPK) *Sia {
	s.solve = g.Solve
	s.closer = g
	return s
}

// Close releases an external solver (WithGLPK); the exact solver needs none.
func (s *Sia) Close() error {
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}

// Version reports which version of the authors' code s reproduces.
func (s *Sia) Version() Version { return s.version }

// Stats returns the solver figures so far.
func (s *Sia) Stats() gavel.Stats { return s.stats }

// BudgetHits implements sim.BudgetReporter: searches stopped by the node
// budget.
func (s *Sia) BudgetHits() int { return s.stats.LimitHits }

// IdleWhenQuiet implements sim.QuietRounds: a decision with no arrival and
// no ended job returns nothing and changes no state.
func (*Sia) IdleWhenQuiet() bool { return true }

// ReadsViewOnly implements sim.ViewReader: the policy writes to none of
// the View's slices (its plan copies the slot table it edits).
func (*Sia) ReadsViewOnly() bool { return true }

// Schedule implements sim.Policy: departures leave the admitted table; in
// rounds with departures the pending jobs are tried in queue order (at
// Head every one; in StoredRun a failure blocks the job's requested type
// for the rest of the pass); then each arrival is pre-filtered and fitted.
func (s *Sia) Schedule(v *sim.View) ([]sim.Action, error) {
	for _, j := range v.Ended {
		s.rows.Remove(j.Spec.ID)
		s.dropRow(j.Spec.ID)
	}
	for _, j := range v.Interrupted { // faults: stopped, back in the queue
		s.rows.Remove(j.Spec.ID)
	}
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 {
		s.probRound = -1 // the program is rebuilt
	}
	if v.Quiet() {
		return nil, nil
	}
	plan := gavel.NewPlan(v)
	fits := 0 // fits this decision (maxFits)
	s.forgetFailed()
	if plainRestart {
		s.queue.Invalidate()
	}
	s.queue.Sync(v)
	if len(v.Ended) > 0 || len(v.Interrupted) > 0 || v.NodesChanged {
		var blocked []string // a few types: compared, not hashed
		for i, q := range s.queue.Jobs {
			if s.version == Head && !plainRestart && int(q.ID) < len(s.never) && s.never[q.ID] > 0 {
				// What fit concludes for such a job, without its record.
				s.stats.Solves++
				s.stats.Rejected++
				continue
			}
			j := v.Pending[i]
			if len(blocked) > 0 && slices.Contains(blocked, j.Spec.GPU) {
				continue
			}
			if s.maxFits > 0 && fits >= s.maxFits {
				break
			}
			fits++
			ok, err := s.fit(v, plan, j, s.dp)
			if err != nil {
				return nil, err
			}
			if ok {
				s.queue.Started(i)
			} else if s.version == StoredRun {
				blocked = append(blocked, j.Spec.GPU)
			}
		}
		s.queue.Compact()
	}
	s.forgetFailed() // the arrival pass checks placements with another view
	for _, j := range v.Arrivals {
		if !gavel.RunnableSomewhere(s.cluster, s.noMem, j) {
			plan.Drop(j.Spec.ID, "infeasible on every GPU type at best locality")
			continue
		}
		if s.maxFits > 0 && fits >= s.maxFits {
			s.queue.Append(j) // fitted by a later restart pass
			continue
		}
		fits++
		ok, err := s.fit(v, plan, j, s.noMem)
		if err != nil {
			return nil, err
		}
		if !ok {
			s.queue.Append(j) // joins the queue's end
		}
	}
	return plan.Actions(), nil
}

// plainRestart makes every decision rebuild the mirror from the View and
// fit every job in full, as before the mirror and the remembered failures
// (tests: the oracle the carried mirror and the shortcuts are compared
// with).
var plainRestart = false

// throughput is the artifact's Sia throughput model for n GPUs of type t
// (DP data with the memory check): the single-GPU throughput scaled
// linearly, with the single-GPU figure estimated from the smallest feasible
// count when one GPU is infeasible (dividing by twice the count, as the
// artifact does).
func (s *Sia) throughput(w estimator.Workload, t string, n int) float64 {
	nodeCap := s.cluster.NodeCapacity(t)
	shape := func(m int) estimator.Config {
		return estimator.BestLocality(t, m, nodeCap)
	}
	t1 := s.dp.Estimate(w, estimator.Config{GPU: t, Nodes: 1, PerNode: 1}).Throughput
	if n == 1 && t1 > estimator.InfeasibleThroughput {
		return t1
	}
	if !s.dp.Estimate(w, shape(n)).Feasible() {
		return estimator.InfeasibleThroughput
	}
	if t1 <= estimator.InfeasibleThroughput {
		for _, m := range Counts {
			if thr := s.dp.Estimate(w, shape(m)).Throughput; thr > 0 {
				t1 = thr / float64(2*m)
			}
		}
	}
	if t1 <= estimator.InfeasibleThroughput {
		return estimator.InfeasibleThroughput
	}
	return t1 * float64(n)
}

// normalisedGoodput is a workload's row over the 20 configurations:
// throughput (statistical efficiency 1), normalised as n_min·g/g_min.
func (s *Sia) normalisedGoodput(w estimator.Workload) []float64 {
	if row, ok := s.goodput[w]; ok {
		return row
	}
	row := make([]float64, len(s.colType))
	nMin, gMin := math.Inf(1), math.Inf(1)
	for c := range row {
		row[c] = s.throughput(w, s.types[s.colType[c]], s.colCount[c])
		if row[c] > estimator.InfeasibleThroughput {
			nMin = math.Min(nMin, float64(s.colCount[c]))
			gMin = math.Min(gMin, row[c])
		}
	}
	for c, g := range row {
		if g > estimator.InfeasibleThroughput {
			row[c] = nMin * g / gMin
		}
	}
	s.goodput[w] = row
	return row
}

// weightRow is a job's objective row: min((g·r)^p, clip) for feasible
// entries, −1e9 otherwise, with the restart factor
// r = max((exec − rescheds·600)/(exec + 600), 0.01).
func (s *Sia) weightRow(j *sim.Job, round int) []float64 {
	w := s.cachedRow(j)
	if w.round == round {
		return w.row
	}
	r := math.Max((j.ExecTime-float64(j.Rescheds)*RestartCost)/(j.ExecTime+RestartCost), MinRestartFactor)
	g := s.normalisedGoodput(j.Spec.Workload)
	if len(w.row) != len(g) {
		w.row = make([]float64, len(g))
	}
	w.round = round
	row := w.row
	for c, v := range g {
		if v > estimator.InfeasibleThroughput {
			row[c] = math.Min(math.Pow(v*r, Fairness), GoodputClip)
		} else {
			row[c] = estimator.InfeasibleThroughput
		}
	}
	return row
}

// fit is the artifact's _sia_fit_one_job; place is the feasibility view of
// the placements (force_opt in the new-job pass, DP in the restart pass).
// It solves the program with the job as the new row, admits the job if
// the optimum takes it, and places every job the optimum moves and the
// new one, reverting the admission if a placement fails.
func (s *Sia) fit(v *sim.View, plan *gavel.Plan, job *sim.Job, place estimator.Estimator) (bool, error) {
	key := fitKey{job.Spec.Workload, job.ExecTime, job.Rescheds}
	if s.knownToFail(job, key) {
		return false, nil
	}
	prob := s.program(v)
	w := s.weightRow(job, v.Round)
	// A job no configuration can run (DP memory filter) is left out by
	// every optimum: reject without solving (it would be, after solving).
	runnable := false
	for _, x := range w {
		runnable = runnable || x > estimator.InfeasibleThroughput
	}
	if !runnable {
		s.stats.Solves++
		s.stats.Rejected++
		return false, nil
	}
	sol, ok, err := s.solveWithNew(prob, w)
	if err != nil {
		return false, fmt.Errorf("sia: job %s: %w", job.Spec.Alias(), err)
	}
	s.stats.Record(sol)
	// Rejection: no solution, the new job left out, or a goodput sum of
	// exactly 0 (the bonus is not part of it).
	if !ok || sol.NewColumn < 0 || sol.Objective-NewJobBonus == 0 {
		s.stats.Rejected++
		s.rememberFailed(key, sol, false)
		return false, nil
	}
	hadPrev := s.rows.HasPrev
	targets, moved := s.fitTargets(job.Spec.ID, sol)
	// The rows, and the program with them, take the solution's columns
	// and the new row (w, this round's weights).
	for _, c := range sol.Changed {
		s.rows.Prev[c.Row] = c.Column
		prob.Rows[c.Row].Prev = c.Column
		s.reassign.PrevChanged(prob, c.Row)
	}
	s.rows.Prev = append(s.rows.Prev, sol.NewColumn)
	s.rows.Jobs = append(s.rows.Jobs, job.Spec.ID)
	s.rows.HasPrev = true
	prob.Rows = append(prob.Rows, ilp.AssignRow{Value: w, Resource: s.colType, Use: s.use, Prev: sol.NewColumn})
	s.reassign.Appended(prob)

	// The trial is made on the plan's table and undone on failure.
	t := plan.Table
	t.Begin()
	for _, id := range moved {
		t.Clear(id)
	}
	for _, tg := range targets {
		j := v.Job(tg.id)
		if _, ok := gavel.Place(t, tg.id, j.Spec.Workload, s.types[s.colType[tg.col]], tg.gpu, place); !ok {
			t.Undo()
			s.stats.PlacementFailures++
			s.rows.Jobs = s.rows.Jobs[:len(s.rows.Jobs)-1]
			s.rows.Prev = s.rows.Prev[:len(s.rows.Prev)-1]
			prob.Rows = prob.Rows[:len(prob.Rows)-1]
			s.reassign.Removed(len(prob.Rows))
			// The reverted decision keeps the program's columns as the
			// admitted jobs' previous ones (the artifact's stale rows):
			// unless they are the old ones (no row changed), the next
			// program differs.
			if hadPrev && len(sol.Changed) == 0 {
				s.rememberFailed(key, sol, true)
			} else {
				s.forgetFailed()
			}
			return false, nil
		}
	}
	t.Keep()
	plan.Commit(t, job.Spec.ID, moved)
	s.forgetFailed()
	return true, nil
}

// knownToFail counts and reports a fit decided without solving: a job
// that can never run, or the same program and placements as a remembered
// failure.
func (s *Sia) knownToFail(job *sim.Job, key fitKey) bool {
	if s.neverRunnable(job) {
		// What the check in fit concludes, without the weight row: the
		// restart pass meets thousands of such jobs on a long trace.
		s.stats.Solves++
		s.stats.Rejected++
		return true
	}
	if f, ok := s.failed[key]; ok && s.solve == nil && !plainRestart {
		// The same program and placements as the remembered failure.
		s.repeats++
		s.stats.Record(f.sol)
		if f.placement {
			s.stats.PlacementFailures++
		} else {
			s.stats.Rejected++
		}
		return true
	}
	return false
}

// capacityIn is the GPUs per type the program may assign: every GPU, or
// with faults those of nodes that take jobs.
func (s *Sia) capacityIn(v *sim.View) []float64 {
	if v.Nodes == nil {
		return s.capacity
	}
	out := make([]float64, len(s.types))
	for k, t := range s.types {
		for _, n := range v.Cluster.NodesOfType(t) {
			if v.Available(n) {
				out[k] += float64(v.Cluster.Nodes[n].Capacity)
			}
		}
	}
	return out
}

// program returns the reassignment program of the admitted jobs: rebuilt
// at a round's first fit (the weight rows change between rounds), after
// departures and, with faults, at every fit (the capacity may change);
// otherwise the one of an earlier fit this round, which fit edits as it
// edits rows. The restart pass solves one program per pending job,
// thousands on a long trace, and an admission changes a few rows:
// rebuilding every row each time (one weight-row lookup per admitted job)
// was most of Sia's time there.
func (s *Sia) program(v *sim.View) *ilp.Reassignment {
	prob := &s.prob
	if s.probRound != v.Round || v.Nodes != nil || plainRestart {
		*prob = ilp.Reassignment{Capacity: s.capacityIn(v), MaxChanges: MaxChanges, Rows: prob.Rows[:0]}
		for i, id := range s.rows.Jobs {
			prob.Rows = append(prob.Rows, ilp.AssignRow{Value: s.weightRow(v.Job(id), v.Round), Resource: s.colType, Use: s.use, Prev: s.rows.Prev[i]})
		}
		s.probRound = v.Round
		s.reassign.Reset()
	}
	prob.HasPrev = s.rows.HasPrev
	return prob
}

// solveWithNew solves prob with the new row's weights w plus the new-job
// bonus (with the configured solver, recounted when it is not ours).
func (s *Sia) solveWithNew(prob *ilp.Reassignment, w []float64) (ilp.Assignment, bool, error) {
	s.newValue = s.newValue[:0]
	for _, x := range w {
		s.newValue = append(s.newValue, x+NewJobBonus)
	}
	prob.New = ilp.AssignRow{Value: s.newValue, Resource: s.colType, Use: s.use}
	solve := s.reassign.Solve
	if s.solve != nil {
		solve = s.solve
	}
	sol, ok, err := solve(prob, ilp.Options{NodeLimit: NodeLimit})
	if err != nil {
		return sol, ok, err
	}
	if ok && s.solve != nil {
		sol = recount(prob, sol)
	}
	return sol, ok, nil
}

// fitTarget is a job a fit places: its column and GPU count.
type fitTarget struct {
	id       sim.JobID
	col, gpu int
}

// fitTargets lists the jobs to (re)place after a solve, in admitted order
// with the new job last, and the admitted jobs among them (moved); the
// rows still hold their previous columns.
func (s *Sia) fitTargets(newJob sim.JobID, sol ilp.Assignment) (targets []fitTarget, moved []sim.JobID) {
	for _, c := range sol.Changed { // the rows whose column changed, in order
		id, now, before := s.rows.Jobs[c.Row], c.Column, s.rows.Prev[c.Row]
		if s.artifactCounts {
			// Quirk: only a type change moves the job, and it keeps the
			// count of its previous row.
			if s.colType[now] != s.colType[before] {
				targets = append(targets, fitTarget{id, now, s.colCount[before]})
			}
		} else {
			targets = append(targets, fitTarget{id, now, s.colCount[now]})
		}
	}
	for _, tg := range targets {
		moved = append(moved, tg.id)
	}
	targets = append(targets, fitTarget{newJob, sol.NewColumn, s.colCount[sol.NewColumn]})
	return targets, moved
}

// A fit reads the admitted rows (jobs, previous columns), the plan's
// table, the round's weight rows, the pass's placement view and of the
// job only its fitKey, and a fit that fails leaves all of them as they
// were unless its placement failed with new previous columns. So while
// none of them changes, a job with the fit key of a failed one fails the
// same way: the same program, answered the same, and the same placements
// refused. The restart pass meets the same few workloads again and
// again in a long queue: on an overloaded cluster most of its fits are
// programs accepted whose placement then fails. rememberFailed records a
// failure; forgetFailed is called wherever one of those inputs changes
// (a new decision or pass, an admission, a failed placement that moved
// the previous columns). Only for the built-in solver, which answers a
// program the same way every time. TestCarriedPendingMirror compares
// with fitting every job.
func (s *Sia) rememberFailed(key fitKey, sol ilp.Assignment, placement bool) {
	if s.failed == nil {
		s.failed = map[fitKey]failedFit{}
	}
	sol.Columns = nil
	s.failed[key] = failedFit{sol: sol, placement: placement}
}

func (s *Sia) forgetFailed() { clear(s.failed) }

// neverRunnable reports whether no weight row of job j can have a feasible
// entry, whatever its restart factor r: its workload's goodput row has no
// entry above the infeasible mark. (A row entry is min((g·r)^p, clip) for
// such g and −1e9 otherwise, and r ≥ 0.01.) Decided once per job.
func (s *Sia) neverRunnable(j *sim.Job) bool {
	id := int(j.Spec.ID)
	if id >= len(s.never) {
		s.never = append(s.never, make([]int8, id+1-len(s.never))...)
	}
	if s.never[id] == 0 {
		s.never[id] = 1
		for _, g := range s.normalisedGoodput(j.Spec.Workload) {
			if g > estimator.InfeasibleThroughput {
				s.never[id] = -1
				break
			}
		}
	}
	return s.never[id] > 0
}

// recount fills an external solver's Assignment in from its columns: the
// objective Σ v·x (new job's bonus included), the number of changes and
// the rows changed.
func recount(p *ilp.Reassignment, sol ilp.Assignment) ilp.Assignment {
	sol.Objective, sol.Changes, sol.Changed = 0, 0, nil
	for i, r := range p.Rows {
		sol.Objective += r.Value[sol.Columns[i]]
		if sol.Columns[i] != r.Prev {
			sol.Changes++
			sol.Changed = append(sol.Changed, ilp.Change{Row: i, Column: sol.Columns[i]})
		}
	}
	if sol.NewColumn >= 0 {
		sol.Objective += p.New.Value[sol.NewColumn]
	}
	return sol
}
