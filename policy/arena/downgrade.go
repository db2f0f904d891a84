package arena

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/arena-sim/arena/sim"
)

// modification is one entry of a plan's modification list: a job shrunk
// or moved to another GPU type, and the config it ends up with.
type modification struct {
	id sim.JobID
	t  int
	l  loc
}

// plan is the artifact's SearchPlan: a table, the plan's copy of the
// target job, the accumulated gain, the remaining migration budget and the
// modifications made so far.
type plan struct {
	tbl    *table
	target inst
	gain   float64
	budget int
	mods   []modification
}

// downgradeSearch is _job_downgrade_search (ARENA.md §5 B): a breadth-first
// search of shrink and type-change steps, depth levels deep, returning the
// feasible plans in the order found.
//
// Quirks kept: plans are popped LIFO; the output list is never cleared, so
// the third level re-expands the first level's plans too. Those re-expansions
// repeat the second level's work exactly and can only add plans equal to
// ones already found (never chosen under strict comparison), so they are
// skipped.
//
// With the shortcuts on, the list holds only the plans the caller can
// choose: fitOneJob takes the first plan with the strictly largest gain,
// so a feasible plan whose gain does not beat every one found before it in
// the search is left out (the first plan with the largest gain is the same
// either way), and its table is never copied (expansion.fast).
func (r *round) downgradeSearch(target inst, tb *table, depth, budget, local int) []plan {
	if !searchShortcuts {
		return r.downgradeSearchIn(target, tb, depth, budget, local, false)
	}
	plans := r.downgradeSearchIn(target, tb, depth, budget, local, true)
	if checkDowngrade {
		r.checkDowngradeSearch(plans, target, tb, depth, budget, local)
	}
	return plans
}

// downgradeSearchIn is downgradeSearch in the fast form or the literal
// one (see expansion.fast).
func (r *round) downgradeSearchIn(target inst, tb *table, depth, budget, local int, fast bool) []plan {
	var feasible []plan
	best := math.Inf(-1)
	input := []plan{{tbl: r.clone(tb), target: target, gain: 0, budget: budget}}
	var output []plan
	expanded := 0 // output[:expanded] were expanded at an earlier level
	for level := 1; level <= depth && (len(input) > 0 || len(output) > 0); level++ {
		alreadyDone := expanded
		expanded = len(output)
		for len(input) > 0 {
			pi := len(input) - 1
			p := input[pi]
			input = input[:pi]
			if pi < alreadyDone {
				continue // a re-expansion of an earlier level's plan
			}
			r.expandPlan(&expansion{p: p, targetID: target.id, local: local, feasible: &feasible, best: &best,
				output: &output, lastLevel: level == depth, fast: fast})
		}
		input = append(input, output...)
	}
	return feasible
}

// expansion is one plan's expansion: the plan, where its results go and
// how its steps run.
type expansion struct {
	p        plan
	targetID sim.JobID
	local    int
	feasible *[]plan
	// best is the largest gain of the feasible plans found so far in the
	// search (−∞ before the first).
	best      *float64
	output    *[]plan
	lastLevel bool
	// fast: the steps of a last-level plan run on the plan's own table,
	// rolled back after each (table.checkpoint), every target migration
	// runs in place and is rolled back, and a table is copied only for a
	// feasible plan that beats the best so far — instead of a copy of the
	// plan's table for every step and another for every migration (the
	// literal form, the artifact's deep copies). A step's copy costs the
	// plan's delta against its snapshot, up to the real table's
	// arrivalRebase slots; its writes are a few slots.
	fast bool
}

// expandPlan runs, on plan p, one shrink step per GPU type and one
// type-change step, recording feasible plans and plans to expand further.
//
// Of a last-level plan (fast form) a shrink step of a type other than the
// target's is skipped: it only makes room for a later step, of which there
// is none, and records nothing.
func (r *round) expandPlan(x *expansion) {
	v := r.p.variant
	p := x.p
	// Every step starts from p's table as it is, so the candidate list
	// and the table's job stats are the same for all of them.
	cands, st := r.candidates(p.tbl, x.targetID)
	var sv *shrinkView
	if !v.NoScaling {
		sv = r.shrinkCandidates(p.target, cands, st)
	}
	inPlace := x.fast && x.lastLevel
	targetType, _, _, _ := r.statOf(st, p.target.id, p.target.t, p.target.num)
	for T := range r.p.tp.types {
		if v.NoScaling || len(r.p.tp.nodesOfType[T]) == 0 {
			continue // shrink is off, or the type is absent (_is_type_existed)
		}
		if inPlace && T != targetType {
			continue
		}
		tbl, ck, mark := r.stepTable(p.tbl, inPlace)
		tgt := p.target
		res := r.shrinkMove(&tgt, T, sv, st, tbl, p.gain, p.budget)
		var keep *table
		if res.changed {
			keep = r.settle(x, tbl, tgt, res, T == targetType, false)
		}
		r.endStep(x, tbl, ck, mark, inPlace, keep)
	}
	if v.NoTypeChange {
		return
	}
	tbl, ck, mark := r.stepTable(p.tbl, inPlace)
	tgt := p.target
	res := r.htcMove(&tgt, cands, st, tbl, p.gain, p.budget, x.local)
	var keep *table
	if res.changed {
		keep = r.settle(x, tbl, tgt, res, true, true)
	}
	r.endStep(x, tbl, ck, mark, inPlace, keep)
}

// stepTable is the table a step of a plan (table pt) runs on: pt itself
// under a checkpoint (in place), else a copy; mark scopes the copies the
// step makes after it.
func (r *round) stepTable(pt *table, inPlace bool) (*table, checkpoint, int) {
	if inPlace {
		return pt, pt.checkpoint(), r.p.pool.mark()
	}
	return r.clone(pt), checkpoint{}, r.p.pool.mark()
}

// endStep undoes an in-place step and, in the fast form, returns the
// copies the step made to the pool but keep, the table of the feasible
// plan it recorded (in the literal form every copy lives until the fit
// ends).
func (r *round) endStep(x *expansion, tbl *table, ck checkpoint, mark int, inPlace bool, keep *table) {
	if inPlace {
		tbl.rollback(ck)
	}
	if x.fast {
		r.p.pool.release(mark, keep)
	}
}

// settle ends a step of x that changed a job (res, from shrinkMove or
// htcMove, which worked on tbl): the target's migration search on
// res.tbl if migrate, then the feasible plan (in the fast form only if it
// beats the best so far) and the plan to expand further, on tbl as the
// step left it (after an aborted RHD pair of htcMove's move, tbl holds the
// half-done state, as in the artifact). It returns the feasible plan's
// table, nil if none.
func (r *round) settle(x *expansion, tbl *table, tgt inst, res stepResult, migrate, htc bool) *table {
	p := x.p
	on := res.tbl
	var ck checkpoint
	if migrate {
		src := on
		if x.fast {
			ck = on.checkpoint()
		} else {
			src = r.clone(on)
		}
		res = r.targetMigrated(&tgt, res, src, x.local, htc)
	}
	mods := append(append([]modification(nil), p.mods...), res.mod)
	var keep *table
	if g := res.gain + res.migGain; res.ok && (!x.fast || g > *x.best) && r.modificationCheck(mods) {
		keep = res.tbl
		if x.fast && keep == on {
			keep = r.clone(on) // before the rollback below
		}
		*x.best = max(*x.best, g)
		*x.feasible = append(*x.feasible, plan{tbl: keep, target: tgt, gain: g, budget: res.budgetAfter, mods: mods})
	}
	if migrate && x.fast {
		on.rollback(ck)
	}
	if (!res.ok || res.relaxed) && !x.lastLevel {
		*x.output = append(*x.output, plan{tbl: tbl, target: tgt, gain: res.gain, budget: res.budget, mods: mods})
	}
	return keep
}

// candidates is _get_run_job_ids: jobs on USED slots in order of first
// appearance, then the target job. It also returns the table's stats,
// which the step reads before it changes the table.
//
// The steps read of a candidate other than the target only its workload
// and config (type, count, locality) on the table — and its nodes, if
// chosen — and choose by strict ">" in candidate order: of the jobs with
// the same workload and config only the first can be chosen (see
// htcStep and shrinkStep). With the shortcuts on (and not for arena-ddl,
// whose gains read each job's deadline) the list holds only that first
// job of each (trialKey) group, in the same order: the snapshot's groups
// (snapshotGroups, built once per snapshot) with the table's delta merged
// in, so that an expansion costs the groups and the delta rather than
// every running job.
func (r *round) candidates(tb *table, target sim.JobID) ([]sim.JobID, *statSet) {
	if searchShortcuts && !r.p.variant.Deadline {
		st := r.statsOf(tb, &r.p.statsB, false)
		if ts := st.get(target); ts == nil || ts.firstUsed < 0 {
			return append(r.groupHeads(st), target), st
		}
		// The target holds a USED slot in the table: the plain list.
	}
	st := r.stats(tb, &r.p.statsB)
	out := make([]sim.JobID, 0, len(st.order)+1)
	out = append(out, st.order...)
	return append(out, target), st
}

// groupHead is a candidate of groupHeads: a job, its first USED slot in
// the table and its trial key.
type groupHead struct {
	first int
	id    sim.JobID
	key   int
}

// groupHeads returns, in order of first USED slot, the first job of each
// group of jobs with the same workload and config in st's table (st built
// without order). The list is valid until the next call.
func (r *round) groupHeads(st *statSet) []sim.JobID {
	p := r.p
	snap := st.pinned
	g := r.snapshotGroups(snap, st.base)
	// Groups whose first job the delta left alone keep their place; the
	// others' first untouched job and the jobs the delta touched are
	// sorted apart and merged in.
	main, fix := p.headsA[:0], p.headsB[:0]
	for k := range g.keys {
		members := g.members[g.start[k]:g.start[k+1]]
		for i, m := range members {
			if st.recomputed(m) {
				continue
			}
			h := groupHead{int(st.base.byID[m].firstUsed), m, g.keys[k]}
			if i == 0 {
				main = append(main, h)
			} else {
				fix = append(fix, h)
			}
			break
		}
	}
	for _, o := range st.touched {
		s := &st.byID[o]
		fix = append(fix, groupHead{int(s.firstUsed), o, r.keyOfStat(o, s)})
	}
	slices.SortFunc(fix, func(a, b groupHead) int { return a.first - b.first })
	p.markGen++
	for len(p.keyMark) < len(p.trialKeys) {
		p.keyMark = append(p.keyMark, 0)
	}
	out := p.heads[:0]
	take := func(h groupHead) {
		if p.keyMark[h.key] != p.markGen {
			p.keyMark[h.key] = p.markGen
			out = append(out, h.id)
		}
	}
	i, j := 0, 0
	for i < len(main) || j < len(fix) {
		if j == len(fix) || i < len(main) && main[i].first < fix[j].first {
			take(main[i])
			i++
		} else {
			take(fix[j])
			j++
		}
	}
	p.headsA, p.headsB, p.heads = main, fix, out
	return out
}

// jobGroups are a snapshot's jobs on USED slots grouped by trial key:
// group k (key keys[k]) holds members[start[k]:start[k+1]] in order of
// first USED slot, the groups in order of their first member.
type jobGroups struct {
	gen     uint64
	keys    []int
	start   []int32
	members []sim.JobID
}

// snapshotGroups returns snap's job groups (base its stats), building them
// on first use.
func (r *round) snapshotGroups(snap *snapshot, base *statSet) *jobGroups {
	g := &snap.groups
	if g.gen == snap.gen {
		return g
	}
	p := r.p
	g.gen = snap.gen
	g.keys, g.start = g.keys[:0], g.start[:0]
	p.markGen++
	// First pass: each job's key, the groups in order of first member and
	// their sizes.
	keyOf := p.groupScratch[:0]
	for _, o := range base.order {
		s := &base.byID[o]
		k := r.keyOfStat(o, s)
		for len(p.keyMark) <= k {
			p.keyMark = append(p.keyMark, 0)
		}
		for len(p.keyGroup) <= k {
			p.keyGroup = append(p.keyGroup, 0)
		}
		if p.keyMark[k] != p.markGen {
			p.keyMark[k] = p.markGen
			p.keyGroup[k] = int32(len(g.keys))
			g.keys = append(g.keys, k)
			g.start = append(g.start, 0)
		}
		g.start[p.keyGroup[k]]++
		keyOf = append(keyOf, k)
	}
	p.groupScratch = keyOf
	// Counts to offsets, then the members in order.
	sum := int32(0)
	for k := range g.start {
		c := g.start[k]
		g.start[k] = sum
		sum += c
	}
	g.start = append(g.start, sum)
	if cap(g.members) < int(sum) {
		g.members = make([]sim.JobID, sum)
	}
	g.members = g.members[:sum]
	fill := append(p.groupFill[:0], g.start[:len(g.keys)]...)
	for i, o := range base.order {
		grp := p.keyGroup[keyOf[i]]
		g.members[fill[grp]] = o
		fill[grp]++
	}
	p.groupFill = fill
	return g
}

// statKey is a job's trial key (key) for the stats packed in q (type,
// GPU count and node count, with a mark bit: 0 is no entry).
type statKey struct {
	q   uint32
	key int32
}

// keyOfStat is the trial key of job o with stats s (its workload, and the
// quota the stats give), the one keyOf gives: the key is a function of the
// job and of s's type, GPU count and node count, so it is kept by job ID
// for those (a dense array read in job order, rather than each job's state
// through its pointer, a cache miss per job in snapshotGroups).
func (r *round) keyOfStat(o sim.JobID, s *jobStat) int {
	p := r.p
	q := func() quota {
		return quota{int(s.t), int(s.num), r.localityOf(int(s.t), int(s.num), len(s.nodes))}
	}
	if s.t < 0 || s.t >= 1<<7 || s.num < 0 || s.num >= 1<<12 || len(s.nodes) >= 1<<12 {
		return p.keyOf(p.jobs[o], q())
	}
	packed := 1<<31 | uint32(s.t)<<24 | uint32(s.num)<<12 | uint32(len(s.nodes))
	if int(o) < len(p.statKeys) && p.statKeys[o].q == packed {
		return int(p.statKeys[o].key)
	}
	k := p.keyOf(p.jobs[o], q())
	if int(o) >= len(p.statKeys) {
		p.statKeys = append(p.statKeys, make([]statKey, max(int(o)+1, 2*len(p.statKeys))-len(p.statKeys))...)
	}
	if k < 1<<31-1 {
		p.statKeys[o] = statKey{packed, int32(k)}
	}
	return k
}

// stepResult is what a shrink or type-change step reports.
type stepResult struct {
	ok          bool   // the target job was placed
	tbl         *table // table after the target's migration search
	changed     bool   // a job was shrunk / changed type
	mod         modification
	gain        float64 // plan gain including this step
	migGain     float64 // the target's migration gain
	relaxed     bool
	budget      int // budget after the step (before the target's migration)
	budgetAfter int // budget after the target's migration
}

// shrinkView is what every shrink step of one plan expansion reads of the
// candidates (the plan's table and target are the same for all of them),
// computed once per expansion instead of once per GPU type.
type shrinkView struct {
	// maxAlloc is, per type, the largest slot count of a candidate of that
	// type as the plan's table gives it (−1 if none).
	maxAlloc []int
	// byType lists, per type, the candidates whose config — from the
	// plan's table, else (a job absent from it, not the target) the real
	// table — is of that type, in candidate order.
	byType [][]shrinkCand
}

// shrinkCand is one candidate of a shrinkView: its slot count in the
// plan's table (statNum, which the cut at half the largest reads) and its
// config.
type shrinkCand struct {
	id      sim.JobID
	statNum int
	num     int
	l       loc
	nodes   []int
}

// shrinkCandidates builds the shrink steps' view of cands on a plan's
// table (stats st) for the plan's target tgt: configs are read from the
// table, else from the target's plan copy or the job's quota.
func (r *round) shrinkCandidates(tgt inst, cands []sim.JobID, st *statSet) *shrinkView {
	nt := len(r.p.tp.types)
	sv := &r.shrinkBuf
	sv.maxAlloc = sv.maxAlloc[:0]
	for len(sv.maxAlloc) < nt {
		sv.maxAlloc = append(sv.maxAlloc, -1)
	}
	for len(sv.byType) < nt {
		sv.byType = append(sv.byType, nil)
	}
	for T := range sv.byType {
		sv.byType[T] = sv.byType[T][:0]
	}
	for _, id := range cands {
		ft, fn := tgt.t, tgt.num
		if id != tgt.id {
			q := r.js(id).quota
			ft, fn = q.t, q.num
		}
		t, num, l, nodes := r.statOf(st, id, ft, fn)
		if t >= 0 && t < nt {
			sv.maxAlloc[t] = max(num, sv.maxAlloc[t])
		}
		c := shrinkCand{id: id, statNum: num}
		if id != tgt.id && len(nodes) == 0 {
			q := r.js(id).quota
			t, num, l, nodes = r.rtStat(r.real, id, q.t, q.num)
		}
		if t < 0 || t >= nt {
			continue
		}
		c.num, c.l, c.nodes = num, l, nodes
		sv.byType[t] = append(sv.byType[t], c)
	}
	return sv
}

// shrinkStep is _shrink_one_job_and_migration_search for GPU type T: halve
// the job of type T with the best throughput change among those holding
// at least half the largest count (shrinkMove); then, if T is the target's
// type, run the target's migration search on a copy. sv is the plan's
// candidates (shrinkCandidates).
func (r *round) shrinkStep(tgt *inst, T int, sv *shrinkView, st *statSet, tb *table, gain float64, budget, local int) stepResult {
	targetType, _, _, _ := r.statOf(st, tgt.id, tgt.t, tgt.num)
	res := r.shrinkMove(tgt, T, sv, st, tb, gain, budget)
	if !res.changed || T != targetType {
		return res // only makes room for a later type change of another job
	}
	return r.targetMigrated(tgt, res, r.clone(res.tbl), local, false)
}

// shrinkMove is shrinkStep's change of tb: the chosen job halved (and
// tgt's count, if it is the target), gain the plan's gain with it; the
// target's migration is left to the caller.
func (r *round) shrinkMove(tgt *inst, T int, sv *shrinkView, st *statSet, tb *table, gain float64, budget int) stepResult {
	maxAlloc := sv.maxAlloc[T]
	maxGain := infeasibleThr - 1
	chosen := empty
	var prevLoc, newLoc loc
	var prevNodes []int
	newNum := 0
	for _, c := range sv.byType[T] {
		id, num, l, nodes := c.id, c.num, c.l, c.nodes
		if c.statNum < floorDiv(maxAlloc, 2) || num == 1 {
			continue
		}
		if num%2 != 0 || l.nodes > 2 && l.nodes%2 != 0 {
			continue // no even half (a power-of-two job always has one)
		}
		nn := num / 2
		nl := loc{1, nn}
		if l.nodes > 2 {
			nl = loc{l.nodes / 2, l.per}
		}
		g := r.gain(r.registered(id), T, nl, T, l)
		if g > maxGain {
			maxGain, chosen = g, id
			prevLoc, newLoc, newNum, prevNodes = l, nl, nn, nodes
		}
	}
	if chosen == empty {
		return stepResult{tbl: tb, gain: gain, migGain: infeasibleThr, budget: budget, budgetAfter: budget}
	}
	gain += maxGain
	if chosen != tgt.id {
		shrinkInTable(tb, prevNodes, prevLoc, chosen, newNum)
	} else {
		tgt.num = newNum
		if len(prevNodes) > 0 {
			shrinkInTable(tb, prevNodes, prevLoc, chosen, newNum)
		}
	}
	return stepResult{tbl: tb, changed: true, mod: modification{chosen, T, newLoc}, gain: gain, migGain: infeasibleThr, budget: budget, budgetAfter: budget}
}

// targetMigrated ends a step (res) with the target's migration search on
// src (res.tbl or a copy of it): res with the search's outcome and table,
// and the config the step's changed job ends up with there (read from the
// table, or from the plan's target / the registered job); a type-change
// step (htc) takes the changed job's type from there too.
func (r *round) targetMigrated(tgt *inst, res stepResult, src *table, local int, htc bool) stepResult {
	m := r.migrationSearch(*tgt, src, res.budget, local, true)
	changed := res.mod.id
	ft, fn := tgt.t, tgt.num
	if changed != tgt.id {
		q := r.js(changed).quota
		ft, fn = q.t, q.num
	}
	t, _, l := r.rtConfig(m.tbl, changed, ft, fn)
	res.ok, res.tbl, res.migGain, res.relaxed, res.budgetAfter = m.ok, m.tbl, m.gain, m.relaxed, m.budget
	res.mod.l = l
	if htc {
		res.mod.t = t
	}
	return res
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// shrinkInTable is _update_crs_table_after_job_shrink: a single-node job
// keeps its first newNum slots on the node; a multi-node job is removed
// from the half of its nodes with the fewest idle GPUs (stable order).
func shrinkInTable(tb *table, nodes []int, prev loc, id sim.JobID, newNum int) {
	if prev.nodes == 1 {
		lo, hi := tb.slots(nodes[0])
		cnt := 0
		for s := lo; s < hi; s++ {
			if tb.occ[s] == id {
				cnt++
				if cnt > newNum {
					tb.idle(s)
				}
			}
		}
		return
	}
	sorted := append([]int(nil), nodes...)
	for i := 1; i < len(sorted); i++ {
		x := sorted[i]
		j := i
		for j > 0 && tb.free[sorted[j-1]] > tb.free[x] {
			sorted[j] = sorted[j-1]
			j--
		}
		sorted[j] = x
	}
	for _, n := range sorted[:len(sorted)/2] {
		lo, hi := tb.slots(n)
		for s := lo; s < hi; s++ {
			if tb.occ[s] == id {
				tb.idle(s)
			}
		}
	}
}

// htcStep is _htc_one_job_and_migration_search: move one job of the
// target's GPU type to another type with enough idle GPUs (htcMove), then
// run the target's migration search on a copy.
func (r *round) htcStep(tgt *inst, cands []sim.JobID, st *statSet, tb *table, gain float64, budget, local int) stepResult {
	res := r.htcMove(tgt, cands, st, tb, gain, budget, local)
	if !res.changed {
		return res
	}
	return r.targetMigrated(tgt, res, r.clone(res.tbl), local, true)
}

// htcMove is htcStep's change of tb: the chosen job moved (its migration
// search runs on tb; res.tbl is the table it ended on) or, if it is the
// target, tgt re-typed and its slots cleared; the target's migration is
// left to the caller.
//
// Selection quirk kept: the target job's options are compared by the type
// change gain alone and other jobs' by gain + migration gain, each against
// its own maximum, into one selection; so any feasible change of the target
// (the last candidate) wins. Candidates' configs, the target's included, are
// read from the table or else from the registered job (so an earlier shrink
// of an unplaced target in this plan is ignored, and undone).
func (r *round) htcMove(tgt *inst, cands []sim.JobID, st *statSet, tb *table, gain float64, budget, local int) stepResult {
	targetType, _, _, _ := r.statOf(st, tgt.id, tgt.t, tgt.num)
	maxGain, maxGainMig := infeasibleThr, infeasibleThr
	chosen := empty
	var prevNum, newType int
	var prevNodes []int
	newBudget := 0
	// Two candidates other than the target with the same workload and
	// config (type, count, locality) on the table have the same trials:
	// each gain reads the workload's throughputs and the config, and each
	// migration search the new type's slots, which neither holds. So the
	// later of the two can never be chosen (strict ">"), and its trials
	// are skipped (not for arena-ddl, whose gains read each job's
	// deadline).
	group := searchShortcuts && !r.p.variant.Deadline
	if group {
		r.p.seenGen++
	}
	for _, id := range cands {
		js := r.js(id)
		q := js.quota
		pt, num, l, nodes := r.statOf(st, id, q.t, q.num)
		if pt != targetType {
			continue
		}
		if group && id != tgt.id && len(nodes) > 0 {
			k := r.p.keyOf(js, quota{pt, num, l})
			for len(r.p.seen) <= k {
				r.p.seen = append(r.p.seen, 0)
			}
			if r.p.seen[k] == r.p.seenGen {
				continue
			}
			r.p.seen[k] = r.p.seenGen
		}
		job := r.registered(id) // the artifact's deep copy of the registered job
		key := -1
		if group {
			key = r.p.keyOf(js, quota{pt, num, l})
		}
		for U := range r.p.tp.types {
			if U == targetType || tb.freeOfType(U) < num {
				continue
			}
			g, m := r.typeChange(&job, U, num, tb, budget, local, pt, l, nodes, key)
			gm := g + m.gain
			if ((g > maxGain && id == tgt.id) || (gm > maxGainMig && id != tgt.id)) && m.ok {
				if id == tgt.id {
					maxGain = g
				} else {
					maxGainMig = gm
				}
				chosen = id
				prevNum, prevNodes = num, nodes
				newType = U
				newBudget = m.budget
			}
		}
	}
	if chosen == empty {
		return stepResult{tbl: tb, gain: gain, migGain: infeasibleThr, budget: budget, budgetAfter: budget}
	}
	if chosen != tgt.id {
		job := r.registered(chosen)
		job.t, job.num = newType, prevNum
		m := r.migrationSearch(job, tb, budget, local, true)
		tb = m.tbl
		gain += maxGainMig
		budget = newBudget
	} else {
		tgt.t, tgt.num = newType, prevNum
		if len(prevNodes) > 0 {
			r.clearPlacement(tb, chosen)
		}
		gain += maxGain
	}
	return stepResult{tbl: tb, changed: true, mod: modification{id: chosen}, gain: gain, migGain: infeasibleThr, budget: budget, budgetAfter: budget}
}

// typeChange is one type-change trial of htcMove: the gain of moving job
// (on type pt at locality l over nodes in tb, none if nodes is empty) to
// type U at its best locality, and the migration search's outcome there
// (typeChangeTrial); job takes type U and count num after the gain is read,
// as in the artifact's loop (only arena-ddl's deadline check reads the
// count). With key ≥ 0 (job's trial key: not for arena-ddl) the round's
// memo (htcMemo) keeps what the trial reads of the job alone — the gain,
// the best locality's feasibility and the direct placement's gain — and
// the outcome for tb's version of type U's slots.
func (r *round) typeChange(job *inst, U, num int, tb *table, budget, local, pt int, l loc, nodes []int, key int) (float64, migration) {
	if key < 0 || U >= len(tb.tver) {
		g := r.gain(*job, U, r.p.bestLocality(U, num), pt, l)
		job.t, job.num = U, num
		return g, r.typeChangeTrial(*job, tb, budget, local, pt, l, nodes)
	}
	m := &r.p.htc
	o := m.entry(r, key, len(nodes) > 0, U)
	if o.gen != m.gen {
		best := r.p.bestLocality(U, num)
		g := r.gain(*job, U, best, pt, l)
		j := inst{id: job.id, t: U, num: num}
		*o = htcOutcome{gen: m.gen, g: g, feasBest: r.feasible(j, U, best)} // ver 0: no outcome yet
		if o.feasBest {
			o.gainDirect = r.gainNew(j, U, best) - r.prevGain(j, pt, l, nodes)
		}
	}
	job.t, job.num = U, num
	upper, ver := min(budget, local), tb.tver[U]
	if o.ver != ver || o.upper != upper {
		res := r.memoTrial(o, *job, tb, budget, local, pt, l, nodes)
		o.ver, o.upper, o.ok, o.gain, o.used = ver, upper, res.ok, res.gain, budget-res.budget
	}
	if checkHTCMemo {
		r.checkTypeChange(*o, *job, tb, budget, local, pt, l, nodes)
	}
	return o.g, migration{ok: o.ok, gain: o.gain, budget: budget - o.used, tbl: tb}
}

// memoTrial is typeChangeTrial for a trial whose job-only reads o holds:
// the best locality's feasibility and, for a direct placement (roomFit),
// its gain.
func (r *round) memoTrial(o *htcOutcome, job inst, tb *table, budget, local, pt int, l loc, nodes []int) migration {
	if !o.feasBest {
		return migration{gain: infeasibleThr, budget: budget, tbl: tb}
	}
	if ok, known := r.roomFit(tb, job.t, job.num); known && ok {
		return migration{ok: true, gain: o.gainDirect, budget: budget, tbl: tb}
	}
	return r.shapedTrial(job, tb, budget, local, pt, l, nodes)
}

// htcMemo holds the outcomes of htcMove's type-change trials within one
// round (Policy.htc), by trial key, whether the job holds slots, and new
// type U. A trial reads of the table only type U's slots: the job holds
// none there (each job holds one type), the migration search and the
// direct-fit test read only U's nodes and the jobs on them, and clearing
// the job's own slots (of its type) changes none of U's. It reads of the
// job only its workload and config, which the key is (the gain of leaving
// the slots it holds, if any, as the flag tells), and of the budget only
// the pass limit min(budget, local): what a search leaves is what it had
// less what it used. So an outcome holds for any table with the same
// version of U's slots (table.tver) and the same pass limit: across the
// steps and plans of one search, whose tables share the versions of the
// types their changes left alone, and across the arrivals of a round
// while type U's slots stand, and across rounds: a table's versions
// identify its content for the whole run (a loaded table takes new ones).
// Only faults bound it to a round: the nodes they block are the round's,
// so a round with faults, and the first round after one, start afresh.
// Not for arena-ddl, whose feasibility reads each job's deadline and
// progress.
type htcMemo struct {
	r      *round // the round the memo last served
	faulty bool   // r's view had faults (blocked nodes)
	gen    uint64 // the entries that hold are those with this gen
	types  int
	out    []htcOutcome
	// shapes are the migration searches' shapes (searchShape), emptied
	// when gen moves.
	shapes map[shapeKey]searchEnd
}

// htcOutcome is one type-change trial's result and what it was computed
// from: what it reads of the job alone (for the memo's generation gen),
// and its outcome for type U's slots' version ver (0: none yet).
type htcOutcome struct {
	gen        uint64
	g          float64 // the type change's gain
	feasBest   bool    // the best locality on U is feasible
	gainDirect float64 // the migration's gain if placed directly
	ver        uint64
	upper      int // the pass limit
	used       int // the budget the search used
	ok         bool
	gain       float64 // the migration's gain
}

// sync starts a new generation of the memo where round r needs one.
func (m *htcMemo) sync(r *round) {
	nt := len(r.p.tp.types)
	moved := m.gen == 0 // a zero entry never holds
	if m.r != r {
		faulty := r.v.Nodes != nil
		moved = moved || faulty || m.faulty
		m.r, m.faulty = r, faulty
	}
	if m.types != nt {
		m.out = m.out[:0] // laid out for another number of types
		m.types = nt
		moved = true
	}
	if moved {
		m.gen++
		if m.shapes == nil {
			m.shapes = map[shapeKey]searchEnd{}
		}
		clear(m.shapes)
	}
}

// entry is the outcome slot of (key, placed, U) for round r.
func (m *htcMemo) entry(r *round, key int, placed bool, U int) *htcOutcome {
	m.sync(r)
	nt := m.types
	i := 2 * key
	if placed {
		i++
	}
	i = i*nt + U
	if i >= len(m.out) {
		m.out = append(m.out, make([]htcOutcome, max(i+1, 2*len(m.out))-len(m.out))...)
	}
	return &m.out[i]
}

// checkHTCMemo makes every trial outcome htcMemo holds, and every one
// told from a search's shape, run the search and compare (for the test;
// runs may be concurrent).
var (
	checkHTCMemo                   bool
	htcMemoChecks, htcMemoMismatch atomic.Int64
)

// checkTypeChange is checkHTCMemo's comparison of a held outcome o with
// the trial run afresh.
func (r *round) checkTypeChange(o htcOutcome, job inst, tb *table, budget, local, pt int, l loc, nodes []int) {
	g := r.gain(inst{id: job.id, t: pt, num: job.num}, job.t, r.p.bestLocality(job.t, job.num), pt, l)
	r.checkTrial(migration{ok: o.ok, gain: o.gain, budget: budget - o.used}, job, tb, budget, local, nodes, g == o.g)
}

// checkTrial is checkHTCMemo's comparison of a trial's outcome m, told
// without its search, with the search run (literalTrial); same says
// whether what else the caller compared agreed.
func (r *round) checkTrial(m migration, job inst, tb *table, budget, local int, nodes []int, same bool) {
	lit := r.literalTrial(job, tb, budget, local, nodes)
	htcMemoChecks.Add(1)
	if !same || lit.ok != m.ok || lit.ok && lit.gain != m.gain || lit.budget != m.budget {
		htcMemoMismatch.Add(1)
	}
}

// typeChangeTrial is the migration search of htcStep's trial: job (on
// type pt at locality l over nodes in tb, none if nodes is empty) placed
// on its new type. The search runs on tb and is undone (the artifact runs
// it on a copy; an aborted RHD pair's table is released) unless directFit
// tells its outcome: then nobody moves, and the gain is the best
// locality's throughput less that of the job's slots, as the search
// prices them; or else the search's shape does (shapedTrial). The gain of
// a trial that fails is never read.
func (r *round) typeChangeTrial(job inst, tb *table, budget, local, pt int, l loc, nodes []int) migration {
	if searchShortcuts {
		switch ok, known := r.directFit(tb, job); {
		case known && !ok:
			return migration{gain: infeasibleThr, budget: budget, tbl: tb}
		case known:
			return migration{ok: true, gain: r.gainNew(job, job.t, r.p.bestLocality(job.t, job.num)) - r.prevGain(job, pt, l, nodes), budget: budget, tbl: tb}
		case job.t < len(tb.tver):
			m := r.shapedTrial(job, tb, budget, local, pt, l, nodes)
			if checkHTCMemo {
				r.checkTrial(m, job, tb, budget, local, nodes, true)
			}
			return m
		}
	}
	return r.literalTrial(job, tb, budget, local, nodes)
}

// literalTrial is typeChangeTrial's search run on tb and undone.
func (r *round) literalTrial(job inst, tb *table, budget, local int, nodes []int) migration {
	mark := r.p.pool.mark()
	ck := tb.checkpoint()
	m := r.migrationSearchOn(job, tb, budget, local, true, nodes, true)
	tb.rollback(ck)
	r.p.pool.release(mark, nil)
	return m
}

// prevGain is what a trial's migration search prices the job's slots at
// (type pt, locality l over nodes; 0 without slots).
func (r *round) prevGain(job inst, pt int, l loc, nodes []int) float64 {
	if len(nodes) == 0 {
		return 0
	}
	return r.gainNew(job, pt, l)
}

// shapedTrial is a type-change trial told from the shape of its search
// (searchShape: the search with every locality feasible, which reads of
// the job only its type and count) and the job's feasibilities: the
// search fails where the best locality is infeasible; else it places the
// job where the shape did, at the best locality, or, relaxed, at the
// first locality of the halving with room, unless a locality before it or
// it is infeasible, where the search stops. The gain is then the
// placement's throughput less that of the job's slots, as the search
// prices them.
func (r *round) shapedTrial(job inst, tb *table, budget, local, pt int, l loc, nodes []int) migration {
	U, n := job.t, job.num
	fail := migration{gain: infeasibleThr, budget: budget, tbl: tb}
	if !r.feasible(job, U, r.p.bestLocality(U, n)) {
		return fail
	}
	sh := r.searchShape(job, tb, budget, local)
	if !sh.ok {
		return fail
	}
	placed := migration{ok: true, relaxed: sh.relaxed, budget: budget - sh.used, tbl: tb}
	if !sh.relaxed {
		placed.gain = r.gainNew(job, U, sh.l) - r.prevGain(job, pt, l, nodes)
		return placed
	}
	capacity := r.p.tp.typeCap[U]
	for q := n; q > 1; {
		q /= 2
		if q > capacity || n%q != 0 {
			continue // as relaxedLocality
		}
		lq := loc{n / q, q}
		if !r.feasible(job, U, lq) {
			return fail
		}
		if lq == sh.l {
			placed.gain = r.gainNew(job, U, lq) - r.prevGain(job, pt, l, nodes)
			return placed
		}
	}
	return fail
}

// searchShape is the shape of job's migration search on its type U in tb
// (placeSearch with every locality feasible, run on tb and undone), from
// the memo (htcMemo.shapes) when it holds one for U, the job's count, the
// pass limit min(budget, local) and tb's version of U's slots: the search
// reads nothing else (the job holds no slot of U, so its ID meets nothing
// there), and jobs of every workload share it.
func (r *round) searchShape(job inst, tb *table, budget, local int) searchEnd {
	m := &r.p.htc
	m.sync(r)
	k := shapeKey{t: job.t, n: job.num, upper: min(budget, local), ver: tb.tver[job.t]}
	if sh, ok := m.shapes[k]; ok {
		return sh
	}
	mark := r.p.pool.mark()
	ck := tb.checkpoint()
	sh := r.placeSearch(job, job.t, job.num, tb, budget, local, true)
	tb.rollback(ck)
	r.p.pool.release(mark, nil)
	sh.tbl = nil
	if len(m.shapes) >= maxShapes {
		clear(m.shapes) // a memo, not a model: dropping entries changes nothing
	}
	m.shapes[k] = sh
	return sh
}

// shapeKey is what a search's shape is a function of (searchShape).
type shapeKey struct {
	t, n, upper int
	ver         uint64
}

// maxShapes bounds the shapes htcMemo keeps.
const maxShapes = 1 << 14

// modificationCheck is _is_no_infeasible_job: walking the modifications in
// order, an infeasible config puts its job on a "bad" list unless already
// there; anything else takes it off. The plan passes if the list ends empty.
func (r *round) modificationCheck(mods []modification) bool {
	var bad []sim.JobID
	for _, m := range mods {
		f := r.feasible(r.registered(m.id), m.t, m.l)
		k := indexOf(bad, m.id)
		if !f && k < 0 {
			bad = append(bad, m.id)
		} else if k >= 0 {
			bad = append(bad[:k], bad[k+1:]...)
		}
	}
	return len(bad) == 0
}

// checkDowngrade makes every downgrade search (fast form) run the literal
// form too and compare: the fast plans must be the literal list's plans
// that beat every plan before them, gain, budget, target, modifications
// and table content alike (for the test; runs may be concurrent).
var (
	checkDowngrade                       bool
	downgradeChecks, downgradeMismatches atomic.Int64
)

// checkDowngradeSearch is checkDowngrade's comparison of plans, the fast
// form's result of the search on (target, tb, ...).
func (r *round) checkDowngradeSearch(plans []plan, target inst, tb *table, depth, budget, local int) {
	full := r.downgradeSearchIn(target, tb, depth, budget, local, false)
	var want []plan
	best := math.Inf(-1)
	for _, p := range full {
		if p.gain > best {
			best = p.gain
			want = append(want, p)
		}
	}
	downgradeChecks.Add(1)
	same := len(want) == len(plans)
	for i := 0; same && i < len(want); i++ {
		a, b := want[i], plans[i]
		same = a.gain == b.gain && a.budget == b.budget && a.target == b.target && slices.Equal(a.mods, b.mods) &&
			slices.Equal(a.tbl.occ, b.tbl.occ) && slices.Equal(a.tbl.used, b.tbl.used) && slices.Equal(a.tbl.free, b.tbl.free)
	}
	if !same {
		downgradeMismatches.Add(1)
	}
}
