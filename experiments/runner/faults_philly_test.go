package runner

import (
	"cmp"
	"context"
	"math/rand"
	"slices"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// Every built-in policy runs 300 rounds of Philly on paper-1280 under node
// failures (each node every 3 days on average, down an hour) and drains
// (30 minutes' notice, 2 hours down), with checkpoints, under the
// invariant checker (no GPU of a down node held, lost work accounted):
// no error, jobs interrupted, none stuck. Events are made here, seeded
// (sim/faults' presets are another package's).
func TestFaultsPhillyEveryPolicy(t *testing.T) {
	reg := policy.NewRegistry()
	for _, pol := range []string{"fcfs", "arena", "arena-dp", "gavel", "sia", "elasticflow", "tiresias", "srtf", "quota(fcfs)", "ftf"} {
		r := Run{Trace: "philly", Cluster: "paper-1280", Policy: pol, Timing: sim.Exact, Rounds: 300, Check: true, CheckpointInterval: 1800, CheckpointCost: 30, CheckpointRestore: 60}
		s, err := Resolve(reg, r)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := sim.NewCluster(s.ClusterSpec)
		start := s.Jobs[0].Submit
		rng := rand.New(rand.NewSource(1))
		var evs []sim.ClusterEvent
		for n := range c.Nodes {
			for x := float64(start) + rng.ExpFloat64()*86400*3; x < float64(start)+90000; x += 7200 + rng.ExpFloat64()*86400*3 {
				if rng.Intn(3) == 0 {
					evs = append(evs, sim.ClusterEvent{Time: sim.Time(x), Node: n, Kind: sim.NodeDrain, Notice: 1800, Cause: "maintenance"}, sim.ClusterEvent{Time: sim.Time(x + 7200), Node: n, Kind: sim.NodeUp})
				} else {
					evs = append(evs, sim.ClusterEvent{Time: sim.Time(x), Node: n, Kind: sim.NodeDown, Cause: "gpu"}, sim.ClusterEvent{Time: sim.Time(x + 3600), Node: n, Kind: sim.NodeUp})
				}
			}
		}
		slices.SortStableFunc(evs, func(a, b sim.ClusterEvent) int { return cmp.Compare(a.Time, b.Time) })
		s.Config.Events = evs
		out, err := s.Execute(context.Background(), nil)
		if err != nil {
			t.Errorf("%s: %v", pol, err)
			continue
		}
		f := out.Summary.Faults
		if f == nil || f.Interruptions == 0 || out.Summary.StuckPending > 0 || out.Summary.Finished == 0 {
			t.Errorf("%s: faults %+v, finished %d, stuck %d", pol, f, out.Summary.Finished, out.Summary.StuckPending)
			continue
		}
		t.Logf("%s: %d events, %d interruptions, lost %.1f GPU-h, ETTR %.3f, finished %d, stuck %d", pol, f.ClusterEvents, f.Interruptions, f.LostGPUHours, f.EffectiveTrainingTimeRatio, out.Summary.Finished, out.Summary.StuckPending)
	}
}
