package arena

import "github.com/arena-sim/arena/sim"

// A counted bound on the upgrade trial (issue 38 point 4; docs/arena.md
// "Bounding a decision's work"). Each of the trial's up to 10 steps
// examines every running job, so a decision's work grows with the running
// queue, i.e. with the cluster. Option max_upgrades=N bounds the jobs the
// trial examines to a window of N running jobs, counted as jobs visited
// (twins included: the walk itself is the cost), never time; 0 is no
// bound, the published algorithm, which the parity runs use.
//
// Every step of a trial examines the same window, so the steps after the
// first find their outcomes in the trial memo as without a bound (a window
// moving with each step cost more at 100k jobs: 9.6 s of CPU against 7.2 s
// at N=64). The windows are round-robin over the running queue (start
// order): a trial starts where the last bounded one stopped, so every
// running job is examined within ⌈running/N⌉ decisions and none is starved
// of upgrades by the bound.
//
// A bound on the downgrade search's fits (max_fits, as gavel, sia and
// elasticflow take) was measured and dropped: denying the search makes
// the jobs it would place pend, and the decision queue of blockers then
// grows and costs more than the searches saved; a one-level search past
// the bound saves nothing, the first level being most of a search's cost
// (bench/scale-1m-arena-bound.md).

// bounds is the upgrade trial's bound and its cursor and counters.
type bounds struct {
	// maxUpgrades: running jobs an upgrade trial examines (0: no bound).
	maxUpgrades int
	// next is the running job the next bounded trial starts at (hasNext:
	// set), pos the position it had in the running queue (the fallback
	// when it no longer runs).
	next    sim.JobID
	hasNext bool
	pos     int
	// Counters, for the tests: upgrade trials, and the most jobs one
	// examined.
	trials, maxVisited int
}

// WithMaxUpgrades bounds the jobs an upgrade trial examines to a window
// of n running jobs (twins included; each step examines the same window),
// round-robin over the running queue from where the last bounded trial
// stopped; 0 is no bound, the published algorithm. A bound the running
// queue never exceeds changes nothing.
func (p *Policy) WithMaxUpgrades(n int) *Policy {
	p.bound.maxUpgrades = n
	return p
}

// upgradeWindow is the part of the running queue an upgrade trial
// examines: count jobs from position start, wrapping. Without a bound, or
// with one the running queue does not exceed, it is the whole queue in
// order.
func (r *round) upgradeWindow() (start, count int) {
	b := &r.p.bound
	n := len(r.running)
	b.trials++
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
