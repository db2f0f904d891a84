package arena

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestUpgradeMemoFollowsTableChanges works one job's upgrade search by
// hand before and after the A100 slots change, and checks that the memo
// of trial outcomes follows the change.
//
// Two A100 nodes of 4 (slots 0–7; A100s run 3× faster here), one A40 node
// of 2 (slots 8, 9). Job 0 (gpt-1.3b, 10 samples/s per GPU) holds both
// A40s: 20 samples/s. Job 1 holds A100 slots 4, 5; job 2 waits.
//   - Before: node 0 is idle, so moving job 0 to the A100s places it
//     there directly, 1×2: 3·10·2 = 60, a gain of 40.
//   - Then job 2 takes slots 0–2 and job 1 slot 6: each A100 node has one
//     idle GPU, two in all, so the trial still runs; no node has two
//     (nothing direct), the bubble-migration pair re-packs the same
//     layout, and the relaxed locality puts job 0 on 2×1: 3·10·2·0.9 = 54,
//     a gain of 34.
//
// A memo that missed the change would answer 40.
func TestUpgradeMemoFollowsTableChanges(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 2, GPUsPerNode: 4}, sim.Pool{GPU: "a40", Nodes: 1, GPUsPerNode: 2})
	est := uniformRates("gpt-1.3b", "moe-1.3b", "wresnet-1b")
	est.typeRate = map[string]float64{"a100": 3}
	jobs := []testJob{
		{"gpt-1.3b", "a40", 2, []int{8, 9}},
		{"moe-1.3b", "a100", 2, []int{4, 5}},
		{"wresnet-1b", "a100", 3, nil},
	}
	a100 := 0
	r := newTestRound(t, c, est, jobs)
	memo := &r.p.trials
	memo.reset(len(r.running), len(r.p.tp.types))
	const job = 0 // first in the running queue
	check := func(what string, u upgrade, gain float64, l loc) {
		t.Helper()
		if !u.ok || math.Abs(u.gain-gain) > 1e-9 || u.job.t != a100 || u.l != l {
			t.Errorf("%s: ok=%v gain %v type %d locality %v; want a gain of %v on the A100s at %v", what, u.ok, u.gain, u.job.t, u.l, gain, l)
		}
	}
	check("before", r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0), 40, loc{1, 2})

	before := r.real
	after := r.clone(before)
	for _, s := range []int{0, 1, 2} {
		after.set(s, 2, true)
	}
	after.set(6, 1, true)

	// The scenario tells a stale memo apart: without the change noted,
	// the memo answers from the table before.
	r.real = after
	check("stale memo", r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0), 40, loc{1, 2})

	// A reset forgets the outcomes of the call before it without clearing
	// them (their versions are below the new call's): the search on the
	// table after answers 34, not the 40 the memo holds.
	memo.reset(len(r.running), len(r.p.tp.types))
	check("after a reset", r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0), 34, loc{2, 1})

	memo.reset(len(r.running), len(r.p.tp.types))
	r.real = before
	r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0)
	memo.tableChanged(before, after)
	r.real = after
	r.refreshQuotas()
	check("after", r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0), 34, loc{2, 1})

	defer SetSearchShortcuts(SetSearchShortcuts(false))
	check("every trial run", r.upgradeSearch(job, globalMigrationEta, localMigrationEta, memo, 0), 34, loc{2, 1})
}

// TestUpgradeShortcutsOddCounts: a job whose GPU count is not a multiple
// of the nodes' (6 GPUs on nodes of 4, 3 on nodes of 2) is where placing
// it "directly" can fail; the shortcuts must then leave the answer to the
// search. Every upgrade search and every pending job's fit (whose
// downgrade search runs type-change trials) equals the one that runs
// every search.
func TestUpgradeShortcutsOddCounts(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 3, GPUsPerNode: 4}, sim.Pool{GPU: "a40", Nodes: 5, GPUsPerNode: 2})
	est := uniformRates("gpt-1.3b", "moe-1.3b")
	est.typeRate = map[string]float64{"a100": 3}
	for _, jobs := range [][]testJob{
		{{"gpt-1.3b", "a40", 6, seq(12, 17)}},
		{{"gpt-1.3b", "a40", 6, seq(12, 17)}, {"moe-1.3b", "a100", 1, []int{0}}},
		{{"gpt-1.3b", "a40", 3, seq(12, 14)}, {"moe-1.3b", "a100", 2, []int{0, 4}}},
		{{"moe-1.3b", "a100", 3, seq(0, 2)}, {"gpt-1.3b", "a40", 2, seq(12, 13)}},
		{{"moe-1.3b", "a100", 4, seq(0, 3)}, {"gpt-1.3b", "a100", 6, nil}, {"gpt-1.3b", "a40", 3, nil}},
		{{"moe-1.3b", "a40", 4, seq(12, 15)}, {"moe-1.3b", "a100", 2, []int{4, 5}}, {"gpt-1.3b", "a40", 6, nil}},
	} {
		var got [2][]upgrade
		var fits [2][]string
		for i, on := range []bool{false, true} {
			prev := SetSearchShortcuts(on)
			r := newTestRound(t, c, est, jobs)
			memo := &r.p.trials
			memo.reset(len(r.running), len(r.p.tp.types))
			for k, id := range r.running {
				got[i] = append(got[i], r.upgradeSearch(id, globalMigrationEta, localMigrationEta, memo, k))
			}
			// The pending jobs' fits, through the downgrade search's
			// type-change trials.
			for _, id := range r.pending {
				ok, dec, budget := r.fitOneJob(r.real, r.registered(id), globalMigrationEta, localMigrationEta)
				var slots []int
				if ok {
					slots = slotsOf(dec, id)
				}
				fits[i] = append(fits[i], fmt.Sprint(ok, slots, budget))
			}
			SetSearchShortcuts(prev)
		}
		if !reflect.DeepEqual(got[0], got[1]) {
			t.Errorf("jobs %v: every trial run gives %+v, the shortcuts %+v", jobs, got[0], got[1])
		}
		if !reflect.DeepEqual(fits[0], fits[1]) {
			t.Errorf("jobs %v: every search run fits %v, the shortcuts %v", jobs, fits[0], fits[1])
		}
	}
}
