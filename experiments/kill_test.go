package experiments

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arena-sim/arena/sim/outdir"
)

// killSpec has enough runs (2000-round Philly under FCFS in artifact
// timing, about 0.15 s each, one at a time) for a kill to land mid-sweep.
const killSpec = `
name: kill
traces: [philly]
clusters: [paper-1280]
policies: [fcfs]
timing: artifact
rounds: 2000
density: [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6]
`

// TestSweepSurvivesKill builds the arena binary and kills a sweep with
// SIGKILL at random points (seeded, logged) again and again, each time
// restarting it with --resume, until it finishes. After every kill each
// run directory present must be complete (directories are swapped in
// whole) and the lock must be free again; at the end no temporary may be
// left and every file must equal, byte for byte, an uninterrupted sweep's
// (summary.json and summary.parquet without their wall-clock parts).
func TestSweepSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the arena binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "arena")
	build := exec.Command("go", "build", "-o", bin, "github.com/arena-sim/arena/cmd/arena")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("kill points from seed %d", seed)
	kills := 0
	const maxKills = 6 // then the last attempt runs to the end
	for attempt := 0; attempt <= maxKills; attempt++ {
		cmd := exec.Command(bin, "sweep", specFile, "--out", out, "--parallel", "2", "--resume", "--quiet")
		cmd.Env = append(os.Environ(), "CI=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// A random point in the sweep's life: from its start-up to
		// past a typical run (about 0.15 s each).
		wait := time.Duration(rng.IntN(700)) * time.Millisecond
		if kills == maxKills {
			wait = time.Hour
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("attempt %d: sweep failed: %v\n%s", attempt, err, stderr.String())
			}
			t.Logf("attempt %d finished the sweep after %d kills", attempt, kills)
			attempt = 1 << 30 // done
			continue
		case <-time.After(wait):
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		kills++
		t.Logf("kill %d after %v: %d of %d runs complete", kills, wait, complete(), len(plan.Runs))
		// All or nothing: no run directory is ever half-written.
		entries, _ := os.ReadDir(filepath.Join(out, RunsDir))
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !Complete(filepath.Join(out, RunsDir, e.Name()), e.Name()) {
				t.Fatalf("after kill %d (at %v): %s is present but incomplete", kills, wait, e.Name())
			}
		}
		// flock dies with its holder: the directory is free at once.
		l, err := outdir.LockDir(out)
		if err != nil {
			t.Fatalf("after kill %d: %v", kills, err)
		}
		l.Unlock()
	}
	if n := complete(); n != len(plan.Runs) {
		t.Fatalf("after the kill loop %d of %d runs complete", n, len(plan.Runs))
	}
	if kills == 0 {
		t.Log("no kill landed before the sweep finished")
	}
	for _, dir := range []string{out, filepath.Join(out, RunsDir)} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if outdir.IsTemporary(e.Name()) {
				t.Errorf("temporary left in %s: %s", dir, e.Name())
			}
		}
	}

	// The uninterrupted sweep runs the same binary: parquet files record
	// the writer's build, which differs in the test binary.
	whole := filepath.Join(tmp, "whole")
	if b, err := exec.Command(bin, "sweep", specFile, "--out", whole, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted sweep: %v\n%s", err, b)
	}
	want, err := ReadSummaryParquet(filepath.Join(whole, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummaryParquet(filepath.Join(out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(WithoutWallclock(got), WithoutWallclock(want)) {
		t.Error("summary.parquet after kills + resumes differs from an uninterrupted sweep")
	}
	sameResults(t, plan, out, whole)
}
