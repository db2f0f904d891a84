package gavel

import "github.com/arena-sim/arena/sim"

// PendingMirror mirrors the engine's pending queue from one decision to the
// next for Gavel and Sia, whose restart passes walk the whole queue at
// every departure: tens of thousands of jobs on a long trace, most of them
// jobs that never start. Reading each job's record (its spec's GPU type or
// ID, two pointers away) was a third of their time there; the mirror keeps
// what the passes need, in queue order, in one compact array.
//
// Neither policy suspends, so the queue changes only by the policy's own
// starts (Started, then Compact) and by the arrivals it neither starts nor
// drops, which join the queue's end in arrival order (Append), as the
// engine queues them. A View whose queue disagrees with the mirror (length
// or last job: another caller, a repeated round) makes Sync rebuild it.
type PendingMirror struct {
	// Jobs is the queue, in order; Jobs[i] is View.Pending[i] after Sync.
	Jobs []Queued
	// typeIdx numbers the requested GPU types seen (any string: a job may
	// ask for a type the cluster lacks).
	typeIdx  map[string]int
	round    int
	rebuild  bool
	rebuilds int
}

// Queued is a pending job as the mirror keeps it.
type Queued struct {
	ID sim.JobID
	// Type numbers the job's requested GPU type (PendingMirror.Types).
	Type int
}

// Sync makes the mirror describe v.Pending.
func (m *PendingMirror) Sync(v *sim.View) {
	n := len(v.Pending)
	if !m.rebuild && len(m.Jobs) == n && v.Round >= m.round && (n == 0 || m.Jobs[n-1].ID == v.Pending[n-1].Spec.ID) {
		m.round = v.Round
		return
	}
	m.rebuild = false
	m.rebuilds++
	m.Jobs = m.Jobs[:0]
	for _, j := range v.Pending {
		m.Append(j)
	}
	m.round = v.Round
}

// Started marks Jobs[i] as started: Compact removes it.
func (m *PendingMirror) Started(i int) { m.Jobs[i].ID = sim.NoJob }

// Compact removes the jobs marked started, keeping the others' order.
func (m *PendingMirror) Compact() {
	kept := m.Jobs[:0]
	for _, q := range m.Jobs {
		if q.ID != sim.NoJob {
			kept = append(kept, q)
		}
	}
	m.Jobs = kept
}

// Append adds j at the queue's end.
func (m *PendingMirror) Append(j *sim.Job) {
	if m.typeIdx == nil {
		m.typeIdx = map[string]int{}
	}
	t, ok := m.typeIdx[j.Spec.GPU]
	if !ok {
		t = len(m.typeIdx)
		m.typeIdx[j.Spec.GPU] = t
	}
	m.Jobs = append(m.Jobs, Queued{ID: j.Spec.ID, Type: t})
}

// Types is how many requested GPU types have been numbered (Queued.Type
// is below it).
func (m *PendingMirror) Types() int { return len(m.typeIdx) }

// Invalidate makes the next Sync rebuild the mirror from its View (tests
// compare a carried mirror with a rebuilt one).
func (m *PendingMirror) Invalidate() { m.rebuild = true }

// Rebuilds counts the Syncs that rebuilt the mirror.
func (m *PendingMirror) Rebuilds() int { return m.rebuilds }
