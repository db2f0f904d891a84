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

// A spec naming a file outside its directory runs only with
// --allow-outside-paths (docs/trust.md): without it `arena sweep` — a run,
// --list, --merge and --emit alike, each reading the spec's files — is
// refused naming the file, the key, the path as typed and the flag. With
// it the sweep runs, the relative path resolved against the spec's
// directory (not the working directory, where it names nothing), and
// --emit passes the flag to every shard and the merge job. Before, the
// flag did not exist and the refusal named no way to consent.
func TestSpecOutsidePathsNeedAllowOutsidePaths(t *testing.T) {
	root := t.TempDir()
	specDir, data := filepath.Join(root, "specs"), filepath.Join(root, "data")
	for _, d := range []string{specDir, data} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "mine.yaml"), []byte("name: mine\npools:\n  - {gpu: a40, nodes: 16, gpus_per_node: 2}\n  - {gpu: a10, nodes: 16, gpus_per_node: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(specDir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: t\ntraces: [testbed]\nclusters: ['../data/mine.yaml']\ntiming: exact\npolicies: [fcfs]\nrounds: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // neither the spec's directory nor its parent
	out := filepath.Join(root, "out")
	for _, extra := range [][]string{{"--quiet"}, {"--list"}, {"--merge"}, {"--emit", "slurm", "--shards", "2"}, {"--emit", "k8s"}} {
		text, err := runCLI(t, append([]string{"sweep", spec, "--out", out}, extra...)...)
		if err == nil {
			t.Fatalf("%v: accepted without --allow-outside-paths:\n%s", extra, text)
		}
		for _, w := range []string{spec + ":3", "key clusters", `"../data/mine.yaml"`, "outside the spec's directory", "--allow-outside-paths"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", extra, err, w)
			}
		}
	}
	if text, err := runCLI(t, "sweep", spec, "--out", out, "--quiet", "--allow-outside-paths"); err != nil {
		t.Fatalf("with --allow-outside-paths: %v\n%s", err, text)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "fcfs.testbed.mine.exact.r3.d1.s0.dr", "summary.json")); err != nil {
		t.Errorf("the run on the cluster outside the spec's directory is not complete: %v", err)
	}
	for kind, wants := range map[string][]string{
		"slurm": {"--resume --allow-outside-paths", `--merge --out "$ARENA_SWEEP_OUT" --allow-outside-paths'`},
		"k8s":   {"--resume --allow-outside-paths", "--merge --out <the claim's contents>/" + out + " --allow-outside-paths"},
	} {
		text, err := runCLI(t, "sweep", spec, "--out", out, "--emit", kind, "--shards", "2", "--allow-outside-paths")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("--emit %s: lacks %q:\n%s", kind, w, text)
			}
		}
	}
}
