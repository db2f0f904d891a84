package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := New(policy.NewRegistry())
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestSimulateWritesResults(t *testing.T) {
	dir := t.TempDir()
	out, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs", "--timing", "artifact", "--rounds", "100", "--out", dir, "--check")
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, out)
	}
	if !strings.Contains(out, "jobs finished") || !strings.Contains(out, "fcfs") {
		t.Errorf("summary table missing:\n%s", out)
	}
	for _, f := range []string{resultsdir.JobsFile, resultsdir.TimelineFile, resultsdir.SummaryFile, resultsdir.DigestFile} {
		if fi, err := os.Stat(filepath.Join(dir, "fcfs", f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var s sim.Summary
	b, _ := os.ReadFile(filepath.Join(dir, "fcfs", resultsdir.SummaryFile))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Policy != "fcfs" || s.Rounds != 100 || s.Timing != "artifact" || s.Submitted == 0 {
		t.Errorf("summary.json: %+v", s)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "fcfs", ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestSimulateRejectsBadFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\nx,-5,10,bert__1.3B,0,128,2,a100\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--timing", "fast"}, `--timing: "fast": want exact or artifact`},
		{[]string{"simulate", "--policy", "nosuch"}, `policy "nosuch": unknown`},
		{[]string{"simulate", "--rounds", "-3"}, `--rounds: "-3": want a whole number of 300 s rounds`},
		{[]string{"simulate", "--horizon", "soon"}, "--horizon"},
		{[]string{"simulate", "--rounds", "5", "--horizon", "1d"}, "alternatives"},
		{[]string{"simulate", "--timing", "artifact", "--schedule-on-events"}, "--schedule-on-events: needs timing exact"},
		{[]string{"simulate", "--policy", "fcfs", "--gpu-map", "a100:h100"}, "want FROM=TO"},
		{[]string{"simulate", "--cluster", "nosuch"}, "not a built-in cluster"},
		{[]string{"simulate", "--trace", "nosuch.csv"}, "neither a built-in trace"},
		{[]string{"simulate", "--trace", bad, "--policy", "fcfs"}, ":2: column submission_time"},
	}
	for _, c := range cases {
		_, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
	}
}

func TestSimulateOtherClusterWithGPUMap(t *testing.T) {
	out, err := runCLI(t, "simulate", "--trace", "pai", "--cluster", "h100-l20", "--estimator", "analytic",
		"--gpu-map", "a100=h100,v100=h100,a40=l20,a10=l20", "--policy", "fcfs,arena", "--rounds", "60", "--profiling-delay", "--check")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "on h100-l20") || !strings.Contains(out, "arena vs fcfs") {
		t.Errorf("output:\n%s", out)
	}
}

// TestSimulateKeepsAllocationsItReads: without --out, simulate keeps no
// allocation records unless the energy account or the tenant figures read
// them; with --energy and --fairness their figures (kWh, per-tenant
// GPU-hours, ρ) are those of the same run with --out, which keeps every
// record. Fails if the records are dropped when something reads them (the
// energy account would see no busy GPU).
func TestSimulateKeepsAllocationsItReads(t *testing.T) {
	args := []string{"simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "40",
		"--energy", "default", "--fairness", "--quiet", "--no-reference"}
	without, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	with, err := runCLI(t, append(args, "--out", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	keep := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "wall time") || strings.Contains(l, "decision p99") || strings.Contains(l, "results written") {
				continue
			}
			out = append(out, l)
		}
		return strings.TrimSpace(strings.Join(out, "\n"))
	}
	if !strings.Contains(without, "energy (kWh)") || !strings.Contains(without, "GPU-h") {
		t.Fatalf("no energy or tenant figures:\n%s", without)
	}
	if keep(without) != keep(with) {
		t.Errorf("without --out:\n%s\nwith --out:\n%s", keep(without), keep(with))
	}
}

// The note that jobs request GPU types the cluster lacks counts the job
// table's rows, kept or (simulate --out with one policy) streamed to
// jobs.parquet and never kept: the same note either way. Philly's jobs
// request A100s and V100s; testbed-64 has A40s and A10s only.
func TestMissingTypesNoteWithStreamedJobs(t *testing.T) {
	args := []string{"simulate", "--trace", "philly", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "20", "--no-reference"}
	kept, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, kept)
	}
	streamed, err := runCLI(t, append(args, "--out", t.TempDir())...)
	if err != nil {
		t.Fatalf("simulate --out: %v\n%s", err, streamed)
	}
	note := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "request GPU types") {
				return l
			}
		}
		return ""
	}
	if n := note(kept); n == "" || !strings.Contains(n, "a100") || note(streamed) != n {
		t.Errorf("note without --out %q, with --out %q", n, note(streamed))
	}
}
