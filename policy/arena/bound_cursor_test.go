package arena

import (
	"slices"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestUpgradeCursorRoundRobin: with max_upgrades=3 and ten running jobs,
// the upgrade trials' windows are the running queue three at a time,
// wrapping (hand-worked: 0-2, 3-5, 6-8, 9,0,1, 2-4, …), so every running
// job is examined within ⌈10/3⌉ = 4 trials (decisions); when the job the
// next window starts at stops running, the window starts at its old
// position; and a queue no longer than the bound is examined whole, in
// order. Anchor: the windows are worked out by hand.
func TestUpgradeCursorRoundRobin(t *testing.T) {
	p := &Policy{}
	p.WithMaxUpgrades(3)
	newRound := func(ids ...sim.JobID) *round {
		p.runGen++
		r := &round{p: p}
		for _, id := range ids {
			r.running = append(r.running, id)
			p.markRunning(id, true)
		}
		return r
	}
	window := func(r *round) []sim.JobID {
		start, count := r.upgradeWindow()
		var out []sim.JobID
		for k := 0; k < count; k++ {
			out = append(out, r.running[(start+k)%len(r.running)])
		}
		return out
	}
	ten := []sim.JobID{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	r := newRound(ten...)
	want := [][]sim.JobID{{10, 11, 12}, {13, 14, 15}, {16, 17, 18}}
	for step, w := range want {
		if got := window(r); !slices.Equal(got, w) {
			t.Fatalf("trial %d: window %v, want %v", step, got, w)
		}
	}
	// A new decision, the same jobs running: the cursor persists.
	r = newRound(ten...)
	if got, w := window(r), []sim.JobID{19, 10, 11}; !slices.Equal(got, w) {
		t.Fatalf("next decision: window %v, want %v", got, w)
	}
	// Job 12, where the next window starts, has ended; 13 moved to the
	// queue's end (restarted): the window starts at position 2 of the new
	// queue [10 11 14 15 16 17 18 19 13].
	r = newRound(10, 11, 14, 15, 16, 17, 18, 19, 13)
	if got, w := window(r), []sim.JobID{14, 15, 16}; !slices.Equal(got, w) {
		t.Fatalf("after job 12 ended: window %v, want %v", got, w)
	}
	// Every job of a fixed queue is examined within ⌈n/3⌉ trials, from
	// wherever the cursor stands.
	r = newRound(ten...)
	seen := map[sim.JobID]bool{}
	for range 4 {
		for _, id := range window(r) {
			seen[id] = true
		}
	}
	if len(seen) != len(ten) {
		t.Errorf("4 trials examined %d of 10 jobs", len(seen))
	}
	// A queue the bound covers: whole, in order.
	r = newRound(20, 21, 22)
	if got, w := window(r), []sim.JobID{20, 21, 22}; !slices.Equal(got, w) {
		t.Errorf("short queue: window %v, want %v", got, w)
	}
}
