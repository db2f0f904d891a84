package arena

import (
	"slices"
	"sync/atomic"

	"github.com/arena-sim/arena/sim"
)

// optimizeRunningJobs is _optimize_running_jobs, the departure path:
// release the ended jobs and fix the decision queue, introspective
// migration, the pending-jobs restart trial, the upgrade trial (only when
// no job arrived this round) and the node-swap fix-up against the table as
// it was before the release.
func (r *round) optimizeRunningJobs(upgrade bool) error {
	before := r.beforeRelease()
	if err := r.releaseEnded(); err != nil {
		return err
	}
	if err := r.introspectiveMigration(); err != nil {
		return err
	}
	if err := r.restartTrial(); err != nil {
		return err
	}
	if upgrade {
		r.upgradeTrial()
	}
	r.nodeSwapFixup(before)
	return nil
}

// beforeRelease is the table as it was before the engine released the
// ended jobs' GPUs (View.BeforeRelease). It differs from the round's table
// only on those slots, so it is a copy of the real table (a delta against
// its snapshot) with them written back: the fix-up's stats of it are the
// snapshot's and the ended jobs' slots, not a new snapshot's index and a
// scan of every slot, once per round. The slot pass compares the two
// occupant lists without looking anything up.
func (r *round) beforeRelease() *table {
	if !searchShortcuts || len(r.v.BeforeRelease) != len(r.real.occ) {
		return r.tableOf(r.v.BeforeRelease)
	}
	t := r.clone(r.real)
	for s, o := range r.v.BeforeRelease {
		// What table.load would write: USED wherever there is an occupant.
		if used := o != empty; t.occ[s] != o || t.used[s] != used {
			t.set(s, o, used)
		}
	}
	return t
}

// releaseEnded is the decision-queue part of
// _release_resources_and_update_decision_queue (the engine has already
// released the GPUs): an ended opportunistic job leaves the decision queue,
// and if no opportunistic job remains below it, the blockers above it (up
// to the previous opportunistic job) become vanilla pending jobs.
func (r *round) releaseEnded() error {
	for _, j := range r.v.Ended {
		js := r.js(j.Spec.ID)
		k := indexOf(r.p.decision, js.id)
		if !js.opp || k < 0 {
			continue
		}
		if err := r.untagAbove(k); err != nil {
			return err
		}
		r.p.decision = removeID(r.p.decision, js.id)
	}
	return nil
}

// requeue puts a job a cluster event interrupted (faults; it is in the
// pending queue) at the decision queue's end as a vanilla pending job, as
// an arrival that does not fit joins it. An opportunistic job leaves its
// place first, as an ended one does (releaseEnded).
func (r *round) requeue(id sim.JobID) error {
	js := r.js(id)
	if k := indexOf(r.p.decision, id); k >= 0 {
		if js.opp {
			if err := r.untagAbove(k); err != nil {
				return err
			}
		}
		r.p.decision = removeID(r.p.decision, id)
	}
	js.opp, js.blocker = false, false
	r.p.decision = append(r.p.decision, id)
	return nil
}

// untagAbove clears the blocker flags above decision-queue position k when
// no opportunistic job follows k.
func (r *round) untagAbove(k int) error {
	dq := r.p.decision
	for i := k + 1; i < len(dq); i++ {
		if r.js(dq[i]).opp {
			return nil
		}
	}
	for i := k - 1; i >= 0; i-- {
		x := r.js(dq[i])
		switch {
		case x.blocker:
			x.blocker = false
		case x.opp:
			return nil
		default:
			return errorf("decision queue: vanilla pending job %s above opportunistic job %s", r.v.Job(x.id).Spec.Alias(), r.v.Job(dq[k]).Spec.Alias())
		}
	}
	return nil
}

// introspectiveMigration is _introspective_migration_search: for running
// jobs spread over several partly used nodes, look for a migration to a
// better locality in a table where every other idle GPU is taken by a fake
// job (so only the job's own GPUs are bubbles); apply the best positive
// gain, and repeat until nothing improves.
func (r *round) introspectiveMigration() error {
	var cands []sim.JobID
	for _, id := range r.running {
		q := r.js(id).quota
		if q.loc.nodes > 1 && q.loc != r.p.bestLocality(q.t, q.num) {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	budget := globalMigrationEta
	for {
		mark := r.p.pool.mark()
		maxGain := infeasibleThr
		best := empty
		var bestTbl *table
		bestBudget := 0
		for _, id := range cands {
			js := r.js(id)
			self := inst{id: id, t: js.quota.t, num: js.quota.num}
			tbl := r.clone(r.real)
			pt, pn, pl := r.rtConfig(tbl, id, self.t, self.num)
			if pl == r.p.bestLocality(pt, pn) {
				continue
			}
			recolorAsBubbles(tbl, id)
			m := r.migrationSearch(self, tbl, budget, localMigrationEta, false)
			if !m.ok {
				// The artifact asserts a placement is always found.
				r.assertionFailed()
				continue
			}
			tbl = m.tbl
			if err := restoreRecolored(tbl); err != nil {
				// The artifact asserts no bubble is left.
				r.assertionFailed()
				continue
			}
			nt, _, nl := r.rtConfig(tbl, id, self.t, self.num)
			g := r.gain(self, nt, nl, pt, pl)
			if g > 0 && g > maxGain {
				maxGain, best, bestTbl, bestBudget = g, id, tbl, m.budget
			}
		}
		r.p.pool.release(mark, bestTbl)
		if best == empty {
			return nil
		}
		r.real = bestTbl
		r.refreshQuotas()
		cands = removeID(cands, best)
		budget = bestBudget
	}
}

// recolorAsBubbles is _recolor_with_occupied_resources_as_bubbles: every
// idle slot not the job's becomes USED by the fake job of its type, and the
// job's own slots become idle.
func recolorAsBubbles(tb *table, id sim.JobID) {
	tp := tb.tp
	for s, o := range tb.occ {
		if o != id {
			if !tb.used[s] {
				tb.set(s, fakeOf(tp.nodeType[tp.slotNode[s]]), true)
			}
		} else {
			tb.idle(s)
		}
	}
}

// restoreRecolored is _restore_recolored_resources; like the artifact it
// insists that no bubble is left.
func restoreRecolored(tb *table) error {
	tp := tb.tp
	for s, o := range tb.occ {
		if !tb.used[s] {
			return errorf("slot %d left idle after the migration", s)
		}
		if o == fakeOf(tp.nodeType[tp.slotNode[s]]) {
			tb.idle(s)
		}
	}
	return nil
}

// reservedTable is _get_reserved_resources: the real table, plus, for a
// blocker, the GPUs of the opportunistic jobs below it (until the first
// vanilla pending job) marked idle while keeping their occupant.
func (r *round) reservedTable(id sim.JobID) *table {
	tb := r.clone(r.real)
	js := r.js(id)
	if !js.blocker {
		return tb
	}
	dq := r.p.decision
	k := indexOf(dq, id)
	var opp []sim.JobID
	for i := k + 1; i < len(dq); i++ {
		x := r.js(dq[i])
		if !x.blocker && !x.opp {
			break
		}
		if x.opp && r.isRunning(x.id) {
			opp = append(opp, x.id)
		}
	}
	if len(opp) == 0 {
		return tb
	}
	for s, o := range tb.occ {
		if o >= 0 && containsID(opp, o) {
			tb.set(s, o, false)
		}
	}
	return tb
}

func containsID(q []sim.JobID, id sim.JobID) bool { return indexOf(q, id) >= 0 }

func (r *round) isRunning(id sim.JobID) bool { return r.p.isRunning(id) }

// restartTrial is _pending_jobs_restart_trial: up to 100 passes, each
// walking the decision queue from the last restart's index with a fresh
// migration budget, skipping opportunistic jobs and (model, batch) pairs
// that already failed in the pass; the first job that fits restarts, the
// opportunistic jobs whose GPUs it takes are suspended, and a new pass
// begins.
func (r *round) restartTrial() error {
	if len(r.pending) == 0 {
		return nil
	}
	v := r.p.variant
	found, start := true, 0
	for pass := 0; found && pass < maxRestartPasses; pass++ {
		if len(r.pending) == 0 {
			break
		}
		found = false
		budget := globalMigrationEta
		var blockedTypes []int
		failed := map[workloadKey]bool{}
		dq := append([]sim.JobID(nil), r.p.decision...)
		for i, id := range dq {
			if i < start {
				continue
			}
			js := r.js(id)
			if v.Deadline && r.p.timedOut[id] {
				continue
			}
			w := r.p.workloads[js.wi]
			key := workloadKey{w.Model.ArtifactName(), w.Batch}
			if failed[key] {
				continue
			}
			if js.opp {
				continue
			}
			if v.NoOpportunistic && containsInt(blockedTypes, js.quota.t) {
				continue
			}
			mark := r.p.pool.mark()
			tbl := r.reservedTable(id)
			ok, decision, _ := r.fitOneJob(tbl, r.registered(id), budget, localMigrationEta)
			r.p.pool.release(mark, decision)
			if !ok {
				if v.NoOpportunistic {
					blockedTypes = append(blockedTypes, js.quota.t)
				}
				failed[key] = true
				continue
			}
			found, start = true, i
			if err := r.applyRestart(id, decision); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

type workloadKey struct {
	model string
	batch int
}

// applyRestart commits a restart decision: opportunistic jobs with fewer
// GPUs in the decision than in the real table are conflicts; the GPUs kept
// by the others become USED again; conflicts lose all their GPUs and are
// suspended; running opportunistic jobs at the head of the decision queue
// become normal jobs.
func (r *round) applyRestart(id sim.JobID, dec *table) error {
	conflicts := r.contention(dec)
	for s, o := range dec.occ {
		if !dec.used[s] && o != empty {
			dec.set(s, o, true)
		}
	}
	for _, c := range conflicts {
		r.clearPlacement(dec, c)
	}
	// _restart_one_pending_job
	r.startJob(id)
	r.p.decision = removeID(r.p.decision, id)
	r.js(id).blocker = false
	for _, c := range conflicts {
		if err := r.suspendOpportunistic(c); err != nil {
			return err
		}
	}
	var untag []sim.JobID
	for _, x := range r.p.decision {
		xs := r.js(x)
		if xs.opp && r.isRunning(x) {
			untag = append(untag, x)
		} else {
			break
		}
	}
	for _, x := range untag {
		r.p.decision = removeID(r.p.decision, x)
		r.js(x).opp = false
	}
	r.real = dec
	r.refreshQuotas()
	return nil
}

// contention is _analyze_resource_contention: opportunistic jobs holding
// fewer slots in dec than in the real table, in order of first appearance
// in the real table.
func (r *round) contention(dec *table) []sim.JobID {
	prev := map[sim.JobID]int{}
	var order []sim.JobID
	for _, o := range r.real.occ {
		if o == empty {
			continue
		}
		if _, ok := prev[o]; !ok {
			order = append(order, o)
		}
		prev[o]++
	}
	cur := map[sim.JobID]int{}
	for _, o := range dec.occ {
		cur[o]++
	}
	var out []sim.JobID
	for _, id := range order {
		if id < 0 || !r.js(id).opp {
			continue
		}
		if c, ok := cur[id]; !ok || c != prev[id] {
			out = append(out, id)
		}
	}
	return out
}

// suspendOpportunistic is _suspend_one_job: the job leaves the running
// queue for the pending queue's end, keeping its quota; in the decision
// queue it becomes a blocker if an opportunistic job follows it, else a
// vanilla pending job, and the blockers above it are cleared.
func (r *round) suspendOpportunistic(id sim.JobID) error {
	js := r.js(id)
	if k := indexOf(r.p.decision, id); k >= 0 {
		js.opp = false
		follows := false
		for i := k + 1; i < len(r.p.decision); i++ {
			if r.js(r.p.decision[i]).opp {
				follows = true
				break
			}
		}
		if follows {
			js.blocker = true
		} else {
			js.blocker = false
			if err := r.untagAbove(k); err != nil {
				return err
			}
		}
	}
	r.suspendJob(id)
	return nil
}

// nodeSwapFixup is _eliminate_unnecessary_suspend_resume against snapshot
// prev: a running job that filled whole nodes and now fills the same number
// of other nodes of the same type takes its previous nodes back, slot for
// slot, and whoever got them moves to the job's new nodes.
func (r *round) nodeSwapFixup(prev *table) {
	tb := r.real
	tp := r.p.tp
	// Each running job's nodes and first-node count, before and now, read
	// from the two tables' job stats (a snapshot's, computed once, and its
	// delta's) instead of a scan of each job's slots in each table. A swap
	// changes the table: from then on the current side is read from it.
	var before, now *statSet
	if searchShortcuts && len(prev.occ) == len(tb.occ) {
		now = r.statsOf(tb, &r.p.statsA, false)
		before = r.beforeStats(prev, tb, now, &r.p.statsC)
	} else {
		before = r.statsOf(prev, &r.p.statsC, false) // read by job, not in order
		now = r.statsOf(tb, &r.p.statsA, false)
	}
	defer r.p.statsC.begin(0) // unpin prev's snapshot
	// A job neither stats recomputed reads one entry from both (before's
	// base is now, whose base is its snapshot's): its nodes did not
	// change. Until a swap changes the table, only the recomputed jobs
	// (marked) are read; with the shortcuts off, every job.
	p := r.p
	only := searchShortcuts && before.base == now
	g := p.markGen + 1
	if only {
		p.markGen = g
		for len(p.jobMark) < len(p.jobs) {
			p.jobMark = append(p.jobMark, 0)
		}
		for _, o := range before.jobs {
			p.jobMark[o] = g
		}
		if len(tb.dirty) > 0 {
			for _, o := range now.jobs {
				p.jobMark[o] = g
			}
		}
	}
	swapped := false
	for _, id := range r.running {
		if only && !swapped && p.jobMark[id] != g {
			if checkFixupSkips {
				fixupSkips.Add(1)
				if before.get(id) != now.get(id) {
					fixupSkipMismatches.Add(1)
				}
			}
			continue
		}
		b := before.get(id)
		if b == nil {
			continue // not in prev
		}
		pn, pc := b.nodes, int(b.firstCount)
		var nn []int
		var nc int
		if swapped {
			nn, nc = r.nodesAndFirstCount(tb, id)
		} else if s := now.get(id); s != nil {
			nn, nc = s.nodes, int(s.firstCount)
		}
		if slices.Equal(pn, nn) {
			continue
		}
		q := r.js(id).quota
		if q.num/len(pn) < tp.typeCap[q.t] {
			continue
		}
		if len(nn) == 0 || tp.nodeType[nn[0]] != tp.nodeType[pn[0]] {
			continue
		}
		if len(pn) != len(nn) || pc != nc {
			continue
		}
		var switched, failed []int
		for _, to := range nn {
			if containsInt(pn, to) {
				continue
			}
			for _, from := range pn {
				if containsInt(nn, from) || containsInt(switched, from) {
					continue
				}
				flo, fhi := tb.slots(from)
				if anyIdle(tb, flo, fhi) {
					// The artifact asserts node from is full (others
					// took it): true on its traces, not on every
					// workload (a job can leave a node nobody takes).
					// Each of the job's new nodes looks at from again;
					// it is one false assertion (the artifact stops at
					// the first), counted once.
					if !containsInt(failed, from) {
						failed = append(failed, from)
						r.assertionFailed()
					}
					continue
				}
				switched = append(switched, from)
				tb.moveNode(from, to, id)
				swapped = true
				break
			}
		}
	}
	r.refreshQuotas()
}

// fixupLineReads counts the beforeStats calls that compared only the
// deltas and the snapshots' diffs (for the test; runs may be concurrent).
var fixupLineReads atomic.Int64

// checkFixupSkips makes nodeSwapFixup check that each job it skips
// reads the same stats entry before and now (for the test: fixupSkips
// counts the jobs skipped, fixupSkipMismatches those that do not).
var (
	checkFixupSkips                 bool
	fixupSkips, fixupSkipMismatches atomic.Int64
)

// beforeStats computes into dst the job stats of prev from now, the stats
// of tb: prev is the table at the round's start (or before its release)
// and tb the real table at its end, which differ on the slots the round
// changed. Those are found by comparing the two tables' slots: on their
// deltas and the diffs of the snapshots between theirs when tb's
// snapshot descends from prev's, else on every slot (no look-up per
// slot); the jobs on them in either table are recomputed
// from their slots in prev (those tb gives them on unchanged slots, from
// tb's index, and the changed slots prev gives them); every other job's
// stats are now's (dst reads them through its base). It replaces a stats
// scan of every slot of prev, whose snapshot's stats have usually been
// passed on by then (inheritStats). Read by job, not in order.
func (r *round) beforeStats(prev, tb *table, now, dst *statSet) *statSet {
	p := r.p
	tp := tb.tp
	dst.begin(len(p.jobs))
	dst.base = now
	for words := (len(tb.occ) + 63) / 64; len(p.fixMark) < words; {
		p.fixMark = append(p.fixMark, 0)
	}
	changed := p.fixChanged[:0]
	visit := func(s int32) {
		if bit := uint64(1) << (s & 63); p.fixMark[s>>6]&bit == 0 && (prev.occ[s] != tb.occ[s] || prev.used[s] != tb.used[s]) {
			changed = append(changed, s)
			p.fixMark[s>>6] |= bit
		}
	}
	// When tb's snapshot is prev's or descends from it, the two differ
	// only on their deltas and the diffs of the snapshots in between.
	var line []*snapshot
	ok := false
	if searchShortcuts && prev.attached() && tb.attached() {
		line, ok = r.snapshotsSince(tb.base, prev.base, prev.baseGen)
	}
	if ok {
		fixupLineReads.Add(1)
		for _, s := range prev.dirty {
			visit(s)
		}
		for _, s := range tb.dirty {
			visit(s)
		}
		for _, x := range line {
			for _, s := range x.diff {
				visit(s)
			}
		}
	} else {
		for s := range prev.occ {
			visit(int32(s))
		}
	}
	jobs := dst.jobsOn(changed, prev.occ, tb.occ)
	pairs := dst.pairs[:0]
	unchanged := func(s int32) bool { return p.fixMark[s>>6]&(1<<(s&63)) == 0 }
	if ok {
		// Their slots in tb in one pass over its delta (the jobs are
		// marked seen by jobsOn), not a walk of the delta per job: the
		// snapshot's slots they still hold, and the delta slots they
		// took.
		snap := tb.base
		for _, o := range jobs {
			for _, s := range snap.lookup(o) {
				if tb.occ[s] == o && unchanged(s) {
					pairs = append(pairs, pairKey(o, s))
				}
			}
		}
		for _, s := range tb.dirty {
			if o := tb.occ[s]; o >= 0 && dst.seen[o] == dst.gen && snap.occ[s] != o && unchanged(s) {
				pairs = append(pairs, pairKey(o, s))
			}
		}
	} else {
		for _, o := range jobs {
			for _, s := range tb.slotsOf(o) {
				if unchanged(s) {
					pairs = append(pairs, pairKey(o, s))
				}
			}
		}
	}
	for _, s := range changed {
		if o := prev.occ[s]; o >= 0 {
			pairs = append(pairs, pairKey(o, s))
		}
	}
	slices.Sort(pairs)
	for _, k := range pairs {
		o, s := sim.JobID(k>>32), int32(uint32(k))
		dst.add(tp, o, int(s), tp.slotNode[s], prev.used[s])
	}
	for _, o := range jobs {
		if dst.byID[o].stamp != dst.gen { // not in prev
			dst.byID[o] = jobStat{stamp: dst.gen, nodes: dst.byID[o].nodes[:0], firstUsed: -1}
		}
	}
	for _, s := range changed {
		p.fixMark[s>>6] &^= 1 << (s & 63)
	}
	dst.jobs, dst.pairs, p.fixChanged = jobs, pairs, changed
	return dst
}

func anyIdle(tb *table, lo, hi int) bool {
	for s := lo; s < hi; s++ {
		if !tb.used[s] {
			return true
		}
	}
	return false
}

// assertionFailed records that one of the artifact's internal assertions
// is false here and the case is skipped. In exact timing such cases are
// legitimate; in artifact timing the artifact would have stopped, so the
// run counts them (sim.AssertionReporter): on the artifact's own traces
// the count is 0, and a non-zero count marks results the artifact could
// not have produced.
func (r *round) assertionFailed() {
	if r.v.Timing == sim.Artifact {
		r.p.assertionsFailed++
	}
}

// fitNewJobs is _fit_new_jobs: each arrival joins the decision queue and is
// fitted on the current table; a fitted job runs (opportunistically if
// jobs wait before it, which then become blockers), else it pends. Then the
// upgrade trial and the node-swap fix-up.
func (r *round) fitNewJobs() error {
	before := r.clone(r.real)
	budget := globalMigrationEta
	v := r.p.variant
	for _, j := range r.v.Arrivals {
		id := j.Spec.ID
		js := r.js(id)
		r.p.decision = append(r.p.decision, id)
		r.rebaseLongDelta()
		ok, dec, b := r.fitOneJob(r.real, r.registered(id), budget, localMigrationEta)
		if v.NoOpportunistic && ok {
			ok = !r.pendingOfType(js.quota.t)
		}
		if !ok {
			r.pending = append(r.pending, id)
			continue
		}
		// The table replaced is referred to no more: recycled now, it
		// lets the next arrival's copy cost the deltas.
		r.p.pool.drop(r.real)
		r.real = dec
		budget = b
		if len(r.p.decision) == 1 {
			r.p.decision = r.p.decision[:0]
		} else {
			js.opp = true
			dq := r.p.decision
			for _, x := range dq[:len(dq)-1] {
				xs := r.js(x)
				if !xs.blocker && !xs.opp {
					xs.blocker = true
				}
			}
		}
		// A new job is not in the pending queue yet: it goes straight to
		// the running queue.
		r.startJob(id)
		r.refreshQuotas()
	}
	r.upgradeTrial()
	r.nodeSwapFixup(before)
	return nil
}

// arrivalRebase is the real table's delta length (slots) past which an
// arrival's fit starts from a fresh snapshot of it (0: never; a delta
// still detaches at topology.deltaLimit). Each fit copies the real table
// and the downgrade search's plans tens of times, sorts and walks the
// delta in every plan's stats and partial-node lists: on a large cluster
// with hundreds of arrivals per round the delta, growing with every fit,
// made a fit cost the round's earlier fits (on 102,400 GPUs the limit is
// 3,200 slots). A snapshot costs a few passes over the table; measured
// on 1M jobs on c100k (800 rounds) 300 cost 20 % less CPU than none.
// The content is the same either way: results do not change
// (TestArrivalRebaseChangesNothing).
var arrivalRebase = 300

// arrivalRebases counts the rebases rebaseLongDelta made (for the test;
// runs may be concurrent).
var arrivalRebases atomic.Int64

// rebaseLongDelta starts the real table on a fresh snapshot when its delta
// is longer than arrivalRebase.
func (r *round) rebaseLongDelta() {
	if arrivalRebase > 0 && r.real.attached() && len(r.real.dirty) > arrivalRebase {
		r.p.tp.snaps.rebase(r.real)
		arrivalRebases.Add(1)
		r.p.unpinScratchStats()
	}
}

func (r *round) pendingOfType(t int) bool {
	for _, id := range r.pending {
		if r.js(id).quota.t == t {
			return true
		}
	}
	return false
}

// fitOneJob is _fit_one_job: a migration search on a copy of tb; if it
// fails or only finds a relaxed locality, the downgrade search (depth 3,
// or 2 when more than 150 jobs run) adds plans and the first with the
// strictly largest gain wins. It returns the decision table and the
// remaining budget.
func (r *round) fitOneJob(tb *table, job inst, budget, local int) (bool, *table, int) {
	mark := r.p.pool.mark()
	m := r.migrationSearch(job, r.clone(tb), budget, local, true)
	if m.ok && !m.relaxed {
		r.p.pool.release(mark, m.tbl)
		return true, m.tbl, m.budget
	}
	var plans []plan
	if m.ok {
		plans = append(plans, plan{tbl: m.tbl, gain: m.gain, budget: m.budget})
	}
	depth := 3
	if len(r.running) > deepSearchMaxRunning {
		depth = 2
	}
	plans = append(plans, r.downgradeSearch(job, tb, depth, budget, local)...)
	maxGain := infeasibleThr
	best := -1
	for i, p := range plans {
		if p.gain > maxGain {
			maxGain, best = p.gain, i
		}
	}
	if best < 0 {
		r.p.pool.release(mark, nil)
		return false, nil, budget
	}
	r.p.pool.release(mark, plans[best].tbl)
	return true, plans[best].tbl, plans[best].budget
}
