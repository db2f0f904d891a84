package arena_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// runCounted runs run (its Policy an "arena…" string, options allowed)
// with a registry holding only Arena's entries, each wrapped so that the
// test can read the policy's bound counters after the run.
func runCounted(t *testing.T, run runner.Run) (*sim.Result, arena.BoundCounts) {
	t.Helper()
	var built *arena.Policy
	reg := registry.New()
	for _, e := range arena.Entries() {
		inner := e.New
		e.New = func(o registry.Options) (sim.Policy, error) {
			p, err := inner(o)
			if a, ok := p.(*arena.Policy); ok {
				built = a
			}
			return p, err
		}
		reg.MustRegister(e)
	}
	o, err := runner.Execute(context.Background(), reg, run)
	if err != nil {
		t.Fatalf("%s: %v", run.Policy, err)
	}
	if built == nil {
		t.Fatalf("%s: no *arena.Policy was built", run.Policy)
	}
	return o.Result, built.Bounds()
}

func sameResults(a, b *sim.Result) bool {
	return reflect.DeepEqual(a.Jobs, b.Jobs) && reflect.DeepEqual(a.Timeline, b.Timeline) &&
		reflect.DeepEqual(a.Allocations, b.Allocations) && reflect.DeepEqual(a.Digest, b.Digest)
}

// TestBoundNotReachedChangesNothing: on the paper's run (Philly on
// paper-1280, artifact timing, 2000 rounds) and on an exact-timing run, a
// max_upgrades equal to the longest running queue an upgrade trial of the
// unbounded run walked is never exceeded, so the results must equal the
// unbounded run's job for job and round for round; one less must cut a
// trial short (the counter says so) — the edge is where the unbounded run
// puts it. Not a golden: the oracle is the same run with
// no bound.
func TestBoundNotReachedChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("several Philly runs; skipped with -short")
	}
	for _, run := range []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Artifact, Rounds: 2000},
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena-nh", Timing: sim.Exact, Rounds: 600},
	} {
		t.Run(run.Policy, func(t *testing.T) {
			free, n := runCounted(t, run)
			t.Logf("unbounded: %+v", n)
			if n.MaxVisited == 0 {
				t.Fatalf("unbounded run counted %+v: want upgrade trials", n)
			}
			name := run.Policy
			run.Policy = fmt.Sprintf("%s(max_upgrades=%d)", name, n.MaxVisited)
			at, m := runCounted(t, run)
			if m != n {
				t.Errorf("%s counted %+v, the unbounded run %+v", run.Policy, m, n)
			}
			if !sameResults(free, at) {
				t.Errorf("%s: results differ from the unbounded run's", run.Policy)
			}
			run.Policy = fmt.Sprintf("%s(max_upgrades=%d)", name, n.MaxVisited-1)
			if _, m := runCounted(t, run); m.MaxVisited != n.MaxVisited-1 {
				t.Errorf("%s: an upgrade trial examined %d jobs", run.Policy, m.MaxVisited)
			}
		})
	}
}

// TestSmallBoundChangesRun: small bounds change the schedule of Philly in
// exact timing, the engine's invariant checker (Check: no GPU held twice,
// gangs whole, work conserved) finds nothing wrong, and no upgrade trial
// examines more jobs than the bound (a counter, not a clock). Not a
// golden: the assertions are inequalities against the bound and the
// unbounded run.
func TestSmallBoundChangesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("Philly runs; skipped with -short")
	}
	run := runner.Run{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 500, Check: true}
	free, n := runCounted(t, run)
	for _, ups := range []int{1, 4, 16} {
		run.Policy = fmt.Sprintf("arena(max_upgrades=%d)", ups)
		res, m := runCounted(t, run)
		if m.MaxVisited > ups || m.Trials == 0 {
			t.Errorf("%s: %d trials, one examined %d jobs (unbounded: %+v)", run.Policy, m.Trials, m.MaxVisited, n)
		}
		if sameResults(free, res) {
			t.Errorf("%s: the same results as the unbounded run", run.Policy)
		}
		if len(res.JCTs) == 0 {
			t.Errorf("%s: no job finished", run.Policy)
		}
	}
}
