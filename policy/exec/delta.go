package exec

import (
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Protocol version 2 sends, after a first full decision, only what changed
// since the previous decision. The adapter keeps its own record of what it
// last sent (deltaState) and compares the View against it field by field:
// nothing is serialised to find out what changed, and what did not change
// is not serialised at all. The client keeps the mirror; a sequence number
// and a periodic checksum of the record let it notice a mirror that went
// astray and ask for the full state again (resync).

// CheckEvery is how often (in decisions sent) a protocol-2 decide carries
// the checksums of the state the client should hold; every full decide
// carries them too. A client verifies them against its mirror. A variable
// so that tests can check every decision.
var CheckEvery = 256

// maxResyncs bounds the resync requests within one decision: a client
// that cannot follow a full state is broken, not out of step.
const maxResyncs = 2

// liveFields are the fields that change with the clock rather than with
// events, sent at every change only to a client that asked for them in its
// hello: a running job's remaining iterations and a pending job's queue time.
type liveFields struct{ remaining, queueTime bool }

// sent is the record of one job as the client last received it.
type sent struct {
	status     sim.Status
	gpus       []int
	grid       estimator.Config // zero unless running
	remaining  int64
	total      int64
	firstStart float64
	reconfigs  int
	queueTime  float64
	in         byte // inRunning, inPending or 0: the queue the client files it in
}

const (
	inRunning = 1
	inPending = 2
)

// tableKey identifies an estimate table: estimates depend on the workload
// and the grid; the candidate grids on the request (GPU type and count).
type tableKey struct {
	model string
	batch int
	gpu   string
	n     int
}

type deltaState struct {
	seq        int // decide messages sent
	full       bool
	occ        []sim.JobID
	running    []sim.JobID
	pending    []sim.JobID
	jobs       records
	tableIDs   map[tableKey]int
	tableRows  [][]estimateRow // by table id
	tableSent  map[int]bool    // the tables the client holds
	arrived    []sim.JobID     // the previous decision's arrivals
	removed    []sim.JobID     // scratch: left a queue in this decision
	sinceCheck int
	crcBuf     []byte
	// held are the ended jobs of decisions not sent (the client's
	// idle_when_nothing_waits): they go with the next decide's ended.
	held []*sim.Job
	// heldInterrupted and nodesHeld are, likewise, the jobs interrupted
	// and whether any node's availability changed in decisions not sent.
	heldInterrupted []*sim.Job
	nodesHeld       bool
	ended           []*sim.Job // scratch: held, then the View's ended
	// dirty are the slots whose occupant may have changed since the last
	// decide: the old and new GPUs of every job whose GPUs changed or that
	// left the running queue (slotChanges compares only these).
	dirty []int
	// scanAll makes slotChanges compare every slot: set for good when a
	// periodic full comparison finds a change the dirty slots missed.
	scanAll bool
}

// records are the jobs' records by id: job ids are trace rows, dense from
// 0, so a slice (a map lookup per running job and decision was a tenth of
// the adapter's time on a 10,240-GPU cluster).
type records struct {
	byID []*sent
	n    int
}

func (r *records) get(id sim.JobID) *sent {
	if id < 0 || int(id) >= len(r.byID) {
		return nil
	}
	return r.byID[id]
}

func (r *records) set(id sim.JobID, rec *sent) {
	for int(id) >= len(r.byID) {
		r.byID = append(r.byID, nil)
	}
	if r.byID[id] == nil {
		r.n++
	}
	r.byID[id] = rec
}

func (r *records) del(id sim.JobID) {
	if r.get(id) != nil {
		r.byID[id] = nil
		r.n--
	}
}

func (r *records) clear() { clear(r.byID); r.n = 0 }

func newDeltaState() *deltaState {
	return &deltaState{full: true, tableIDs: map[tableKey]int{}, tableSent: map[int]bool{}}
}

// reset forgets what the client holds (a resync): the next decide is full.
// Estimate tables are kept on this side (their contents never change) and
// sent again when a job refers to them.
func (d *deltaState) reset() {
	d.full = true
	d.occ, d.running, d.pending, d.arrived = nil, nil, nil, nil
	d.jobs.clear()
	clear(d.tableSent)
}

// estimateRow is one feasible grid's estimate on the wire:
// [gpu, nodes, per_node, throughput (samples/s), iter_time (s)].
type estimateRow [5]any

type tableOut struct {
	ID        int           `json:"id"`
	Estimates []estimateRow `json:"estimates"`
}

// stateV2 is a job's dynamic part in protocol 2 (progress is derived by
// the client: 1 − remaining/iterations).
type stateV2 struct {
	ID         sim.JobID `json:"id"`
	Status     string    `json:"status"`
	GPUs       []int     `json:"gpus"`
	Grid       *Grid     `json:"grid"`
	Remaining  int64     `json:"remaining"`
	Total      int64     `json:"total"`
	FirstStart float64   `json:"first_start"`
	Reconfigs  int       `json:"reconfigs"`
	QueueTime  float64   `json:"queue_time"`
}

// jobV2 is a job new to the client: static part, estimate table, state.
type jobV2 struct {
	stateV2
	Name            string  `json:"name"`
	Alias           string  `json:"alias"`
	Model           string  `json:"model"`
	Batch           int     `json:"batch"`
	Iterations      int64   `json:"iterations"`
	TraceIterations int64   `json:"trace_iterations"`
	GPU             string  `json:"gpu"`
	NumGPUs         int     `json:"num_gpus"`
	Submit          float64 `json:"submit"`
	Deadline        float64 `json:"deadline"`
	User            string  `json:"user"`
	VC              string  `json:"vc"`
	Best            Grid    `json:"best"`
	Estimates       int     `json:"estimates"`
}

type checkOut struct {
	Occupant uint32 `json:"occupant"`
	Queues   uint32 `json:"queues"`
	Jobs     uint32 `json:"jobs"`
}

type decideV2 struct {
	Type           string      `json:"type"`
	Seq            int         `json:"seq"`
	Round          int         `json:"round"`
	Now            float64     `json:"now"`
	RoundLength    float64     `json:"round_length"`
	Full           bool        `json:"full,omitempty"`
	Tables         []tableOut  `json:"tables,omitempty"`
	Jobs           []jobV2     `json:"jobs,omitempty"`
	Arrivals       []jobV2     `json:"arrivals"`
	States         []stateV2   `json:"states,omitempty"`
	Ended          []stateV2   `json:"ended,omitempty"`
	Gone           []sim.JobID `json:"gone,omitempty"`
	Occupant       []sim.JobID `json:"occupant,omitempty"`
	Slots          [][3]int    `json:"slots,omitempty"`
	Running        []sim.JobID `json:"running,omitempty"`
	Pending        []sim.JobID `json:"pending,omitempty"`
	RunningRemoved []sim.JobID `json:"running_removed,omitempty"`
	RunningAdded   []sim.JobID `json:"running_added,omitempty"`
	PendingRemoved []sim.JobID `json:"pending_removed,omitempty"`
	PendingAdded   []sim.JobID `json:"pending_added,omitempty"`
	Check          *checkOut   `json:"check,omitempty"`
	// Faults (runs with cluster events only): every node's availability
	// when any changed since the last decide (and in a full decide), the
	// jobs interrupted since the last decide.
	Nodes       []nodeAvailOut `json:"nodes,omitempty"`
	Interrupted []sim.JobID    `json:"interrupted,omitempty"`
	// Contention (clusters with a topology only): every running job slowed
	// by jobs sharing its uplinks, [job, slowdown], in every decide (not a
	// delta: a running job not listed runs at its time alone).
	Contention []contentionOut `json:"contention,omitempty"`
}

// scheduleDelta is Schedule in protocol 2.
func (p *Policy) scheduleDelta(v *sim.View) ([]sim.Action, error) {
	if p.nothingWaits && len(v.Arrivals) == 0 && len(v.Pending) == 0 {
		// The client promised to do nothing when no job waits: not sent.
		// What changed goes with the next decide (a delta from the last
		// one sent), the ended jobs too.
		p.d.held = append(p.d.held, v.Ended...)
		p.d.heldInterrupted = append(p.d.heldInterrupted, v.Interrupted...)
		p.d.nodesHeld = p.d.nodesHeld || v.NodesChanged
		p.skipped++
		return nil, nil
	}
	for tries := 0; ; tries++ {
		msg := p.delta(v)
		if err := p.send(v.Round, msg); err != nil {
			return nil, err
		}
		data, err := p.receive(v.Round)
		if err != nil {
			return nil, err
		}
		var in actionsIn
		if err := parseActions(data, &in); err != nil {
			return nil, p.fail(v.Round, -1, "%v", err)
		}
		if in.Type == "resync" && in.Round == v.Round {
			p.resyncs++
			if tries+1 >= maxResyncs {
				return nil, p.fail(v.Round, -1, "the policy asked for the full state %d times in one decision (%s)", tries+1, quoteData(in.Message))
			}
			p.d.reset()
			continue
		}
		p.d.held = p.d.held[:0] // delivered
		p.d.heldInterrupted, p.d.nodesHeld = p.d.heldInterrupted[:0], false
		// The record holds exactly the decision's running, pending and
		// arriving jobs (ended and dropped ones were forgotten).
		inView := func(id sim.JobID) bool { return p.d.jobs.get(id) != nil }
		actions, job, err := checkActions(&in, v.Round, inView, p.cluster.NumSlots())
		if err != nil {
			return nil, p.failJob(v, job >= 0 && inView(job), job, err)
		}
		return actions, nil
	}
}

// delta builds the next decide message and updates the record to it.
func (p *Policy) delta(v *sim.View) *decideV2 {
	d := p.d
	d.seq++
	msg := &decideV2{Type: "decide", Seq: d.seq, Round: v.Round, Now: float64(v.Now), RoundLength: float64(v.RoundLength), Arrivals: []jobV2{}}
	full := d.full
	d.full = false
	nodesChanged := v.NodesChanged || d.nodesHeld
	// Jobs ended since the last decide sent: those of decisions not sent
	// first, in the order they ended.
	// (held is emptied once the client answered: a resync sends them
	// again in the full decide.)
	ended := v.Ended
	if len(d.held) > 0 {
		d.ended = append(append(d.ended[:0], d.held...), v.Ended...)
		ended = d.ended
	}
	check := full || d.sinceCheck+1 >= CheckEvery
	if full {
		p.fullDecide(msg, v, ended)
	} else {
		// Queue changes: removed ones, then those appended at the end.
		d.removed = d.removed[:0]
		msg.RunningRemoved, msg.RunningAdded, d.running = d.queueDelta(d.running, v.Running, inRunning)
		msg.PendingRemoved, msg.PendingAdded, d.pending = d.queueDelta(d.pending, v.Pending, inPending)
		p.stateChanges(msg, v)
		// Ended jobs: their final state, then forgotten.
		for _, j := range ended {
			msg.Ended = append(msg.Ended, p.stateV2(j))
			p.forget(j.Spec.ID)
		}
		// Jobs in no queue any more that did not end: dropped.
		for _, list := range [][]sim.JobID{d.arrived, d.removed} {
			for _, id := range list {
				if r := d.jobs.get(id); r != nil && r.in == 0 {
					msg.Gone = append(msg.Gone, id)
					p.forget(id)
				}
			}
		}
		// Last: the dirty slots are those of the job changes above, and
		// every slot when a node's availability changed (an unavailable
		// slot's occupant is sim.Unavailable, with no job change).
		p.slotChanges(msg, v, check, nodesChanged)
	}
	d.arrived = d.arrived[:0]
	for _, j := range v.Arrivals {
		msg.Arrivals = append(msg.Arrivals, p.newJob(msg, j, 0))
		d.arrived = append(d.arrived, j.Spec.ID)
	}
	if v.Nodes != nil && (full || nodesChanged || d.seq == 1) {
		msg.Nodes = nodesOut(v)
	}
	msg.Interrupted = jobIDs(v.Interrupted)
	if len(d.heldInterrupted) > 0 {
		msg.Interrupted = append(jobIDs(d.heldInterrupted), msg.Interrupted...)
	}
	msg.Contention = contentionOf(v)
	d.sinceCheck++
	if check {
		d.sinceCheck = 0
		msg.Check = d.checksums()
	}
	return msg
}

// fullDecide fills msg as a full decide (a resync): the whole slot table,
// both queues and every job whole, ended jobs included (then forgotten),
// and resets the mirror of what the client holds to it. Separate because
// it is the one message that does not depend on the previous one.
func (p *Policy) fullDecide(msg *decideV2, v *sim.View, ended []*sim.Job) {
	d := p.d
	msg.Full = true
	d.occ = append(d.occ[:0], v.Occupant...)
	msg.Occupant = nonNil(d.occ)
	d.running = appendIDs(d.running[:0], v.Running)
	d.pending = appendIDs(d.pending[:0], v.Pending)
	msg.Running, msg.Pending = nonNil(d.running), nonNil(d.pending)
	for _, j := range v.Running {
		msg.Jobs = append(msg.Jobs, p.newJob(msg, j, inRunning))
	}
	for _, j := range v.Pending {
		msg.Jobs = append(msg.Jobs, p.newJob(msg, j, inPending))
	}
	// Ended jobs are new to a client after a resync too: whole in
	// jobs, then ended (and forgotten) like in any decide.
	for _, j := range ended {
		msg.Jobs = append(msg.Jobs, p.newJob(msg, j, 0))
		msg.Ended = append(msg.Ended, p.stateV2(j))
		d.jobs.del(j.Spec.ID)
	}
	d.arrived = d.arrived[:0]
	d.dirty = d.dirty[:0]
}

// forget drops a job's record (ended or dropped); the slots it held, if
// any, may have changed.
func (p *Policy) forget(id sim.JobID) {
	if r := p.d.jobs.get(id); r != nil {
		p.d.dirty = append(p.d.dirty, r.gpus...)
		p.d.jobs.del(id)
	}
}

// slotChanges adds to msg the slots whose occupant changed since the last
// decide, as runs [first slot, count, job] of consecutive slots of one
// node that took the same occupant, in slot order, and updates the record.
// Separate because it is the slot table's delta encoding.
//
// Only the dirty slots are compared: the GPUs a job held or holds, for
// every job whose GPUs changed or that left the running queue. That finds
// every change because the slot table is exactly the running jobs' GPUs
// (the engine's invariant, checked by sim's checker under --check); a
// 10,240-slot table compared whole at every decision was a third of the
// adapter's time. The decides that carry checksums (check) also compare
// every other slot, and a change found there (the invariant broken by some
// future engine) is sent and makes every later decide compare every slot.
func (p *Policy) slotChanges(msg *decideV2, v *sim.View, check, nodesChanged bool) {
	d := p.d
	if d.scanAll || nodesChanged {
		p.scanSlots(msg, v)
		d.dirty = d.dirty[:0]
		return
	}
	slices.Sort(d.dirty)
	for i, s := range d.dirty {
		if i > 0 && d.dirty[i-1] == s || s < 0 || s >= len(v.Occupant) {
			continue
		}
		if o := v.Occupant[s]; d.occ[s] != o {
			d.occ[s] = o
			p.addSlot(msg, s, o)
		}
	}
	d.dirty = d.dirty[:0]
	if check {
		n := len(msg.Slots)
		p.scanSlots(msg, v)
		if len(msg.Slots) > n {
			d.scanAll = true
		}
	}
}

// scanSlots compares every slot with the record (a block at a time, with
// memequal; slot by slot only in a block that differs).
func (p *Policy) scanSlots(msg *decideV2, v *sim.View) {
	d := p.d
	const block = 64
	for b := 0; b < len(v.Occupant); b += block {
		e := min(b+block, len(v.Occupant))
		if slices.Equal(d.occ[b:e], v.Occupant[b:e]) {
			continue
		}
		for s := b; s < e; s++ {
			if o := v.Occupant[s]; d.occ[s] != o {
				d.occ[s] = o
				p.addSlot(msg, s, o)
			}
		}
	}
}

// addSlot adds slot s's new occupant o to msg: it extends the last run
// when s follows it on the same node with the same occupant.
func (p *Policy) addSlot(msg *decideV2, s int, o sim.JobID) {
	if n := len(msg.Slots); n > 0 {
		r := &msg.Slots[n-1]
		if r[0]+r[1] == s && r[2] == int(o) && p.slotNode[s] == p.slotNode[r[0]] {
			r[1]++
			return
		}
	}
	msg.Slots = append(msg.Slots, [3]int{s, 1, int(o)})
}

// stateChanges adds to msg the changed states of the jobs in the queues:
// every running job's that changed, and pending jobs' on entering the
// queue (or every decide, with live queue times). Separate because it is
// the rule for which job states a decide carries.
func (p *Policy) stateChanges(msg *decideV2, v *sim.View) {
	// Running jobs' state changes with every start, move and stop;
	// pending jobs' only on entering the queue (covered by the
	// running pass or their arrival) — except the live queue time.
	for _, j := range v.Running {
		if s := p.refresh(j); s != nil {
			msg.States = append(msg.States, *s)
		}
	}
	if p.live.queueTime {
		for _, j := range v.Pending {
			if s := p.refresh(j); s != nil {
				msg.States = append(msg.States, *s)
			}
		}
	} else {
		for _, id := range msg.PendingAdded {
			if s := p.refresh(v.Job(id)); s != nil {
				msg.States = append(msg.States, *s)
			}
		}
	}
}

func appendIDs(dst []sim.JobID, jobs []*sim.Job) []sim.JobID {
	for _, j := range jobs {
		dst = append(dst, j.Spec.ID)
	}
	return dst
}

// queueDelta describes the queue now as the last one sent minus removed,
// then added at the end: a walk of both in order keeps the common
// subsequence it meets first (the whole queue when nothing moved), so the
// description always rebuilds now exactly. It files each job in the record.
func (d *deltaState) queueDelta(last []sim.JobID, now []*sim.Job, in byte) (removed, added, next []sim.JobID) {
	k := 0
	for _, id := range last {
		if k < len(now) && now[k].Spec.ID == id {
			k++
			continue
		}
		removed = append(removed, id)
		if r := d.jobs.get(id); r != nil {
			d.dirty = append(d.dirty, r.gpus...)
			if r.in == in {
				r.in = 0
			}
		}
		d.removed = append(d.removed, id)
	}
	for _, j := range now[k:] {
		added = append(added, j.Spec.ID)
		if r := d.jobs.get(j.Spec.ID); r != nil {
			r.in = in
		}
	}
	if len(removed) == 0 && len(added) == 0 {
		return nil, nil, last
	}
	return removed, added, appendIDs(last[:0], now)
}

// newJob records j as sent and renders it whole (static part and state),
// adding its estimate table to msg when the client does not have it yet.
func (p *Policy) newJob(msg *decideV2, j *sim.Job, in byte) jobV2 {
	d := p.d
	s := j.Spec
	best := estimator.BestLocality(s.GPU, s.GPUs, p.cluster.NodeCapacity(s.GPU))
	key := tableKey{model: s.Workload.Model.Name(), batch: s.Workload.Batch, gpu: s.GPU, n: s.GPUs}
	id, ok := d.tableIDs[key]
	if !ok {
		id = len(d.tableRows)
		d.tableIDs[key] = id
		d.tableRows = append(d.tableRows, p.estimateRows(j, best))
	}
	if !d.tableSent[id] {
		d.tableSent[id] = true
		msg.Tables = append(msg.Tables, tableOut{ID: id, Estimates: d.tableRows[id]})
	}
	rec := &sent{in: in}
	d.jobs.set(s.ID, rec)
	return jobV2{stateV2: p.record(j, rec), Name: s.Name, Alias: s.Alias(), Model: s.Workload.Model.Name(), Batch: s.Workload.Batch,
		Iterations: j.Iterations, TraceIterations: s.Iterations, GPU: s.GPU, NumGPUs: s.GPUs, Submit: float64(s.Submit),
		Deadline: float64(s.Deadline), User: s.User, VC: s.VirtualCluster, Best: Grid{GPU: best.GPU, Nodes: best.Nodes, PerNode: best.PerNode},
		Estimates: id}
}

func (p *Policy) estimateRows(j *sim.Job, best estimator.Config) []estimateRow {
	s := j.Spec
	rows := []estimateRow{}
	for _, c := range Candidates(p.cluster, s.GPUs, best) {
		e := p.est.Estimate(s.Workload, c)
		if e.Feasible() {
			rows = append(rows, estimateRow{c.GPU, c.Nodes, c.PerNode, e.Throughput, e.IterTime})
		}
	}
	return rows
}

// stateV2 renders j's state as it is now.
func (p *Policy) stateV2(j *sim.Job) stateV2 {
	s := stateV2{ID: j.Spec.ID, Status: j.Status.String(), GPUs: nonNil(j.GPUs), Remaining: j.Remaining, Total: j.IterNum,
		FirstStart: float64(j.FirstStart), Reconfigs: j.Reconfigs, QueueTime: j.QueueTime()}
	if j.Status == sim.Running {
		s.Grid = &Grid{GPU: j.Config.GPU, Nodes: j.Config.Nodes, PerNode: j.Config.PerNode}
	}
	return s
}

// record renders j's state and makes rec what it says.
func (p *Policy) record(j *sim.Job, rec *sent) stateV2 {
	s := p.stateV2(j)
	rec.status, rec.gpus = j.Status, append(rec.gpus[:0], j.GPUs...)
	rec.grid = estimator.Config{}
	if j.Status == sim.Running {
		rec.grid = j.Config
	}
	rec.remaining, rec.total, rec.firstStart, rec.reconfigs, rec.queueTime = j.Remaining, j.IterNum, float64(j.FirstStart), j.Reconfigs, s.QueueTime
	return s
}

// refresh compares j with its record and, when something the client keeps
// current changed, renders its state and updates the record. A running
// job's remaining and a pending job's queue time are compared only when
// the client asked for them live; otherwise they go with the other changes.
func (p *Policy) refresh(j *sim.Job) *stateV2 {
	rec := p.d.jobs.get(j.Spec.ID)
	if rec == nil { // cannot happen: every queued job was sent whole
		rec = &sent{}
		p.d.jobs.set(j.Spec.ID, rec)
	}
	moved := !slices.Equal(rec.gpus, j.GPUs)
	if moved {
		p.d.dirty = append(append(p.d.dirty, rec.gpus...), j.GPUs...)
	}
	changed := rec.status != j.Status || moved || rec.total != j.IterNum ||
		rec.firstStart != float64(j.FirstStart) || rec.reconfigs != j.Reconfigs
	if !changed && j.Status == sim.Running {
		changed = rec.grid != j.Config || (p.live.remaining && rec.remaining != j.Remaining)
	}
	if !changed && j.Status != sim.Running {
		changed = rec.remaining != j.Remaining || (p.live.queueTime && rec.queueTime != j.QueueTime())
	}
	if !changed {
		return nil
	}
	s := p.record(j, rec)
	return &s
}

// Status codes in the checksum (sim.Status's values).
func statusCode(s sim.Status) int64 { return int64(s) }

// checksums are CRC-32 (IEEE) of little-endian int64 sequences built from
// the record — what the client should hold:
//
//	occupant: every slot's job id (−1 idle);
//	queues:   len(running), running ids, len(pending), pending ids;
//	jobs:     per running then pending job: id, status code (1 pending,
//	          2 running, 3 finished, 4 dropped), len(gpus), gpus…,
//	          remaining, total, reconfigs.
func (d *deltaState) checksums() *checkOut {
	var c checkOut
	b := d.crcBuf[:0]
	put := func(x int64) { b = binary.LittleEndian.AppendUint64(b, uint64(x)) }
	for _, o := range d.occ {
		put(int64(o))
	}
	c.Occupant = crc32.ChecksumIEEE(b)
	b = b[:0]
	for _, q := range [][]sim.JobID{d.running, d.pending} {
		put(int64(len(q)))
		for _, id := range q {
			put(int64(id))
		}
	}
	c.Queues = crc32.ChecksumIEEE(b)
	b = b[:0]
	for _, q := range [][]sim.JobID{d.running, d.pending} {
		for _, id := range q {
			r := d.jobs.get(id)
			if r == nil {
				continue
			}
			put(int64(id))
			put(statusCode(r.status))
			put(int64(len(r.gpus)))
			for _, g := range r.gpus {
				put(int64(g))
			}
			put(r.remaining)
			put(r.total)
			put(int64(r.reconfigs))
		}
	}
	c.Jobs = crc32.ChecksumIEEE(b)
	d.crcBuf = b
	return &c
}
