package gavel_test

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/traces"
)

// TestDPMemoryAdmission: with admission=dp-memory Gavel drops exactly the
// arrivals that no GPU type can run at best locality with the DP memory
// rule applied — counted here from the estimator's views, independently of
// the policy — and the simulator's default drops none of the testbed trace.
func TestDPMemoryAdmission(t *testing.T) {
	tr, err := traces.Load("testbed")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := clusterspec.Load("testbed-64")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	dp, blind := db.View(estimator.ViewDataParallel), db.View(estimator.ViewDataParallelNoMemCheck)
	want := 0
	for _, j := range tr.Jobs {
		runnable := false
		for _, typ := range c.Types {
			cfg := estimator.BestLocality(typ, j.GPUs, c.NodeCapacity(typ))
			if blind.Estimate(j.Workload, cfg).Feasible() && dp.Estimate(j.Workload, cfg).Reason != estimator.OutOfMemory {
				runnable = true
			}
		}
		if !runnable {
			want++
		}
	}
	if want == 0 {
		t.Fatal("no testbed job fails the DP memory rule everywhere: the test would prove nothing")
	}
	for policyStr, wantDropped := range map[string]int{"gavel": 0, "gavel(admission=dp-memory)": want, "gavel-stored(admission=dp-memory)": want} {
		o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
			Trace: "testbed", Cluster: "testbed-64", Policy: policyStr, Timing: sim.Exact, Check: true, // 72 rounds: every job arrives
		})
		if err != nil {
			t.Fatal(err)
		}
		if o.Summary.Dropped != wantDropped {
			t.Errorf("%s: %d dropped, want %d", policyStr, o.Summary.Dropped, wantDropped)
		}
	}
}
