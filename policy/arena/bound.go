package arena

import "github.com/arena-sim/arena/sim"

// Counted bounds on a decision's searches (issue 38 point 4; docs/arena.md
// "Bounding a decision's work"). Arena's published searches grow with the
// arrivals of a decision (one downgrade search each that does not fit
// directly) and with the running jobs (every upgrade step examines every
// running job). Both bounds count steps, never time, and default to 0: no
// bound, the published algorithm, which the parity runs use.

// bounds are the policy's options max_fits and max_upgrades and what they
// counted.
type bounds struct {
	// maxFits: downgrade searches per decision (0: no bound).
	maxFits int
	// maxUpgrades: running jobs an upgrade step examines (0: no bound).
	maxUpgrades int
	// next is the running job the next bounded upgrade step starts at
	// (hasNext: set), pos the position it had in the running queue (the
	// fallback when it no longer runs).
	next    sim.JobID
	hasNext bool
	pos     int
	// Counters, for the tests and the bench note: downgrade searches run,
	// the most in one decision, and fits denied one;
	// upgrade steps and the most jobs one step examined.
	downgrades, maxDowngrades, denied int
	steps, maxVisited                 int
}

// WithBounds sets the counted bounds of a decision: at most maxFits fits
// per decision (of pending jobs in the restart trial, then of arrivals)
// get the downgrade search (a later job that the migration search does
// not place pends, as a failed fit leaves it), and an
// upgrade step examines at most maxUpgrades running jobs (twins included),
// round-robin over the running queue from where the last bounded step
// stopped. 0 is no bound: the published algorithm. A bound no decision
// reaches changes nothing.
func (p *Policy) WithBounds(maxFits, maxUpgrades int) *Policy {
	p.bound.maxFits, p.bound.maxUpgrades = maxFits, maxUpgrades
	return p
}

// mayDowngrade reports whether fitOneJob may run the downgrade search,
// counting the decision's searches: the restart trial's for pending jobs
// and fitNewJobs' for arrivals alike (bounding only the arrivals' makes
// the denied ones pend, and the restart trial then searches for them
// unbounded).
func (r *round) mayDowngrade() bool {
	b := &r.p.bound
	if b.maxFits > 0 && r.downgrades >= b.maxFits {
		b.denied++
		return false
	}
	r.downgrades++
	b.downgrades++
	b.maxDowngrades = max(b.maxDowngrades, r.downgrades)
	return true
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
