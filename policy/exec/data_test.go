package exec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	pexec "github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/sim"
)

// Hand-worked: what a terminal would act on is escaped, text is kept,
// and a rune split between two reads is held back, not mangled.
func TestEscapeStream(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`},
		{"a\rb\x00c\x7f", `a\x0db\x00c\x7f`},
		{"\u009b31m", `\x9b31m`}, // C1 CSI, as UTF-8
		{"abc\u202edcba", `abc\u{202e}dcba`},
		{"zero\u200bwidth", `zero\u{200b}width`},
		{"bad \xff byte", `bad \xff byte`},
		{"héllo, 世界", "héllo, 世界"},
	} {
		got, rest := pexec.EscapeStream(nil, []byte(c.in))
		if string(got) != c.want || len(rest) != 0 {
			t.Errorf("%q → %q (rest %q), want %q", c.in, got, rest, c.want)
		}
	}
	got, rest := pexec.EscapeStream(nil, []byte("é"[:1]))
	if len(got) != 0 || string(rest) != "é"[:1] {
		t.Fatalf("split rune: %q rest %q", got, rest)
	}
	got, rest = pexec.EscapeStream(got, append(rest, "é"[1:]...))
	if string(got) != "é" || len(rest) != 0 {
		t.Errorf("joined rune: %q rest %q", got, rest)
	}
}

// What the child says reaches arena's error and stderr as data: its
// stderr escape sequences and its error message's are escaped, and a hello
// name holding one is refused.
func TestChildTextIsData(t *testing.T) {
	stderr := &markerWriter{}
	_, err := runner.Execute(context.Background(), hookRegistry{policy.NewRegistry(), nil, stderr}, runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Timing: sim.Exact, Rounds: 3,
		Policy: script(`printf "\033[2Jwiped\342\200\256\n" >&2; echo "{\"type\":\"error\",\"message\":\"boom\\u001b[31m\"}"`),
	})
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `"boom\x1b[31m"`) {
		t.Errorf("error %q: want the message quoted, its escape escaped", err)
	}
	stderr.mu.Lock()
	out := stderr.buf.String()
	stderr.mu.Unlock()
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x202e) || !strings.Contains(out, `\x1b[2Jwiped\u{202e}`) {
		t.Errorf("stderr passed through as %q: want its escape sequence and bidi override escaped", out)
	}
	_, err = runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Timing: sim.Exact, Rounds: 3,
		Policy: `exec:sh -c 'read l; echo "{\"type\":\"hello\",\"protocol\":1,\"name\":\"x\\u001b[2J\"}"; read l'`,
	})
	if err == nil || !strings.Contains(err.Error(), "hello: name") || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("hello name with an escape: %v", err)
	}
}

// blockedWriter never returns from Write until the test ends: a terminal
// nobody reads.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(b []byte) (int, error) { <-w.release; return len(b), nil }

// A policy that writes much to stderr while arena's own stderr is not
// being read still gets its replies read: the relay drops what does not
// fit instead of stalling the child. Before, the child blocked on its full
// stderr pipe and never replied, and only the run's context (a generous
// safety net here, not an assertion on time) ended the run.
func TestSlowStderrDoesNotStallReplies(t *testing.T) {
	w := blockedWriter{make(chan struct{})}
	defer close(w.release)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	body := `r=0; while :; do head -c 300000 /dev/zero >&2; echo "{\"type\":\"actions\",\"round\":$r,\"actions\":[]}"; r=$((r+1)); read l || exit 0; done`
	o, err := runner.Execute(ctx, hookRegistry{policy.NewRegistry(), nil, w}, runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Timing: sim.Exact, Rounds: 2, Policy: script(body),
	})
	if err != nil || ctx.Err() != nil {
		t.Fatalf("the run stalled on a stderr nobody read: %v", err)
	}
	if o.Summary.Rounds != 2 {
		t.Errorf("%d rounds, want 2", o.Summary.Rounds)
	}
}

// A missing working directory is named as such, not blamed on the
// command.
func TestMissingDirNamed(t *testing.T) {
	_, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Timing: sim.Exact, Rounds: 3,
		Policy: `exec(cmd='sh -c true',dir=/nonexistent/arena-dir)`,
	})
	if err == nil || !strings.Contains(err.Error(), `dir="/nonexistent/arena-dir"`) || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing dir: %v", err)
	}
}
