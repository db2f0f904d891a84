package sweep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/arena-sim/arena/sim/outdir"
)

// killSpec is a sweep of 12 runs (600-round Philly under FCFS in artifact
// timing). Their length does not matter for where the kills land (they
// land after a given number of completed runs, not after a time); with
// two workers the other worker is mid-run at each kill.
const killSpec = `
name: kill
traces: [philly]
clusters: [paper-1280]
policies: [fcfs]
timing: artifact
rounds: 600
density: [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6]
`

// killSeed fixes the kill points: the same points on every machine and
// every run of the test (they are logged).
const killSeed = 23

// killWorkers is the child's --parallel: at a kill after the N-th
// completed run, up to killWorkers−1 more runs may have completed and be
// waiting to report, so N to N+killWorkers−1 runs are complete.
const killWorkers = 2

// Environment of the child process (TestSweepKillHelper).
const (
	killHelperEnv = "ARENA_KILL_HELPER" // spec file, out dir, kill point: "spec|out|N"
	noKill        = -1
)

// TestSweepKillHelper is not a test: TestSweepSurvivesKill runs the test
// binary as a child with killHelperEnv set, and this is that child. It
// does what `arena sweep SPEC --out OUT --resume --parallel 2` does
// (RunSweep, then MergeSweep) and, if told to, kills itself with SIGKILL
// in the sweep's Progress callback once N runs of this attempt have
// completed (N = 0: at the first call, before any run starts; N = the
// runs left: after the last run, before the merge). The callback runs
// after a run's directory is complete and before the next run is handed
// out, so the kill lands at that point and no later, whatever the speed
// of the machine.
func TestSweepKillHelper(t *testing.T) {
	arg := os.Getenv(killHelperEnv)
	if arg == "" {
		return // not the child
	}
	parts := strings.Split(arg, "|")
	if len(parts) != 3 {
		fmt.Fprintf(os.Stderr, "%s=%q: want spec|out|N\n", killHelperEnv, arg)
		os.Exit(2)
	}
	killAt, err := strconv.Atoi(parts[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	spec, err := LoadSpec(parts[0])
	if err != nil {
		fail(err)
	}
	plan, err := spec.Expand(testRegistry())
	if err != nil {
		fail(err)
	}
	completed := 0
	progress := func(done, total int, key string) {
		if key != "" {
			completed++
		}
		if completed == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way; nothing more happens here
		}
	}
	opt := SweepOptions{Out: parts[1], Parallel: killWorkers, Resume: true, Progress: progress}
	if _, err := RunSweep(context.Background(), testRegistry(), plan, opt); err != nil {
		fail(err)
	}
	if _, err := MergeSweep(plan, MergeOptions{Out: parts[1]}); err != nil {
		fail(err)
	}
	os.Exit(0)
}

// TestSweepSurvivesKill kills a sweep with SIGKILL at deterministic points
// (after the N-th completed run of an attempt, N drawn from a fixed seed,
// plus the two ends: before any run and after the last run, before the
// merge), each time restarting it with --resume, until it finishes. Every
// kill must land (the child must die of SIGKILL, not exit) and leave
// exactly the runs completed before it (up to one more, finished by the
// other worker and waiting to report); every run directory present must be
// complete (directories are swapped in whole) and the lock free again. At
// the end no temporary may be left and every file must equal, byte for
// byte, an uninterrupted sweep's (summary.json and summary.parquet
// without their wall-clock parts).
func TestSweepSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("a dozen runs in child processes")
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	tmp := t.TempDir()
	specFile := filepath.Join(tmp, "kill.yaml")
	if err := os.WriteFile(specFile, []byte(killSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := LoadSpec(specFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "killed")
	complete := func() int {
		n := 0
		for _, r := range plan.Runs {
			if Complete(RunDir(out, r.Key), r.Key) {
				n++
			}
		}
		return n
	}
	// attempt runs the child with a kill point and reports whether it
	// died of SIGKILL (false: it exited 0, the sweep done).
	attempt := func(killAt int) (killed bool) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSweepKillHelper$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d", killHelperEnv, specFile, out, killAt))
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return false
		case errors.As(err, &ee):
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
				return true
			}
		}
		t.Fatalf("sweep (kill point %d) failed: %v\n%s", killAt, err, stderr.String())
		return false
	}

	rng := rand.New(rand.NewPCG(killSeed, 0))
	points := []int{0} // before any run: only start-up (clean-up, lock) is cut short
	for left := len(plan.Runs); len(points) < 5 && left > killWorkers; {
		n := 1 + rng.IntN(left-killWorkers) // mid-sweep, leaving runs to do
		points = append(points, n)
		left -= n
	}
	t.Logf("kill points (seed %d): %v completed runs, then after the last run, then to the end", killSeed, points)
	kills := 0
	check := func(killAt, before int) {
		t.Helper()
		kills++
		// The runs that reported before the kill are complete; the other
		// worker may have completed one more, not yet reported.
		n := complete()
		t.Logf("kill %d after %d completed runs: %d of %d runs complete", kills, killAt, n, len(plan.Runs))
		if n < before+killAt || n > before+killAt+killWorkers-1 {
			t.Fatalf("kill %d after %d completed runs of this attempt: %d runs complete, want %d to %d",
				kills, killAt, n, before+killAt, before+killAt+killWorkers-1)
		}
		// All or nothing: no run directory is ever half-written.
		entries, _ := os.ReadDir(filepath.Join(out, RunsDir))
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !Complete(filepath.Join(out, RunsDir, e.Name()), e.Name()) {
				t.Fatalf("after kill %d: %s is present but incomplete", kills, e.Name())
			}
		}
		// flock dies with its holder: the directory is free at once.
		l, err := outdir.LockDir(out)
		if err != nil {
			t.Fatalf("after kill %d: %v", kills, err)
		}
		l.Unlock()
	}
	for _, n := range points {
		before := complete()
		if !attempt(n) {
			t.Fatalf("no kill landed: the sweep finished although the kill point was after %d of the %d runs left", n, len(plan.Runs)-before)
		}
		check(n, before)
	}
	// After the last run, before the merge: every run is complete and
	// summary.parquet not yet written.
	if before := complete(); before < len(plan.Runs) {
		left := len(plan.Runs) - before
		if !attempt(left) {
			t.Fatalf("no kill landed after the last of %d runs", left)
		}
		check(left, before)
		if _, err := os.Stat(filepath.Join(out, SummaryParquet)); err == nil {
			t.Fatal("summary.parquet written although the sweep was killed before its merge")
		}
	}
	if attempt(noKill) {
		t.Fatal("the last attempt was killed without a kill point")
	}
	if want := len(points) + 1; kills != want {
		t.Fatalf("%d kills landed, want %d", kills, want)
	}
	if n := complete(); n != len(plan.Runs) {
		t.Fatalf("after the kills and the last attempt %d of %d runs complete", n, len(plan.Runs))
	}
	for _, dir := range []string{out, filepath.Join(out, RunsDir)} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if outdir.IsTemporary(e.Name()) {
				t.Errorf("temporary left in %s: %s", dir, e.Name())
			}
		}
	}

	// The uninterrupted sweep runs in this process, the same binary as
	// the child: parquet files record the writer's build.
	whole := filepath.Join(tmp, "whole")
	sweep(t, plan, whole, Shard{}, false)
	merge(t, plan, MergeOptions{Out: whole})
	want, err := ReadSummaryParquet(filepath.Join(whole, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummaryParquet(filepath.Join(out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.WithoutWallclock(), want.WithoutWallclock()) {
		t.Error("summary.parquet after kills + resumes differs from an uninterrupted sweep")
	}
	sameResults(t, plan, out, whole)
}
