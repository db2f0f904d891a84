package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --interval windows on a sweep of 2 windows × 2 seeds prints one table
// over the windows; a misspelt value is refused before anything runs, and
// a sweep with no window family is told so.
func TestSweepIntervalWindows(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "w.yaml")
	body := "synth: {from: philly-pollux, since: [35d, 45d], length: 1d, sample: 20, recipe: arena}\nclusters: [testbed-64]\npolicies: [arena, fcfs]\ntiming: exact\nrounds: 20\nseeds: [1, 2]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "x"), "--interval", "window"); err == nil || !strings.Contains(err.Error(), `--interval "window": want seeds or windows`) {
		t.Errorf("misspelt --interval: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("a misspelt --interval ran the sweep")
	}
	out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "out"), "--quiet", "--parallel", "1", "--interval", "windows")
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	if strings.Count(out, " — mean [") != 1 || !strings.Contains(out, "95 % t-interval over 2 windows of philly-pollux (35d–36d, 45d–46d), 2 seeds each") {
		t.Errorf("want one table over 2 windows:\n%s", out)
	}
	one := filepath.Join(dir, "one.yaml")
	if err := os.WriteFile(one, []byte(strings.Replace(body, "since: [35d, 45d]", "since: 35d", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "sweep", one, "--out", filepath.Join(dir, "one"), "--quiet", "--parallel", "1", "--interval", "windows"); err == nil || !strings.Contains(err.Error(), "no window family") {
		t.Errorf("one window: %v, want no window family", err)
	}
}
