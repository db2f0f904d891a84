package resultsdir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
}

// WriteDirs writes several runs' directories as Write does, all or
// nothing (outdir.ReplaceDirs): every directory is written in full before
// any is swapped in, so a failure part-way (a full disk at the third
// policy) leaves every directory with its old run.
func WriteDirs(runs []RunDir) error {
	dirs := make([]outdir.Dir, len(runs))
	for i, rd := range runs {
		known := slices.Concat(Names, CompanionNames)
		for _, f := range rd.Extra {
			known = append(known, f.Name)
		}
		// Rendered when written, one run at a time, not all at once.
		dirs[i] = outdir.Dir{Path: rd.Dir, Known: known, Write: func(tmp string) error {
			files, err := runFiles(rd.Result, rd.Summary, rd.Extra)
			if err != nil {
				return err
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o666); err != nil {
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

// runFiles renders a run's result files.
func runFiles(r *sim.Result, s sim.Summary, extra []File) ([]File, error) {
	id := s.Identity()
	jobs, err := JobsParquet(r, id)
	if err != nil {
		return nil, err
	}
	timeline, err := TimelineParquet(r, id)
	if err != nil {
		return nil, err
	}
	allocs, err := AllocationsParquet(r, id)
	if err != nil {
		return nil, err
	}
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("results: summary: %w", err)
	}
	if r.Faults != nil {
		avail, err := AvailabilityParquet(r, id)
		if err != nil {
			return nil, err
		}
		extra = append(slices.Clip(extra), File{AvailabilityFile, avail})
	}
	if r.Network != nil {
		net, err := NetworkParquet(r, id)
		if err != nil {
			return nil, err
		}
		extra = append(slices.Clip(extra), File{NetworkFile, net})
	}
	return slices.Concat(extra, []File{{JobsFile, jobs}, {TimelineFile, timeline}, {AllocationsFile, allocs}, {DigestFile, r.DigestCSV()}, {SummaryFile, append(summary, '\n')}}), nil
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
	var recs []sim.JobNetRecord
	if r.Network != nil {
		recs = r.Network.Jobs
	}
	rows := make([]netRow, len(recs))
	for i, x := range recs {
		rows[i] = netRow{id, x}
	}
	return writeParquet(NetworkFile, rows)
}

type availRow struct {
	sim.Identity
	sim.AvailRecord
}

// JobsParquet encodes the per-job table, each row with the run's identity
// (and, in a run with the fault model, its fault columns).
func JobsParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	if r.Faults != nil {
		rows := make([]jobFaultRow, len(r.Jobs))
		for i, j := range r.Jobs {
			rows[i] = jobFaultRow{id, j, r.Faults.Jobs[i]}
		}
		return writeParquet(JobsFile, rows)
	}
	rows := make([]jobRow, len(r.Jobs))
	for i, j := range r.Jobs {
		rows[i] = jobRow{id, j}
	}
	return writeParquet(JobsFile, rows)
}

// AvailabilityParquet encodes the availability timeline of a run with the
// fault model, each row with the run's identity.
func AvailabilityParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	var av []sim.AvailRecord
	if r.Faults != nil {
		av = r.Faults.Availability
	}
	rows := make([]availRow, len(av))
	for i, a := range av {
		rows[i] = availRow{id, a}
	}
	return writeParquet(AvailabilityFile, rows)
}

// writeParquet encodes rows as the parquet file name.
func writeParquet[T any](name string, rows []T) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// AllocationsParquet encodes the GPU holdings, each row with the run's
// identity.
func AllocationsParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
	rows := make([]allocRow, len(r.Allocations))
	for i, a := range r.Allocations {
		rows[i] = allocRow{id, a}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[allocRow](&buf)
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("results: %s: %w", AllocationsFile, err)
	}
	return buf.Bytes(), nil
}

// TimelineParquet encodes the per-round table, each row with the run's
// identity, with one busy_gpus_<type> column per GPU type of the cluster.
func TimelineParquet(r *sim.Result, id sim.Identity) ([]byte, error) {
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
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(rowType).Interface()))
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
			return nil, fmt.Errorf("results: timeline.parquet: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("results: timeline.parquet: %w", err)
	}
	return buf.Bytes(), nil
}
