package arena_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/sim"
)

// TestSearchShortcutsChangeNothing: the upgrade trial's memo (a trial's
// outcome kept across steps while its type's slots and the job's quota
// stand) and the outcomes told without running a migration search (a
// direct placement, an infeasible best locality; in the upgrade and the
// type-change trials) are shortcuts, not a model: every run must equal the
// run that performs every search in full, job for job and round for round.
// The oracle is the literal port (shortcuts off); the workloads are a
// Philly window and a synthesised Pollux window on paper-1280 and on the
// 10,240-GPU cluster, where upgrades and type changes are frequent.
func TestSearchShortcutsChangeNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	cases := []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 800},
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena-ns", Timing: sim.Artifact, Rounds: 800},
		{Synth: pollux, Cluster: "paper-1280", Policy: "arena", Timing: sim.Artifact, Rounds: 300},
		{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena-ddl", Timing: sim.Exact, Rounds: 300},
	}
	for _, run := range cases {
		name := run.Trace + "/" + run.Cluster + "/" + run.Policy + "/" + run.Timing.String()
		if run.Synth != nil {
			name = run.Synth.Name + "/" + run.Cluster + "/" + run.Policy + "/" + run.Timing.String()
		}
		t.Run(name, func(t *testing.T) {
			outcome := func(shortcuts bool) *sim.Result {
				defer arena.SetSearchShortcuts(arena.SetSearchShortcuts(shortcuts))
				o, err := runner.Execute(context.Background(), policy.NewRegistry(), run)
				if err != nil {
					t.Fatal(err)
				}
				return o.Result
			}
			full, fast := outcome(false), outcome(true)
			if len(full.Jobs) == 0 {
				t.Fatal("no jobs")
			}
			if !reflect.DeepEqual(full.Jobs, fast.Jobs) {
				t.Errorf("per-job records differ with the shortcuts on")
			}
			if !reflect.DeepEqual(full.Timeline, fast.Timeline) {
				t.Errorf("per-round timeline differs with the shortcuts on")
			}
			if !reflect.DeepEqual(full.Allocations, fast.Allocations) {
				t.Errorf("GPU holdings differ with the shortcuts on")
			}
			if !reflect.DeepEqual(full.Digest, fast.Digest) {
				t.Errorf("per-round digest differs with the shortcuts on")
			}
		})
	}
}

// TestArrivalRebaseChangesNothing: starting an arrival's fit from a fresh
// snapshot of the real table once its delta is long (arrivalRebase) changes
// how the table is kept, not its content: a run with a tiny threshold (4
// slots, so that nearly every fitted arrival rebases on paper-1280) must
// equal the run without it, job for job and round for round. Not a
// golden: the oracle is the same run with the mechanism off.
func TestArrivalRebaseChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	for _, run := range []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 600},
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena-nh", Timing: sim.Artifact, Rounds: 600},
	} {
		t.Run(run.Policy, func(t *testing.T) {
			outcome := func(threshold int) *sim.Result {
				defer arena.SetArrivalRebase(arena.SetArrivalRebase(threshold))
				o, err := runner.Execute(context.Background(), policy.NewRegistry(), run)
				if err != nil {
					t.Fatal(err)
				}
				return o.Result
			}
			off := outcome(0)
			before := arena.ArrivalRebases()
			on := outcome(4)
			if arena.ArrivalRebases() == before {
				t.Fatal("no arrival rebased the real table: the test does not exercise the mechanism")
			}
			if !reflect.DeepEqual(off.Jobs, on.Jobs) || !reflect.DeepEqual(off.Timeline, on.Timeline) ||
				!reflect.DeepEqual(off.Allocations, on.Allocations) || !reflect.DeepEqual(off.Digest, on.Digest) {
				t.Errorf("results differ with the arrival rebase on")
			}
		})
	}
}

// TestTwinRecordsMatchState: the upgrade trial's per-job records (twinRec:
// quota, trial key, USED slots, the doubling's feasibility), kept across
// the steps of one trial and refreshed only for the jobs a step changed,
// must give every job at every step the twin class read afresh from its
// state and the real table's stats (twins.class). Self-generated
// comparison (the oracle is the per-job computation the records replace);
// fails if a step's changed jobs are not marked stale (tried: with both
// the slot comparison, twins.tableChanged, and the quota hook, setQuota,
// left out, thousands of classes differ; each one alone covers these
// runs, where a changed slot of a job almost always changes its quota).
// The grouped walk (twins.walk: a group's class read once, from its first
// record) must list, at every step, the jobs seenAt's walk over every job
// searches.
func TestTwinRecordsMatchState(t *testing.T) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	defer arena.SetCheckTwinRecs(arena.SetCheckTwinRecs(true))
	for _, run := range []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 800},
		{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena", Timing: sim.Exact, Rounds: 300},
	} {
		c0, m0 := arena.TwinChecks()
		w0, wm0 := arena.TwinWalks()
		if _, err := runner.Execute(context.Background(), policy.NewRegistry(), run); err != nil {
			t.Fatal(err)
		}
		c1, m1 := arena.TwinChecks()
		w1, wm1 := arena.TwinWalks()
		if c1 == c0 || w1 == w0 {
			t.Fatalf("%s: no upgrade step walked the running jobs", run.Cluster)
		}
		if m1 != m0 {
			t.Errorf("%s: %d of %d twin classes from the records differ from the jobs' state", run.Cluster, m1-m0, c1-c0)
		}
		if wm1 != wm0 {
			t.Errorf("%s: %d of %d grouped walks differ from the walk over every job", run.Cluster, wm1-wm0, w1-w0)
		}
	}
}

// TestQuotasMatchFullRead: refreshQuotas reads again only the jobs on the
// slots whose occupant changed since its last read (and the jobs it
// carried); after every call each running job's quota must be the one a
// full read of the real table gives (its slots counted by a scan of every
// slot). Self-generated comparison (the oracle is the artifact's whole
// _update_run_jobs, recomputed from a scan); the runs include one whose
// real table is rebased every 16 delta slots, so that the reads follow
// snapshots' parents. Planted faults: without the comparison of this
// table's delta slots (compare(tb.dirty)), 519, 703 and 212 quotas differ
// in the three runs; without the comparison of every slot when the
// snapshots' line is broken, a run fails. (The last read's delta and the
// snapshots' diffs are not needed by these runs, where the real table's
// delta only grows between reads and a rebase starts from the content
// last read: they keep the read exact when a delta shrinks.)
func TestQuotasMatchFullRead(t *testing.T) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	defer arena.SetCheckQuotas(arena.SetCheckQuotas(true))
	for _, c := range []struct {
		run    runner.Run
		rebase int
	}{
		{runner.Run{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 800}, 300},
		{runner.Run{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena", Timing: sim.Exact, Rounds: 300}, 300},
		{runner.Run{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena-nh", Timing: sim.Exact, Rounds: 200}, 16},
	} {
		prev := arena.SetArrivalRebase(c.rebase)
		c0, m0 := arena.QuotaChecks()
		_, err := runner.Execute(context.Background(), policy.NewRegistry(), c.run)
		arena.SetArrivalRebase(prev)
		if err != nil {
			t.Fatal(err)
		}
		c1, m1 := arena.QuotaChecks()
		if c1 == c0 {
			t.Fatalf("%s %s: no quota compared", c.run.Policy, c.run.Cluster)
		}
		if m1 != m0 {
			t.Errorf("%s %s (rebase %d): %d of %d quotas differ from a full read", c.run.Policy, c.run.Cluster, c.rebase, m1-m0, c1-c0)
		}
	}
}

// TestRealSnapshotsInheritStats: refreshQuotas reads no stats, but it
// builds (pinSnapshotStats) the stats of each new snapshot of the real
// table from its parent's, so that the stats pass down the line of the
// real table's snapshots instead of a scan of every slot for the first
// snapshot whose parent had none. A counted property of the mechanism
// (not timed, and no oracle run): on a run whose real table is rebased every 16
// delta slots, scans stay a small share of the snapshots' stats (1 of
// 707 measured). Planted fault: without the call in refreshQuotas, 76 of
// 416 were scans.
func TestRealSnapshotsInheritStats(t *testing.T) {
	if testing.Short() {
		t.Skip("an Arena run; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	defer arena.SetArrivalRebase(arena.SetArrivalRebase(16))
	i0, s0 := arena.SnapshotStats()
	run := runner.Run{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena", Timing: sim.Exact, Rounds: 300}
	if _, err := runner.Execute(context.Background(), policy.NewRegistry(), run); err != nil {
		t.Fatal(err)
	}
	i1, s1 := arena.SnapshotStats()
	inherited, scanned := i1-i0, s1-s0
	if inherited == 0 {
		t.Fatal("no snapshot inherited its stats: the test does not exercise the mechanism")
	}
	if total := inherited + scanned; scanned*50 > total {
		t.Errorf("%d of %d snapshots' stats were a scan of every slot (at most 2 %% expected)", scanned, total)
	}
}

// TestFixupSkipsOnlyUnchangedJobs: the node-swap fix-up reads, until it
// swaps, only the jobs whose stats the round's "before" or end table
// recomputed; every job it skips must read the same stats entry before
// and now (its nodes did not change). Self-generated comparison (the
// oracle is the entry each side reads); planted fault: with the "before"
// table's recomputed jobs left unmarked, skipped jobs' entries differ.
func TestFixupSkipsOnlyUnchangedJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	defer arena.SetCheckFixupSkips(arena.SetCheckFixupSkips(true))
	for _, run := range []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 800},
		{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena-ns", Timing: sim.Exact, Rounds: 300},
	} {
		s0, m0 := arena.FixupSkips()
		if _, err := runner.Execute(context.Background(), policy.NewRegistry(), run); err != nil {
			t.Fatal(err)
		}
		s1, m1 := arena.FixupSkips()
		if s1 == s0 {
			t.Fatalf("%s %s: the fix-up skipped no job", run.Policy, run.Cluster)
		}
		if m1 != m0 {
			t.Errorf("%s %s: %d of %d skipped jobs read different stats before and now", run.Policy, run.Cluster, m1-m0, s1-s0)
		}
	}
}

// TestDowngradeFastFormMatchesLiteral: the downgrade search's fast form
// (the last level's steps run in place on the plan's table and rolled
// back, every target migration in place, a table copied only for a
// feasible plan that beats the best so far) must return, search by
// search, exactly the plans of the literal form (every step and every
// migration on a copy, every feasible plan kept) that fitOneJob can
// choose — those beating every plan before them — with the same gain,
// budget, target, modifications and table content. Self-generated
// comparison: the oracle is the literal form, run after the fast one on
// the same input (checkDowngrade). The runs are a Philly window on
// paper-1280 (depth 3 and 2) and a Pollux window on the 10,240-GPU
// cluster, for the variants with both steps, without shrink and with
// deadlines.
func TestDowngradeFastFormMatchesLiteral(t *testing.T) {
	defer arena.SetCheckDowngrade(arena.SetCheckDowngrade(true))
	checkEachSearch(t, "downgrade searches", arena.DowngradeChecks)
}

// TestTypeChangeMemoMatchesTrials: every type-change trial outcome the
// downgrade search takes from its memo (htcMemo: kept for a trial key, a
// new type and that type's slot version, across rounds without faults),
// and every one it tells from its search's shape (shapedTrial: the
// search with every locality feasible, shared by all workloads, and the
// job's feasibilities), must equal the trial's search run on the table at
// hand — the type change's gain, the search's success, gain and budget
// left. Self-generated comparison: the oracle is the search the shortcuts
// skip (checkHTCMemo); the runs are those of
// TestDowngradeFastFormMatchesLiteral (arena-ddl's trials are not
// memoised, and arena-nh makes none, so nothing is checked there).
func TestTypeChangeMemoMatchesTrials(t *testing.T) {
	defer arena.SetCheckHTCMemo(arena.SetCheckHTCMemo(true))
	checkEachSearch(t, "type-change trials told without a search", arena.HTCMemoChecks)
}

// checkEachSearch runs Arena with a per-search check switched on and
// fails if any check failed, or if none ran on a variant that should
// make some (counts returns the checks and mismatches so far). The runs
// are a Philly window on paper-1280 (depth 3 and 2) and on testbed-64, a
// Pollux window on paper-1280 (with and without node failures) and on the
// 10,240-GPU cluster, for the variants with both steps, without shrink,
// without type changes and with deadlines.
func checkEachSearch(t *testing.T, what string, counts func() (int64, int64)) {
	if testing.Short() {
		t.Skip("several Arena runs; skipped with -short")
	}
	pollux := &runner.SynthTrace{
		Name: "philly-pollux.arena", From: "philly-pollux",
		Keys: [][2]string{{"since", "35d"}, {"until", "37d"}, {"sample", "1920"}, {"recipe", "arena"}},
	}
	for _, run := range []runner.Run{
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 800},
		{Trace: "philly", Cluster: "paper-1280", Policy: "arena-ns", Timing: sim.Artifact, Rounds: 800},
		{Trace: "philly", Cluster: "testbed-64", Policy: "arena", Timing: sim.Exact, Rounds: 400},
		{Synth: pollux, Cluster: "paper-1280", Policy: "arena", Timing: sim.Artifact, Rounds: 300},
		{Synth: pollux, Cluster: "paper-1280", Policy: "arena", Timing: sim.Exact, Rounds: 300, Faults: "llama3", Seed: 1},
		{Synth: pollux, Cluster: "paper-1280", Policy: "arena-nh", Timing: sim.Exact, Rounds: 300},
		{Synth: pollux, Cluster: "../../examples/scale/paper-10240.yaml", Policy: "arena-ddl", Timing: sim.Exact, Rounds: 300},
	} {
		t.Run(run.Policy+"/"+run.Cluster, func(t *testing.T) {
			checks, bad := counts()
			if _, err := runner.Execute(context.Background(), policy.NewRegistry(), run); err != nil {
				t.Fatal(err)
			}
			checks2, bad2 := counts()
			if checks2 == checks && run.Policy == "arena" {
				t.Fatalf("no %s checked: the test does not exercise the mechanism", what)
			}
			if bad2 != bad {
				t.Errorf("%d of %d %s differ", bad2-bad, checks2-checks, what)
			}
			t.Logf("%d %s checked", checks2-checks, what)
		})
	}
}
