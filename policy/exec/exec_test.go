package exec_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	pexec "github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/policy/policytest"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
)

// python3 returns the interpreter, or skips loudly: the Python examples are
// part of the suite wherever python3 exists (CI has it).
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("SKIPPED: python3 not found on PATH; the Python example policies are not tested")
	}
	return p
}

// The oracle is the Go fcfs policy: examples/python/fifo.py reimplements
// its rules through the protocol, so every job record and every per-round
// digest row must be identical. Philly in artifact timing is the regime
// with head-of-line blocking and queueing (590 jobs finish); the testbed
// trace in exact timing exercises completions between rounds.
func TestPythonFIFOMatchesGoFCFS(t *testing.T) {
	python3(t)
	reg := policy.NewRegistry()
	for _, c := range []struct {
		trace, cluster string
		timing         sim.Timing
		rounds         int
	}{
		{"philly", "paper-1280", sim.Artifact, 2000},
		{"testbed", "testbed-64", sim.Exact, 0},
	} {
		t.Run(c.trace, func(t *testing.T) {
			run := func(p string) *runner.Outcome {
				o, err := runner.Execute(context.Background(), reg, runner.Run{
					Trace: c.trace, Cluster: c.cluster, Policy: p, Timing: c.timing, Rounds: c.rounds, Check: true,
				})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			goRun, pyRun := run("fcfs"), run("exec:python3 ../../examples/python/fifo.py")
			if pyRun.Summary.Policy != "exec:python3 ../../examples/python/fifo.py" {
				t.Errorf("summary policy %q: want the policy string", pyRun.Summary.Policy)
			}
			if goRun.Summary.Finished == 0 {
				t.Fatal("no job finished: the comparison would be empty")
			}
			if !reflect.DeepEqual(goRun.Result.Jobs, pyRun.Result.Jobs) {
				for i := range goRun.Result.Jobs {
					if goRun.Result.Jobs[i] != pyRun.Result.Jobs[i] {
						t.Fatalf("job %d differs:\n go %+v\n py %+v", i, goRun.Result.Jobs[i], pyRun.Result.Jobs[i])
					}
				}
			}
			if !reflect.DeepEqual(goRun.Result.Digest, pyRun.Result.Digest) {
				t.Error("per-round digests differ")
			}
		})
	}
}

// The SJF example runs clean under the checker and finishes jobs.
func TestPythonSJFRuns(t *testing.T) {
	python3(t)
	o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Policy: "exec:python3 ../../examples/python/sjf.py", Timing: sim.Exact, Check: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Summary.Finished == 0 {
		t.Error("SJF finished no job")
	}
}

// script is a fake policy in sh: it answers the hello, then runs body for
// the first decision. Using sh keeps these tests independent of python3.
func script(body string) string {
	return `exec:sh -c 'read l; echo "{\"type\":\"hello\",\"protocol\":1,\"name\":\"t\"}"; read l; ` + body + `'`
}

// Each failure of the process or the protocol ends the run with an error
// naming the round (and the job, where one is concerned).
func TestProtocolErrors(t *testing.T) {
	reg := policy.NewRegistry()
	for _, c := range []struct {
		name, policy string
		want         []string
	}{
		{"bad JSON", script(`echo "not json"`), []string{"round 0", "not a valid message", `"not json"`}},
		{"wrong type", script(`echo "{\"type\":\"hello\"}"`), []string{"round 0", `want an actions reply, got type "hello"`}},
		{"wrong round", script(`echo "{\"type\":\"actions\",\"round\":7,\"actions\":[]}"`), []string{"round 0", "reply is for round 7"}},
		{"unknown field", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"start\",\"job\":0,\"slots\":[0]}]}"`), []string{"round 0", `unknown field "slots"`}},
		{"unknown kind", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"run\",\"job\":0,\"gpus\":[0]}]}"`), []string{"round 0, job 0", `kind "run"`}},
		{"job not in view", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"drop\",\"job\":200}]}"`), []string{"round 0, job 200", "not running, pending or arriving"}},
		{"slot out of range", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"start\",\"job\":0,\"gpus\":[64]}]}"`), []string{"round 0, job 0", "GPU slot 64 out of range 0..63"}},
		{"engine rejects", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[{\"kind\":\"start\",\"job\":0,\"gpus\":[0,33]}]}"`), []string{"round 0", "invalid start of job job_0001", "uniform grid"}},
		{"policy error", script(`echo "{\"type\":\"error\",\"message\":\"boom\"}"`), []string{"round 0", `the policy reported an error: "boom"`}},
		{"crash", script(`echo oops >&2; exit 3`), []string{"round 0", "exit status 3"}},
		{"crash at hello", `exec:sh -c 'exit 4'`, []string{"hello", "exit status 4"}},
		// After the last decision the error names bye, not the hello (it did).
		{"exit status after bye", script(`echo "{\"type\":\"actions\",\"round\":0,\"actions\":[]}"; read l; exit 5`), []string{"after bye: exit status 5"}},
		{"protocol mismatch", `exec:sh -c 'read l; echo "{\"type\":\"hello\",\"protocol\":3}"'`, []string{"hello", "speaks protocol 3, arena speaks 1 and 2"}},
		{"nothing-waits in protocol 1", `exec:sh -c 'read l; echo "{\"type\":\"hello\",\"protocol\":1,\"idle_when_nothing_waits\":true}"'`, []string{"hello", "idle_when_nothing_waits needs protocol 2"}},
		{"no such program", "exec:/nonexistent/policy", []string{"cannot start", "/nonexistent/policy"}},
		{"missing command", "exec:", []string{"policy exec: option cmd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rounds := 3
			if strings.Contains(c.name, "after bye") {
				rounds = 1 // one decision, then bye
			}
			_, err := runner.Execute(context.Background(), reg, runner.Run{
				Trace: "testbed", Cluster: "testbed-64", Policy: c.policy, Timing: sim.Exact, Rounds: rounds,
			})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(c.name, "after bye") && strings.Contains(err.Error(), `": hello: `) {
				t.Errorf("error %q names the hello", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// expiringRegistry serves exec with its k-th reply wait expired on cue
// (pexec.ExpireWait) and every other wait unbounded; the command and the
// timeout option are read as the real entry reads them.
type expiringRegistry struct {
	*registry.Registry
	k int
}

func (r expiringRegistry) Lookup(name string) (registry.Entry, error) {
	e, err := r.Registry.Lookup(name)
	if err != nil || e.Name != registry.ExecName {
		return e, err
	}
	e.New = func(o registry.Options) (sim.Policy, error) {
		argv, err := pexec.SplitCommand(o.Values.String("cmd"))
		if err != nil {
			return nil, err
		}
		timeout := time.Duration(float64(o.Values.Duration("timeout")) * float64(time.Second))
		return pexec.Start(o.Cluster, o.Source, o.Timing, pexec.ExpireWait(pexec.Config{Command: argv, Timeout: timeout}, r.k))
	}
	return e, nil
}

// A policy that does not answer within the timeout is killed and the run
// ends with an error naming where it stopped and the timeout. The wait
// expires on cue (no test waits on the wall clock): the hello's wait, or
// round 0's after a good hello.
func TestTimeoutKillsASilentPolicy(t *testing.T) {
	for _, c := range []struct {
		name   string
		k      int
		policy string
		want   []string
	}{
		{"at hello", 0, `exec(cmd='sh -c "read l; read l"',timeout=1s)`, []string{"hello", "no reply within 1s", "the process was killed"}},
		{"at round 0", 1, `exec(cmd='` + strings.TrimPrefix(script(`read l`), "exec:") + `',timeout=90s)`, []string{"round 0", "no reply within 1m30s", "the process was killed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runner.Execute(context.Background(), expiringRegistry{policy.NewRegistry(), c.k}, runner.Run{
				Trace: "testbed", Cluster: "testbed-64", Policy: c.policy, Timing: sim.Exact, Rounds: 3,
			})
			if err == nil {
				t.Fatal("no error: the silent policy was waited for to the end")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// The process's stderr reaches the configured writer, and Close ends it.
func TestStderrPassedThrough(t *testing.T) {
	spec, _ := clusterspec.Load("testbed-64")
	c, _ := sim.NewCluster(spec)
	src, err := runner.SourceFor("")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	argv, _ := pexec.SplitCommand(`sh -c 'read l; echo "hello from the policy" >&2; echo "{\"type\":\"hello\",\"protocol\":1}"; read l'`)
	p, err := pexec.Start(c, src, sim.Exact, pexec.Config{Command: argv, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "hello from the policy") {
		t.Errorf("stderr %q", stderr.String())
	}
	var pe *pexec.Error
	if _, err := pexec.Start(c, src, sim.Exact, pexec.Config{Command: []string{"sh", "-c", "exit 5"}, Stderr: &stderr}); !errors.As(err, &pe) || pe.Round != -1 {
		t.Errorf("err %v: want an *exec.Error at hello", err)
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		"python3 p.py":               {"python3", "p.py"},
		`  a  'b c'  "d \"e\"" f\ g`: {"a", "b c", `d "e"`, "f g"},
		`x ''`:                       {"x", ""},
	} {
		got, err := pexec.SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`} {
		if _, err := pexec.SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): no error", bad)
		}
	}
}

// The Python examples pass the conformance suite through the adapter.
func TestPythonConformance(t *testing.T) {
	python3(t)
	reg := policy.NewRegistry()
	for _, p := range []string{"exec:python3 ../../examples/python/fifo.py", "exec:python3 ../../examples/python/sjf.py"} {
		t.Run(p, func(t *testing.T) { policytest.Run(t, reg, p) })
	}
}

// FuzzParseActions: any reply either fails with an error or yields actions
// whose kind, job and slots are within what the decision allows.
func FuzzParseActions(f *testing.F) {
	for _, s := range []string{
		`{"type":"actions","round":3,"actions":[{"kind":"start","job":1,"gpus":[0,1]}]}`,
		`{"type":"actions","round":3,"actions":[{"kind":"drop","job":2,"reason":"x"},{"kind":"suspend","job":1}]}`,
		`{"type":"error","message":"boom"}`,
		`{"type":"actions","round":3,"actions":null}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	inView := map[sim.JobID]bool{1: true, 2: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		acts, _, err := pexec.ParseActions(data, 3, inView, 8)
		if err != nil {
			return
		}
		for _, a := range acts {
			if !inView[a.Job] || a.Kind < sim.Start || a.Kind > sim.Drop {
				t.Fatalf("accepted %+v", a)
			}
			for _, g := range a.GPUs {
				if g < 0 || g >= 8 {
					t.Fatalf("accepted slot %d", g)
				}
			}
		}
	})
}

// On a cluster with a topology the hello carries it and every decide the
// running jobs slowed by contention; the Python FIFO still makes exactly
// Go FCFS's decisions (the testbed trace mapped to h100-racks, whose
// 3:1 rack uplinks slow jobs that share them), and the two runs' network
// sections agree.
func TestPythonFIFOOnTopology(t *testing.T) {
	python3(t)
	reg := policy.NewRegistry()
	run := func(p string) *runner.Outcome {
		o, err := runner.Execute(context.Background(), reg, runner.Run{
			Trace: "testbed", Cluster: "h100-racks", Policy: p, Timing: sim.Exact, Check: true,
			Estimator: "analytic", GPUMap: "a40=h100,a10=h100",
		})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	goRun, pyRun := run("fcfs"), run("exec:python3 ../../examples/python/fifo.py")
	if !reflect.DeepEqual(goRun.Result.Jobs, pyRun.Result.Jobs) {
		t.Fatal("job records differ between Go fcfs and the Python FIFO on h100-racks")
	}
	if g, p := goRun.Summary.Network, pyRun.Summary.Network; g == nil || p == nil || !reflect.DeepEqual(*g, *p) {
		t.Fatalf("network sections differ: go %+v, python %+v", g, p)
	}
	if goRun.Summary.Network.JobsSlowed == 0 {
		t.Fatal("no job was slowed: the decides carried no contention")
	}
}
