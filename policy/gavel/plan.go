package gavel

import (
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Place puts job on n GPUs of type gpu the way the artifact's Gavel and Sia
// do (ARENA.md §7): the best locality if est finds it feasible and enough
// nodes have that many idle GPUs (most idle first, node order on ties);
// otherwise the per-node quota is halved step by step, failing at the first
// infeasible locality, and never below one GPU per node. The table is
// changed only on success.
func Place(t *placement.Table, job sim.JobID, w estimator.Workload, gpu string, n int, est estimator.Estimator) ([]int, bool) {
	c := placement.Best(t.Cluster, gpu, n)
	if c.PerNode == 0 {
		return nil, false
	}
	if est.Estimate(w, c).Feasible() {
		if slots, ok := t.PlaceMostFree(job, c); ok {
			return slots, true
		}
	}
	for c.PerNode > 1 {
		c = placement.Relax(c)
		if !est.Estimate(w, c).Feasible() {
			return nil, false
		}
		if slots, ok := t.PlaceMostFree(job, c); ok {
			return slots, true
		}
	}
	return nil, false
}

// Plan is one round's planning state shared by Gavel and Sia: the working
// slot table (each accepted decision is applied to it, as the artifact
// applies each to its cluster) and the jobs whose slots it changed.
type Plan struct {
	Table   *placement.Table
	view    *sim.View
	started []sim.JobID
	isStart map[sim.JobID]bool
	touched map[sim.JobID]bool
	order   []sim.JobID
	drops   []sim.Action
}

// Drop records that an arrival is dropped for good.
func (p *Plan) Drop(id sim.JobID, reason string) {
	p.drops = append(p.drops, sim.Action{Kind: sim.Drop, Job: id, Reason: reason})
}

// NewPlan starts planning a round from the view's slot table.
func NewPlan(v *sim.View) *Plan {
	return &Plan{
		Table: placement.FromView(v), view: v,
		isStart: map[sim.JobID]bool{}, touched: map[sim.JobID]bool{},
	}
}

// Commit replaces the working table by t (an accepted decision) and records
// that start began running and that moved changed slots.
func (p *Plan) Commit(t *placement.Table, start sim.JobID, moved []sim.JobID) {
	p.Table = t
	p.started = append(p.started, start)
	p.isStart[start] = true
	for _, id := range append(moved, start) {
		if !p.touched[id] {
			p.touched[id] = true
			p.order = append(p.order, id)
		}
	}
}

// Actions turns the plan into the engine's actions: the drops, Start for every job
// started this round (in start order), then Reallocate for running jobs
// whose final slots differ from their current ones.
func (p *Plan) Actions() []sim.Action {
	out := append([]sim.Action(nil), p.drops...)
	// One scan of the table for many jobs rather than one per job.
	slotsOf := p.Table.SlotsOf
	if len(p.order) > 16 {
		each := p.Table.SlotsOfEach(p.order)
		slotsOf = func(id sim.JobID) []int { return each[id] }
	}
	for _, id := range p.started {
		out = append(out, sim.Action{Kind: sim.Start, Job: id, GPUs: slotsOf(id)})
	}
	for _, id := range p.order {
		if p.isStart[id] {
			continue
		}
		slots := slotsOf(id)
		if !sim.SameGPUs(slots, p.view.Job(id).GPUs) {
			out = append(out, sim.Action{Kind: sim.Reallocate, Job: id, GPUs: slots})
		}
	}
	return out
}

// Rows is the artifact's ordered "admitted" table with its previous
// allocation matrix: one row per admitted job, holding the column (GPU type
// index for Gavel, configuration index for Sia) of the last accepted
// solution. HasPrev is false until the first accepted solution (the
// artifact's prev_alloc = None); once set it stays set even when every row
// has left (an empty matrix, not None).
type Rows struct {
	Jobs    []sim.JobID
	Prev    []int
	HasPrev bool
}

// Remove deletes a job's row (a departure), if present, and returns the
// index it had (−1: none).
func (r *Rows) Remove(id sim.JobID) int {
	for i, j := range r.Jobs {
		if j == id {
			// In place: no caller keeps the slices across a removal.
			r.Jobs = slices.Delete(r.Jobs, i, i+1)
			r.Prev = slices.Delete(r.Prev, i, i+1)
			return i
		}
	}
	return -1
}
