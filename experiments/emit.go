package experiments

import (
	"fmt"
	"strings"
	"text/template"
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

var slurmTemplate = template.Must(template.New("slurm").Parse(`#!/bin/bash
# Slurm job array for the sweep {{.Spec}} ({{.Runs}} runs in {{.Shards}} shards).
# Submit:   sbatch {{.Name}}.sbatch
# Then merge the shards' results into {{.Out}}/summary.parquet:
#           {{.Binary}} sweep {{.Spec}} --merge --out {{.Out}}
#SBATCH --job-name={{.Name}}
#SBATCH --array=0-{{.LastShard}}
#SBATCH --cpus-per-task={{.CPUs}}
#SBATCH --mem-per-cpu=1G
#SBATCH --time=01:00:00
#SBATCH --output={{.Name}}-%A_%a.log
set -euo pipefail
# --resume makes a requeued or restarted task skip the runs it finished.
srun {{.Binary}} sweep {{.Spec}} --out {{.Out}} --parallel "${SLURM_CPUS_PER_TASK}" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" --resume
`))

var k8sTemplate = template.Must(template.New("k8s").Parse(`# Kubernetes Indexed Job for the sweep {{.Spec}} ({{.Runs}} runs in {{.Shards}} shards).
# The spec must be readable in the image (or mount it); results go to the
# PersistentVolumeClaim {{.Claim}} at /results.
# Apply:  kubectl apply -f {{.Name}}-job.yaml
# Merge:  {{.Binary}} sweep {{.Spec}} --merge --out <the claim's contents>/{{.Out}}
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
          image: {{.Image}}
          command: ["/bin/sh", "-c"]
          args:
            - >-
              arena sweep {{.Spec}} --out /results/{{.Out}} --parallel {{.CPUs}}
              --shard "${JOB_COMPLETION_INDEX}/{{.Shards}}" --resume
          resources:
            requests: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
            limits: {cpu: "{{.CPUs}}", memory: "{{.CPUs}}Gi"}
          volumeMounts:
            - {name: results, mountPath: /results}
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: {{.Claim}}}
`))

// Emit renders the Slurm sbatch script ("slurm") or the Kubernetes Indexed
// Job manifest ("k8s") that runs a sweep as opt.Shards shards.
func Emit(kind string, opt EmitOptions) (string, error) {
	opt.defaults()
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
	}{opt, opt.Shards - 1}
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
