package sim

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
)

// Event kinds, in the order they are handled when simultaneous: a job that
// completes at t frees its GPUs before arrivals at t are seen, and both
// before the scheduling round at t.
type eventKind int

const (
	evCompletion eventKind = iota
	// evCluster: a cluster event (Config.Events) or a notice's expiry;
	// after completions (a job ending at the instant its node fails has
	// finished) and before arrivals (which then see the new cluster).
	evCluster
	// evJobFailure: a job fails on its own (Config.JobFailures); after
	// the cluster's events, so a node failure at the same instant is the
	// cause recorded.
	evJobFailure
	evArrival
	evRound
	evHorizon
)

type event struct {
	at    Time
	kind  eventKind
	seq   int64
	job   *Job
	round int
	index int // position in the heap, for cancellation
}

// eventQueue is a min-heap on (at, kind, seq) with cancellable entries.
// Each entry carries its event's key, so that comparisons read the heap's
// array and not the events (a run reconfiguring millions of times re-sorts
// a completion per reconfiguration); the sift steps are container/heap's,
// comparison for comparison and swap for swap, so the heap's layout, and
// the order events pop in, are the ones container/heap gives
// (TestQueueIsContainerHeap).
type eventQueue struct {
	items []queued
	seq   int64
}

// queued is a heap entry: ev and its key, as of its push or move.
type queued struct {
	at   Time
	kind eventKind
	seq  int64
	ev   *event
}

func (q *eventQueue) Len() int { return len(q.items) }
func (q *eventQueue) Less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (q *eventQueue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].ev.index = i
	q.items[j].ev.index = j
}

// up and down are container/heap's.
func (q *eventQueue) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !q.Less(j, i) {
			break
		}
		q.Swap(i, j)
		j = i
	}
}

func (q *eventQueue) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && q.Less(j2, j1) {
			j = j2 // = 2*i + 2  // right child
		}
		if !q.Less(j, i) {
			break
		}
		q.Swap(i, j)
		i = j
	}
	return i > i0
}

// top is the next event's entry; the queue is not empty.
func (q *eventQueue) top() *queued { return &q.items[0] }

// has reports whether ev is in the queue.
func (q *eventQueue) has(ev *event) bool {
	return ev.index >= 0 && ev.index < len(q.items) && q.items[ev.index].ev == ev
}

func (q *eventQueue) push(ev *event) {
	q.seq++
	ev.seq = q.seq
	ev.index = len(q.items)
	q.items = append(q.items, queued{at: ev.at, kind: ev.kind, seq: ev.seq, ev: ev})
	q.up(len(q.items) - 1)
}

// pop removes and returns the next event.
func (q *eventQueue) pop() *event {
	n := len(q.items) - 1
	q.Swap(0, n)
	q.down(0, n)
	return q.cut()
}

// cut removes the last entry, returning its event.
func (q *eventQueue) cut() *event {
	n := len(q.items) - 1
	ev := q.items[n].ev
	q.items[n] = queued{}
	q.items = q.items[:n]
	ev.index = -1
	return ev
}

// move gives ev, which is in the heap and whose time has changed, the
// next sequence number and restores the heap: the order push gives a new
// event with ev's time and kind.
func (q *eventQueue) move(ev *event) {
	q.seq++
	ev.seq = q.seq
	it := &q.items[ev.index]
	it.at, it.kind, it.seq = ev.at, ev.kind, ev.seq
	if !q.down(ev.index, len(q.items)) {
		q.up(ev.index)
	}
}

func (q *eventQueue) remove(ev *event) {
	i := ev.index
	if i < 0 {
		return
	}
	n := len(q.items) - 1
	if n != i {
		q.Swap(i, n)
		if !q.down(i, n) {
			q.up(i)
		}
	}
	q.cut()
}

// runExact is the discrete-event loop of exact timing.
func (e *engine) runExact(ctx context.Context) error {
	L := e.cfg.RoundLength
	last := e.cfg.Rounds
	if e.cfg.UntilDone || e.cfg.Drain {
		last = e.cfg.MaxRounds
	}
	e.arrivalQ = e.arrivalQueue(e.t0.Add(Duration(last) * L))
	// The heap holds one round (or the horizon) at a time: one event,
	// re-pushed for the next round once popped, serves them all.
	tick := &event{at: e.t0, kind: evRound, round: 0}
	e.events.push(tick)
	if e.flt != nil {
		e.initFaults()
	}
	var busy []int
	var arrival event
	for e.events.Len() > 0 || len(e.arrivalQ) > 0 {
		var ev *event
		if e.arrivalNext() {
			j := e.arrivalQ[0]
			e.arrivalQ = e.arrivalQ[1:]
			arrival = event{at: j.Spec.Submit, kind: evArrival, job: j}
			ev = &arrival
		} else {
			ev = e.events.pop()
		}
		if err := e.checkClock(ev.at); err != nil {
			return err
		}
		if ev.kind != evCompletion && ev.kind != evArrival { // neither reads the running queue
			e.compactRunning()
		}
		e.now = ev.at
		e.res.Events++
		switch ev.kind {
		case evCompletion:
			e.complete(ev.job)
		case evArrival:
			e.arrive(ev.job, e.now)
			e.arrived = append(e.arrived, ev.job)
		case evCluster:
			e.clusterEvent(ev)
		case evJobFailure:
			e.jobFailure(ev.job)
		}
		if (ev.kind == evCompletion || ev.kind == evArrival || ev.kind == evCluster || ev.kind == evJobFailure) && e.cfg.ScheduleOnEvents && !e.moreAt(e.now) {
			e.compactRunning()
			if err := e.decideOnEvents(); err != nil {
				return err
			}
		}
		switch ev.kind {
		case evRound, evHorizon:
			if err := ctx.Err(); err != nil {
				return err
			}
			r := ev.round
			if ev.kind == evHorizon {
				r = e.cfg.Rounds
			}
			if r > 0 {
				e.closeWindow(r-1, busy)
			}
			if ev.kind == evHorizon {
				e.enqueueLateArrivals()
				e.compactRunning()
				return nil
			}
			e.round = r
			e.recordDigest()
			if err := e.decideOnEvents(); err != nil {
				return err
			}
			e.watchRound()
			// closeWindow has copied the last window's counts.
			if len(busy) != len(e.cfg.Cluster.Types) {
				busy = make([]int, len(e.cfg.Cluster.Types))
			}
			copy(busy, e.heldBy) // the GPUs the running jobs hold, by type
			if r+1 < e.cfg.Rounds || e.extend() {
				*tick = event{at: e.t0.Add(Duration(r+1) * L), kind: evRound, round: r + 1}
			} else {
				*tick = event{at: e.t0.Add(Duration(e.cfg.Rounds) * L), kind: evHorizon}
			}
			e.events.push(tick)
			if e.cfg.OnRound != nil {
				e.cfg.OnRound(r+1, e.cfg.Rounds)
			}
		}
		if e.cfg.Check {
			e.compactRunning()
			if err := e.checkState(); err != nil {
				return err
			}
		}
	}
	e.compactRunning()
	return nil
}

// arrivalQueue returns the jobs submitted before end, in the order exact
// timing delivers them: submission time, ties in trace order. Arrivals are
// known up front: rather than events in the heap they are a queue in the
// heap's own order for them, merged with the heap as the loop goes, so the
// heap holds only rounds, completions and the horizon. Separate from the
// loop because it is set-up, done once.
//
// Traces are nearly always in submission order already (newEngine
// checked): the queue is then the jobs due before the end, a prefix of the
// job table itself; otherwise a stably sorted copy of them.
func (e *engine) arrivalQueue(end Time) []*Job {
	if e.sorted {
		n := sort.Search(len(e.specs), func(i int) bool { return e.specs[i].Submit >= end })
		return e.jobs[:n:n]
	}
	q := make([]*Job, 0, len(e.specs))
	for i := range e.specs {
		if e.specs[i].Submit < end {
			q = append(q, e.jobs[i])
		}
	}
	slices.SortStableFunc(q, func(a, b *Job) int {
		return cmp.Compare(a.Spec.Submit, b.Spec.Submit) // finite: traces reject NaN
	})
	return q
}

// complete handles a completion event of exact timing: j's progress is
// integrated up to now, it leaves the running queue finished, its GPUs are
// released and it is among the ended jobs the next decision sees. Separate
// so the loop reads as a dispatch on event kinds.
func (e *engine) complete(j *Job) {
	j.completion = nil
	e.cancelJobFailure(j)
	e.advance(j, e.now)
	j.remainingF, j.Remaining = 0, 0
	e.removeRunning(j, true) // squeezed out before the queue is read (runExact)
	e.finishJob(j, e.now)
	e.release(j)
	if e.net != nil {
		e.netRetire(j) // it never runs again
	}
	e.ended = append(e.ended, j)
}

// enqueueLateArrivals runs at the horizon: jobs that arrived after the last
// decision join the pending queue's end, as they would have at the next
// one. None is in the queue yet: only apply enqueues, and these were not
// arrived (so not startable) at any decision. (Scanning the queue for each
// was a no-op run's largest end-of-run cost, its queue holding every job.)
func (e *engine) enqueueLateArrivals() {
	for _, j := range e.arrived {
		if j.Status == Pending {
			e.enqueue(j)
		}
	}
	e.arrived = nil
}

// decideOnEvents hands the arrivals and completions gathered since the
// last decision to the policy. The two lists swap with a spare pair rather
// than being allocated anew: neither the engine nor the policy keeps one
// past the decision.
func (e *engine) decideOnEvents() error {
	arrivals, ended := e.arrived, e.ended
	e.arrived, e.ended = e.spareArrived[:0], e.spareEnded[:0]
	_, err := e.decide(arrivals, ended, e.decided)
	e.spareArrived, e.spareEnded = arrivals, ended
	return err
}

// closeWindow records round r's throughput: the samples processed during
// [t_r, t_r + L) divided by L, so reconfiguration time and mid-round
// completions are accounted exactly.
func (e *engine) closeWindow(r int, busy []int) {
	for _, j := range e.runq.jobs {
		e.advance(j, e.now)
	}
	thr := e.roundWork / float64(e.cfg.RoundLength)
	e.roundWork = 0
	e.recordRound(r, thr, busy)
}

// advance integrates a running job's progress up to now (exact timing).
func (e *engine) advance(j *Job, now Time) {
	if e.cfg.Timing != Exact || j.Status != Running {
		return
	}
	if e.flt != nil {
		e.advanceFault(j, now)
		return
	}
	if now > j.lastUpdate {
		e.addGPUSeconds(j, float64(now-j.lastUpdate)*float64(len(j.GPUs)))
	}
	from := max(j.lastUpdate, j.readyAt)
	if now > from && j.iterTime > 0 {
		iters := float64(now-from) / j.iterTime
		iters = minFloat(iters, j.remainingF)
		j.remainingF -= iters
		j.ExecTime += float64(now - from)
		e.roundWork += iters * j.batch // Spec.Workload.Batch
		j.Remaining = int64(math.Ceil(j.remainingF - 1e-9))
	}
	j.lastUpdate = now
}

// minFloat is math.Min(x, y), inlined: math.Min's amd64 form is an
// assembly call, made per running job per round by advance. The ordered
// cases are decided here; the rest (equal values, signed zeros, NaN) by
// math.Min itself (TestMinFloatIsMathMin).
func minFloat(x, y float64) float64 {
	switch {
	case x > y:
		return y
	case x < y:
		return x
	}
	return math.Min(x, y)
}

// arrivalNext reports whether the next event is the arrival at the head of
// arrivalQ: it is due before the heap's first event, or at the same time
// and of an earlier kind (the heap holds no arrivals).
func (e *engine) arrivalNext() bool {
	if len(e.arrivalQ) == 0 {
		return false
	}
	if e.events.Len() == 0 {
		return true
	}
	at, top := e.arrivalQ[0].Spec.Submit, e.events.top()
	return at < top.at || at == top.at && evArrival < top.kind
}

// moreAt reports whether another event is due at t, so simultaneous events
// reach the policy in one decision.
func (e *engine) moreAt(t Time) bool {
	// Any event at t comes next; a round at t will decide anyway.
	return len(e.arrivalQ) > 0 && e.arrivalQ[0].Spec.Submit == t ||
		e.events.Len() > 0 && e.events.top().at == t
}

// scheduleCompletion (re)schedules j's completion. A completion already
// in the heap is moved in place (heap.Fix) with the next sequence number:
// the same key (at, kind, seq) as removing it and pushing a new one, so
// the events pop in the same order, without the removal's sift, the push's
// and an allocation per reconfiguration.
func (e *engine) scheduleCompletion(j *Job) {
	ev := j.completion
	inHeap := ev != nil && e.events.has(ev)
	if inHeap {
		e.cancelJobFailure(j)
	} else {
		e.cancelCompletion(j)
		ev = &event{kind: evCompletion, job: j}
	}
	from := max(e.now, j.readyAt)
	ev.at = from.Add(Duration(j.remainingF * j.iterTime))
	if e.flt != nil {
		ev.at = e.completionAt(j)
	}
	j.completion = ev
	if inHeap {
		e.events.move(ev)
	} else {
		e.events.push(ev)
	}
	if e.flt != nil && e.flt.jobFailures.MTBF > 0 {
		e.scheduleJobFailure(j)
	}
}

func (e *engine) cancelCompletion(j *Job) {
	if j.completion != nil {
		e.events.remove(j.completion)
		j.completion = nil
	}
	e.cancelJobFailure(j)
}
