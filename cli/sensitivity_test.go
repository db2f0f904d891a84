package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// arena sweep --sensitivity: alone (the default grid), with a grid after
// a space (which pflag leaves as an argument) or after "=", from the
// spec's key, and off; the seed table gains the model-error column and a
// summary naming the grid; the perturbed runs go to OUT/sensitivity.
func TestSweepSensitivityFlag(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	write := func(extra string) {
		os.WriteFile(spec, []byte("name: b\nsynth: {from: philly-pollux, since: 35d, until: 36d, sample: 40, recipe: arena}\nclusters: [paper-1280]\npolicies: [fcfs, srtf]\ntiming: exact\nhorizon: 6h\nseeds: [0, 1]\n"+extra), 0o644)
	}
	write("")
	out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "a"), "--quiet", "--baseline", "srtf", "--sensitivity", "overheads=1.25;iteration-times=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"under model error", "grid overheads ×1/1.25 × iteration times ×1, 2 points", "Model error, 1 comparison (", "JCT reduction ", " hold · ", "4 perturbed runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep --sensitivity GRID output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "sensitivity", "runs")); err != nil {
		t.Errorf("no OUT/sensitivity/runs: %v", err)
	}
	write("sensitivity: {overheads: [0.5], iteration_times: [1]}\n")
	out, err = runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "b"), "--quiet")
	if err != nil || !strings.Contains(out, "overheads ×0.5/1 × iteration times ×1, 2 points") {
		t.Errorf("spec key: %v\n%s", err, out)
	}
	out, err = runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "c"), "--quiet", "--sensitivity=off")
	if err != nil || strings.Contains(out, "model error") {
		t.Errorf("--sensitivity=off: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "d"), "--quiet", "--sensitivity=overheads=0"); err == nil || !strings.Contains(err.Error(), "--sensitivity") {
		t.Errorf("bad grid: %v", err)
	}
	if _, err := runCLI(t, "sweep", spec, "--emit", "slurm", "--sensitivity"); err == nil || !strings.Contains(err.Error(), "sensitivity: key") {
		t.Errorf("--emit with --sensitivity: %v, want a pointer to the spec key", err)
	}
	// Flags the emitted tasks would not see, and a sensitivity grid
	// --compare would not compare, are refused rather than dropped.
	if _, err := runCLI(t, "sweep", spec, "--emit", "slurm", "--baseline", "fcfs"); err == nil || !strings.Contains(err.Error(), "baseline: key") {
		t.Errorf("--emit with --baseline: %v, want a pointer to the spec key", err)
	}
	if _, err := runCLI(t, "sweep", spec, "--compare", dir, "--sensitivity"); err == nil || !strings.Contains(err.Error(), "--compare") {
		t.Errorf("--compare with --sensitivity: %v", err)
	}
}

// The per-type and estimator parts of the grid: after a space too; a
// GPU type no cluster of the sweep has is refused naming it and the
// clusters' types, before anything runs; reproduce, whose report
// perturbs overheads and iteration times only, refuses them.
func TestSweepSensitivityTypesFlag(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: b\nsynth: {from: philly-pollux, since: 35d, until: 36d, sample: 40, recipe: arena}\nclusters: [paper-1280]\npolicies: [fcfs, srtf]\ntiming: exact\nhorizon: 6h\nseeds: [0, 1]\n"), 0o644)
	_, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "a"), "--quiet", "--sensitivity", "types=h100:1.2")
	if err == nil || !strings.Contains(err.Error(), "--sensitivity: GPU type h100: no cluster of the sweep has it (paper-1280: ") {
		t.Errorf("type in no cluster: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "runs")); err == nil {
		t.Error("runs were made before the grid was refused")
	}
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "b"), "--quiet", "--sensitivity", "types=h100:0"); err == nil || !strings.Contains(err.Error(), "h100 factor 0") {
		t.Errorf("bad factor: %v", err)
	}
	if _, err := runCLI(t, "reproduce", "--out", filepath.Join(dir, "r"), "--quiet", "--sensitivity", "estimators=analytic"); err == nil || !strings.Contains(err.Error(), "types= and estimators= are for arena sweep") {
		t.Errorf("reproduce with estimators=: %v", err)
	}
}
