package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// shardArgs runs a shell snippet in an empty directory, with an `arena`
// on PATH (and in $STUB_ARENA) that prints its arguments, and returns
// what it printed: bash or sh is the oracle for what the job file's
// command line really passes.
func shardArgs(t *testing.T, shell, script string) []string {
	t.Helper()
	bin := t.TempDir()
	stub := filepath.Join(bin, "arena")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shell, "-c", script, shell, t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "STUB_ARENA="+stub)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, script)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// k8sJob is the part of a batch/v1 Job the sweep relies on.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image        string   `yaml:"image"`
					Command      []string `yaml:"command"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
					PVC  *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestEmitK8sIndexedJob validates the Kubernetes manifest structurally
// (it is untested on a live cluster): an Indexed batch/v1 Job with one
// completion per shard, whose pod I runs exactly the arguments Slurm's
// array task I runs (the oracle: both command lines executed by a shell
// with arena stubbed), writing under a mount of a PersistentVolumeClaim
// that every pod shares.
func TestEmitK8sIndexedJob(t *testing.T) {
	for _, shards := range []int{1, 4, 16} {
		opt := EmitOptions{Spec: "specs/my sweep.yaml", Name: "My Sweep", Out: "res/my", Shards: shards, CPUs: 3, Claim: "shared-results", Image: "reg.example/arena:v1", RunTimeout: 10 * time.Minute}
		text, err := Emit("k8s", opt)
		if err != nil {
			t.Fatal(err)
		}
		var job k8sJob
		dec := yaml.NewDecoder(strings.NewReader(text))
		dec.KnownFields(false)
		if err := dec.Decode(&job); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, text)
		}
		s := job.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Metadata.Name != "my-sweep" {
			t.Errorf("shards %d: apiVersion %q kind %q name %q", shards, job.APIVersion, job.Kind, job.Metadata.Name)
		}
		if s.CompletionMode != "Indexed" || s.Completions != shards || s.Parallelism < 1 || s.Parallelism > shards {
			t.Errorf("shards %d: completionMode %q completions %d parallelism %d", shards, s.CompletionMode, s.Completions, s.Parallelism)
		}
		pod := s.Template.Spec
		if pod.RestartPolicy != "Never" || len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
			t.Fatalf("shards %d: pod %+v", shards, pod)
		}
		c, v := pod.Containers[0], pod.Volumes[0]
		if c.Image != opt.Image || v.PVC == nil || v.PVC.ClaimName != opt.Claim {
			t.Errorf("shards %d: image %q, volume %+v", shards, c.Image, v)
		}
		mount := ""
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				mount = m.MountPath
			}
		}
		if mount == "" {
			t.Fatalf("shards %d: the claim's volume %q is not mounted", shards, v.Name)
		}
		if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
			t.Fatalf("shards %d: command %q args %q", shards, c.Command, c.Args)
		}
		slurm, err := Emit("slurm", opt)
		if err != nil {
			t.Fatal(err)
		}
		task := slurm[strings.Index(slurm, "\narena=")+1:]
		for i := range shards {
			pod := shardArgs(t, "sh", `JOB_COMPLETION_INDEX=`+itoa(i)+`; cd "$1"; `+c.Args[0])
			array := shardArgs(t, "bash", `srun() { while [ "${1#--}" != "$1" ]; do shift; done; shift; printf '%s\0' "$@"; }; `+
				`SLURM_ARRAY_TASK_ID=`+itoa(i)+` SLURM_ARRAY_TASK_COUNT=`+itoa(shards)+` SLURM_CPUS_PER_TASK=3; cd "$1"; `+task)
			// The same arguments but --out, which is under the claim's mount.
			k := slices.Index(pod, "--out")
			if k < 0 || !strings.HasPrefix(pod[k+1], mount+"/") || pod[k+1] != mount+"/res/my" {
				t.Fatalf("shards %d pod %d: --out not under the mount %s: %q", shards, i, mount, pod)
			}
			pod[k+1] = "res/my"
			if strings.Join(pod, " ") != strings.Join(array, " ") {
				t.Errorf("shards %d, index %d: pod runs %q, Slurm task runs %q", shards, i, pod, array)
			}
			if !slices.Contains(pod, itoa(i)+"/"+itoa(shards)) || !slices.Contains(pod, "--resume") {
				t.Errorf("shards %d, index %d: %q", shards, i, pod)
			}
		}
	}
}

var itoa = strconv.Itoa

// TestEmitSlurmScript runs the sbatch script both ways with bash, sbatch
// and srun stubbed: as array task I it runs shard I/N with --resume on the
// job's CPUs; run by a shell on a login node it creates the log directory,
// submits itself as the array, then the merge job depending on the array
// (afterok), whose command is the sweep's --merge.
func TestEmitSlurmScript(t *testing.T) {
	opt := EmitOptions{Spec: "/s/my sweep.yaml", Name: "e2e", Out: "/r/out dir", Shards: 4, CPUs: 2, Binary: "/opt/arena/bin/arena",
		Logs: "/r/logs", Partition: "short", Time: "1:00:00", Mem: "4G"}
	text, err := Emit("slurm", opt)
	if err != nil {
		t.Fatal(err)
	}
	var directives []string
	for _, l := range strings.Split(text, "\n") {
		if d, ok := strings.CutPrefix(l, "#SBATCH "); ok {
			directives = append(directives, d)
		}
	}
	for _, want := range []string{"--job-name=e2e", "--array=0-3", "--cpus-per-task=2", "--output=/r/logs/e2e-%A_%a.log", "--requeue", "--partition=short", "--time=1:00:00", "--mem=4G"} {
		if !slices.Contains(directives, want) {
			t.Errorf("no #SBATCH %s in %q", want, directives)
		}
	}
	if plain, _ := Emit("slurm", EmitOptions{Spec: "s.yaml", Out: "o", Shards: 2}); strings.Contains(plain, "--partition") || strings.Contains(plain, "--time") || strings.Contains(plain, "--mem") {
		t.Errorf("partition/time/mem without the flags:\n%s", plain)
	}

	// As array task 2 of 4.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	task := shardArgs(t, bash, `srun() { printf '%s\0' "$@"; }; export SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=2; cd "$1"; `+text)
	want := []string{"--ntasks=1", "--cpus-per-task=2", "/opt/arena/bin/arena", "sweep", "/s/my sweep.yaml", "--out", "/r/out dir", "--parallel", "2", "--shard", "2/4", "--resume"}
	if !slices.Equal(task, want) {
		t.Errorf("array task runs %q, want %q", task, want)
	}

	// On a login node: sbatch is a stub that logs its arguments.
	dir := t.TempDir()
	stub := `#!/bin/bash
n=$(ls "$STUB_LOG" 2>/dev/null | wc -l)
printf '%s\0' "$@" > "$STUB_LOG/$n"
echo "$((100 + n));cluster"
`
	if err := os.WriteFile(filepath.Join(dir, "sbatch"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	opt.Logs = filepath.Join(dir, "logs")
	text, _ = Emit("slurm", opt)
	script := filepath.Join(dir, "e2e.sbatch")
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "STUB_LOG="+logs, "SLURM_ARRAY_TASK_ID=")
	msg, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash e2e.sbatch: %v", err)
	}
	if !strings.Contains(string(msg), "array job 100 (4 tasks) and merge job 101") {
		t.Errorf("printed %q", msg)
	}
	if fi, err := os.Stat(opt.Logs); err != nil || !fi.IsDir() {
		t.Errorf("log directory not created: %v", err)
	}
	read := func(n string) []string {
		b, err := os.ReadFile(filepath.Join(logs, n))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	}
	if got := read("0"); !slices.Equal(got, []string{"--parsable", "--output=" + opt.Logs + "/e2e-%A_%a.log", "--", script}) {
		t.Errorf("first sbatch %q, want the script itself", got)
	}
	merge := read("1")
	for _, w := range []string{"--dependency=afterok:100", "--job-name=e2e-merge", "--partition=short", "--time=1:00:00", "--export=ALL", "--output=" + opt.Logs + "/e2e-merge-%j.log"} {
		if !slices.Contains(merge, w) {
			t.Errorf("merge sbatch lacks %s: %q", w, merge)
		}
	}
	wrap := ""
	for _, a := range merge {
		if w, ok := strings.CutPrefix(a, "--wrap="); ok {
			wrap = w
		}
	}
	// sbatch --wrap runs the command with /bin/sh in the exported environment.
	env := `export ARENA_SWEEP_BIN="$STUB_ARENA" ARENA_SWEEP_SPEC='/s/my sweep.yaml' ARENA_SWEEP_OUT='/r/out dir'; `
	got := shardArgs(t, "sh", env+wrap)
	if !slices.Equal(got, []string{"sweep", "/s/my sweep.yaml", "--merge", "--out", "/r/out dir"}) {
		t.Errorf("merge job runs %q", got)
	}
}

// TestEmitRejects: values a job file cannot hold are errors, not broken
// files. A log directory with a space is fine: it is then left out of the
// #SBATCH lines and given to sbatch on the command line (quoted).
func TestEmitRejects(t *testing.T) {
	for _, o := range []EmitOptions{
		{Spec: "s.yaml", Out: "a\nrm -rf ~"},
		{Spec: "s.yaml", Out: "o", Time: "1:00 #"},
		{Spec: "s.yaml", Out: "o", Partition: "a b"},
		{Spec: "s.yaml", Out: "o", Mem: "4 G"},
		{Spec: "s.yaml", Out: "o", Logs: "l\tx"},
	} {
		if _, err := Emit("slurm", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	text, err := Emit("slurm", EmitOptions{Spec: "s.yaml", Out: "o", Logs: "my logs", Shards: 1})
	if err != nil || strings.Contains(text, "#SBATCH --output") || !strings.Contains(text, `--output="$logs/`) {
		t.Errorf("logs with a space: %v\n%s", err, text)
	}
	// '%' in the logs directory would reach sbatch's --output, which
	// expands %j, %A …: refused, naming --logs (before, "%j" went
	// through, in the #SBATCH line too).
	for _, logs := range []string{"/r/100%", "/r/%j", "/r/%A_%a", "/r/my logs/%x"} {
		_, err := Emit("slurm", EmitOptions{Spec: "s.yaml", Out: "o", Logs: logs, Shards: 1})
		if err == nil || !strings.Contains(err.Error(), "--logs") {
			t.Errorf("logs %q: %v; want it refused, naming --logs", logs, err)
		}
	}
	if _, err := Emit("k8s", EmitOptions{Spec: "s.yaml", Out: "o%", Shards: 1}); err != nil {
		t.Errorf("k8s writes no Slurm log path: %v", err)
	}
}
