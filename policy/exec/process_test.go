package exec_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	pexec "github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// hookRegistry serves exec with the run's context, a stderr writer of the
// test's choosing, and the reply waits unbounded unless the policy string
// says otherwise (pexec.ExpireWait with k < 0 never expires).
type hookRegistry struct {
	*registry.Registry
	ctx    context.Context
	stderr io.Writer // nil: os.Stderr
}

func (r hookRegistry) Lookup(name string) (registry.Entry, error) {
	e, err := r.Registry.Lookup(name)
	if err != nil || e.Name != registry.ExecName {
		return e, err
	}
	e.New = func(o registry.Options) (sim.Policy, error) {
		argv, err := pexec.SplitCommand(o.Values.String("cmd"))
		if err != nil {
			return nil, err
		}
		cfg := pexec.Config{Command: argv, Timeout: time.Hour, Context: o.Context, MaxLine: o.Values.Int("max_line")}
		if r.stderr != nil {
			cfg.Stderr = r.stderr
		}
		return pexec.Start(o.Cluster, o.Source, o.Timing, pexec.ExpireWait(cfg, -1))
	}
	return e, nil
}

// markerWriter collects stderr and calls onMarker once when a line
// containing marker has been written.
type markerWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	marker   string
	onMarker func()
	fired    bool
}

func (w *markerWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if !w.fired && w.onMarker != nil && strings.Contains(w.buf.String(), w.marker) {
		w.fired = true
		go w.onMarker()
	}
	return len(b), nil
}

// gone reports whether pid no longer runs (gone, or a zombie waiting for
// init to reap it). A SIGKILL already sent takes a moment to be acted on,
// so it looks up to 10 s for the process to go (the assertion is that it
// dies, not when).
func gone(t *testing.T, pid int) bool {
	t.Helper()
	for range 1000 {
		if exited(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func exited(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the policy wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// The process class (issue 28): a policy that exits mid-run while a
// grandchild of it holds its stdout and stderr is reported as an exit, with
// its status and its stderr's tail, at once — not as a timeout after the
// full wait — and the grandchild is killed with it (its process group).
// The reply waits never expire here, so the code before this test's change
// (which waited for EOF on a stdout the grandchild held) hangs.
func TestExitWithGrandchildIsReportedAsExit(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("SKIPPED: needs /proc to see the grandchild")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	stderr := &markerWriter{}
	pol := script(`sleep 100000 & echo $! > ` + pidFile + `; echo "giving up: no GPUs for me" >&2; exit 3`)
	_, err := runner.Execute(context.Background(), hookRegistry{policy.NewRegistry(), nil, stderr}, runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Policy: pol, Timing: sim.Exact, Rounds: 3,
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"round 0", "exited mid-run", "exit status 3", "giving up: no GPUs for me"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if pid := readPid(t, pidFile); !gone(t, pid) {
		t.Errorf("the grandchild %d outlived the policy", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// A reply line over the cap ends the run with an error naming the cap and
// how to raise it (the code before read any line whole into memory).
func TestReplyLineCap(t *testing.T) {
	pol := `exec(cmd='` + strings.TrimPrefix(script(`head -c 5000 /dev/zero | tr "\\0" x; echo`), "exec:") + `',max_line=1000)`
	_, err := runner.Execute(context.Background(), hookRegistry{policy.NewRegistry(), nil, nil}, runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Policy: pol, Timing: sim.Exact, Rounds: 3,
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"round 0", "over 1000 bytes", "max_line"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// The run's context (an interrupt, a sweep's --run-timeout) ends a
// decision in progress at once: the wait returns the context's error and
// the policy's whole group is killed. The context is cancelled when the
// policy says on stderr that it has the decision (no clock); the policy
// then never replies, and the reply wait never expires, so the code before
// (which did not watch the context during a decision) hangs.
func TestContextEndsADecisionInProgress(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("SKIPPED: needs /proc to see the grandchild")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &markerWriter{marker: "thinking", onMarker: cancel}
	pol := script(`sleep 100000 & echo $! > ` + pidFile + `; echo thinking >&2; wait`)
	_, err := runner.Execute(ctx, hookRegistry{policy.NewRegistry(), ctx, stderr}, runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Policy: pol, Timing: sim.Exact, Rounds: 3,
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v: want one that is context.Canceled", err)
	}
	if pid := readPid(t, pidFile); !gone(t, pid) {
		t.Errorf("the policy's child %d outlived the interrupt", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// A policy that stops reading cannot block arena: each write has the reply
// timeout as its deadline. The hello of a 2,560-node cluster is far more
// than a pipe holds, and the policy reads none of it; whatever the timeout,
// the write can never complete, so the outcome does not depend on the
// clock (the code before blocked in the write for ever).
func TestWriteDeadline(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "big", Pools: []sim.Pool{{GPU: "a100", Nodes: 2560, GPUsPerNode: 8}}})
	if err != nil {
		t.Skipf("SKIPPED: cannot build the cluster: %v", err)
	}
	src, err := runner.SourceFor("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = pexec.Start(c, src, sim.Exact, pexec.Config{Command: []string{"sleep", "100000"}, Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "read no input for 50ms") {
		t.Fatalf("err %v: want the write's timeout", err)
	}
}
