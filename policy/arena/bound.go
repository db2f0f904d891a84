package arena

import "github.com/arena-sim/arena/sim"

// Counted bounds on a decision's searches (issue 38 point 4; docs/arena.md
// "Bounding a decision's work"). Arena's published searches grow with the
// arrivals of a decision (one downgrade search each that does not fit
// directly, its plans reading every running job) and with the running
// jobs (every upgrade step examines every running job). Both bounds count
// steps, never time, and default to 0: no bound, the published algorithm,
// which the parity runs use.
//
// A fit past max_fits still searches, one level deep, rather than not at
// all: denying the search made the jobs it would have placed pend, and on
// 1M jobs × 102,400 GPUs the decision queue of blockers and opportunistic
// jobs then grew by hundreds per hour of trace, every restart pass walking
// it (max_fits=16: 197 s of CPU for 250 rounds against 11 s with the
// one-level search).

// bounds are the policy's options max_fits and max_upgrades and what they
// counted.
type bounds struct {
	// maxFits: full-depth downgrade searches per decision (0: no bound).
	maxFits int
	// maxUpgrades: running jobs an upgrade step examines (0: no bound).
	maxUpgrades int
	// next is the running job the next bounded upgrade step starts at
	// (hasNext: set), pos the position it had in the running queue (the
	// fallback when it no longer runs).
	next    sim.JobID
	hasNext bool
	pos     int
	// Counters, for the tests and the bench note: full-depth downgrade
	// searches, the most in one decision, and searches cut to one level;
	// upgrade steps and the most jobs one step examined.
	downgrades, maxDowngrades, denied int
	steps, maxVisited                 int
}

// WithBounds sets the counted bounds of a decision: at most maxFits fits
// per decision (of pending jobs in the restart trial, then of arrivals)
// get the artifact's downgrade search (breadth first to depth 2 or 3);
// later fits search one level (one shrink or type change, then the
// migration search), and an
// upgrade step examines at most maxUpgrades running jobs (twins included),
// round-robin over the running queue from where the last bounded step
// stopped. 0 is no bound: the published algorithm. A bound no decision
// reaches changes nothing.
func (p *Policy) WithBounds(maxFits, maxUpgrades int) *Policy {
	p.bound.maxFits, p.bound.maxUpgrades = maxFits, maxUpgrades
	return p
}

// fitDepth is the depth of fitOneJob's downgrade search, the artifact's
// depth for the first maxFits searches of a decision (the restart trial's
// for pending jobs and the arrivals' alike), one level past them.
func (r *round) fitDepth(depth int) int {
	b := &r.p.bound
	if b.maxFits > 0 && r.downgrades >= b.maxFits {
		b.denied++
		return 1
	}
	r.downgrades++
	b.downgrades++
	b.maxDowngrades = max(b.maxDowngrades, r.downgrades)
	return depth
}

// upgradeWindow is the part of the running queue an upgrade step
// examines: count jobs from position start, wrapping. Without a bound, or
// with one the running queue does not exceed, it is the whole queue in
// order.
func (r *round) upgradeWindow() (start, count int) {
	b := &r.p.bound
	n := len(r.running)
	b.steps++
	if b.maxUpgrades == 0 || n <= b.maxUpgrades {
		b.maxVisited = max(b.maxVisited, n)
		return 0, n
	}
	start = -1
	if b.hasNext && r.p.isRunning(b.next) {
		start = indexOf(r.running, b.next)
	}
	if start < 0 {
		start = b.pos % n
	}
	count = b.maxUpgrades
	end := (start + count) % n
	b.next, b.hasNext, b.pos = r.running[end], true, end
	b.maxVisited = max(b.maxVisited, count)
	return start, count
}
