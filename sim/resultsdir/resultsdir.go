package resultsdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
)

// Files written into a results directory.
const (
	JobsFile     = "jobs.parquet"
	TimelineFile = "timeline.parquet"
	SummaryFile  = "summary.json"
	DigestFile   = "rounds.csv"
	// AllocationsFile holds every GPU holding over time (sim.AllocRecord).
	AllocationsFile = "allocations.parquet"
	// AvailabilityFile holds the cluster events as applied, with the GPUs
	// available after each (sim.AvailRecord); written only by runs with
	// cluster events or checkpoints (Result.Faults).
	AvailabilityFile = "availability.parquet"
	// NetworkFile holds each job's contention figures (sim.JobNetRecord);
	// written only by runs on a cluster with a topology (Result.Network).
	NetworkFile = "network.parquet"
)

// Names are the files of a results directory written by Write.
var Names = []string{JobsFile, TimelineFile, AllocationsFile, DigestFile, SummaryFile}

// CompanionNames are what other commands add to a results directory after
// its run (arena export's CSV copies, arena plot's figures): arena's too,
// so a new run may replace a directory with its manifest holding them.
// Anything else in the directory is the user's, and Write refuses to
// replace it.
var CompanionNames = []string{"jobs.csv", "timeline.csv", "allocations.csv", "summary.csv", "figures", AvailabilityFile, NetworkFile}

// File is a named file of a results directory.
type File struct {
	Name string
	Data []byte
}

// Write writes a run's results as the directory dir: jobs.parquet,
// timeline.parquet, rounds.csv (the per-round digest in the artifact's
// form) and summary.json, plus the extra files given. The directory is
// built under a temporary sibling name and swapped in whole
// (outdir.ReplaceDir): afterwards dir holds the new run's files only, and
// if anything fails (a full disk, a kill) it holds the old run's, never a
// mix. An existing non-empty dir that is not a results directory arena
// wrote (outdir.ReplaceDir: its manifest, nothing else in it) is refused,
// not replaced.
func Write(dir string, r *sim.Result, s sim.Summary, extra ...File) error {
	return WriteDirs([]RunDir{{Dir: dir, Result: r, Summary: s, Extra: extra}})
}

// RunDir is one run's results directory for WriteDirs.
type RunDir struct {
	Dir     string
	Result  *sim.Result
	Summary sim.Summary
	Extra   []File
	// Allocations, if set, are the run's allocation rows, streamed as the
	// run went (Result.Allocations is then empty): allocations.parquet is
	// finished from it. WriteDirs releases it, written or not.
	Allocations *AllocStream
	// Jobs, if set, is the run's job table, streamed as the engine handed
	// it over (Result.Jobs and the fault records are then empty):
	// jobs.parquet is finished from it. WriteDirs releases it, written or
	// not.
	Jobs *JobStream
}

// WriteDirs writes several runs' directories as Write does, all or
// nothing (outdir.ReplaceDirs): every directory is written in full before
// any is swapped in, so a failure part-way (a full disk at the third
// policy) leaves every directory with its old run.
func WriteDirs(runs []RunDir) error {
	defer func() {
		for _, rd := range runs {
			rd.Allocations.Discard()
			rd.Jobs.Discard()
		}
	}()
	dirs := make([]outdir.Dir, len(runs))
	for i, rd := range runs {
		known := slices.Concat(Names, CompanionNames)
		for _, f := range rd.Extra {
			known = append(known, f.Name)
		}
		// Rendered when written, one run at a time and one file at a
		// time, each streamed to its file (never a whole run in memory).
		dirs[i] = outdir.Dir{Path: rd.Dir, Known: known, Write: func(tmp string) error {
			pool := newFilePool(tmp)
			defer pool.closeAll()
			for _, f := range runFiles(rd, pool) {
				if err := outdir.WriteHashed(tmp, f.name, f.write); err != nil {
					return err
				}
			}
			return nil
		}}
	}
	if err := outdir.ReplaceDirs(dirs); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// fileRender is a file of a results directory, rendered when written.
type fileRender struct {
	name  string
	write func(io.Writer) error
}

func bytesRender(name string, data []byte) fileRender {
	return fileRender{name, func(w io.Writer) error { _, err := w.Write(data); return err }}
}

// runFiles lists a run's result files, in the order written; the Parquet
// files' page buffers come from pool.
func runFiles(rd RunDir, pool parquet.BufferPool) []fileRender {
	r, s, extra := rd.Result, rd.Summary, rd.Extra
	pb := parquet.ColumnPageBuffers(pool)
	id := s.Identity()
	allocations := func(w io.Writer) error { return writeAllocations(w, r, id, pb) }
	if rd.Allocations != nil {
		allocations = func(w io.Writer) error { return rd.Allocations.finish(w, id) }
	}
	jobs := func(w io.Writer) error { return writeJobs(w, r, id, pb) }
	if rd.Jobs != nil {
		jobs = func(w io.Writer) error { return rd.Jobs.finish(w, id) }
	}
	var out []fileRender
	for _, f := range extra {
		out = append(out, bytesRender(f.Name, f.Data))
	}
	if r.Faults != nil {
		out = append(out, fileRender{AvailabilityFile, func(w io.Writer) error { return writeAvailability(w, r, id, pb) }})
	}
	if r.Network != nil {
		out = append(out, fileRender{NetworkFile, func(w io.Writer) error { return writeNetwork(w, r, id, pb) }})
	}
	return append(out,
		fileRender{JobsFile, jobs},
		fileRender{TimelineFile, func(w io.Writer) error { return writeTimeline(w, r, id, pb) }},
		fileRender{AllocationsFile, allocations},
		fileRender{DigestFile, func(w io.Writer) error { _, err := w.Write(r.DigestCSV()); return err }},
		fileRender{SummaryFile, func(w io.Writer) error {
			summary, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				return fmt.Errorf("results: summary: %w", err)
			}
			_, err = w.Write(append(summary, '\n'))
			return err
		}})
}

// render is a writer's output as bytes (the exported XParquet functions).
func render(write func(io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFileAtomic writes data to a temporary file next to path and renames
// it into place (outdir.WriteFile); the file's mode follows the umask.
func WriteFileAtomic(path string, data []byte) error {
	if err := outdir.WriteFile(path, data); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// jobRow and allocRow are the rows written: the run's identity columns
// first, then the record's.
type jobRow struct {
	sim.Identity
	sim.JobRecord
}

type allocRow struct {
	sim.Identity
	sim.AllocRecord
}

// jobFaultRow is a jobs.parquet row of a run with the fault model: the
// fault columns after the others.
type jobFaultRow struct {
	sim.Identity
	sim.JobRecord
	sim.JobFaultRecord
}

type netRow struct {
	sim.Identity
	sim.JobNetRecord
}

// NetworkParquet encodes the per-job contention table of a run on a
// cluster with a topology, each row with the run's identity.
func NetworkParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	return render(func(w io.Writer) error { return writeNetwork(w, r, id) })
}

func writeNetwork(w io.Writer, r *sim.Result, id sim.Identity, opts ...parquet.WriterOption) error {
	var recs []sim.JobNetRecord
	if r.Network != nil {
		recs = r.Network.Jobs
	}
	return writeRows(w, NetworkFile, len(recs), func(i int) netRow { return netRow{id, recs[i]} }, opts...)
}

type availRow struct {
	sim.Identity
	sim.AvailRecord
}

// JobsParquet encodes the per-job table, each row with the run's identity
// (and, in a run with the fault model, its fault columns).
func JobsParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	return render(func(w io.Writer) error { return writeJobs(w, r, id) })
}

func writeJobs(w io.Writer, r *sim.Result, id sim.Identity, opts ...parquet.WriterOption) error {
	if r.Faults != nil {
		return writeRows(w, JobsFile, len(r.Jobs), func(i int) jobFaultRow { return jobFaultRow{id, r.Jobs[i], r.Faults.Jobs[i]} }, opts...)
	}
	return writeRows(w, JobsFile, len(r.Jobs), func(i int) jobRow { return jobRow{id, r.Jobs[i]} }, opts...)
}

// AvailabilityParquet encodes the availability timeline of a run with the
// fault model, each row with the run's identity.
func AvailabilityParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	return render(func(w io.Writer) error { return writeAvailability(w, r, id) })
}

func writeAvailability(w io.Writer, r *sim.Result, id sim.Identity, opts ...parquet.WriterOption) error {
	var av []sim.AvailRecord
	if r.Faults != nil {
		av = r.Faults.Availability
	}
	return writeRows(w, AvailabilityFile, len(av), func(i int) availRow { return availRow{id, av[i]} }, opts...)
}

// rowChunk is how many rows writeRows hands the parquet writer at a time:
// the rows of a million-job run are never all built at once. The file's
// bytes do not depend on it (the writer's own buffers decide its pages and
// row groups; TestChunkedRowsSameBytes).
const rowChunk = 4096

// writeRows encodes n rows, row(i) each, as the parquet file name.
func writeRows[T any](w io.Writer, name string, n int, row func(int) T, opts ...parquet.WriterOption) error {
	pw := parquet.NewGenericWriter[T](w, opts...)
	buf := make([]T, 0, min(n, rowChunk))
	for i := 0; i < n; i += rowChunk {
		buf = buf[:0]
		for k := i; k < min(n, i+rowChunk); k++ {
			buf = append(buf, row(k))
		}
		if _, err := pw.Write(buf); err != nil {
			return fmt.Errorf("results: %s: %w", name, err)
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("results: %s: %w", name, err)
	}
	return nil
}

// AllocationsParquet encodes the GPU holdings, each row with the run's
// identity.
func AllocationsParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	return render(func(w io.Writer) error { return writeAllocations(w, r, id) })
}

func writeAllocations(w io.Writer, r *sim.Result, id sim.Identity, opts ...parquet.WriterOption) error {
	return writeRows(w, AllocationsFile, len(r.Allocations), func(i int) allocRow { return allocRow{id, r.Allocations[i]} }, opts...)
}

// TimelineParquet encodes the per-round table, each row with the run's
// identity, with one busy_gpus_<type> column per GPU type of the cluster.
func TimelineParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	return render(func(w io.Writer) error { return writeTimeline(w, r, id) })
}

func writeTimeline(out io.Writer, r *sim.Result, id sim.Identity, opts ...parquet.WriterOption) error {
	fields := []reflect.StructField{
		{Name: "Identity", Type: reflect.TypeFor[sim.Identity](), Anonymous: true},
		{Name: "Round", Type: reflect.TypeFor[int32](), Tag: `parquet:"round"`},
		{Name: "Time", Type: reflect.TypeFor[float64](), Tag: `parquet:"time_s"`},
		{Name: "Throughput", Type: reflect.TypeFor[float64](), Tag: `parquet:"throughput_samples_per_s"`},
		{Name: "Running", Type: reflect.TypeFor[int32](), Tag: `parquet:"running"`},
		{Name: "Pending", Type: reflect.TypeFor[int32](), Tag: `parquet:"pending"`},
	}
	for i, t := range r.Types {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("Busy%d", i), Type: reflect.TypeFor[int32](),
			Tag: reflect.StructTag(`parquet:"busy_gpus_` + strings.ReplaceAll(t, "-", "_") + `"`),
		})
	}
	rowType := reflect.StructOf(fields)
	w := parquet.NewWriter(out, append([]parquet.WriterOption{parquet.SchemaOf(reflect.New(rowType).Interface())}, opts...)...)
	for _, row := range r.Timeline {
		v := reflect.New(rowType).Elem()
		v.Field(0).Set(reflect.ValueOf(id))
		v.Field(1).SetInt(int64(row.Round))
		v.Field(2).SetFloat(row.Time)
		v.Field(3).SetFloat(row.Throughput)
		v.Field(4).SetInt(int64(row.Running))
		v.Field(5).SetInt(int64(row.Pending))
		for i, b := range row.Busy {
			v.Field(6 + i).SetInt(int64(b))
		}
		if err := w.Write(v.Addr().Interface()); err != nil {
			return fmt.Errorf("results: timeline.parquet: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("results: timeline.parquet: %w", err)
	}
	return nil
}
