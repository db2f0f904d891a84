package energy

import (
	"math"
	"sort"

	"github.com/arena-sim/arena/sim"
)

// Outage is a span during which a node is out of service (down after a
// failure, in a maintenance window, reclaimed, or not yet added), seconds
// on the trace's clock; To may be +Inf, From −Inf. Billed says whether
// the cluster's cost still pays for it: a failed or maintained node is
// the site's and is paid for; spot capacity while reclaimed and a node
// before it is added are not.
type Outage struct {
	From, To float64
	Billed   bool
}

// The rule for GPUs on a node that is out of service (docs/energy.md):
// they are powered off — they and their server share draw nothing and
// their GPU-time leaves the power distribution — from the instant the
// node goes down (after a drain's or reclaim's notice, during which the
// node is up) until it is back. Cluster cost drops only the unbilled
// outages.

// EventOutages returns each node's outages (node index → spans in time
// order; nil when no event takes a node out) under the engine's rules for
// events in time order (sim/faultstate.go): a node whose first event adds
// it is out from the start until then; down takes a node out at once;
// drain and reclaim at the end of their notice (at once with notice 0),
// unless the node is already out (nothing changes) or an earlier notice
// ends first (it stands); up and add bring it back and cancel a pending
// notice.
func EventOutages(events []sim.ClusterEvent) map[int][]Outage {
	type state struct {
		out     bool
		since   float64
		billed  bool
		pending bool    // a notice runs
		until   float64 // its end
		pBilled bool    // whether the outage it starts is billed
	}
	st := map[int]*state{}
	var res map[int][]Outage
	closeOut := func(n int, s *state, t float64) {
		s.out = false
		if !(t > s.since) {
			return
		}
		if res == nil {
			res = map[int][]Outage{}
		}
		res[n] = append(res[n], Outage{From: s.since, To: t, Billed: s.billed})
	}
	// expire takes the node out at its notice's end if that is before t
	// (at the same instant the engine applies the file's event first).
	expire := func(s *state, t float64) {
		if s.pending && !s.out && s.until < t {
			s.out, s.since, s.billed, s.pending = true, s.until, s.pBilled, false
		}
	}
	for _, e := range events {
		n, t := e.Node, float64(e.Time)
		s := st[n]
		k := e.Kind.Info()
		if s == nil {
			s = &state{}
			st[n] = s
			if k.Joins { // absent from the start until it joins
				s.out, s.since, s.billed = true, math.Inf(-1), false
			}
		}
		expire(s, t)
		billed := e.Kind != sim.NodeReclaim
		switch {
		case k.Up:
			s.pending = false
			if s.out {
				closeOut(n, s, t)
			}
		case k.Notice:
			switch {
			case s.out:
			case e.Notice == 0:
				s.pending = false
				s.out, s.since, s.billed = true, t, billed
			default:
				until := t + float64(e.Notice)
				if s.pending && s.until <= until {
					break // an earlier notice stands
				}
				s.pending, s.until, s.pBilled = true, until, billed
			}
		case k.Down:
			s.pending = false
			if !s.out {
				s.out, s.since, s.billed = true, t, billed
			}
		}
	}
	nodes := make([]int, 0, len(st))
	for n := range st {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	for _, n := range nodes {
		s := st[n]
		expire(s, math.Inf(1))
		if s.out {
			closeOut(n, s, math.Inf(1))
		}
	}
	return res
}

// WithEvents returns m with the prices (EventPrices) and outages
// (EventOutages) of a run's cluster events: m itself when they have
// neither, else a copy.
func (m *Model) WithEvents(events []sim.ClusterEvent) *Model {
	prices, outages := EventPrices(events), EventOutages(events)
	if prices == nil && outages == nil {
		return m
	}
	c := m.Clone()
	c.NodePrices, c.Outages = prices, outages
	return c
}
