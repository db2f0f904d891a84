package sim

// A finished job's place in the network (jobNet) is given back: see
// netState's retired and free, and netSummary, which reads the retired
// list in job order.

// retiredNet is a finished job's contention figures (its jobNet's
// slowInt and heldInt, when it crossed fast domains for some time).
type retiredNet struct {
	id               JobID
	slowInt, heldInt float64
}

// netRetire gives back the jobNet of j, which finished and left the
// network (netDetach): its integrals, final since netOff (it no longer
// crosses), go to the summary's retired list when it ever held a crossing
// allocation for some time, as netSummary would read them, and the jobNet,
// zeroed but for its slices' capacity, to the free list.
func (e *engine) netRetire(j *Job) {
	n := j.net
	if n == nil {
		return
	}
	ns := e.net
	if n.ever && n.heldInt > 0 {
		ns.retired = append(ns.retired, retiredNet{id: j.Spec.ID, slowInt: n.slowInt, heldInt: n.heldInt})
	}
	*n = jobNet{links: n.links[:0], demand: n.demand[:0], used: n.used[:0]}
	ns.free = append(ns.free, n)
	j.net, j.netLocal = nil, false
}
