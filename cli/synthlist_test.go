package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweep --list prints the runs without synthesising their traces: a
// synthesis that would fail when built (no recipe gives its jobs no
// model) is listed, as is one of millions of jobs, whose size is checked
// from its keys alone. Before, --list built every synthesised trace for
// the first seed (> 2 GB for a 7-line spec) and failed on this one.
func TestSweepListSynthesisesNothing(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	text := "name: s\nsynth: {rate: 10, jobs: [50, 3000000], durations: gavel, gpu-mix: gavel}\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\nrounds: 3\n"
	if err := os.WriteFile(spec, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "out"), "--list")
	if err != nil {
		t.Fatalf("--list: %v", err)
	}
	if !strings.Contains(out, "fcfs.synth_jobs_50.testbed-64") || !strings.Contains(out, "fcfs.synth_jobs_3000000.testbed-64") {
		t.Errorf("--list printed\n%s\nwant both synthesised traces' runs", out)
	}
}
