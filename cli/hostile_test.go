package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// TestSimulateOutCheckedFirst: an --out that cannot be written, or that
// another run holds, fails before any simulation (the summary table is
// never printed).
func TestSimulateOutCheckedFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	held := filepath.Join(t.TempDir(), "held")
	lock, err := outdir.LockDir(held)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	for _, c := range []struct{ out, want string }{
		{filepath.Join(file, "sub"), "--out"},
		{held, "is in use by pid"},
	} {
		out, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs", "--rounds", "50", "--out", c.out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--out %s: err = %v, want %q", c.out, err, c.want)
		}
		if strings.Contains(out, "jobs finished") {
			t.Errorf("--out %s: simulated before failing:\n%s", c.out, out)
		}
	}
}

// TestSimulateENOSPCKeepsOldResults fills a tiny tmpfs so that rewriting a
// results directory runs out of space mid-write: the directory must still
// hold the old run's files byte for byte (before: new parquet files next
// to the old summary.json and rounds.csv), with no temporaries left.
// Needs root for mount(2); skipped with the reason otherwise.
func TestSimulateENOSPCKeepsOldResults(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ENOSPC test needs root to mount a tmpfs; skipped")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("ENOSPC test: cannot mount a tmpfs (%v: %s); skipped", err, bytes.TrimSpace(out))
	}
	defer exec.Command("umount", "-l", mnt).Run()
	res := filepath.Join(mnt, "res")
	if out, err := runCLI(t, "simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "20", "--out", res); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	dir := filepath.Join(res, "fcfs")
	before := readAll(t, dir)
	// Leave less free space than the second run's results need (a
	// longer run on a larger trace: about 100 KB of files).
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, free-24*1024), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "simulate", "--trace", "philly", "--policy", "fcfs", "--timing", "artifact", "--rounds", "300", "--out", res)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("second run on a full disk: err = %v\n%s", err, out)
	}
	after := readAll(t, dir)
	if len(after) != len(before) {
		t.Fatalf("files after the failed run: %d, before: %d", len(after), len(before))
	}
	for name, data := range before {
		if !bytes.Equal(after[name], data) {
			t.Errorf("%s changed by the failed run", name)
		}
	}
	entries, _ := os.ReadDir(res)
	for _, e := range entries {
		if outdir.IsTemporary(e.Name()) {
			t.Errorf("temporary left: %s", e.Name())
		}
	}
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, n := range append(slices.Clone(resultsdir.Names), outdir.ManifestFile) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		m[n] = b
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(m) {
		t.Fatalf("%s holds %d entries, want %d", dir, len(entries), len(m))
	}
	return m
}

// TestRoundsCapBeforeRunning: a spec or flag asking for 10^9 rounds is
// refused before anything runs, naming the cap and --max-rounds; an
// explicit --max-rounds lets a long run through the check.
func TestRoundsCapBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "long.yaml")
	os.WriteFile(spec, []byte("traces: pai\nclusters: paper-1280\npolicies: fcfs\ntiming: exact\nrounds: 1000000000\n"), 0o644)
	out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "res"), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "over the cap of 100000 rounds") || !strings.Contains(err.Error(), "--max-rounds") {
		t.Fatalf("sweep: err = %v\n%s", err, out)
	}
	if want := spec + `:5: key rounds: 1000000000 rounds`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("sweep: err = %v, want it to start with %s (file:line: key)", err, want)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "res", "runs")); statErr == nil {
		t.Error("the sweep started before refusing")
	}
	for _, args := range [][]string{{"--rounds", "1000000000"}, {"--horizon", "1000d"}} {
		_, err := runCLI(t, append([]string{"simulate", "--policy", "fcfs"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "over the cap") {
			t.Errorf("simulate %v: err = %v", args, err)
		}
	}
	// Raised explicitly, the cap lets a 288000-round horizon past the
	// check (the unknown policy, checked next, keeps it from running).
	if _, err := runCLI(t, "simulate", "--policy", "no-such-policy", "--horizon", "1000d", "--max-rounds", "300000"); err == nil || !strings.Contains(err.Error(), "--policy") {
		t.Errorf("--max-rounds 300000: err = %v", err)
	}
}

// TestSimulateBadClusterReportedOnce: a cluster or trace error names its
// flag and the file position once, not once per policy (it used to read
// "arena: fcfs: …" or "arena: arena: …" after the first policy's name).
func TestSimulateBadClusterReportedOnce(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(c, []byte("name: x\npools:\n  - {gpu: a100, nodes: 2.5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCLI(t, "simulate", "--cluster", c, "--policy", "fcfs,arena", "--rounds", "10")
	if err == nil {
		t.Fatal("a cluster with nodes: 2.5 was accepted")
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "--cluster: "+c+":3: key nodes") {
		t.Errorf("error %q: want it to start with --cluster: %s:3: key nodes", msg, c)
	}
	_, err = runCLI(t, "simulate", "--trace", filepath.Join(dir, "none.csv"), "--policy", "fcfs,arena", "--rounds", "10")
	if err == nil || !strings.HasPrefix(err.Error(), "--trace: ") {
		t.Errorf("missing trace: error %v, want one starting with --trace:", err)
	}
}
