package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// hostileValues are paths and names a careless or hostile user might pass.
var hostileValues = []string{"res; touch X #", "a b", "it's", `$(touch X)`, "`touch X`", `"q"`, "*", "~/x", "-x", "a\\b", "ünï"}

// TestEmitQuotesForTheShell runs the generated sbatch script's command
// line with bash (the oracle), with srun replaced by a function that prints
// its arguments: each hostile --out and spec path must arrive as exactly
// one argument, unchanged, and nothing else may run.
func TestEmitQuotesForTheShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, v := range hostileValues {
		text, err := Emit("slurm", EmitOptions{Spec: v + ".yaml", Out: v, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		// The whole script, as array task 0 of 2 (so it does not submit).
		script := `srun() { printf '%s\0' "$@"; }; export SLURM_CPUS_PER_TASK=2 SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2; cd "$1"; ` + text
		dir := t.TempDir()
		out, err := exec.Command(bash, "-c", script, "bash", dir).Output()
		if err != nil {
			t.Fatalf("%q: %v\n%s", v, err, text)
		}
		args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		want := []string{"--ntasks=1", "--cpus-per-task=2", "arena", "sweep", v + ".yaml", "--out", v, "--parallel", "2", "--shard", "0/2", "--resume"}
		if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%q: srun got %q, want %q", v, args, want)
		}
		if ls, _ := exec.Command("ls", dir).Output(); len(ls) != 0 {
			t.Errorf("%q: the script created %s", v, ls)
		}
	}
	if _, err := Emit("slurm", EmitOptions{Spec: "s.yaml", Out: "a\nrm -rf ~"}); err == nil {
		t.Error("a line break in --out accepted (it would end the script's comment line)")
	}
}

// TestEmitQuotesForYAML decodes the manifest with a YAML parser (the
// oracle) and checks the hostile image, claim and container command come
// back unchanged; the command is then run by sh with a stub arena.
func TestEmitQuotesForYAML(t *testing.T) {
	for _, v := range append(hostileValues, "img: {x}", "- [a]", "#x", "a: b\nc: d"[:4]) {
		text, err := Emit("k8s", EmitOptions{Spec: "s.yaml", Out: v, Image: v, Claim: v, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Image string   `yaml:"image"`
							Args  []string `yaml:"args"`
						} `yaml:"containers"`
						Volumes []struct {
							PVC struct {
								Claim string `yaml:"claimName"`
							} `yaml:"persistentVolumeClaim"`
						} `yaml:"volumes"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%q: not YAML: %v\n%s", v, err, text)
		}
		ps := m.Spec.Template.Spec
		if len(ps.Containers) != 1 || ps.Containers[0].Image != v || len(ps.Volumes) != 1 || ps.Volumes[0].PVC.Claim != v || len(ps.Containers[0].Args) != 1 {
			t.Fatalf("%q: decoded %+v", v, ps)
		}
		// exec runs the arena on PATH: shardArgs's stub.
		args := shardArgs(t, "sh", `JOB_COMPLETION_INDEX=1; cd "$1"; `+ps.Containers[0].Args[0])
		want := []string{"sweep", "s.yaml", "--out", "/results/" + v, "--parallel", "2", "--shard", "1/3", "--resume"}
		if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%q: arena got %q, want %q", v, args, want)
		}
	}
}

// TestEmitMergeFlagsAreQuoted runs the sbatch script as bash on a login
// node would (no SLURM_ARRAY_TASK_ID), with sbatch stubbed to print its
// arguments: a partition or time limit holding a command substitution
// without whitespace (an #SBATCH line takes it as is) must reach the merge
// job's sbatch as one unchanged argument, and nothing may run.
func TestEmitMergeFlagsAreQuoted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, v := range []string{"$(touch${IFS}X)", "`touch${IFS}X`", "a;touch${IFS}X", "a|touch${IFS}X", "a&&touch${IFS}X"} {
		text, err := Emit("slurm", EmitOptions{Spec: "s.yaml", Out: "o", Shards: 2, Partition: v, Time: v})
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		dir := t.TempDir()
		script := `sbatch() { printf '%s\0' "$@" >> args; echo 7; }; cd "$1"; set -- script; ` + text
		if out, err := exec.Command(bash, "-c", script, "bash", dir).CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", v, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "X")); err == nil {
			t.Errorf("%q: the script ran a command carried in --partition/--time", v)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "args"))
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(string(raw), "\x00")
		if !slices.Contains(args, "--partition="+v) || !slices.Contains(args, "--time="+v) {
			t.Errorf("%q: the merge job's sbatch got %q", v, args)
		}
	}
}

// TestEmitRefusesCountsOutOfRange: a shard or CPU count no cluster takes
// is an error naming the flag, never a job file.
func TestEmitRefusesCountsOutOfRange(t *testing.T) {
	for _, kind := range []string{"slurm", "k8s"} {
		// --shards 0 was silently made 1.
		for _, o := range []EmitOptions{{Shards: 1e9}, {Shards: -1}, {Shards: 0}, {Shards: MaxEmitShards + 1}, {Shards: 2, CPUs: -3}, {Shards: 2, CPUs: 1 << 20}} {
			o.Spec, o.Out = "s.yaml", "o"
			text, err := Emit(kind, o)
			if err == nil {
				t.Errorf("%s: shards %d, cpus %d accepted:\n%.200s", kind, o.Shards, o.CPUs, text)
				continue
			}
			if !strings.Contains(err.Error(), "--shards") && !strings.Contains(err.Error(), "--parallel") {
				t.Errorf("%s: error does not name the flag: %v", kind, err)
			}
		}
		if _, err := Emit(kind, EmitOptions{Spec: "s.yaml", Out: "o", Shards: MaxEmitShards}); err != nil {
			t.Errorf("%s: the cap itself refused: %v", kind, err)
		}
	}
}

// TestEmitK8sNameIsRFC1123: the Job's name must be a DNS label
// (Kubernetes rejects '_', '+', upper case, a leading '-', > 63 chars).
func TestEmitK8sNameIsRFC1123(t *testing.T) {
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	for _, name := range []string{"my_sweep", "a+b", "-lead", "Philly.Arena", strings.Repeat("x_", 60), "___", "ünï"} {
		text, err := Emit("k8s", EmitOptions{Spec: "s.yaml", Out: "o", Shards: 2, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			t.Fatal(err)
		}
		if !label.MatchString(m.Metadata.Name) {
			t.Errorf("name %q became %q, not an RFC 1123 label", name, m.Metadata.Name)
		}
	}
}
