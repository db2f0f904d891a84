package exec_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	pexec "github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/sim"
)

func run(t *testing.T, p, trace, cluster string, timing sim.Timing, rounds int) (*runner.Outcome, error) {
	t.Helper()
	return runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: trace, Cluster: cluster, Policy: p, Timing: timing, Rounds: rounds, Check: true,
	})
}

// sameJobs fails the test unless two runs gave identical job records and
// per-round digests (the oracle: Go fcfs, whose decisions fifo.py repeats).
func sameJobs(t *testing.T, want, got *runner.Outcome) {
	t.Helper()
	if want.Summary.Finished == 0 {
		t.Fatal("no job finished: the comparison would be empty")
	}
	if !reflect.DeepEqual(want.Result.Jobs, got.Result.Jobs) {
		for i := range want.Result.Jobs {
			if want.Result.Jobs[i] != got.Result.Jobs[i] {
				t.Fatalf("job %d differs:\n want %+v\n got  %+v", i, want.Result.Jobs[i], got.Result.Jobs[i])
			}
		}
	}
	if !reflect.DeepEqual(want.Result.Digest, got.Result.Digest) {
		t.Error("per-round digests differ")
	}
}

// Protocol 1 stays accepted: the version-1 client and FIFO as they were
// before protocol 2 (testdata/v1, copied from the commit before it) still
// give Go fcfs's results.
func TestProtocol1StillAccepted(t *testing.T) {
	python3(t)
	for _, c := range []struct {
		trace, cluster string
		timing         sim.Timing
		rounds         int
	}{{"testbed", "testbed-64", sim.Exact, 0}, {"philly", "paper-1280", sim.Artifact, 300}} {
		goRun, err := run(t, "fcfs", c.trace, c.cluster, c.timing, c.rounds)
		if err != nil {
			t.Fatal(err)
		}
		v1, err := run(t, "exec:python3 testdata/v1/fifo.py", c.trace, c.cluster, c.timing, c.rounds)
		if err != nil {
			t.Fatal(err)
		}
		sameJobs(t, goRun, v1)
	}
}

// Protocol 2 sends nothing unchanged: testdata/minimal.py checks every
// slot and job state of every delta against its mirror before applying it,
// and ends the run on one sent unchanged, or on a decide sent although no
// job waits to a client that promised idle_when_nothing_waits (the ended
// jobs of the decisions not sent come with the next); with the checksums on every
// decision and strict mode, the mirror never disagrees with arena's record
// (also with the live fields, sent at every change); and the run still
// gives fcfs's results.
func TestDeltaSendsOnlyChanges(t *testing.T) {
	python3(t)
	defer func(n int) { pexec.CheckEvery = n }(pexec.CheckEvery)
	pexec.CheckEvery = 1
	t.Setenv("ARENA_POLICY_STRICT", "1")
	for _, c := range []struct {
		trace, cluster string
		timing         sim.Timing
		rounds         int
	}{{"testbed", "testbed-64", sim.Exact, 0}, {"philly", "paper-1280", sim.Artifact, 600}} {
		goRun, err := run(t, "fcfs", c.trace, c.cluster, c.timing, c.rounds)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"exec:python3 testdata/minimal.py", "exec:python3 testdata/minimal.py live", "exec:python3 testdata/minimal.py all"} {
			py, err := run(t, p, c.trace, c.cluster, c.timing, c.rounds)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			sameJobs(t, goRun, py)
		}
	}
}

// resyncClient is a protocol-2 client in Python (stdlib only) that asks
// for the full state instead of answering the first decide `asks` times,
// and fails unless what follows is a full decide with the next sequence
// number; then it answers every decide with no action.
const resyncClient = `exec:python3 -c '
import json, sys
asks = int(sys.argv[1]); seen = 0; last = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 2, "name": "resync"}), flush=True)
    elif m["type"] == "decide":
        if m["seq"] != last + 1:
            print(json.dumps({"type": "error", "message": "seq %d after %d" % (m["seq"], last)}), flush=True); break
        last = m["seq"]
        if seen > 0 and seen <= asks and not m.get("full"):
            print(json.dumps({"type": "error", "message": "no full state after a resync"}), flush=True); break
        if seen < asks:
            seen += 1
            print(json.dumps({"type": "resync", "round": m["round"], "message": "test"}), flush=True)
            continue
        seen = asks + 1
        print(json.dumps({"type": "actions", "round": m["round"], "actions": []}), flush=True)
    else:
        break
' `

// A resync request is answered with the full state under the next sequence
// number; a client that asks again within the same decision is broken and
// ends the run with an error that says so.
func TestResync(t *testing.T) {
	python3(t)
	if _, err := run(t, resyncClient+"1", "testbed", "testbed-64", sim.Exact, 5); err != nil {
		t.Fatalf("one resync: %v", err)
	}
	_, err := run(t, resyncClient+"2", "testbed", "testbed-64", sim.Exact, 5)
	if err == nil || !strings.Contains(err.Error(), "asked for the full state 2 times in one decision") {
		t.Fatalf("two resyncs in one decision: %v", err)
	}
}

// An error about a job gives the protocol's id and the name arena's own
// messages use (alias and trace name).
func TestErrorNamesJob(t *testing.T) {
	_, err := run(t, script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"start\",\"job\":0,\"gpus\":[64]}]}"`), "testbed", "testbed-64", sim.Exact, 3)
	if err == nil || !strings.Contains(err.Error(), "round 0, job 0 = job_0001 (") {
		t.Fatalf("error %v: want job 0 named job_0001 (trace name)", err)
	}
}
