package traces

import (
	"cmp"
	"errors"
	"math"
	"path/filepath"
	"slices"
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
	b := newTableBuilder(name, file, len(jobs))
	for i := range jobs {
		b.add(&jobs[i])
	}
	return b.finish()
}

// tableBuilder is FromTable one row at a time, so a CSV table streams into
// specs without a []table.Job of the whole file. Rows are converted in
// file order and stable-sorted by submission at the end; the error
// returned is the one FromTable's walk in submission order meets first:
// the failing row of least (submission, file position).
type tableBuilder struct {
	file string
	t    *Trace
	n    int // rows added
	// The first failure in submission order, if any.
	err       error
	errSubmit float64
	sorted    bool
	last      sim.Time // the last spec's submission
	// chunk and chunks hold the specs past Jobs' capacity (streamed rows).
	chunk  []sim.JobSpec
	chunks [][]sim.JobSpec
	// Catalog look-ups and strings already met: a trace names a few models,
	// GPU types, users and virtual clusters a million times.
	models map[string]estimator.Model
	gpus   map[string]string
	names  map[string]string
}

// maxInterned bounds the strings a builder shares (a trace whose users are
// all distinct copies each instead).
const maxInterned = 1 << 14

func newTableBuilder(name, file string, capacity int) *tableBuilder {
	return &tableBuilder{file: file, sorted: true,
		t:      &Trace{Name: name, ScaleSource: "iteration_scale column", Jobs: make([]sim.JobSpec, 0, capacity)},
		models: map[string]estimator.Model{}, gpus: map[string]string{}, names: map[string]string{}}
}

// intern returns s as a string of its own (not a slice of the csv
// reader's record), shared with the rows that named it before.
func (b *tableBuilder) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := b.names[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(b.names) < maxInterned {
		b.names[v] = v
	}
	return v
}

func (b *tableBuilder) add(j *table.Job) {
	i := b.n
	b.n++
	if i == 0 {
		b.t.IterationScale = j.IterationScale
	}
	spec, err := b.spec(i, j)
	if err != nil {
		if b.err == nil || j.Submit < b.errSubmit {
			b.err, b.errSubmit = err, j.Submit
		}
		return
	}
	if b.err != nil {
		return // the trace fails: keep no more specs
	}
	if b.n > 1 && spec.Submit < b.last {
		b.sorted = false
	}
	b.last = spec.Submit
	if cap(b.t.Jobs) > len(b.t.Jobs) {
		b.t.Jobs = append(b.t.Jobs, spec)
		return
	}
	// Streamed rows of unknown count: chunks, joined once in finish (not
	// a slice regrown and copied over and over).
	if len(b.chunk) == cap(b.chunk) {
		if len(b.chunk) > 0 {
			b.chunks = append(b.chunks, b.chunk)
		}
		b.chunk = make([]sim.JobSpec, 0, min(max(1024, b.n/4), 1<<16))
	}
	b.chunk = append(b.chunk, spec)
}

// reserve gives the job table room for rows rows in all: the rows added so
// far are moved into it once, and the rows after them are appended to it
// until it is full (then chunks again), instead of being copied from
// chunks in finish. Nothing changes if it already has the room, or if the
// trace has failed.
func (b *tableBuilder) reserve(rows int) {
	if b.err != nil || rows <= cap(b.t.Jobs) || rows <= b.n {
		return
	}
	jobs := make([]sim.JobSpec, 0, rows)
	jobs = append(jobs, b.t.Jobs...)
	for _, c := range b.chunks {
		jobs = append(jobs, c...)
	}
	b.t.Jobs, b.chunks, b.chunk = append(jobs, b.chunk...), nil, nil
}

func (b *tableBuilder) spec(i int, j *table.Job) (sim.JobSpec, error) {
	fail := func(col, format string, args ...any) (sim.JobSpec, error) {
		return sim.JobSpec{}, parseError(b.file, i+2, col, ErrNotRunnable, input.Errorf(format, args...).Error()+" (re-label raw traces with 'arena trace synth --recipe arena')")
	}
	if j.IterationScale != b.t.IterationScale {
		return fail("iteration_scale", "%d, but the first job's is %d; a trace has one scale", j.IterationScale, b.t.IterationScale)
	}
	m, ok := b.models[j.Model]
	if !ok {
		var err error
		if m, err = analytic.ParseModel(j.Model); err != nil {
			return fail("model", "%q is not a catalog model", j.Model)
		}
		if len(b.models) < maxInterned {
			b.models[strings.Clone(j.Model)] = m
		}
	}
	if j.Batch <= 0 || j.Batch > math.MaxInt32 {
		return fail("batch", "%d: want a positive batch size", j.Batch)
	}
	if j.Iterations <= 0 {
		return fail("iterations", "%d: want a positive iteration count", j.Iterations)
	}
	gpu, ok := b.gpus[j.GPUType]
	if !ok {
		g, err := estimator.LookupGPU(j.GPUType)
		if err != nil {
			return fail("gpu_type", "%q: want one of %s", j.GPUType, strings.Join(estimator.GPUNames(), ", "))
		}
		gpu = g.Name
		if len(b.gpus) < maxInterned {
			b.gpus[strings.Clone(j.GPUType)] = gpu
		}
	}
	n := int(j.GPUs)
	if float64(n) != j.GPUs || n < 1 || n > sim.MaxClusterGPUs {
		return fail("gpus", "%v: want a whole GPU count from 1 to %d", j.GPUs, sim.MaxClusterGPUs)
	}
	if j.Deadline > 0 && j.Deadline < j.Submit {
		return fail("deadline_s", "%v is before the submission %v", j.Deadline, j.Submit)
	}
	return sim.JobSpec{
		Name: strings.Clone(j.ID), Submit: sim.Time(j.Submit),
		Workload: estimator.Workload{Model: m, Batch: int(j.Batch)}, Iterations: j.Iterations,
		GPU: gpu, GPUs: n, Deadline: sim.Time(j.Deadline), User: b.intern(j.User), VirtualCluster: b.intern(j.VC),
		Outcome:    b.intern(j.Outcome),
		Checkpoint: sim.Checkpoint{Interval: sim.Duration(j.CheckpointInterval), Cost: sim.Duration(j.CheckpointCost), Restore: sim.Duration(j.CheckpointRestore)},
	}, nil
}

// finish sorts the specs by submission (stable) and numbers them.
func (b *tableBuilder) finish() (*Trace, error) {
	if b.n == 0 {
		return nil, parseError(b.file, 0, "", ErrEmpty, "the table has no jobs")
	}
	if b.err != nil {
		return nil, b.err
	}
	if len(b.chunk) > 0 {
		n := len(b.t.Jobs) + len(b.chunk)
		for _, c := range b.chunks {
			n += len(c)
		}
		jobs := make([]sim.JobSpec, 0, n)
		jobs = append(jobs, b.t.Jobs...)
		for _, c := range b.chunks {
			jobs = append(jobs, c...)
		}
		b.t.Jobs, b.chunks, b.chunk = append(jobs, b.chunk...), nil, nil
	}
	jobs := b.t.Jobs
	if !b.sorted {
		slices.SortStableFunc(jobs, func(x, y sim.JobSpec) int { return cmp.Compare(x.Submit, y.Submit) })
	}
	for k := range jobs {
		jobs[k].ID = sim.JobID(k)
	}
	return b.t, nil
}

// loadParquet reads a canonical job table in the Parquet form.
func loadParquet(path string) (*Trace, error) {
	jobs, err := table.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return FromTable(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path, jobs)
}
