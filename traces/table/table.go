package table

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/outdir"
)

// Job is one row of the canonical table.
type Job struct {
	ID             string  `parquet:"id"`
	Submit         float64 `parquet:"submit_s"`
	Duration       float64 `parquet:"duration_s"`
	Censored       bool    `parquet:"censored"`
	Iterations     int64   `parquet:"iterations"`
	IterationScale int64   `parquet:"iteration_scale"`
	GPUs           float64 `parquet:"gpus"`
	GPUType        string  `parquet:"gpu_type"`
	Model          string  `parquet:"model"`
	Batch          int64   `parquet:"batch"`
	Deadline       float64 `parquet:"deadline_s"`
	User           string  `parquet:"user"`
	VC             string  `parquet:"vc"`
	Status         string  `parquet:"status"`
	Attempt        int32   `parquet:"attempt"`
	Zone           string  `parquet:"zone"`
	Source         string  `parquet:"source"`
	// Outcome is the job's own end where the trace records it: "" (passed,
	// or unknown), "failed" or "killed" (OutcomeOf; docs/faults.md). An
	// optional column: tables written before it read with "".
	Outcome string `parquet:"outcome"`
	// CheckpointInterval, CheckpointCost and CheckpointRestore are the
	// job's own checkpoint model, seconds (sim.Checkpoint: progress time
	// between checkpoints, time to write one, time to restore one after an
	// interruption); 0 — an empty CSV field, or a table written before the
	// columns existed — is the run's (--checkpoint-interval …). Optional
	// columns.
	CheckpointInterval float64 `parquet:"checkpoint_interval_s"`
	CheckpointCost     float64 `parquet:"checkpoint_cost_s"`
	CheckpointRestore  float64 `parquet:"checkpoint_restore_s"`
}

// The values of the outcome column.
const (
	OutcomeFailed = "failed"
	OutcomeKilled = "killed"
)

// Columns is the CSV header, in order.
var Columns = columnsArr[:]

// optionalColumns may be absent from a CSV table (tables written before
// the column existed); a missing one reads as "".
var optionalColumns = []string{"outcome", "checkpoint_interval_s", "checkpoint_cost_s", "checkpoint_restore_s"}

// HasDuration reports whether the trace gave a run time.
func (j *Job) HasDuration() bool { return j.Duration >= 0 }

// Record renders j as a CSV record in Columns order.
func (j *Job) Record() []string {
	return []string{j.ID, ftoa(j.Submit), ftoa(j.Duration), strconv.FormatBool(j.Censored), strconv.FormatInt(j.Iterations, 10),
		strconv.FormatInt(j.IterationScale, 10), ftoa(j.GPUs), j.GPUType, j.Model, strconv.FormatInt(j.Batch, 10), ftoa(j.Deadline),
		j.User, j.VC, j.Status, strconv.Itoa(int(j.Attempt)), j.Zone, j.Source, j.Outcome,
		ftoaOpt(j.CheckpointInterval), ftoaOpt(j.CheckpointCost), ftoaOpt(j.CheckpointRestore)}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ftoaOpt is ftoa but for 0, an optional column's "the run's": empty.
func ftoaOpt(f float64) string {
	if f == 0 {
		return ""
	}
	return ftoa(f)
}

// Writer streams jobs to a CSV or Parquet file.
type Writer interface {
	Write(Job) error
	// Close flushes; the file is complete only after a nil Close.
	Close() error
}

// CSVWriter writes the CSV form.
type CSVWriter struct {
	w      *csv.Writer
	header bool
}

// NewCSVWriter returns a writer of the CSV form to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{w: csv.NewWriter(w)} }

func (c *CSVWriter) Write(j Job) error {
	if !c.header {
		c.header = true
		if err := c.w.Write(Columns); err != nil {
			return err
		}
	}
	return c.w.Write(j.Record())
}

func (c *CSVWriter) Close() error {
	if !c.header {
		c.header = true
		if err := c.w.Write(Columns); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

// ParquetWriter writes the Parquet form.
type ParquetWriter struct{ w *parquet.GenericWriter[Job] }

// RowGroupRows is how many rows a Parquet table's row group holds: the
// writer buffers one row group, so a streamed import (trace import, synth)
// stays flat in memory however many rows it writes.
const RowGroupRows = 1 << 17

// NewParquetWriter returns a writer of the Parquet form to w.
func NewParquetWriter(w io.Writer) *ParquetWriter {
	return &ParquetWriter{w: parquet.NewGenericWriter[Job](w, parquet.MaxRowsPerRowGroup(RowGroupRows))}
}

func (p *ParquetWriter) Write(j Job) error { _, err := p.w.Write([]Job{j}); return err }
func (p *ParquetWriter) Close() error      { return p.w.Close() }

// IsParquet reports whether path names the Parquet form (by extension).
func IsParquet(path string) bool { return strings.EqualFold(filepath.Ext(path), ".parquet") }

// File is a table being written to path through a temporary file: Commit
// renames it into place, Abort removes it, so a failed import never
// leaves a half-written table.
type File struct {
	Writer
	path string
	tmp  *os.File
	buf  *bufio.Writer
}

// Create starts writing path (CSV, or Parquet for a .parquet name).
func Create(path string) (*File, error) {
	tmp, err := outdir.CreateTemp(path) // mode from the umask, not 0600
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	f := &File{path: path, tmp: tmp, buf: bufio.NewWriterSize(tmp, 1<<20)}
	if IsParquet(path) {
		f.Writer = NewParquetWriter(f.buf)
	} else {
		f.Writer = NewCSVWriter(f.buf)
	}
	return f, nil
}

// Commit completes the file and renames it into place.
func (f *File) Commit() error {
	err := f.Writer.Close()
	if err == nil {
		err = f.buf.Flush()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = outdir.Commit(f.tmp.Name(), f.path)
	}
	if err != nil {
		outdir.Discard(f.tmp.Name())
		return fmt.Errorf("table: writing %s: %w", f.path, err)
	}
	return nil
}

// Abort discards the file.
func (f *File) Abort() {
	f.tmp.Close()
	outdir.Discard(f.tmp.Name())
}

// WriteFile writes jobs to path atomically.
func WriteFile(path string, jobs []Job) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := f.Write(j); err != nil {
			f.Abort()
			return fmt.Errorf("table: writing %s: %w", path, err)
		}
	}
	return f.Commit()
}

// ErrFormat is what a *input.Error about the table itself unwraps to.
var ErrFormat = errors.New("table: not a canonical job table")

// LooksLikeTable reports whether a CSV header is the canonical table's.
func LooksLikeTable(header []string) bool {
	return slices.Contains(header, "submit_s") && slices.Contains(header, "duration_s") && slices.Contains(header, "gpus")
}

// ReadFile reads a table (CSV or, by extension, Parquet).
func ReadFile(path string) ([]Job, error) {
	if IsParquet(path) {
		jobs, err := pq.ReadAll[Job](path)
		if err != nil {
			var le *input.LimitError
			if errors.As(err, &le) {
				return nil, err
			}
			return nil, &input.Error{File: path, Err: fmt.Errorf("%w: %s", ErrFormat, input.ClipError(errors.Unwrap(err)))}
		}
		for i := range jobs {
			if err := jobs[i].check(); err != nil {
				err.File, err.Line = path, i+1
				return nil, err
			}
		}
		return jobs, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	defer f.Close()
	return ReadCSV(path, f)
}

// ReadCSV reads the CSV form; file names the input in errors. It keeps
// every row, so the rows cap (input.RowsCap) applies.
func ReadCSV(file string, r io.Reader) ([]Job, error) {
	var jobs []Job
	err := ScanCSV(file, r, func(j Job) error {
		if err := input.Rows(file, 0, len(jobs)+1); err != nil {
			return err
		}
		jobs = append(jobs, j)
		return nil
	})
	return jobs, err
}

// ScanCSV streams the CSV form to emit, through the bounded reader
// (input.Reader: line, field and input caps; memory stays flat in rows).
func ScanCSV(file string, r io.Reader, emit func(Job) error) error {
	return ScanBoundedCSV(file, input.NewReader(file, r, input.Options{Quoted: true}), emit)
}

// ScanBoundedCSV is ScanCSV for r already bounded by input.NewReader
// (Options.Quoted) over the whole file: each byte is counted once. The
// field cap and the rows' checks are the ones ScanCSV applies; a row is
// parsed without a map look-up or an allocation of its own (the strings of
// the Job emitted share the csv reader's one string per record).
func ScanBoundedCSV(file string, r io.Reader, emit func(Job) error) error {
	cr := newRecords(r)
	head, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return &input.Error{File: file, Line: 1, Err: fmt.Errorf("%w: empty file; want the header %s", ErrFormat, strings.Join(Columns, ","))}
		}
		var le *input.LimitError
		if errors.As(err, &le) {
			return err
		}
		return &input.Error{File: file, Line: 1, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	head = slices.Clone(head) // ReuseRecord: the next Read overwrites it
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range Columns {
		if _, ok := col[c]; !ok && !slices.Contains(optionalColumns, c) {
			return &input.Error{File: file, Line: 1, Field: c, Err: fmt.Errorf("%w: missing column; want the header %s", ErrFormat, strings.Join(Columns, ","))}
		}
	}
	// idx[k] is the field of Columns[k] (the last of a repeated name, as
	// the map keeps), -1 when the optional column is absent.
	var idx columnIndex
	for k, c := range Columns {
		idx[k] = -1
		if i, ok := col[c]; ok {
			idx[k] = i
		}
	}
	maxField := input.FieldCap.Value()
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return &input.Error{File: file, Line: pe.Line, Err: pe.Err}
			}
			var le *input.LimitError
			if errors.As(err, &le) {
				return err
			}
			return fmt.Errorf("%s: %w", file, err)
		}
		line := cr.Line()
		if len(rec) == 1 && rec[0] == "" {
			continue
		}
		if len(rec) != len(head) {
			return &input.Error{File: file, Line: line, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(head))}
		}
		for i, f := range rec {
			if int64(len(f)) > maxField {
				if err := input.Field(file, line, head[i], f); err != nil {
					return err
				}
			}
		}
		j, ferr := parseRecord(rec, &idx)
		if ferr == nil {
			ferr = j.checkCap(maxField)
		}
		if ferr != nil {
			ferr.File, ferr.Line = file, line
			return ferr
		}
		if err := emit(j); err != nil {
			return err
		}
	}
}

// columnIndex maps each of Columns to its field in a record.
type columnIndex [len(columnsArr)]int

// columnsArr is Columns as an array (its length sizes columnIndex).
var columnsArr = [...]string{"id", "submit_s", "duration_s", "censored", "iterations", "iteration_scale", "gpus", "gpu_type",
	"model", "batch", "deadline_s", "user", "vc", "status", "attempt", "zone", "source", "outcome",
	"checkpoint_interval_s", "checkpoint_cost_s", "checkpoint_restore_s"}

// The positions of Columns.
const (
	cID = iota
	cSubmit
	cDuration
	cCensored
	cIterations
	cIterationScale
	cGPUs
	cGPUType
	cModel
	cBatch
	cDeadline
	cUser
	cVC
	cStatus
	cAttempt
	cZone
	cSource
	cOutcome
	cCheckpointInterval
	cCheckpointCost
	cCheckpointRestore
)

func parseRecord(rec []string, idx *columnIndex) (Job, *input.Error) {
	get := func(k int) string {
		if i := idx[k]; i >= 0 {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var j Job
	var ferr *input.Error
	num := func(k int) float64 {
		if ferr != nil {
			return 0
		}
		s := get(k)
		v, err := parseFloat(s)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			ferr = &input.Error{Field: Columns[k], Err: fmt.Errorf("%s: want a finite number", input.ShowValue(s))}
		}
		return v
	}
	integer := func(k int) int64 {
		if ferr != nil {
			return 0
		}
		s := get(k)
		v, err := parseInt(s)
		if err != nil {
			ferr = &input.Error{Field: Columns[k], Err: fmt.Errorf("%s: want an integer", input.ShowValue(s))}
		}
		return v
	}
	j.ID = get(cID)
	j.Submit = num(cSubmit)
	j.Duration = num(cDuration)
	if ferr == nil {
		s := get(cCensored)
		b, err := strconv.ParseBool(s)
		if err != nil {
			ferr = &input.Error{Field: "censored", Err: fmt.Errorf("%s: want true or false", input.ShowValue(s))}
		}
		j.Censored = b
	}
	j.Iterations = integer(cIterations)
	j.IterationScale = integer(cIterationScale)
	j.GPUs = num(cGPUs)
	j.GPUType = get(cGPUType)
	j.Model = get(cModel)
	j.Batch = integer(cBatch)
	j.Deadline = num(cDeadline)
	j.User, j.VC, j.Status = get(cUser), get(cVC), get(cStatus)
	j.Attempt = int32(integer(cAttempt))
	j.Zone, j.Source = get(cZone), get(cSource)
	j.Outcome = get(cOutcome)
	if get(cCheckpointInterval) != "" {
		j.CheckpointInterval = num(cCheckpointInterval)
	}
	if get(cCheckpointCost) != "" {
		j.CheckpointCost = num(cCheckpointCost)
	}
	if get(cCheckpointRestore) != "" {
		j.CheckpointRestore = num(cCheckpointRestore)
	}
	return j, ferr
}

// MaxGPUs bounds a job's GPU count (the largest public traces' jobs use
// a few thousand).
const MaxGPUs = 1 << 20

// check validates the ranges every consumer relies on, with the rules
// the artifact CSV reader applies too (input.Name for ids and names,
// input.Time for times: one validator): a row passes here exactly when
// its fields would pass there.
func (j *Job) check() *input.Error { return j.checkCap(input.FieldCap.Value()) }

// checkCap is check with the field cap read once by the caller.
func (j *Job) checkCap(maxField int64) *input.Error {
	bad := func(field, format string, args ...any) *input.Error {
		return &input.Error{Field: field, Err: fmt.Errorf(format, args...)}
	}
	if j.ID == "" {
		return bad("id", "empty; want the trace's job id")
	}
	for _, f := range []struct{ col, v string }{{"id", j.ID}, {"gpu_type", j.GPUType}, {"model", j.Model}, {"user", j.User},
		{"vc", j.VC}, {"status", j.Status}, {"zone", j.Zone}, {"source", j.Source}} {
		if plainName(f.v, maxField) {
			continue // input.Name passes it: the common case, decided without its look-ups
		}
		if err := input.Name(f.v); err != nil {
			return &input.Error{Field: f.col, Err: err}
		}
	}
	if err := input.Time(j.Submit); err != nil {
		return bad("submit_s", "%v: %v; want seconds ≥ 0", j.Submit, err)
	}
	if j.Deadline != 0 {
		if err := input.Time(j.Deadline); err != nil {
			return bad("deadline_s", "%v: %v; want seconds ≥ 0 (0 = none)", j.Deadline, err)
		}
	}
	if j.Duration != -1 {
		if err := input.Time(j.Duration); err != nil {
			return bad("duration_s", "%v: %v; want seconds ≥ 0, or −1 for unknown", j.Duration, err)
		}
	}
	switch {
	case j.Iterations < 0:
		return bad("iterations", "%d: want ≥ 0 (0 = unknown)", j.Iterations)
	case j.IterationScale < 1:
		return bad("iteration_scale", "%d: want ≥ 1", j.IterationScale)
	case !(j.GPUs >= 0) || j.GPUs > MaxGPUs:
		return bad("gpus", "%v: want a GPU count from 0 to %d", j.GPUs, MaxGPUs)
	case j.Batch < 0:
		return bad("batch", "%d: want ≥ 0 (0 = unknown)", j.Batch)
	case !(j.Deadline >= 0) || math.IsInf(j.Deadline, 0):
		return bad("deadline_s", "%v: want seconds ≥ 0 (0 = none)", j.Deadline)
	case j.Outcome != "" && j.Outcome != OutcomeFailed && j.Outcome != OutcomeKilled:
		return bad("outcome", "%s: want failed, killed or empty (passed or unknown)", input.ShowValue(j.Outcome))
	}
	for _, c := range []struct {
		col string
		v   float64
	}{{"checkpoint_interval_s", j.CheckpointInterval}, {"checkpoint_cost_s", j.CheckpointCost}, {"checkpoint_restore_s", j.CheckpointRestore}} {
		if c.v != 0 {
			if err := input.Time(c.v); err != nil {
				return bad(c.col, "%v: %v; want seconds ≥ 0 (0 or empty = the run's)", c.v, err)
			}
		}
	}
	return nil
}

// plainName reports whether s is printable ASCII within the field cap: a
// name input.Name passes (it refuses only an over-long name, text that is
// not UTF-8, and control, format, bidi or zero-width characters, none of
// which is printable ASCII). false means "ask input.Name".
func plainName(s string, maxField int64) bool {
	if int64(len(s)) > maxField {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}
