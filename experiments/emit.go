package experiments

import (
	"fmt"
	"strings"
	"text/template"
	"unicode"
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
}

func (o *EmitOptions) defaults() {
	if o.Shards < 1 {
		o.Shards = 1
	}
	if o.CPUs < 1 {
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
}

// templateFuncs quote values for where the templates put them: sh for a
// POSIX shell word, yq for a YAML scalar (a JSON string is a valid YAML
// double-quoted scalar). A value is never pasted into a script unquoted:
// a path like "res; touch X #" must stay one argument.
var templateFuncs = template.FuncMap{"sh": ShellQuote, "yq": YAMLQuote}

var slurmTemplate = template.Must(template.New("slurm").Funcs(templateFuncs).Parse(`#!/bin/bash
# Slurm job array for the sweep {{sh .Spec}} ({{.Runs}} runs in {{.Shards}} shards).
# Submit:   sbatch {{.Name}}.sbatch
# Then merge the shards' results into {{sh .Out}}/summary.parquet:
#           {{sh .Binary}} sweep {{sh .Spec}} --merge --out {{sh .Out}}
#SBATCH --job-name={{.Name}}
#SBATCH --array=0-{{.LastShard}}
#SBATCH --cpus-per-task={{.CPUs}}
#SBATCH --mem-per-cpu=1G
#SBATCH --time=01:00:00
#SBATCH --output={{.Name}}-%A_%a.log
set -euo pipefail
# --resume makes a requeued or restarted task skip the runs it finished.
srun {{sh .Binary}} sweep {{sh .Spec}} --out {{sh .Out}} --parallel "${SLURM_CPUS_PER_TASK}" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" --resume
`))

var k8sTemplate = template.Must(template.New("k8s").Funcs(templateFuncs).Parse(`# Kubernetes Indexed Job for the sweep {{sh .Spec}} ({{.Runs}} runs in {{.Shards}} shards).
# The spec must be readable in the image (or mount it); results go to the
# PersistentVolumeClaim {{sh .Claim}} at /results.
# Apply:  kubectl apply -f {{.Name}}-job.yaml
# Merge:  {{sh .Binary}} sweep {{sh .Spec}} --merge --out <the claim's contents>/{{sh .Out}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{.Name}}
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
          image: {{yq .Image}}
          command: ["/bin/sh", "-c"]
          args:
            - {{yq .Command}}
          resources:
            requests: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
            limits: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
          volumeMounts:
            - {name: results, mountPath: /results}
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: {{yq .Claim}}}
`))

// Emit renders the Slurm sbatch script ("slurm") or the Kubernetes Indexed
// Job manifest ("k8s") that runs a sweep as opt.Shards shards.
func Emit(kind string, opt EmitOptions) (string, error) {
	opt.defaults()
	// Comments in the script and manifest show the values too: a line
	// break would end the comment and start a command.
	for _, v := range []struct{ flag, val string }{{"spec path", opt.Spec}, {"--out", opt.Out}, {"binary", opt.Binary}, {"--image", opt.Image}, {"--claim", opt.Claim}} {
		if i := strings.IndexFunc(v.val, unicode.IsControl); i >= 0 {
			return "", fmt.Errorf("--emit: %s %q contains a control character (byte %d); a job script cannot carry it safely", v.flag, v.val, i)
		}
	}
	t := slurmTemplate
	switch kind {
	case "slurm":
	case "k8s", "kubernetes":
		t = k8sTemplate
	default:
		return "", fmt.Errorf("--emit %q: want slurm or k8s", kind)
	}
	var b strings.Builder
	data := struct {
		EmitOptions
		LastShard int
		Command   string // the container's shell command (k8s)
	}{opt, opt.Shards - 1, fmt.Sprintf(`arena sweep %s --out %s --parallel %d --shard "${JOB_COMPLETION_INDEX}/%d" --resume`,
		ShellQuote(opt.Spec), ShellQuote("/results/"+opt.Out), opt.CPUs, opt.Shards)}
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
