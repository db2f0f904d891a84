package cli

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// TestMain lets a test run the whole program, signals and exit status
// included: with ARENA_CLI_MAIN=1 the test binary is arena itself.
func TestMain(m *testing.M) {
	if os.Getenv("ARENA_CLI_MAIN") == "1" {
		os.Args = append([]string{"arena"}, strings.Fields(os.Getenv("ARENA_CLI_ARGS"))...)
		testHooks()
		Main(policy.NewRegistry())
	}
	os.Exit(m.Run())
}

// TestSignalsStopCleanly sends SIGINT and SIGTERM to a running simulate
// once its first progress line shows it simulating (no clock: the test
// waits for the line, not for a time): the process must exit 130 saying
// "interrupted", and leave no results directory and no temporaries.
func TestSignalsStopCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "res")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			// A long run (Arena on Philly until every job is done), with
			// a progress line every second (the floor of --progress).
			cmd.Env = append(os.Environ(), "ARENA_CLI_MAIN=1", "CI=1",
				"ARENA_CLI_ARGS=simulate --trace philly --policy arena,fcfs --drain --progress 1s --out "+out)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stderr)
			var seen []string
			for lines.Scan() {
				seen = append(seen, lines.Text())
				if strings.Contains(lines.Text(), "rounds done") {
					break
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			for lines.Scan() {
				seen = append(seen, lines.Text())
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Fatalf("exit: %v, want status 130; stderr:\n%s", err, strings.Join(seen, "\n"))
			}
			if last := seen[len(seen)-1]; last != "arena: interrupted" {
				t.Errorf("last stderr line %q, want \"arena: interrupted\"", last)
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				if e.Name() != ".arena.lock" {
					t.Errorf("%s left in --out after the interrupt", e.Name())
				}
			}
		})
	}
}
