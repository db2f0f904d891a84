package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// maxFileSize is the size of the largest file under dir.
func maxFileSize(t *testing.T, dir string) int64 {
	t.Helper()
	var m int64
	for p := range files(t, dir) {
		if fi, err := os.Stat(p); err == nil && fi.Size() > m {
			m = fi.Size()
		}
	}
	return m
}

func summaryRounds(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, resultsdir.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s sim.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Rounds
}

// The files class (issue 28): a disk that fills part-way through a
// multi-policy 'simulate --out' leaves every policy's old run, not one
// policy's new run beside another's old one. The full disk is a file-size
// limit (RLIMIT_FSIZE, EFBIG like ENOSPC) chosen between the two policies'
// largest new files, so the first policy's files fit and the second's do
// not. Before this change the first policy's directory was replaced.
func TestSimulateOutIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: re-runs the program")
	}
	base := t.TempDir()
	sim40 := func(pols, out string) {
		if o, err := runCLI(t, "simulate", "--trace", "pai", "--policy", pols, "--rounds", "40", "--out", out); err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
	}
	// The new runs' sizes, to place the limit between the policies.
	probe := filepath.Join(base, "probe")
	all := []string{"fcfs", "srtf", "tiresias", "arena"}
	sim40(strings.Join(all, ","), probe)
	small, large := "", ""
	var a, b int64
	for _, p := range all {
		m := maxFileSize(t, filepath.Join(probe, p))
		if small == "" || m < a {
			small, a = p, m
		}
		if large == "" || m > b {
			large, b = p, m
		}
	}
	if a == b {
		t.Skip("SKIPPED: every policy's largest file has one size; no limit separates them")
	}
	pols := []string{small, large}
	// The old runs: 20 rounds.
	out := filepath.Join(base, "out")
	if o, err := runCLI(t, "simulate", "--trace", "pai", "--policy", strings.Join(pols, ","), "--rounds", "20", "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ARENA_CLI_MAIN=1", "CI=1", "ARENA_CLI_FSIZE="+strconv.FormatInt(a, 10),
		"ARENA_CLI_ARGS=simulate --trace pai --policy "+strings.Join(pols, ",")+" --rounds 40 --out "+out)
	text, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (a write over the limit); output:\n%s", err, text)
	}
	for _, p := range pols {
		if r := summaryRounds(t, filepath.Join(out, p)); r != 20 {
			t.Errorf("%s holds a run of %d rounds after the failed write; want the old run (20) in every policy's directory\n%s", p, r, text)
		}
	}
}

// --resume redoes, and --merge refuses, a run whose jobs.parquet was
// truncated after it was written (its directory otherwise intact). Before
// this change both trusted the run, since its run.json and summary.json
// were there.
func TestResumeRedoesATruncatedRun(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: s\ntraces: [testbed]\nclusters: [testbed-64]\ntiming: exact\npolicies: [fcfs]\nrounds: 3\n"), 0o666)
	out := filepath.Join(dir, "out")
	if o, err := runCLI(t, "sweep", spec, "--out", out, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	jobs := filepath.Join(out, "runs", "fcfs.testbed.testbed-64.exact.r3.d1.s0.dr", resultsdir.JobsFile)
	fi, err := os.Stat(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(jobs, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(t, "sweep", spec, "--out", out, "--merge")
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("--merge of a truncated run: err %v, want it refused as truncated", err)
	}
	o, err := runCLI(t, "sweep", spec, "--out", out, "--resume", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if !strings.Contains(o, "0 already complete, 1 ran") {
		t.Errorf("--resume did not redo the truncated run:\n%s", o)
	}
	if fi2, err := os.Stat(jobs); err != nil || fi2.Size() != fi.Size() {
		t.Errorf("jobs.parquet after --resume: %v, %d bytes, want %d", err, fi2.Size(), fi.Size())
	}
}
