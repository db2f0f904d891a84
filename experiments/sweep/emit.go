package sweep

import (
	"fmt"
	"path"
	"strings"
	"text/template"
	"time"
	"unicode"

	"github.com/arena-sim/arena/sim/input"
)

// EmitOptions parameterise the cluster job files EmitSlurm and EmitK8s
// print for a sweep.
type EmitOptions struct {
	Spec   string // the spec path as the job will see it
	Name   string // job name (default: the spec's name)
	Out    string // results directory, on storage every task shares
	Shards int    // array size (Slurm) / completions (Kubernetes)
	CPUs   int    // cores per task; also its --parallel
	Binary string // the arena binary (Slurm) — default "arena"
	Image  string // container image holding the arena binary (Kubernetes)
	Claim  string // PersistentVolumeClaim mounted at /results (Kubernetes)
	Runs   int    // runs in the sweep (for the comment)

	// Slurm only. Logs is the directory of the per-task logs (default
	// Out/slurm-logs); Partition, Time and Mem, when set, become the
	// array's --partition, --time and --mem (per task) and the merge
	// job's --partition and --time.
	Logs, Partition, Time, Mem string
	// RunTimeout, if positive, is passed to every shard as --run-timeout.
	RunTimeout time.Duration
	// AllowExec passes --allow-exec to every shard: the user trusted the
	// spec's commands when emitting (docs/trust.md).
	AllowExec bool
	// AllowOutsidePaths passes --allow-outside-paths to every shard and
	// the merge job: the user consented to the spec reading files outside
	// its directory when emitting (docs/trust.md).
	AllowOutsidePaths bool

	// K8sName is Name as a Kubernetes object name (set by defaults).
	K8sName string
}

// k8sName turns a job name into an RFC 1123 label, which a Kubernetes Job
// name must be: lowercase letters, digits and '-', starting and ending
// with a letter or digit, at most 63 characters ('_' and '+', fine for
// Slurm, are not).
func k8sName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		out = "arena-sweep"
	}
	return out
}

// Caps on the counts an emitted job file carries: a Kubernetes Indexed
// Job takes at most 100,000 completions, and no Slurm site allows a larger
// array (MaxArraySize defaults to 1,001); no node has more cores than
// MaxEmitCPUs. A typo (--shards 1e9) is an error, not a job file.
const (
	MaxEmitShards = 100_000
	MaxEmitCPUs   = 1024
)

// defaults fills in what was left empty. Shards has no default: 0
// (--shards 0) is refused by check, not silently made 1.
func (o *EmitOptions) defaults() {
	if o.CPUs == 0 {
		o.CPUs = 2
	}
	if o.Binary == "" {
		o.Binary = "arena"
	}
	if o.Image == "" {
		o.Image = "ghcr.io/arena-sim/arena:latest"
	}
	if o.Claim == "" {
		o.Claim = "arena-results"
	}
	o.Name = strings.ToLower(unsafeKeyRE.ReplaceAllString(o.Name, "-"))
	if o.Name == "" {
		o.Name = "arena-sweep"
	}
	o.K8sName = k8sName(o.Name)
	if o.Logs == "" {
		o.Logs = path.Join(o.Out, "slurm-logs")
	}
}

// check rejects values that cannot be written into the job file: comments
// show the values too, and a line break would end a comment or #SBATCH
// line and start a command; #SBATCH values are parsed by sbatch, not by a
// shell, so they take no whitespace or quotes either.
func (o *EmitOptions) check(kind string) error {
	if o.Shards < 1 || o.Shards > MaxEmitShards {
		return fmt.Errorf("--emit %s: --shards %d: want 1 to %d (a Kubernetes Indexed Job's cap; Slurm sites allow fewer)", kind, o.Shards, MaxEmitShards)
	}
	if o.CPUs < 1 || o.CPUs > MaxEmitCPUs {
		return fmt.Errorf("--emit %s: %d CPUs per task (--parallel): want 1 to %d", kind, o.CPUs, MaxEmitCPUs)
	}
	for _, f := range []struct{ flag, v string }{{"spec path", o.Spec}, {"--out", o.Out}, {"--binary", o.Binary}, {"--image", o.Image}, {"--claim", o.Claim}, {"--logs", o.Logs}, {"--partition", o.Partition}, {"--time", o.Time}, {"--mem", o.Mem}} {
		if i := strings.IndexFunc(f.v, unicode.IsControl); i >= 0 {
			return fmt.Errorf("--emit %s: %s %q contains a control character (byte %d); a job script cannot carry it safely", kind, f.flag, f.v, i)
		}
	}
	if kind != "slurm" {
		return nil
	}
	// sbatch expands %j, %A, %a, %x … in an --output path, from an
	// #SBATCH line or its command line alike: a logs directory holding
	// '%' is refused rather than escaped as %% (docs/trust.md).
	if strings.Contains(o.Logs, "%") {
		return fmt.Errorf("--emit slurm: --logs %s holds '%%', which sbatch expands in --output paths (%%j, %%A, %%a …); choose a log directory without it (without --logs it is --out's slurm-logs)", input.Clip(o.Logs))
	}
	for _, f := range []struct{ flag, v string }{{"--partition", o.Partition}, {"--time", o.Time}, {"--mem", o.Mem}} {
		if !sbatchSafe(f.v) {
			return fmt.Errorf("--emit slurm: %s %q: an #SBATCH value cannot hold whitespace, quotes, '\\' or '#'", f.flag, f.v)
		}
	}
	return nil
}

// sbatchSafe says whether v can stand in an #SBATCH line as is.
func sbatchSafe(v string) bool { return !strings.ContainsAny(v, " \t\"'\\#") }

// The sbatch script has two modes. Run by a shell on the login node (no
// SLURM_ARRAY_TASK_ID), it submits itself as the array and then a merge
// job that waits for the array to succeed (afterok), so the merge never
// races the shards. Run by Slurm as an array task, it runs one shard
// with --resume, so a requeued or restarted task skips the runs it has
// finished; a failed run makes the task exit non-zero. Values reach the
// merge job through its environment (--export=ALL), never through a
// second layer of quoting.
var slurmTemplate = template.Must(template.New("slurm").Funcs(template.FuncMap{"sh": ShellQuote}).Parse(`#!/bin/bash
# Slurm job array for the sweep {{sh .Spec}}: {{.Runs}} runs in {{.Shards}} shards.
#
# On a login node (the paths below must be on storage every node shares):
#   bash THIS_SCRIPT     submit the array and a merge job that starts when
#                        every task has succeeded (--dependency=afterok)
#   sbatch THIS_SCRIPT   submit the array alone; afterwards merge with
#                        {{sh .Binary}} sweep {{sh .Spec}} --merge --out {{sh .Out}}{{if .AllowOutsidePaths}} --allow-outside-paths{{end}}
# Per-task logs: {{sh .Logs}}/{{.Name}}-<array job>_<task>.log{{if .LogsInDirective}} (the directory must exist){{else}}
# with bash only (a bare sbatch writes slurm-<job>_<task>.out where it runs: this
# directory cannot stand in an #SBATCH line){{end}}.
# Watch: squeue --me; sacct -j <array job> (a failed task shows a non-zero exit).
# A task that Slurm requeues (--requeue) resumes: finished runs are kept.
#SBATCH --job-name={{.Name}}
#SBATCH --array=0-{{.LastShard}}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={{.CPUs}}
{{- if .LogsInDirective}}
#SBATCH --output={{.Logs}}/{{.Name}}-%A_%a.log{{end}}
#SBATCH --open-mode=append
#SBATCH --requeue
{{- if .Partition}}
#SBATCH --partition={{.Partition}}{{end}}
{{- if .Time}}
#SBATCH --time={{.Time}}{{end}}
{{- if .Mem}}
#SBATCH --mem={{.Mem}}{{end}}
set -euo pipefail
arena={{sh .Binary}}
spec={{sh .Spec}}
out={{sh .Out}}
logs={{sh .Logs}}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  mkdir -p -- "$logs"
  array=$(sbatch --parsable --output="$logs/{{.Name}}-%A_%a.log" -- "$0")
  array=${array%%;*}
  export ARENA_SWEEP_BIN="$arena" ARENA_SWEEP_SPEC="$spec" ARENA_SWEEP_OUT="$out"
  merge=$(sbatch --parsable --export=ALL --job-name={{.Name}}-merge --ntasks=1 --cpus-per-task=1{{.MergeFlags}} \
    --dependency=afterok:"$array" --kill-on-invalid-dep=no --output="$logs/{{.Name}}-merge-%j.log" \
    --wrap='exec "$ARENA_SWEEP_BIN" sweep "$ARENA_SWEEP_SPEC" --merge --out "$ARENA_SWEEP_OUT"{{if .AllowOutsidePaths}} --allow-outside-paths{{end}}')
  merge=${merge%%;*}
  echo "array job $array ({{.Shards}} tasks) and merge job $merge (starts when every task has succeeded)"
  echo "watch: squeue -j $array,$merge; sacct -j $array,$merge; logs in $logs"
  exit 0
fi

# One array task: shard $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT.
# srun is given --cpus-per-task: since Slurm 22.05 a step does not
# inherit it from the job, and would be confined to one core.
srun --ntasks=1 --cpus-per-task="${SLURM_CPUS_PER_TASK}" \
  "$arena" sweep "$spec" --out "$out" --parallel "${SLURM_CPUS_PER_TASK}" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" --resume{{if .RunTimeout}} --run-timeout {{.RunTimeout}}{{end}}{{if .AllowExec}} --allow-exec{{end}}{{if .AllowOutsidePaths}} --allow-outside-paths{{end}}
`))

var k8sTemplate = template.Must(template.New("k8s").Funcs(template.FuncMap{"yaml": YAMLQuote, "sh": ShellQuote}).Parse(`# Kubernetes Indexed Job for the sweep {{sh .Spec}}: {{.Runs}} runs in {{.Shards}} shards.
# Untested on a live cluster (its structure is checked by arena's tests).
# The spec must be readable in the image (or mount it); results go to the
# PersistentVolumeClaim {{sh .Claim}} (ReadWriteMany), mounted at /results.
# Apply:  kubectl apply -f {{.K8sName}}-job.yaml
# Merge:  {{sh .Binary}} sweep {{sh .Spec}} --merge --out <the claim's contents>/{{sh .Out}}{{if .AllowOutsidePaths}} --allow-outside-paths{{end}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{yaml .K8sName}}
spec:
  completionMode: Indexed
  completions: {{.Shards}}
  parallelism: {{.Shards}}
  backoffLimitPerIndex: 2
  maxFailedIndexes: {{.Shards}}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: sweep
          image: {{yaml .Image}}
          command: ["/bin/sh", "-c"]
          args:
            - {{yaml .Command}}
          resources:
            requests: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
            limits: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
          volumeMounts:
            - {name: results, mountPath: /results}
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: {{yaml .Claim}}}
`))

// Emit renders the Slurm sbatch script ("slurm") or the Kubernetes Indexed
// Job manifest ("k8s") that runs a sweep as opt.Shards shards.
func Emit(kind string, opt EmitOptions) (string, error) {
	opt.defaults()
	t := slurmTemplate
	switch kind {
	case "slurm":
	case "k8s", "kubernetes":
		kind, t = "k8s", k8sTemplate
	default:
		return "", fmt.Errorf("--emit %q: want slurm or k8s", kind)
	}
	if err := opt.check(kind); err != nil {
		return "", err
	}
	var b strings.Builder
	data := struct {
		EmitOptions
		LastShard       int
		LogsInDirective bool   // Logs can stand in an #SBATCH line
		MergeFlags      string // the merge job's optional sbatch flags
		Command         string // the Kubernetes container's shell command
	}{EmitOptions: opt, LastShard: opt.Shards - 1, LogsInDirective: sbatchSafe(opt.Logs)}
	// The merge job's flags stand in a shell command line, where a value
	// an #SBATCH line takes as is ("$(…)", "`…`") would be expanded: quoted.
	if opt.Partition != "" {
		data.MergeFlags += " --partition=" + ShellQuote(opt.Partition)
	}
	if opt.Time != "" {
		data.MergeFlags += " --time=" + ShellQuote(opt.Time)
	}
	// The container's shell command; JOB_COMPLETION_INDEX is set by
	// Kubernetes in every pod of an Indexed Job.
	data.Command = fmt.Sprintf(`exec arena sweep %s --out %s --parallel %d --shard "${JOB_COMPLETION_INDEX}/%d" --resume`,
		ShellQuote(opt.Spec), ShellQuote("/results/"+opt.Out), opt.CPUs, opt.Shards)
	if opt.RunTimeout > 0 {
		data.Command += " --run-timeout " + opt.RunTimeout.String()
	}
	if opt.AllowExec {
		data.Command += " --allow-exec"
	}
	if opt.AllowOutsidePaths {
		data.Command += " --allow-outside-paths"
	}
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
