package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/input/pq/pqtest"
)

// hostileFor builds pqtest's hostile variants of the Parquet file at path
// (attacking its first column), keeping those named in only (all when
// only is nil).
func hostileFor(t *testing.T, path string, only map[string]bool) []pqtest.Case {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := pqtest.Hostile(b, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var kept []pqtest.Case
	for _, c := range cases {
		if only == nil || only[c.Name] {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		t.Fatalf("no hostile case of %v", only)
	}
	return kept
}

// The four kinds the issue names: a header claiming 2 GiB, a page past
// its chunk, bombs, a garbage header.
var issue36Kinds = map[string]bool{
	"page claims 2 GiB uncompressed":      true,
	"page compressed size past its chunk": true,
	"zstd page bomb (32 KB to 1 GiB)":     true,
	"snappy page bomb (declares 2 GiB)":   true,
	"garbage page header":                 true,
}

// TestHostileParquetPagesInProcess drives two commands in process
// (runCLI) on crafted trace tables: each must be refused naming the file,
// allocating under 256 MiB in all (before issue 36: 2 GiB or more for
// each, the zstd bomb taking seconds; where the memory is not there, a
// "fatal error: out of memory" of the test binary).
// TestHostileParquetPagesBoundedMemory runs every command under a limit.
func TestHostileParquetPagesInProcess(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.parquet")
	if out, err := runCLI(t, "trace", "synth", "--from", "pai", "-o", valid); err != nil {
		t.Fatalf("trace synth: %v\n%s", err, out)
	}
	for _, c := range hostileFor(t, valid, issue36Kinds) {
		t.Run(c.Name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "crafted.parquet")
			os.WriteFile(p, c.File, 0o644)
			for _, args := range [][]string{
				{"simulate", "--trace", p, "--policy", "fcfs", "--rounds", "10"},
				{"trace", "inspect", p},
			} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				out, err := runCLI(t, args...)
				runtime.ReadMemStats(&after)
				if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
					t.Errorf("%s allocated %d MiB on a %d-byte file", args[0], got>>20, len(c.File))
				}
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a valid Parquet file") {
					t.Errorf("%s: %v, want an error naming %s\n%.1000s", args[0], err, p, out)
				}
			}
		})
	}
}

// TestHostileParquetPagesBoundedMemory is the class "Parquet page headers
// trusted" (issue 36) for every command that reads Parquet: a trace table
// (simulate --trace, trace inspect), an events file (simulate --faults,
// faults events), a run's jobs.parquet (plot, export), a sweep's
// summary.parquet (sweep --compare) — each crafted file is refused with
// an error naming it and exit status 1, in a process whose address space
// may grow by 1 GiB only (before: "fatal error: out of memory" in each).
func TestHostileParquetPagesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs arena in child processes; skipped with -short")
	}
	dir := t.TempDir()
	// arena runs as this test binary (TestMain, ARENA_CLI_MAIN), with
	// ARENA_CLI_AS bounding its address space.
	arena := func(args ...string) (string, error) {
		for _, a := range args {
			if strings.ContainsAny(a, " \t\n") {
				t.Fatalf("argument %q: ARENA_CLI_ARGS splits on spaces", a)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ARENA_CLI_MAIN=1", "CI=1", "ARENA_CLI_AS=1073741824", "ARENA_CLI_ARGS="+strings.Join(args, " "))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(args ...string) {
		if out, err := arena(args...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	trace := filepath.Join(dir, "trace.parquet")
	events := filepath.Join(dir, "events.parquet")
	res := filepath.Join(dir, "res")
	spec := filepath.Join(dir, "s.yaml")
	sw, sw2 := filepath.Join(dir, "sw"), filepath.Join(dir, "sw2")
	must("trace", "synth", "--from", "pai", "-o", trace)
	must("faults", "events", "llama3", "--end", "30d", "-o", events)
	must("simulate", "--trace", "pai", "--policy", "fcfs", "--rounds", "20", "--out", res)
	os.WriteFile(spec, []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: artifact\nrounds: 5\n"), 0o644)
	must("sweep", spec, "--out", sw)
	must("sweep", spec, "--out", sw2)
	jobs := filepath.Join(res, "fcfs", "jobs.parquet")
	summary := filepath.Join(sw2, "summary.parquet")

	type target struct {
		name string
		file string // the valid file the crafted ones replace
		args []string
		all  bool // every hostile kind, not only the issue's four
	}
	for _, tg := range []target{
		{"simulate --trace", trace, []string{"simulate", "--trace", trace, "--policy", "fcfs", "--rounds", "10"}, true},
		{"trace inspect", trace, []string{"trace", "inspect", trace}, false},
		{"simulate --faults", events, []string{"simulate", "--trace", "pai", "--policy", "fcfs", "--rounds", "10", "--faults", events}, false},
		{"faults events", events, []string{"faults", "events", events}, false},
		{"plot", jobs, []string{"plot", res, "--kind", "jct-cdf", "--out", filepath.Join(dir, "fig")}, false},
		{"export", jobs, []string{"export", "--csv", filepath.Join(res, "fcfs")}, false},
		{"sweep --compare", summary, []string{"sweep", spec, "--out", sw, "--compare", sw2}, false},
	} {
		valid, err := os.ReadFile(tg.file)
		if err != nil {
			t.Fatal(err)
		}
		only := issue36Kinds
		if tg.all {
			only = nil
		}
		for _, c := range hostileFor(t, tg.file, only) {
			t.Run(tg.name+"/"+c.Name, func(t *testing.T) {
				if err := os.WriteFile(tg.file, c.File, 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.WriteFile(tg.file, valid, 0o644)
				msg, err := arena(tg.args...)
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 1 {
					t.Errorf("%v, want exit status 1 (an error, not a crash)", err)
				}
				if strings.Contains(msg, "fatal error") || strings.Contains(msg, "panic:") || strings.Contains(msg, "goroutine ") {
					t.Fatalf("crashed:\n%.2000s", msg)
				}
				if !strings.Contains(msg, tg.file) || !strings.Contains(msg, "not a valid Parquet file") {
					t.Errorf("message %.1000q does not refuse %s as not a valid Parquet file", msg, tg.file)
				}
				if len(msg) > 4096 {
					t.Errorf("a %d-byte message", len(msg))
				}
			})
		}
	}
}
