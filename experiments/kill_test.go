package experiments

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"syscall"
	"testing"
	"time"
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
seeds: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
`

// TestSweepSurvivesKill builds the arena binary, starts a sweep, kills it
// with SIGKILL once a few runs are complete, resumes it, and checks the
// results equal those of an uninterrupted sweep.
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

	cmd := exec.Command(bin, "sweep", specFile, "--out", out, "--parallel", "1", "--quiet")
	cmd.Env = append(os.Environ(), "CI=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	complete := func() int {
		n := 0
		for _, r := range plan.Runs {
			if Complete(RunDir(out, r.Key), r.Key) {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(60 * time.Second)
	for complete() < 3 {
		select {
		case err := <-exited:
			t.Fatalf("the sweep ended before it could be killed (%v); make the spec longer", err)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no run completed within 60 s")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	done := complete()
	if done == len(plan.Runs) {
		t.Fatalf("all %d runs finished before the kill; make the spec longer", done)
	}
	t.Logf("killed after %d of %d runs", done, len(plan.Runs))

	resume := exec.Command(bin, "sweep", specFile, "--out", out, "--resume", "--quiet")
	if b, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	} else {
		t.Logf("%s", b)
	}
	if n := complete(); n != len(plan.Runs) {
		t.Fatalf("after --resume %d of %d runs complete", n, len(plan.Runs))
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
		t.Error("summary.parquet after kill + resume differs from an uninterrupted sweep")
	}
	sameResults(t, plan, out, whole)
}
