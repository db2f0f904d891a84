package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy/registry"
)

// writeSpec writes a sweep spec whose policies are listed one a line
// (fcfs on line 6, the given policy on line 7) and returns its path.
func writeSpec(t *testing.T, dir, pol string) string {
	t.Helper()
	spec := filepath.Join(dir, "s.yaml")
	text := "name: t\ntraces: [testbed]\nclusters: [testbed-64]\ntiming: exact\npolicies:\n  - fcfs\n  - " + pol + "\nrounds: 3\n"
	if err := os.WriteFile(spec, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return spec
}

// The spec trust boundary (issue 28, docs/trust.md): a command named in a
// spec — an exec policy, alone or wrapped — runs only with --allow-exec.
// Without it the sweep, and the job files --emit prints, are refused with
// the spec file, the entry's line and the command; nothing runs. Before
// this change the command ran (the marker file appeared).
func TestSpecCommandsNeedAllowExec(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED")
	for _, pol := range []string{
		`'exec:sh -c "touch ` + marker + `"'`,
		`'quota(exec:sh -c "touch ` + marker + `")'`,
		// As deep as the parser allows: the check walks the parsed tree.
		`'` + strings.Repeat("quota(", registry.MaxNesting) + `exec:sh -c "touch ` + marker + `"` + strings.Repeat(")", registry.MaxNesting) + `'`,
	} {
		spec := writeSpec(t, dir, pol)
		for _, extra := range [][]string{nil, {"--resume"}, {"--emit", "slurm", "--shards", "2"}, {"--emit", "k8s"}} {
			out, err := runCLI(t, append([]string{"sweep", spec, "--out", filepath.Join(dir, "out"), "--quiet"}, extra...)...)
			if err == nil {
				t.Fatalf("%s %v: accepted without --allow-exec:\n%s", pol, extra, out)
			}
			for _, w := range []string{spec + ":7", "policies[1]", strconv.Quote("sh -c \"touch " + marker + "\""), "--allow-exec"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %v: error %q lacks %q", pol, extra, err, w)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s %v: the spec's command ran", pol, extra)
			}
		}
	}
	// One wrapper deeper than the parser allows is refused before
	// anything is expanded or run, with or without --allow-exec.
	deep := writeSpec(t, dir, `'`+strings.Repeat("quota(", registry.MaxNesting+1)+`exec:sh -c "touch `+marker+`"`+strings.Repeat(")", registry.MaxNesting+1)+`'`)
	for _, extra := range [][]string{nil, {"--allow-exec"}} {
		if out, err := runCLI(t, append([]string{"sweep", deep, "--out", filepath.Join(dir, "deep"), "--quiet"}, extra...)...); err == nil || !strings.Contains(err.Error(), "nests more than") {
			t.Errorf("%d wrappers %v: %v\n%s", registry.MaxNesting+1, extra, err, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%d wrappers %v: the spec's command ran", registry.MaxNesting+1, extra)
		}
	}
	// With --allow-exec the emitted jobs carry the flag to every shard.
	spec := writeSpec(t, dir, `'exec:python3 p.py'`)
	for _, kind := range []string{"slurm", "k8s"} {
		out, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "out"), "--emit", kind, "--shards", "2", "--allow-exec")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !strings.Contains(out, "--resume --allow-exec") {
			t.Errorf("%s: the shards' command lacks --allow-exec:\n%s", kind, out)
		}
	}
	// Merging, listing and comparing run nothing: no flag needed.
	if _, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "out"), "--list"); err != nil {
		t.Errorf("--list refused: %v", err)
	}
}

// A spec reads only files in its own directory: a synth source outside it
// (absolute, or ../) is refused, as traces and clusters are.
func TestSpecSynthSourceConfined(t *testing.T) {
	dir := t.TempDir()
	for _, from := range []string{"/etc/passwd", "../outside.csv"} {
		spec := filepath.Join(dir, "s.yaml")
		text := "synth: {from: " + from + "}\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\nrounds: 3\n"
		if err := os.WriteFile(spec, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		_, err := runCLI(t, "sweep", spec, "--out", filepath.Join(dir, "out"), "--list")
		if err == nil || !strings.Contains(err.Error(), "outside the spec's directory") || !strings.Contains(err.Error(), "synth.from") {
			t.Errorf("synth from %s: err %v, want it refused as outside the spec's directory", from, err)
		}
	}
}

// sweep --run-timeout abandons a run whose exec policy hangs in a decision
// (it answers its hello, then never replies): the run fails as timed out,
// the sweep's other run completes, and the sweep ends without waiting for
// the policy's own 10-minute reply timeout (before this change it did).
// The outcome does not depend on the clock: the hung run can only end by
// the run timeout, and 2 s is far more than the fcfs run needs.
func TestRunTimeoutAbandonsAHungPolicy(t *testing.T) {
	dir := t.TempDir()
	hung := filepath.Join(dir, "hung.sh")
	if err := os.WriteFile(hung, []byte("read l\necho '{\"type\":\"hello\",\"protocol\":1}'\nexec sleep 100000\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	spec := writeSpec(t, dir, "'exec:sh "+hung+"'")
	out := filepath.Join(dir, "out")
	text, err := runCLI(t, "sweep", spec, "--out", out, "--quiet", "--allow-exec", "--run-timeout", "2s", "--parallel", "2")
	if err == nil {
		t.Fatalf("the hung run did not fail:\n%s", text)
	}
	if !strings.Contains(err.Error(), "1 of 2 runs failed") || !strings.Contains(err.Error(), "run timed out") {
		t.Errorf("err %v: want the exec run failed by the run timeout", err)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "fcfs.testbed.testbed-64.exact.r3.d1.s0.dr", "summary.json")); err != nil {
		t.Errorf("the fcfs run is not complete: %v", err)
	}
}
