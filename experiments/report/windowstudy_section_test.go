package report

import (
	"strings"
	"testing"
)

// The built-in windows spec asks for five 48-hour windows of philly-pollux
// with three seeds each: the two-level design the section reports on.
func TestWindowsSpecIsFiveWindowsThreeSeeds(t *testing.T) {
	spec, err := BuiltinSpec(WindowsSection)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Synth) != 5 || len(spec.Seeds) != 3 {
		t.Fatalf("windows spec: %d synth windows × %d seeds, want 5 × 3", len(spec.Synth), len(spec.Seeds))
	}
	plan, err := spec.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	windows := map[string]bool{}
	for _, r := range plan.Runs {
		windows[r.Run.Synth.Name] = true
	}
	if len(windows) != 5 {
		t.Errorf("windows spec: runs over %d synthesised traces, want 5: %v", len(windows), windows)
	}
}

// A reduced windows section (3 windows, 2 seeds, small samples, few rounds)
// writes REPORT.md's Windows section with the seed table's interval over
// the windows, seeds nested — not over the seeds of one window — naming the
// windows drawn, the method and why.
func TestReproduceWindowsSection(t *testing.T) {
	_, report := reproduceShort(t, WindowsSection, `name: windows
synth: {from: philly-pollux, since: [35d, 45d, 55d], length: 2d, sample: 40, recipe: arena}
clusters: [paper-1280]
policies: [arena, fcfs]
timing: exact
rounds: 60
seeds: [1, 2]
baseline: fcfs
`)
	i := strings.Index(report, "## Windows")
	if i < 0 {
		t.Fatalf("REPORT.md has no Windows section:\n%s", report)
	}
	section := report[i:]
	if j := strings.Index(section, "\n## "); j > 0 {
		section = section[:j]
	}
	for _, want := range []string{
		"t-interval over 3 windows of philly-pollux (35d–37d, 45d–47d, 55d–57d), 2 seeds each",
		"per window the mean over its seeds, then the 95 % Student-t interval over the 3 window means (N = 3 windows, seeds nested within each)",
		"not independent draws",
		"JCT reduction vs fcfs",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("Windows section lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(section, "over 2 seeds") {
		t.Errorf("Windows section gives an interval over one window's seeds:\n%s", section)
	}
	if testing.Verbose() {
		t.Log(section)
	}
}
