package sim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Files written into a results directory.
const (
	JobsFile     = "jobs.parquet"
	TimelineFile = "timeline.parquet"
	SummaryFile  = "summary.json"
	DigestFile   = "rounds.csv"
)

// WriteDir writes a run's results into dir (created if needed): jobs.parquet,
// timeline.parquet, summary.json and rounds.csv (the per-round digest in the
// artifact's form). Each file is written to a temporary name and renamed,
// so an interrupted run never leaves a half-written file; summary.json is
// written last and marks the directory complete.
func WriteDir(dir string, r *Result, s Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	jobs, err := r.JobsParquet()
	if err != nil {
		return err
	}
	timeline, err := r.TimelineParquet()
	if err != nil {
		return err
	}
	summary, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("results: summary: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{JobsFile, jobs}, {TimelineFile, timeline}, {DigestFile, r.DigestCSV()}, {SummaryFile, append(summary, '\n')},
	} {
		if err := WriteFileAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFileAtomic writes data to a temporary file next to path and renames
// it into place.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("results: writing %s: %w", path, errorsJoin(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// JobsParquet encodes the per-job table.
func (r *Result) JobsParquet() ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[JobRecord](&buf)
	if _, err := w.Write(r.Jobs); err != nil {
		return nil, fmt.Errorf("results: jobs.parquet: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("results: jobs.parquet: %w", err)
	}
	return buf.Bytes(), nil
}

// TimelineParquet encodes the per-round table, with one busy_<type> column
// per GPU type of the cluster.
func (r *Result) TimelineParquet() ([]byte, error) {
	fields := []reflect.StructField{
		{Name: "Round", Type: reflect.TypeFor[int32](), Tag: `parquet:"round"`},
		{Name: "Time", Type: reflect.TypeFor[float64](), Tag: `parquet:"time_s"`},
		{Name: "Throughput", Type: reflect.TypeFor[float64](), Tag: `parquet:"throughput"`},
		{Name: "Running", Type: reflect.TypeFor[int32](), Tag: `parquet:"running"`},
		{Name: "Pending", Type: reflect.TypeFor[int32](), Tag: `parquet:"pending"`},
	}
	for i, t := range r.Types {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("Busy%d", i), Type: reflect.TypeFor[int32](),
			Tag: reflect.StructTag(`parquet:"busy_` + strings.ReplaceAll(t, "-", "_") + `"`),
		})
	}
	rowType := reflect.StructOf(fields)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(rowType).Interface()))
	for _, row := range r.Timeline {
		v := reflect.New(rowType).Elem()
		v.Field(0).SetInt(int64(row.Round))
		v.Field(1).SetFloat(row.Time)
		v.Field(2).SetFloat(row.Throughput)
		v.Field(3).SetInt(int64(row.Running))
		v.Field(4).SetInt(int64(row.Pending))
		for i, b := range row.Busy {
			v.Field(5 + i).SetInt(int64(b))
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

// DigestCSV renders the per-round digest in the artifact reference form:
// round,running,pending,idle_<type>...,ended.
func (r *Result) DigestCSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := []string{"round", "running", "pending"}
	for _, t := range r.Types {
		head = append(head, "idle_"+t)
	}
	w.Write(append(head, "ended"))
	for _, d := range r.Digest {
		row := []string{strconv.Itoa(d.Round), strconv.Itoa(d.Running), strconv.Itoa(d.Pending)}
		for _, n := range d.Idle {
			row = append(row, strconv.Itoa(n))
		}
		w.Write(append(row, strings.Join(d.Ended, ";")))
	}
	w.Flush()
	return buf.Bytes()
}
