package arena

import (
	"slices"

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
func (r *round) downgradeSearch(target inst, tb *table, depth, budget, local int) []plan {
	var feasible []plan
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
			lastLevel := level == depth
			r.expandPlan(p, target.id, local, &feasible, &output, lastLevel)
		}
		input = append(input, output...)
	}
	return feasible
}

// expandPlan runs, on plan p, one shrink step per GPU type and one
// type-change step, recording feasible plans and plans to expand further.
func (r *round) expandPlan(p plan, targetID sim.JobID, local int, feasible, output *[]plan, lastLevel bool) {
	v := r.p.variant
	// Every step starts from a fresh copy of p's table, so the candidate
	// list and the table's job stats are the same for all of them.
	cands, st := r.candidates(p.tbl, targetID)
	var sv *shrinkView
	if !v.NoScaling {
		sv = r.shrinkCandidates(p.target, cands, st)
	}
	for T := range r.p.tp.types {
		if v.NoScaling || len(r.p.tp.nodesOfType[T]) == 0 {
			continue // shrink is off, or the type is absent (_is_type_existed)
		}
		tbl := r.clone(p.tbl)
		tgt := p.target
		res := r.shrinkStep(&tgt, T, sv, st, tbl, p.gain, p.budget, local)
		if !res.changed {
			continue
		}
		mods := append(append([]modification(nil), p.mods...), res.mod)
		if res.ok && r.modificationCheck(mods) {
			*feasible = append(*feasible, plan{tbl: res.tbl, target: tgt, gain: res.gain + res.migGain, budget: res.budgetAfter, mods: mods})
		}
		if (!res.ok || res.relaxed) && !lastLevel {
			*output = append(*output, plan{tbl: tbl, target: tgt, gain: res.gain, budget: p.budget, mods: mods})
		}
	}
	if v.NoTypeChange {
		return
	}
	tbl := r.clone(p.tbl)
	tgt := p.target
	res := r.htcStep(&tgt, cands, st, tbl, p.gain, p.budget, local)
	if !res.changed {
		return
	}
	mods := append(append([]modification(nil), p.mods...), res.mod)
	if res.ok && r.modificationCheck(mods) {
		*feasible = append(*feasible, plan{tbl: res.tbl, target: tgt, gain: res.gain + res.migGain, budget: res.budgetAfter, mods: mods})
	}
	if (!res.ok || res.relaxed) && !lastLevel {
		// tbl is the object the step worked on: after an aborted RHD pair it
		// holds the half-done state, as in the artifact.
		*output = append(*output, plan{tbl: tbl, target: tgt, gain: res.gain, budget: res.budget, mods: mods})
	}
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
		fix = append(fix, groupHead{int(s.firstUsed), o, p.keyOf(p.jobs[o], quota{int(s.t), int(s.num), r.localityOf(int(s.t), int(s.num), len(s.nodes))})})
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
		k := p.keyOf(p.jobs[o], quota{int(s.t), int(s.num), r.localityOf(int(s.t), int(s.num), len(s.nodes))})
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
// at least half the largest count; then, if T is the target's type, run
// the target's migration search on a copy. sv is the plan's candidates
// (shrinkCandidates).
func (r *round) shrinkStep(tgt *inst, T int, sv *shrinkView, st *statSet, tb *table, gain float64, budget, local int) stepResult {
	targetType, _, _, _ := r.statOf(st, tgt.id, tgt.t, tgt.num)
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
	if T != targetType {
		// Only makes room for a later type change of another job.
		return stepResult{tbl: tb, changed: true, mod: modification{chosen, T, newLoc}, gain: gain, migGain: infeasibleThr, budget: budget, budgetAfter: budget}
	}
	m, _, l := r.migrateTarget(tgt, tb, chosen, budget, local)
	return stepResult{ok: m.ok, tbl: m.tbl, changed: true, mod: modification{chosen, T, l}, gain: gain, migGain: m.gain, relaxed: m.relaxed, budget: budget, budgetAfter: m.budget}
}

// migrateTarget ends a step: the target's migration search on a copy of
// tb, and the config the step's changed job ends up with there (read from
// the table, or from the plan's target / the registered job).
func (r *round) migrateTarget(tgt *inst, tb *table, changed sim.JobID, budget, local int) (migration, int, loc) {
	m := r.migrationSearch(*tgt, r.clone(tb), budget, local, true)
	ft, fn := tgt.t, tgt.num
	if changed != tgt.id {
		q := r.js(changed).quota
		ft, fn = q.t, q.num
	}
	t, _, l := r.rtConfig(m.tbl, changed, ft, fn)
	return m, t, l
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
// target's GPU type to another type with enough idle GPUs, then run the
// target's migration search on a copy.
//
// Selection quirk kept: the target job's options are compared by the type
// change gain alone and other jobs' by gain + migration gain, each against
// its own maximum, into one selection; so any feasible change of the target
// (the last candidate) wins. Candidates' configs, the target's included, are
// read from the table or else from the registered job (so an earlier shrink
// of an unplaced target in this plan is ignored, and undone).
func (r *round) htcStep(tgt *inst, cands []sim.JobID, st *statSet, tb *table, gain float64, budget, local int) stepResult {
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
		for U := range r.p.tp.types {
			if U == targetType || tb.freeOfType(U) < num {
				continue
			}
			nl := r.p.bestLocality(U, num)
			g := r.gain(job, U, nl, pt, l)
			job.t, job.num = U, num
			m := r.typeChangeTrial(job, tb, budget, local, pt, l, nodes)
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
	m, t, l := r.migrateTarget(tgt, tb, chosen, budget, local)
	return stepResult{ok: m.ok, tbl: m.tbl, changed: true, mod: modification{chosen, t, l}, gain: gain, migGain: m.gain, relaxed: m.relaxed, budget: budget, budgetAfter: m.budget}
}

// typeChangeTrial is the migration search of htcStep's trial: job (on
// type pt at locality l over nodes in tb, none if nodes is empty) placed
// on its new type. The search runs on tb and is undone (the artifact runs
// it on a copy; an aborted RHD pair's table is released) unless directFit
// tells its outcome: then nobody moves, and the gain is the best
// locality's throughput less that of the job's slots, as the search
// prices them.
func (r *round) typeChangeTrial(job inst, tb *table, budget, local, pt int, l loc, nodes []int) migration {
	if searchShortcuts {
		switch ok, known := r.directFit(tb, job); {
		case known && !ok:
			return migration{gain: infeasibleThr, budget: budget, tbl: tb}
		case known:
			prev := 0.0
			if len(nodes) > 0 {
				prev = r.gainNew(job, pt, l)
			}
			return migration{ok: true, gain: r.gainNew(job, job.t, r.p.bestLocality(job.t, job.num)) - prev, budget: budget, tbl: tb}
		}
	}
	mark := r.p.pool.mark()
	ck := tb.checkpoint()
	m := r.migrationSearchOn(job, tb, budget, local, true, nodes, true)
	tb.rollback(ck)
	r.p.pool.release(mark, nil)
	return m
}

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
