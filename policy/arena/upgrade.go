package arena

import (
	"slices"
	"sync/atomic"

	"github.com/arena-sim/arena/sim"
)

// upgradeTrial is _running_jobs_upgrade_trial: up to 10 steps, each
// applying the running job's upgrade (type change or doubling) with the
// largest positive gain.
//
// Every step searches every running job again, but a step changes the
// slots of at most the two GPU types of the job it upgrades (those its
// migration moved, in fact), and a trial reads only the slots of the type
// it places the job on and the job's quota. So the steps share a memo of
// trial outcomes (trialMemo) and a later step runs only the trials whose
// type or job changed since.
func (r *round) upgradeTrial() {
	if len(r.running) == 0 {
		return
	}
	budget := globalMigrationEta
	memo := &r.p.trials
	memo.reset(len(r.running), len(r.p.tp.types))
	defer func() { memo.st = nil }()
	// The jobs the steps examine: all, or max_upgrades of them (bound.go).
	start, count := r.upgradeWindow()
	for step := 0; step < maxUpgradeSteps; step++ {
		// Every job's trials run on the real table and read its delta
		// (index.go) many times over: start them from a fresh snapshot.
		if !r.real.attached() || len(r.real.dirty) > upgradeRebase {
			r.p.tp.snaps.rebase(r.real)
			r.p.unpinScratchStats()
		}
		// The running jobs' slots, read once per step (the step's trials
		// leave the real table as they found it).
		memo.st = nil
		if searchShortcuts {
			memo.st = r.statsOf(r.real, &r.p.statsA, false)
		}
		maxGain := infeasibleThr
		best := empty
		var bestUp upgrade
		twins := r.newTwins(step == 0)
		consider := func(i int) {
			id := r.running[i]
			u := r.upgradeSearch(id, budget, localMigrationEta, memo, i)
			ok := u.ok
			if ok && u.gain > maxGain {
				ok = r.feasible(r.registered(id), u.t, u.l)
			}
			if ok && u.gain > maxGain {
				maxGain, best, bestUp = u.gain, id, u
			}
		}
		if twins != nil && start == 0 && count == len(r.running) {
			// The whole queue: the jobs to search, from the twins'
			// groups (twins.walk).
			for _, i := range twins.walk(step == 0) {
				consider(int(i))
			}
		} else {
			for k := 0; k < count; k++ {
				i := (start + k) % len(r.running)
				if twins != nil && twins.seenAt(i, r.running[i]) {
					continue
				}
				consider(i)
			}
		}
		if best == empty {
			return
		}
		mark := r.p.pool.mark()
		bestTbl := r.applyUpgrade(best, bestUp, budget, localMigrationEta)
		memo.tableChanged(r.real, bestTbl)
		if twins != nil {
			twins.tableChanged(r.real, bestTbl)
		}
		r.p.pool.release(mark, bestTbl)
		r.p.pool.drop(r.real)
		r.real = bestTbl
		r.refreshQuotas()
		budget = bestUp.budget
	}
}

// twins tells, during one upgrade step, the running jobs whose upgrade
// search is bound to find what an earlier job's found: same workload and
// quota, and a doubling that is either not tried, told infeasible by its
// best locality, or told placed directly by the room the real table has
// even before the job's release. Such a job's search reads nothing of its
// own: its type changes are its key's (trialMemo), and a direct doubling
// is priced at the best locality from the quota. Its gain can only tie
// the earlier job's, and a tie never wins (strict ">"), so it is skipped.
// Jobs whose search would try nothing are skipped too.
type twins struct {
	r    *round
	room [][2]int // per type: idle nodes and the fullest partial node, +1 (0: not read yet)
}

// twinRec is what twins.seen reads of the running job at its index in
// the round's running queue, kept across the steps of one upgrade trial
// (Policy.twinRecs): the job's quota and trial key, its USED slots in the
// real table and their type (the stats entry), and whether the doubling's
// best locality is feasible (a function of the workload and the quota).
// A step changes the quota and the slots only of the jobs on the slots
// it changed (refreshQuotas reads no others), whose records it marks
// stale (twins.tableChanged); the walk then reads one dense record per
// job instead of its jobState, its stats entry and the throughput memo.
type twinRec struct {
	id       sim.JobID
	q        quota
	key      int
	used, ut int32 // USED slots and their type; ut −1: no stats entry
	dbl      int8  // doubling feasible: 0 not asked yet, 1 yes, 2 no
	ok       bool
	// The doubling's node count (set with dbl), and the job's nodes of
	// its type with their USED slots, from nodesAt in Policy.twinNodes and
	// twinUsed: nodesN 0 not read yet, −1 more than doubling reads, else
	// one more than their number.
	need    int32
	nodesN  int16
	nodesAt int32
	// The twin group the record is in (twins.walk): its trial key's
	// group (grp, −1: none), the sub-group of its USED slots and their
	// type (sub) and its place in the sub-group's members (pos).
	sub      int16
	grp, pos int32
	// doublingOwn's answer (own) and the version of the type's slots it
	// was read at (ownGen; 0: none).
	own    int8
	ownGen uint64
}

// twinGroup is a trial key's records in one upgrade trial (twins.walk),
// split by their USED slots and type (a job's twin class is a function
// of those, its key and the step's table, but for the doubling's room
// once the job is released, which reads its nodes: doublingOwn).
type twinGroup struct {
	trial uint64 // the upgrade trial the subs are of
	subs  []twinSub
}

// twinSub is the records of one key with the same USED slots and type:
// their indexes (in no order) and the first of them (minOK: known).
type twinSub struct {
	ut, used int32
	members  []int32
	min      int32
	minOK    bool
}

// newTwins starts a step's twin detection; nil when the shortcuts are off
// or for arena-ddl (whose gains read each job's deadline). first (the
// upgrade trial's first step) makes every record stale.
func (r *round) newTwins(first bool) *twins {
	if !searchShortcuts || r.p.variant.Deadline {
		return nil
	}
	p := r.p
	p.seenGen++
	tw := &r.twinsBuf
	tw.r = r
	tw.room = tw.room[:0]
	for range p.tp.types {
		tw.room = append(tw.room, [2]int{})
	}
	if first {
		if cap(p.twinRecs) < len(r.running) {
			p.twinRecs = make([]twinRec, len(r.running), len(r.running)+len(r.running)/4)
		}
		p.twinRecs = p.twinRecs[:len(r.running)]
		for len(p.runIdx) < len(p.jobs) {
			p.runIdx = append(p.runIdx, 0)
		}
		for i, id := range r.running {
			p.twinRecs[i] = twinRec{id: id, grp: -1}
			p.runIdx[id] = int32(i)
		}
		p.twinNodes, p.twinUsed = p.twinNodes[:0], p.twinUsed[:0]
		p.twinStale = p.twinStale[:0]
	}
	return tw
}

// staleTwin marks the record at index i stale (its job's slots or quota
// changed), listing it for the next walk.
func (p *Policy) staleTwin(i int32) {
	if p.twinRecs[i].ok {
		p.twinRecs[i].ok = false
		p.twinStale = append(p.twinStale, i)
	}
}

// walk lists, in queue order, the running jobs a step of an upgrade trial
// over the whole running queue searches: the jobs seenAt would not skip.
// A job's class is a function of its record's key, USED slots and their
// type and of the step's table, but where the doubling's room once the
// job is released decides (doublingOwn, reading its nodes): so the
// records are kept in groups by those (refreshed only where stale), a
// group's class is read once, from its first record, and only its first
// record is a candidate — all of them where the class is −1 or each
// record's own room decides. The candidates, in queue order, are then
// taken as the walk of seenAt takes them (a class met before is
// skipped). A step costs the groups and the stale records, not every
// running job. first (the trial's first step) builds every record.
func (tw *twins) walk(first bool) []int32 {
	r := tw.r
	p := r.p
	recs := p.twinRecs
	if first {
		p.twinTrial++
		p.twinKeys = p.twinKeys[:0]
		for i := range recs {
			tw.regroup(int32(i))
		}
		p.twinStale = p.twinStale[:0]
	} else {
		for _, i := range p.twinStale {
			if !recs[i].ok {
				tw.regroup(i)
			}
		}
		p.twinStale = p.twinStale[:0]
	}
	cand := p.twinCand[:0]
	add := func(i int32, c int) { cand = append(cand, uint64(i)<<32|uint64(uint32(int32(c)))) }
	for _, k := range p.twinKeys {
		g := &p.twinGroups[k]
		for x := range g.subs {
			sb := &g.subs[x]
			if len(sb.members) == 0 {
				continue
			}
			if !sb.minOK {
				sb.min, sb.minOK = slices.Min(sb.members), true
			}
			c, own := tw.sharedClass(&recs[sb.min])
			switch {
			case own:
				// The sub-group's records differ only in their nodes:
				// the doubling's feasibility and node count are the
				// first one's.
				// Of those placed directly (one class, 3·key+1) only
				// the first can be searched.
				rep := &recs[sb.min]
				direct := int32(-1)
				for _, i := range sb.members {
					rec := &recs[i]
					if rec.dbl == 0 {
						rec.dbl, rec.need = rep.dbl, rep.need
					}
					if tw.doublingOwn(rec) < 0 {
						add(i, -1)
					} else if direct < 0 || i < direct {
						direct = i
					}
				}
				if direct >= 0 {
					add(direct, 3*rep.key+1)
				}
			case c == -1:
				for _, i := range sb.members {
					add(i, -1)
				}
			case c >= 0:
				add(sb.min, c)
			}
		}
	}
	slices.Sort(cand)
	list := p.twinList[:0]
	for _, x := range cand {
		i, c := int32(x>>32), int(int32(uint32(x)))
		if c >= 0 {
			for len(p.seen) <= c {
				p.seen = append(p.seen, 0)
			}
			if p.seen[c] == p.seenGen {
				continue
			}
			p.seen[c] = p.seenGen
		}
		list = append(list, i)
	}
	p.twinCand, p.twinList = cand, list
	if checkTwinRecs {
		// The walk of seenAt over every job, with its own marks.
		p.seenGen++
		var want []int32
		for i, id := range r.running {
			if !tw.seenAt(i, id) {
				want = append(want, int32(i))
			}
		}
		twinWalks.Add(1)
		if !slices.Equal(want, list) {
			twinWalkMismatches.Add(1)
		}
	}
	return list
}

// regroup rebuilds the record at index i and moves it to its group.
func (tw *twins) regroup(i int32) {
	p := tw.r.p
	rec := &p.twinRecs[i]
	if rec.grp >= 0 {
		sb := &p.twinGroups[rec.grp].subs[rec.sub]
		last := len(sb.members) - 1
		moved := sb.members[last]
		sb.members[rec.pos] = moved
		p.twinRecs[moved].pos = rec.pos
		sb.members = sb.members[:last]
		if sb.min == i {
			sb.minOK = false
		}
	}
	tw.record(int(i), rec.id)
	k := rec.key
	for len(p.twinGroups) <= k {
		p.twinGroups = append(p.twinGroups, twinGroup{})
	}
	g := &p.twinGroups[k]
	if g.trial != p.twinTrial {
		g.trial = p.twinTrial
		g.subs = g.subs[:0]
		p.twinKeys = append(p.twinKeys, int32(k))
	}
	x := 0
	for x < len(g.subs) && (g.subs[x].ut != rec.ut || g.subs[x].used != rec.used) {
		x++
	}
	if x == len(g.subs) {
		if x < cap(g.subs) {
			g.subs = g.subs[:x+1]
			g.subs[x] = twinSub{members: g.subs[x].members[:0]}
		} else {
			g.subs = append(g.subs, twinSub{})
		}
		g.subs[x].ut, g.subs[x].used = rec.ut, rec.used
	}
	sb := &g.subs[x]
	rec.grp, rec.sub, rec.pos = int32(k), int16(x), int32(len(sb.members))
	sb.members = append(sb.members, i)
	switch {
	case len(sb.members) == 1:
		sb.min, sb.minOK = i, true
	case sb.minOK && i < sb.min:
		sb.min = i
	}
}

// tableChanged marks stale the records of the jobs on the slots where the
// real table a and the step's result b differ.
func (tw *twins) tableChanged(a, b *table) {
	p := tw.r.p
	recs := p.twinRecs
	stale := func(o sim.JobID) {
		if o >= 0 && int(o) < len(p.runIdx) {
			if i := p.runIdx[o]; int(i) < len(recs) && recs[i].id == o {
				p.staleTwin(i)
			}
		}
	}
	eachDiffering(a, b, func(s int32) {
		stale(a.occ[s])
		stale(b.occ[s])
	})
}

// seenAt reports whether the i-th running job, id, has a search bound to
// repeat an earlier one's (or to try nothing), marking its class as met
// otherwise: classAt and mark.
func (tw *twins) seenAt(i int, id sim.JobID) bool {
	c := tw.classAt(i, id)
	if checkTwinRecs {
		twinChecks.Add(1)
		if c != tw.class(id) {
			twinMismatches.Add(1)
		}
	}
	switch c {
	case -2:
		return true // upgradeSearch returns nothing
	case -1:
		return false
	}
	p := tw.r.p
	for len(p.seen) <= c {
		p.seen = append(p.seen, 0)
	}
	if p.seen[c] == p.seenGen {
		return true
	}
	p.seen[c] = p.seenGen
	return false
}

// checkTwinRecs makes every seenAt compare its record's class with class
// read afresh, and every walk its list with seenAt's walk over every job
// (the test), counting the comparisons and the mismatches.
var (
	checkTwinRecs                 bool
	twinChecks, twinMismatches    atomic.Int64
	twinWalks, twinWalkMismatches atomic.Int64
)

// classAt is class read from the i-th running job's record (twinRec),
// refreshed first if stale.
func (tw *twins) classAt(i int, id sim.JobID) int {
	rec := &tw.r.p.twinRecs[i]
	if !rec.ok || rec.id != id {
		tw.record(i, id)
	}
	return tw.recClass(rec)
}

// record rebuilds the i-th running job's record (id) from its state and
// the step's stats, out of any twin group.
func (tw *twins) record(i int, id sim.JobID) {
	r := tw.r
	p := r.p
	rec := &p.twinRecs[i]
	js := r.js(id)
	*rec = twinRec{id: id, q: js.quota, key: p.keyOf(js, js.quota), ut: -1, ok: true, grp: -1}
	if s := r.p.trials.st.get(id); s != nil {
		rec.used, rec.ut = s.used, s.t
	}
}

// recClass is class read from a fresh record.
func (tw *twins) recClass(rec *twinRec) int {
	c, own := tw.sharedClass(rec)
	if !own {
		return c
	}
	if d := tw.doublingOwn(rec); d >= 0 {
		return 3*rec.key + d
	}
	return -1
}

// sharedClass is recClass where a function of the record's key, USED
// slots and their type and of the step's table (the same for every record
// of its twin group); own when the doubling's room once the job is
// released decides it (doublingOwn).
func (tw *twins) sharedClass(rec *twinRec) (c int, own bool) {
	r := tw.r
	q := rec.q
	var freeBuf [8]int
	free := append(freeBuf[:0], r.real.tfree...)
	if rec.ut >= 0 && int(rec.ut) < len(free) {
		free[rec.ut] += int(rec.used)
	}
	if !r.anyUpgrade(q, free) {
		return -2, false
	}
	c = 0 // no doubling tried
	if r.canDouble(q, free) {
		c, own = tw.doublingShared(rec)
		if own {
			return 0, true
		}
		if c < 0 {
			return -1, false
		}
	}
	return 3*rec.key + c, false
}

// doublingAt is doubling read from the job's record: its feasibility,
// node count and nodes with their USED slots are the job's until its
// slots or quota change (the record is then refreshed); the room is read
// from the real table as in doubling.
func (tw *twins) doublingAt(rec *twinRec) int {
	if c, own := tw.doublingShared(rec); !own {
		return c
	}
	return tw.doublingOwn(rec)
}

// doublingShared is doublingAt up to the room once the job is released:
// own when that decides (doublingOwn).
func (tw *twins) doublingShared(rec *twinRec) (c int, own bool) {
	r := tw.r
	p := r.p
	tp := p.tp
	q := rec.q
	ty, n := q.t, 2*q.num
	if rec.dbl == 0 {
		rec.dbl = 2
		if r.feasible(inst{id: rec.id, t: ty, num: n}, ty, p.bestLocality(ty, n)) {
			rec.dbl = 1
		}
		if ty < tp.clusterTypes {
			rec.need = int32(nodesNeeded(n, tp.typeCap[ty]))
		}
	}
	if rec.dbl == 2 {
		return 2, false
	}
	if ty >= tp.clusterTypes || !tp.uniformCap[ty] {
		return -1, false
	}
	if c := directClass(tw.typeRoom(ty), int(rec.need), n, tp.typeCap[ty]); c != 0 {
		return c, false
	}
	if tp.blocked != nil {
		return -1, false
	}
	return 0, true
}

// doublingOwn is doublingAt from the room once the job is released (its
// nodes of the type, read once per record).
func (tw *twins) doublingOwn(rec *twinRec) int {
	r := tw.r
	p := r.p
	tp := p.tp
	ty, n := rec.q.t, 2*rec.q.num
	need := int(rec.need)
	tb := r.real
	if rec.nodesN == 0 {
		at := len(p.twinNodes)
		nodes, used := p.twinNodes, p.twinUsed
		over := false
		for _, s := range tb.slotsOf(rec.id) {
			nd := tp.slotNode[s]
			if tp.nodeType[nd] != ty {
				continue
			}
			if len(nodes) == at || nodes[len(nodes)-1] != nd {
				if len(nodes)-at == 16 {
					over = true
					break
				}
				nodes, used = append(nodes, nd), append(used, 0)
			}
			if tb.used[s] {
				used[len(used)-1]++
			}
		}
		if over {
			nodes, used = nodes[:at], used[:at]
			rec.nodesN = -1
		} else {
			rec.nodesN, rec.nodesAt = int16(len(nodes)-at+1), int32(at)
		}
		p.twinNodes, p.twinUsed = nodes, used
	}
	if rec.nodesN < 0 {
		return -1
	}
	// The answer reads only the type's slots and the record's nodes: it
	// holds while the type's version (trialMemo.gen) stands.
	gen := p.trials.gen[ty]
	if rec.ownGen == gen {
		return int(rec.own)
	}
	end := int(rec.nodesAt) + int(rec.nodesN) - 1
	nodes, used := p.twinNodes[rec.nodesAt:end], p.twinUsed[rec.nodesAt:end]
	c := directClass(roomReleased(tb, ty, nodes, used), need, n, tp.typeCap[ty])
	if c == 0 {
		c = -1
	}
	rec.ownGen, rec.own = gen, int8(c)
	return c
}

// class is job id's twin class in this step, read from its state and the
// real table's stats: −2 when its search would try nothing, −1 when only
// the search can tell, else the index of (its trial key, its doubling
// class), which an earlier job of the step met already if its search is
// bound to find the same.
func (tw *twins) class(id sim.JobID) int {
	r := tw.r
	p := r.p
	js := r.js(id)
	q := js.quota
	var freeBuf [8]int
	free := r.freeAfterRelease(id, freeBuf[:0], r.p.trials.st)
	if !r.anyUpgrade(q, free) {
		return -2
	}
	c := 0 // no doubling tried
	if r.canDouble(q, free) {
		var dbl int8
		c = tw.doubling(q, id, &dbl)
		if c < 0 {
			return -1
		}
	}
	return 3*p.keyOf(js, q) + c
}

// doubling classes the doubling trial of a job with quota q: 2 when its
// best locality is infeasible, 1 when directFit would place it once the
// job is released, told from the real table's room before the release
// (releasing only adds idle GPUs: a node that had room keeps it or
// becomes idle), −1 when only the trial can tell. dbl keeps the
// feasibility of the best locality (0: not known yet), a function of the
// job's workload and q.
func (tw *twins) doubling(q quota, id sim.JobID, dbl *int8) int {
	r := tw.r
	tp := r.p.tp
	ty, n := q.t, 2*q.num
	if *dbl == 0 {
		*dbl = 2
		if r.feasible(inst{id: id, t: ty, num: n}, ty, r.p.bestLocality(ty, n)) {
			*dbl = 1
		}
	}
	if *dbl == 2 {
		return 2
	}
	if ty >= tp.clusterTypes || !tp.uniformCap[ty] {
		return -1
	}
	need := nodesNeeded(n, tp.typeCap[ty])
	if c := directClass(tw.typeRoom(ty), need, n, tp.typeCap[ty]); c != 0 {
		return c
	}
	// The room once the job is released: its nodes counted with its USED
	// slots idle (a slot of a node that takes no new job stays held:
	// left to the trial).
	if tp.blocked != nil {
		return -1
	}
	var nodeBuf [16]int
	var usedBuf [16]int
	nodes, used := nodeBuf[:0], usedBuf[:0]
	tb := r.real
	for _, s := range tb.slotsOf(id) {
		nd := tp.slotNode[s]
		if tp.nodeType[nd] != ty {
			continue
		}
		if len(nodes) == 0 || nodes[len(nodes)-1] != nd {
			if len(nodes) == len(nodeBuf) {
				return -1
			}
			nodes, used = append(nodes, nd), append(used, 0)
		}
		if tb.used[s] {
			used[len(used)-1]++
		}
	}
	if c := directClass(roomReleased(tb, ty, nodes, used), need, n, tp.typeCap[ty]); c != 0 {
		return c
	}
	return -1
}

// room is a GPU type's idle nodes and the GPUs of its fullest partial
// node.
type room struct{ idle, maxPartial int }

// typeRoom is the real table's room of type ty, read once per step.
func (tw *twins) typeRoom(ty int) room {
	rm := &tw.room[ty]
	if *rm == [2]int{} {
		idle, maxPartial := tw.r.real.roomOf(ty)
		*rm = [2]int{idle + 1, maxPartial + 1}
	}
	return room{rm[0] - 1, rm[1] - 1}
}

// roomReleased is tb's room of type ty once a job holding used[i] USED
// slots of each of nodes (its nodes of that type) is released.
func roomReleased(tb *table, ty int, nodes, used []int) room {
	tp := tb.tp
	idle, maxPartial := tb.roomExcept(ty, nodes)
	for i, nd := range nodes {
		switch f := tb.free[nd] + used[i]; {
		case f == tp.nodeCap[nd]:
			idle++
		case f > 0:
			maxPartial = max(maxPartial, f)
		}
	}
	return room{idle, maxPartial}
}

// directClass is the doubling class room tells for n GPUs on need nodes
// of a type with typeCap GPUs a node: 1 when directFit places them (on
// idle nodes, or the fullest partial node), −1 when the idle nodes would
// take them in a shape the type's nodes cannot hold, 0 when the room does
// not tell.
func directClass(rm room, need, n, typeCap int) int {
	switch {
	case need <= rm.idle:
		if n/need > typeCap {
			return -1
		}
		return 1
	case n <= rm.maxPartial:
		return 1
	}
	return 0
}

// upgradeRebase is the delta length past which an upgrade step starts
// from a fresh snapshot of the real table.
var upgradeRebase = 32

// searchShortcuts enables the upgrade trial's memo and the outcomes told
// without running a search (directOutcome, typeChangeTrial); the tests
// turn it off to check them against running every search in full.
var searchShortcuts = true

// upgrade is the outcome of one job's upgrade search: whether it found a
// positive gain, the gain, the migration budget left after the winning
// trial, the instance that trial placed, and the job's config in its
// result (type and locality, read with the job's quota as fallback).
type upgrade struct {
	ok     bool
	gain   float64
	budget int
	job    inst
	t      int
	l      loc
}

// upgradeSearch is _job_upgrade_search for one running job (the k-th of
// the round's running queue in memo): with its GPUs released, try each
// other GPU type with enough idle GPUs, then doubling its GPU count; keep
// the best gain if positive.
//
// The artifact runs each trial on a copy of the real table with the job
// released, and the upgrade trial keeps the copy of the best job's best
// trial. Here the trials run on the real table itself, each undone after
// it (table.checkpoint), and the search reports the winning trial, which
// applyUpgrade replays for the one job the step picks (the search is
// deterministic: the replay builds the same table). A trial whose outcome
// the memo holds from an earlier step is not run again.
func (r *round) upgradeSearch(id sim.JobID, budget, local int, memo *trialMemo, k int) upgrade {
	q := r.js(id).quota
	v := r.p.variant
	none := upgrade{gain: infeasibleThr, budget: budget}
	var freeBuf [8]int
	free := r.freeAfterRelease(id, freeBuf[:0], memo.st)
	if !r.anyUpgrade(q, free) {
		return none
	}
	base := r.real
	var released checkpoint
	cleared := false
	upper := min(budget, local)
	maxGain := infeasibleThr
	var best upgrade
	// consider takes trial i of the job (placing job, reading the slots of
	// its type) from the memo, or runs it on base with the job released.
	// The gain reads the job's new locality from the result, the job's
	// registered count when absent (fbNum).
	release := func() {
		if !cleared {
			released = base.checkpoint()
			r.clearPlacement(base, id)
			cleared = true
		}
	}
	shared := searchShortcuts && !v.Deadline
	consider := func(i int, job inst, fbNum int) {
		var o *trialOutcome
		if shared && job.t != q.t {
			// A type change's outcome is the same for every job of the
			// same workload and quota (see trialMemo.keyed).
			o = memo.keyedOutcome(r.p.keyOf(r.js(id), q), i)
		} else {
			o = memo.outcome(k, i)
		}
		if !searchShortcuts || !memo.holds(o, job.t, q, upper) {
			// A type change reads only the other type's slots, which the
			// job's release leaves as they are.
			if job.t == q.t {
				release()
			}
			known := false
			if searchShortcuts {
				*o, known = r.directOutcome(base, job, q)
			}
			if !known {
				release()
				*o = r.upgradeOutcome(base, job, fbNum, q, budget, local)
			}
			memo.stamp(o, job.t, q, upper)
		}
		if o.ok && o.gain > maxGain {
			maxGain = o.gain
			best = upgrade{ok: true, gain: o.gain, budget: budget - o.used, job: job, t: o.t, l: o.l}
		}
	}
	if !v.NoTypeChange {
		for U := range r.p.tp.types {
			if U == q.t || freeOf(free, U) < q.num {
				continue
			}
			consider(U, inst{id: id, t: U, num: q.num}, q.num)
		}
	}
	if r.canDouble(q, free) {
		consider(len(r.p.tp.types), inst{id: id, t: q.t, num: 2 * q.num}, q.num)
	}
	if cleared {
		base.rollback(released)
	}
	if maxGain > 0 {
		return best
	}
	return none
}

// upgradeOutcome runs one upgrade trial of job (quota q before the search)
// on base, which has the job released, and undoes it.
func (r *round) upgradeOutcome(base *table, job inst, fbNum int, q quota, budget, local int) trialOutcome {
	mark := r.p.pool.mark()
	ck := base.checkpoint()
	defer func() {
		base.rollback(ck)
		r.p.pool.release(mark, nil)
	}()
	m := r.migrationSearchOn(job, base, budget, local, true, nil, true)
	if !m.ok {
		return trialOutcome{}
	}
	_, _, nl := r.rtConfig(m.tbl, job.id, job.t, fbNum)
	o := trialOutcome{ok: true, gain: r.gain(job, job.t, nl, q.t, q.loc), used: budget - m.budget}
	o.t, _, o.l = r.rtConfig(m.tbl, job.id, q.t, q.num)
	return o
}

// directOutcome is upgradeOutcome where the migration search ends before
// moving anyone (directFit), told without writing the table. known is
// false when the search must run. base must hold no slot of the job on
// the trial's type.
func (r *round) directOutcome(base *table, job inst, q quota) (o trialOutcome, known bool) {
	ok, known := r.directFit(base, job)
	if !ok || !known {
		return trialOutcome{}, known
	}
	// Placed at its best locality: what rtConfig reads back.
	l := r.p.bestLocality(job.t, job.num)
	return trialOutcome{ok: true, gain: r.gain(job, job.t, l, q.t, q.loc), t: job.t, l: l}, true
}

// applyUpgrade replays job id's winning upgrade trial u (found with
// migration budget budget) on a copy of the real table and returns the
// table it ends on.
func (r *round) applyUpgrade(id sim.JobID, u upgrade, budget, local int) *table {
	tbl := r.clone(r.real)
	r.clearPlacement(tbl, id)
	return r.migrationSearchOn(u.job, tbl, budget, local, true, nil, true).tbl
}

// freeAfterRelease returns, per cluster GPU type, the idle GPUs of the
// real table once job id's slots are released (appended to buf): what the
// upgrade search's table holds. It reads the job's USED slot count from
// st, the real table's stats, when given, else the job's slots.
func (r *round) freeAfterRelease(id sim.JobID, buf []int, st *statSet) []int {
	tb := r.real
	free := append(buf[:0], tb.tfree...)
	if st != nil {
		if s := st.get(id); s != nil && int(s.t) < len(free) {
			free[s.t] += int(s.used)
		}
		return free
	}
	for _, s := range tb.slotsOf(id) {
		if tb.used[s] {
			free[tb.tp.nodeType[tb.tp.slotNode[s]]]++
		}
	}
	return free
}

// freeOf is free's count for type t; a type the cluster lacks has none.
func freeOf(free []int, t int) int {
	if t >= len(free) {
		return 0
	}
	return free[t]
}

// anyUpgrade reports whether upgradeSearch would try anything for a job
// with quota q and free idle GPUs once it is released: some other GPU
// type, or its own type for a doubling, with enough of them. The common
// answer "nothing to try" then costs no trial.
func (r *round) anyUpgrade(q quota, free []int) bool {
	if !r.p.variant.NoTypeChange {
		for U := range r.p.tp.types {
			if U != q.t && freeOf(free, U) >= q.num {
				return true
			}
		}
	}
	return r.canDouble(q, free)
}

// canDouble reports whether the upgrade search tries doubling the job.
func (r *round) canDouble(q quota, free []int) bool {
	return !r.p.variant.NoScaling && q.num < maxGPUsPerJob && freeOf(free, q.t) >= 2*q.num
}

// trialMemo holds the outcomes of the upgrade trials of one upgradeTrial
// call: per running job, one trial per GPU type and then the doubling.
//
// A trial's outcome is a function of the slots of the type it places the
// job on (with the job released) and of the job's quota: the migration
// search reads only the partial and idle nodes of that type and the jobs
// on them (each job holds one type), the gain reads the quota, and the
// budget it leaves is what it had less what it used, the same for any
// budget above the per-search limit (the upgrade trial's budget stays
// above 4096 − 10·256). So an outcome holds while its type's slots, the
// job's quota and the pass limit are those it was computed with; the
// types' versions (gen) move when a step changes one of their slots.
//
// A type change reads, besides its type's slots, only the job's workload
// and quota: the job holds no slot of the type it tries (each job holds
// one type), so the search on that type's slots meets nothing of the job,
// and the gain and the config read back are functions of the workload's
// throughputs and the quota. So every job of the same workload and quota
// shares its type changes' outcomes (keyed, by trialKey; not for
// arena-ddl, whose feasibility reads each job's deadline and progress).
// The memo only grows across calls: an outcome holds only for the type
// versions of the current call (reset hands out new ones).
type trialMemo struct {
	trials int      // per job: the number of GPU types, plus the doubling
	gen    []uint64 // per GPU type, the version of its slots
	clock  uint64   // the last version handed out
	out    []trialOutcome
	// keyed are the type changes' outcomes per trialKey, trials apiece.
	keyed []trialOutcome
	// st is the real table's job stats during a step (nil: read slots).
	st *statSet
}

// trialKey identifies what a type-change trial reads of a job (trialMemo).
type trialKey struct {
	wi int
	q  quota
}

// keyOf returns the index of (js's workload, q) among the keys seen
// (the last one asked is cached on js).
func (p *Policy) keyOf(js *jobState, q quota) int {
	if js.keyOK && js.keyQ == q {
		return js.key
	}
	k := trialKey{js.wi, q}
	i, ok := p.trialKeys[k]
	if !ok {
		i = len(p.trialKeys)
		p.trialKeys[k] = i
	}
	js.key, js.keyQ, js.keyOK = i, q, true
	return i
}

// keyedOutcome is the outcome slot of trial i for key k.
func (m *trialMemo) keyedOutcome(k, i int) *trialOutcome {
	need := (k + 1) * m.trials
	if len(m.keyed) < need {
		m.keyed = append(m.keyed, make([]trialOutcome, max(need, 2*len(m.keyed))-len(m.keyed))...)
	}
	return &m.keyed[k*m.trials+i]
}

// trialOutcome is one trial's result and what it was computed from.
type trialOutcome struct {
	gen   uint64 // the version of the trial type's slots; 0: none yet
	q     quota  // the job's quota
	upper int    // the trial's migration-pass limit, min(budget, local)

	ok   bool    // a placement was found
	gain float64 // its gain over the job's quota
	used int     // the migration budget it consumed
	t    int     // the job's type and locality in the result
	l    loc
}

// reset empties the memo for jobs running jobs on a cluster of types GPU
// types (as the topology knows them).
func (m *trialMemo) reset(jobs, types int) {
	if m.trials != types+1 {
		m.keyed = m.keyed[:0] // laid out for another number of trials
	}
	m.trials = types + 1
	m.clock++
	m.gen = m.gen[:0]
	for range types {
		m.gen = append(m.gen, m.clock)
	}
	n := jobs * m.trials
	if cap(m.out) < n {
		// grown by a quarter past the need: the running-job count creeps
		// up round after round, and an exact fit was re-made each time
		m.out = make([]trialOutcome, n, n+n/4)
	}
	// Not cleared: an outcome left from an earlier call (or laid out for
	// another number of trials) holds a version below this call's clock,
	// and every type's version is at least that from here on, so holds
	// rejects it as it rejects an empty one (clearing cost 1.5 s of a 1M
	// run).
	m.out = m.out[:n]
}

func (m *trialMemo) outcome(job, trial int) *trialOutcome { return &m.out[job*m.trials+trial] }

// holds reports whether o was computed on type t's current slots for
// quota q and pass limit upper.
func (m *trialMemo) holds(o *trialOutcome, t int, q quota, upper int) bool {
	return o.gen != 0 && o.gen == m.gen[t] && o.q == q && o.upper == upper
}

func (m *trialMemo) stamp(o *trialOutcome, t int, q quota, upper int) {
	o.gen, o.q, o.upper = m.gen[t], q, upper
}

// tableChanged moves the version of every GPU type with a slot that
// differs between a and b.
func (m *trialMemo) tableChanged(a, b *table) {
	m.clock++
	tp := a.tp
	eachDiffering(a, b, func(s int32) {
		m.gen[tp.nodeType[tp.slotNode[s]]] = m.clock
	})
}

// eachDiffering calls f for every slot where tables a and b differ
// (occupant or status; a slot may come twice). Tables deltas against the
// same snapshot can only differ where one of them wrote since it equalled
// it, so then only the two deltas are read.
func eachDiffering(a, b *table, f func(s int32)) {
	visit := func(s int32) {
		if a.occ[s] != b.occ[s] || a.used[s] != b.used[s] {
			f(s)
		}
	}
	if a.attached() && b.attached() && a.base == b.base {
		for _, s := range a.dirty {
			visit(s)
		}
		for _, s := range b.dirty {
			visit(s)
		}
		return
	}
	for s := range a.occ {
		visit(int32(s))
	}
}
