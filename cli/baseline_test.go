package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --baseline and the spec's baseline key: a policy not run is an error
// naming it, before anything runs; a baseline that is run turns every
// comparison into "policy vs baseline", paired by seed with t-intervals
// named with their seed count. (Before: simulate and sweep had no
// --baseline and the sweep ignored the spec's key.)
func TestBaselineEverywhere(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	write := func(extra string) {
		os.WriteFile(spec, []byte("name: b\nsynth: {from: philly-pollux, since: 35d, until: 36d, sample: 60, recipe: arena}\nclusters: [paper-1280]\npolicies: [fcfs, srtf]\ntiming: exact\nhorizon: 12h\nseeds: [0, 1, 2]\n"+extra), 0o644)
	}
	write("")
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "x"), "--quiet", "--baseline", "sia"); err == nil || !strings.Contains(err.Error(), `baseline "sia" is not among the policies run (fcfs, srtf)`) {
		t.Errorf("sweep --baseline sia: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x", "runs")); err == nil {
		t.Error("the sweep ran before refusing the baseline")
	}
	write("baseline: tiresias\n")
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "x"), "--quiet"); err == nil || !strings.Contains(err.Error(), "s.yaml:8") || !strings.Contains(err.Error(), `"tiresias"`) {
		t.Errorf("spec baseline tiresias: %v, want file:line and the name", err)
	}
	write("baseline: srtf\n")
	out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "y"), "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"95 % t-interval over 3 seeds (draws of 60 jobs", "(⚠ fewer than 5 seeds", "JCT reduction vs srtf", "thr. ratio vs srtf", "fin · "} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep output lacks %q:\n%s", want, out)
		}
	}
	if _, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs,srtf", "--rounds", "20", "--baseline", "sia"); err == nil || !strings.Contains(err.Error(), "--baseline sia: not among the policies run (fcfs, srtf)") {
		t.Errorf("simulate --baseline sia: %v", err)
	}
	out, err = runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs,srtf", "--rounds", "60", "--baseline", "srtf")
	if err != nil || !strings.Contains(out, "fcfs vs srtf: mean JCT over all submitted jobs") || !strings.Contains(out, "finished ·") {
		t.Errorf("simulate --baseline srtf: %v\n%s", err, out)
	}
}

// reproduce and plot refuse a baseline none of their runs has, naming it,
// before running or drawing anything; plot writes captions with the
// accounting beside each mean.
func TestBaselineReproduceAndPlot(t *testing.T) {
	dir := t.TempDir()
	// philly's section runs sia-stored, not sia.
	if _, err := runCLI(t, "reproduce", "philly", "--baseline", "sia", "--out", filepath.Join(dir, "r"), "--quiet"); err == nil || !strings.Contains(err.Error(), `baseline "sia" is not among the policies run`) {
		t.Errorf("reproduce --baseline sia: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "runs")); err == nil {
		t.Error("reproduce ran before refusing the baseline")
	}
	res := filepath.Join(dir, "res")
	if out, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "fcfs,srtf", "--rounds", "60", "--out", res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := runCLI(t, "plot", res, "--kind", "jct-bars", "--baseline", "sia", "--out", filepath.Join(dir, "f")); err == nil || !strings.Contains(err.Error(), `baseline "sia" is not among the policies run (fcfs, srtf)`) {
		t.Errorf("plot --baseline sia: %v", err)
	}
	if _, err := runCLI(t, "plot", res, "--kind", "jct-bars", "--baseline", "srtf", "--out", filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "f", "captions.txt"))
	if !strings.Contains(string(b), "fcfs: mean JCT over all") || !strings.Contains(string(b), "finished,") || !strings.Contains(string(b), "fcfs vs srtf: JCT reduction") {
		t.Errorf("captions.txt:\n%s", b)
	}
}
