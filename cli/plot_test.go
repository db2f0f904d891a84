package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A 2-policy × 3-seed sweep (a synthesised trace, so the seeds differ)
// gives one figure per kind over the seeds, not one per seed and kind;
// --per-seed adds the per-seed ones, --label and a spec's labels: rename
// a policy, and a label for a policy that is not there is an error.
// Before the seed figures, plot drew 3 × 5 per-seed figures and one
// seed-aggregated bar chart here, and had no --label.
func TestPlotSweepOverSeeds(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	const body = `name: s
synth:
  from: philly-pollux
  window: 2+8
  sample: 30
  recipe: arena
  iteration-scale: 1
clusters: [testbed-64]
policies: [fcfs, srtf]
timing: exact
rounds: 30
seeds: [1, 2, 3]
labels: {srtf: "SRTF ≤ ×"}
`
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res")
	if out, err := runCLI(t, "sweep", spec, "--out", res, "--quiet"); err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	list := func(args ...string) []string {
		t.Helper()
		figs := filepath.Join(dir, "figs"+strings.Join(args, "_"))
		out, err := runCLI(t, append([]string{"plot", res, "--format", "svg", "--out", figs}, args...)...)
		if err != nil {
			t.Fatalf("plot %v: %v\n%s", args, err, out)
		}
		var names []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasSuffix(l, ".svg") && !strings.HasPrefix(l, "note:") {
				names = append(names, filepath.Base(l))
			}
		}
		slices.Sort(names)
		return names
	}
	const cell = "philly-pollux_arena.testbed-64.exact.r30.d1.seeds.dr."
	var want []string
	for _, k := range []string{"jct-bars", "jct-cdf", "queue", "throughput", "utilization"} {
		want = append(want, cell+k+".svg")
	}
	if got := list("--label", "fcfs=FCFS"); !slices.Equal(got, want) {
		t.Errorf("figures of a 3-seed sweep:\n%v\nwant one per kind over the seeds:\n%v", got, want)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "figs--label_fcfs=FCFS", cell+"jct-bars.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// The sweep's own labels: (its sweep.json) apply without --spec.
	for _, s := range []string{"FCFS", "SRTF ≤ ×", "95 % t-interval over 3 seeds"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("seed bars lack %q", s)
		}
	}
	captions, err := os.ReadFile(filepath.Join(dir, "figs--label_fcfs=FCFS", "captions.txt"))
	// (A policy that neglected jobs carries ⚠ after its label.)
	labelled := func(l string) bool {
		return strings.Contains(string(captions), " "+l+": mean JCT") || strings.Contains(string(captions), " "+l+" ⚠: mean JCT")
	}
	if err != nil || !labelled("FCFS") || !labelled("SRTF ≤ ×") {
		t.Errorf("captions.txt without the labels (%v):\n%s", err, captions)
	}
	if got := list("--per-seed"); len(got) != 5+3*5 {
		t.Errorf("--per-seed: %d figures, want 5 over seeds + 3 seeds × 5 kinds:\n%v", len(got), got)
	}
	list("--spec", spec, "--kind", "jct-cdf")
	svg, _ = os.ReadFile(filepath.Join(dir, "figs--spec_"+spec+"_--kind_jct-cdf", cell+"jct-cdf.svg"))
	if !strings.Contains(string(svg), "SRTF ≤ ×") {
		t.Error("the spec's labels: did not rename srtf")
	}
	// plot reads only labels: and baseline: from --spec, so a spec naming a
	// file outside its directory (which sweep refuses without consent)
	// still labels the figures.
	outside := filepath.Join(dir, "elsewhere", "s.yaml")
	os.MkdirAll(filepath.Dir(outside), 0o755)
	os.WriteFile(outside, []byte(strings.Replace(body, "from: philly-pollux", "from: "+spec, 1)), 0o644)
	if _, err := runCLI(t, "sweep", outside, "--out", t.TempDir(), "--quiet"); err == nil || !strings.Contains(err.Error(), "allow-outside-paths") {
		t.Fatalf("sweep of a spec naming ../s.yaml: %v, want a refusal naming --allow-outside-paths", err)
	}
	list("--spec", outside, "--kind", "jct-cdf")
	// The spec's baseline: reaches plot through --spec, and through the
	// sweep's sweep.json when the sweep ran with it.
	out, err := runCLI(t, "plot", res, "--out", t.TempDir(), "--kind", "jct-cdf", "--baseline", "fcfs")
	if err != nil || !strings.Contains(out, "JCT reduction vs fcfs") {
		t.Errorf("plot --baseline fcfs: %v\n%s", err, out)
	}
	withBaseline := filepath.Join(dir, "b.yaml")
	os.WriteFile(withBaseline, []byte(body+"baseline: fcfs\n"), 0o644)
	resB := filepath.Join(dir, "resB")
	if out, err := runCLI(t, "sweep", withBaseline, "--out", resB, "--quiet"); err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "plot", resB, "--out", t.TempDir(), "--kind", "jct-cdf"); err != nil || !strings.Contains(out, "JCT reduction vs fcfs") {
		t.Errorf("plot of a sweep whose spec has baseline: fcfs: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "plot", res, "--out", t.TempDir(), "--label", "sjf=SJF"); err == nil || !strings.Contains(err.Error(), `no run of policy "sjf"`) {
		t.Errorf("a label for an absent policy: %v, want an error naming it", err)
	}
	if _, err := runCLI(t, "plot", res, "--out", t.TempDir(), "--label", "SJF"); err == nil || !strings.Contains(err.Error(), "POLICY=LABEL") {
		t.Errorf("--label without =: %v", err)
	}
}
