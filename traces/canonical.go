package traces

import (
	"errors"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// ErrNotRunnable is the cause of a table row the engine cannot run as is
// (no model or iterations yet: a recipe must re-label it first).
var ErrNotRunnable = errors.New("traces: job cannot run as is")

// FromTable turns canonical jobs into a trace, in submission order (stable,
// so equal times keep their file order). Every job needs what the engine
// runs: a catalog model (or one of the analytic model's larger sizes,
// analytic.ParseModel: gpt-175b, which only the analytic or hybrid
// estimator prices), a batch, iterations, a catalog GPU type and a whole
// GPU count from 1 to sim.MaxClusterGPUs (a job larger than the cluster it
// runs on is the policy's to drop); the iteration scale must be the same
// for every job and becomes the trace's. file names the input in errors
// (rows are numbered from 1 in file order).
func FromTable(name, file string, jobs []table.Job) (*Trace, error) {
	if len(jobs) == 0 {
		return nil, parseError(file, 0, "", ErrEmpty, "the table has no jobs")
	}
	t := &Trace{Name: name, IterationScale: jobs[0].IterationScale, ScaleSource: "iteration_scale column"}
	fail := func(i int, col, format string, args ...any) error {
		return parseError(file, i+2, col, ErrNotRunnable, input.Errorf(format, args...).Error()+" (re-label raw traces with 'arena trace synth --recipe arena')")
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Submit < jobs[order[b]].Submit })
	for _, i := range order {
		j := jobs[i]
		if j.IterationScale != t.IterationScale {
			return nil, fail(i, "iteration_scale", "%d, but the first job's is %d; a trace has one scale", j.IterationScale, t.IterationScale)
		}
		m, err := analytic.ParseModel(j.Model)
		if err != nil {
			return nil, fail(i, "model", "%q is not a catalog model", j.Model)
		}
		if j.Batch <= 0 || j.Batch > math.MaxInt32 {
			return nil, fail(i, "batch", "%d: want a positive batch size", j.Batch)
		}
		if j.Iterations <= 0 {
			return nil, fail(i, "iterations", "%d: want a positive iteration count", j.Iterations)
		}
		g, err := estimator.LookupGPU(j.GPUType)
		if err != nil {
			return nil, fail(i, "gpu_type", "%q: want one of %s", j.GPUType, strings.Join(estimator.GPUNames(), ", "))
		}
		n := int(j.GPUs)
		if float64(n) != j.GPUs || n < 1 || n > sim.MaxClusterGPUs {
			return nil, fail(i, "gpus", "%v: want a whole GPU count from 1 to %d", j.GPUs, sim.MaxClusterGPUs)
		}
		if j.Deadline > 0 && j.Deadline < j.Submit {
			return nil, fail(i, "deadline_s", "%v is before the submission %v", j.Deadline, j.Submit)
		}
		t.Jobs = append(t.Jobs, sim.JobSpec{
			ID: sim.JobID(len(t.Jobs)), Name: j.ID, Submit: sim.Time(j.Submit),
			Workload: estimator.Workload{Model: m, Batch: int(j.Batch)}, Iterations: j.Iterations,
			GPU: g.Name, GPUs: n, Deadline: sim.Time(j.Deadline), User: j.User, VirtualCluster: j.VC,
			Outcome:    j.Outcome,
			Checkpoint: sim.Checkpoint{Interval: sim.Duration(j.CheckpointInterval), Cost: sim.Duration(j.CheckpointCost), Restore: sim.Duration(j.CheckpointRestore)},
		})
	}
	return t, nil
}

// loadParquet reads a canonical job table in the Parquet form.
func loadParquet(path string) (*Trace, error) {
	jobs, err := table.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return FromTable(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path, jobs)
}
