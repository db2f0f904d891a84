package sim

import (
	"context"
	"slices"
	"testing"
)

// TestFinishedJobsGiveBackNet (anchor, by hand as above): job 0 runs 100
// iterations across racks alone (nodes 0 and 2, 1000 s); job 1 starts at
// round 4 (1200 s) on nodes 1 and 3 and runs alone too (2200 s). Job 1
// attaches the jobNet job 0 gave back when it finished: one allocated
// for the two. Both keep their network figures: 1000 s across domains,
// slowdown 1. Two jobs at once (sharing the uplinks: 1500 s each) need two.
func TestFinishedJobsGiveBackNet(t *testing.T) {
	run := func(byRound map[int][]Action, want ...float64) (*Result, int) {
		t.Helper()
		e, err := newEngine(topoConfig(t, rack2()), &scripted{byRound: byRound}, topoJobs(t, 100, 100))
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		wantJCTs(t, res, want...)
		return res, e.net.made
	}
	res, made := run(map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: nodeSlots(0, 2)}},
		4: {{Kind: Start, Job: 1, GPUs: nodeSlots(1, 3)}},
	}, 1000, 2200)
	want := []JobNetRecord{{Job: 0, Slowdown: 1, AcrossS: 1000}, {Job: 1, Slowdown: 1, AcrossS: 1000}}
	if n := res.Network; n == nil || !slices.Equal(n.Jobs, want) || n.JobsCrossing != 2 {
		t.Fatalf("network %+v, want the records %v", res.Network, want)
	}
	if made != 1 {
		t.Errorf("%d jobNets allocated for two jobs one after the other, want 1 (the first one's given back)", made)
	}
	res, made = run(map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: nodeSlots(0, 2)}, {Kind: Start, Job: 1, GPUs: nodeSlots(1, 3)}}}, 1500, 1500)
	if made != 2 || res.Network.JobsCrossing != 2 {
		t.Errorf("two jobs at once: %d jobNets, %d crossing; want 2 and 2", made, res.Network.JobsCrossing)
	}
}
