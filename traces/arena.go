package traces

import (
	"bufio"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

//go:embed data/*.csv
var builtin embed.FS

// builtinFiles maps a trace name to its embedded file (and its origin).
var builtinFiles = map[string]string{
	"philly":  "data/philly.csv",  // artifact traces/simulate_trace_philly.csv
	"helios":  "data/helios.csv",  // artifact traces/simulate_trace_venus.csv
	"pai":     "data/pai.csv",     // artifact traces/simulate_trace_pai.csv
	"testbed": "data/testbed.csv", // artifact traces/runtime_trace.csv
}

// Sentinel causes a trace-reading error (an *input.Error) unwraps to.
var (
	ErrHeader    = errors.New("traces: bad header")
	ErrColumns   = errors.New("traces: wrong number of columns")
	ErrTime      = errors.New("traces: bad time")
	ErrNumber    = errors.New("traces: bad number")
	ErrModel     = errors.New("traces: unknown model")
	ErrGPU       = errors.New("traces: unknown GPU type")
	ErrEmpty     = errors.New("traces: trace has no jobs")
	ErrDuplicate = errors.New("traces: duplicate job id")
	ErrID        = errors.New("traces: bad job id")
)

// parseError is a bad value in a trace file: an *input.Error (the one
// input-error type) at file, line (0: the whole file) and column ("" for
// none) that unwraps to sentinel, one of the Err* causes, with detail
// saying what was found and what was expected ("t.csv:3: column
// num_iteration: bad number: …").
func parseError(file string, line int, column string, sentinel error, detail string) *input.Error {
	e := &input.Error{File: file, Line: line, Field: column, Err: fmt.Errorf("%w: %s", sentinel, detail)}
	if column != "" {
		e.Kind = "column"
	}
	return e
}

// Trace is a named list of job specs in file order (IDs = positions).
type Trace struct {
	Name string
	Jobs []sim.JobSpec
	// IterationScale is what the engine divides each job's iteration count
	// by (sim.Config.IterationScale): 5 for the artifact's simulation
	// traces, whose generator multiplied iterations by 5
	// (ITER_NUM_SCALE_FACTOR_SIM), 1 for the testbed trace, which never got
	// the ×5. A CSV declares it in a leading comment line
	// "# iteration_scale: N"; one that does not gets
	// DefaultIterationScale, what the artifact's simulator applies to any
	// trace.
	IterationScale int64
	// ScaleSource says where IterationScale came from ("built-in",
	// "declared on line N", "default").
	ScaleSource string
}

// clone copies t and its job list (a JobSpec holds no pointers).
func (t *Trace) clone() *Trace {
	c := *t
	c.Jobs = slices.Clone(t.Jobs)
	return &c
}

// DefaultIterationScale is the scale of an artifact-format CSV that
// declares none: the artifact's simulator divides every trace by 5.
const DefaultIterationScale = 5

// builtinScales are the built-in traces' iteration scales.
var builtinScales = map[string]int64{"philly": 5, "helios": 5, "pai": 5, "testbed": 1}

// ErrMeta is the cause of a bad metadata comment line.
var ErrMeta = errors.New("traces: bad metadata comment")

// BuiltinNames lists the embedded traces.
func BuiltinNames() []string {
	var out []string
	for k := range builtinFiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// OpenBuiltin opens the embedded file of built-in trace name (a CSV in the
// artifact format, see ReadArenaCSV) and returns its iteration scale; ok
// is false when no built-in trace has that name.
func OpenBuiltin(name string) (r io.ReadCloser, scale int64, ok bool, err error) {
	f, ok := builtinFiles[name]
	if !ok {
		return nil, 0, false, nil
	}
	r, err = builtin.Open(f)
	return r, builtinScales[name], true, err
}

// parsedBuiltin holds each built-in trace (name → *Trace) once parsed: the
// embedded files never change, and one command loads the same trace for
// every policy it runs. Load hands out copies, which callers may edit.
var parsedBuiltin sync.Map

// sizeSample is how many rows Load reads before it sizes the job table
// from the file's size (rowsExpected).
const sizeSample = 1 << 16

// readAhead is how far the readers between the file and the CSV scanner
// may have read past the rows scanned: two 64 KiB buffers.
const readAhead = 2 * 64 << 10

// rowsExpected estimates the rows of a file of size bytes of which read
// bytes have been read to scan rows rows: the rows' mean length, taken
// from at most readAhead bytes fewer than were read (so rather more rows
// than fewer), spread over the file, plus 1 %; at most maxRows (the rows
// cap). The estimate only sizes a table: rows past it go to chunks.
func rowsExpected(size, read int64, rows int, maxRows int64) int {
	used := max(read-readAhead, 1)
	est := float64(size) / float64(used) * float64(rows) * 1.01
	return int(min(est, float64(maxRows), 1<<31))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Load resolves a --trace argument: a built-in name or a path to a CSV file
// in the artifact format. The caller owns the Trace and its Jobs.
func Load(nameOrPath string) (*Trace, error) {
	if f, ok := builtinFiles[nameOrPath]; ok {
		if t, ok := parsedBuiltin.Load(nameOrPath); ok {
			return t.(*Trace).clone(), nil
		}
		r, err := builtin.Open(f)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		t, err := ReadArenaCSV(nameOrPath, r)
		if err != nil {
			return nil, err
		}
		t.IterationScale, t.ScaleSource = builtinScales[nameOrPath], "built-in"
		parsedBuiltin.Store(nameOrPath, t)
		return t.clone(), nil
	}
	if table.IsParquet(nameOrPath) {
		return loadParquet(nameOrPath)
	}
	f, err := os.Open(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("traces: %s is neither a built-in trace (%s) nor a file", input.Clip(nameOrPath), strings.Join(BuiltinNames(), ", "))
		}
		return nil, fmt.Errorf("traces: %w", err)
	}
	defer f.Close()
	// The file is read once, through the bounded reader, whatever its
	// form: the first line is sniffed under the line cap (/dev/zero fails
	// after 64 KiB, not 3 GB) and replayed, so a FIFO works too.
	cf := &countingReader{r: f}
	br := bufio.NewReaderSize(input.NewReader(nameOrPath, cf, input.Options{Quoted: true}), 64<<10)
	first, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, csvError(nameOrPath, err)
	}
	r := io.MultiReader(strings.NewReader(first), br)
	name := strings.TrimSuffix(filepath.Base(nameOrPath), filepath.Ext(nameOrPath))
	if head, err := csv.NewReader(strings.NewReader(first)).Read(); err == nil && table.LooksLikeTable(head) {
		// Rows stream into specs (no []table.Job of the file); r is
		// bounded already, so the table scanner does not count again.
		b := newTableBuilder(name, nameOrPath, 0)
		maxRows := input.RowsCap.Value()
		var size int64 // the file's size, when it is a regular file
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		if err := table.ScanBoundedCSV(nameOrPath, r, func(j table.Job) error {
			if int64(b.n+1) > maxRows {
				return input.Rows(nameOrPath, 0, b.n+1)
			}
			b.add(&j)
			if b.n == sizeSample && size > 0 {
				b.reserve(rowsExpected(size, cf.n, b.n, maxRows))
			}
			return nil
		}); err != nil {
			return nil, err
		}
		return b.finish()
	}
	t, err := ReadArenaCSV(nameOrPath, r)
	if t != nil {
		t.Name = name
	}
	return t, err
}

var arenaColumns = []string{"job_id", "submission_time", "num_iteration", "model_name", "deadline", "batch_size", "num_gpu", "gpu_type"}

// ReadArenaCSV parses the artifact's trace format. file names the input in
// errors. Columns are found by header name, so their order may vary.
//
// Input is bounded (MaxLineBytes, MaxFieldBytes, MaxTime) and checked for
// what would otherwise pass silently: a header naming a column twice, two
// rows with one job id, ids that are not UTF-8 text.
//
// Leading lines that start with '#' are comments; one of the form
// "# iteration_scale: N" (or "= N") declares the trace's IterationScale.
func ReadArenaCSV(file string, r io.Reader) (*Trace, error) {
	br := bufio.NewReaderSize(input.NewReader(file, r, input.Options{Quoted: true}), 64<<10)
	scale, source, replay, err := readMeta(file, br)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(io.MultiReader(strings.NewReader(replay), br))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, parseError(file, 1, "", ErrEmpty, "empty file; want a header "+strings.Join(arenaColumns, ","))
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	head = slices.Clone(head) // ReuseRecord: the next Read overwrites it
	col := map[string]int{}
	for i, h := range head {
		name := strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[name]; dup && name != "" {
			return nil, parseError(file, 1, colName(name), ErrHeader, fmt.Sprintf("column named twice (fields %d and %d); which one holds the data is ambiguous", col[name]+1, i+1))
		}
		col[name] = i
	}
	for _, want := range arenaColumns {
		if _, ok := col[want]; !ok {
			return nil, parseError(file, 1, want, ErrHeader, fmt.Sprintf("missing column; want a header %s", strings.Join(arenaColumns, ",")))
		}
	}
	t := &Trace{Name: file, IterationScale: scale, ScaleSource: source}
	idLine := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, parseError(file, line, "", ErrColumns, fmt.Sprintf("got %d fields, the header has %d", len(rec), len(head)))
		}
		for i, f := range rec {
			if err := input.Field(file, line, head[i], f); err != nil {
				return nil, parseError(file, line, colName(head[i]), ErrLimit, limitDetail(err))
			}
		}
		if err := input.Rows(file, line, len(t.Jobs)+1); err != nil {
			return nil, parseError(file, line, "", ErrLimit, limitDetail(err))
		}
		spec, err := parseRow(file, line, rec, col)
		if err != nil {
			return nil, err
		}
		if first, dup := idLine[spec.Name]; dup {
			return nil, parseError(file, line, "job_id", ErrDuplicate, fmt.Sprintf("%s is also the id on line %d; job ids must be unique", clip(spec.Name), first))
		}
		idLine[spec.Name] = line
		spec.ID = sim.JobID(len(t.Jobs))
		t.Jobs = append(t.Jobs, spec)
	}
	if len(t.Jobs) == 0 {
		return nil, parseError(file, 0, "", ErrEmpty, "no data rows after the header")
	}
	return t, nil
}

// maxMetaLines bounds the leading comment block searched for metadata.
const maxMetaLines = 1000

// readMeta reads the leading comment lines of a trace file for metadata
// ("# key: value"); only iteration_scale is known, other comments are
// free text. It consumes those lines (at most maxMetaLines) and the first
// other one from br; replay stands for them — each comment line as an
// empty comment, so line numbers hold — and goes before the rest of br.
func readMeta(file string, br *bufio.Reader) (scale int64, source, replay string, err error) {
	scale, source = int64(DefaultIterationScale), "default"
	var rb strings.Builder
	for i := 0; i < maxMetaLines; i++ {
		raw, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return 0, "", "", csvError(file, rerr)
		}
		line := strings.TrimSpace(strings.TrimPrefix(raw, "\ufeff"))
		if !strings.HasPrefix(line, "#") {
			rb.WriteString(raw)
			break
		}
		rb.WriteString("#\n")
		if rerr == io.EOF {
			break
		}
		body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		key, val, ok := strings.Cut(body, ":")
		if k2, v2, ok2 := strings.Cut(body, "="); ok2 && (!ok || len(k2) < len(key)) {
			key, val, ok = k2, v2, true
		}
		if !ok || strings.TrimSpace(key) != "iteration_scale" {
			continue
		}
		n, perr := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if perr != nil || n <= 0 || n > 1_000_000 {
			return 0, "", "", parseError(file, i+1, "iteration_scale", ErrMeta, fmt.Sprintf("%s: want a positive integer (1: iterations as given; 5: the artifact's simulation traces)", input.Clip(strings.TrimSpace(val))))
		}
		if source != "default" {
			return 0, "", "", parseError(file, i+1, "iteration_scale", ErrMeta, "declared twice (first "+source+")")
		}
		scale, source = n, fmt.Sprintf("declared on line %d", i+1)
	}
	return scale, source, rb.String(), nil
}

// limitDetail is a *input.LimitError's message without the file and line
// the input.Error around it already gives.
func limitDetail(err error) string {
	var le *input.LimitError
	if errors.As(err, &le) {
		c := *le
		c.File, c.Line = "", 0
		return c.Error()
	}
	return err.Error()
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	var le *input.LimitError
	if errors.As(err, &le) {
		return parseError(file, le.Line, "", ErrLimit, limitDetail(err)+"; a trace line is a few hundred bytes: not a trace, or corrupt?")
	}
	if errors.As(err, &pe) {
		return parseError(file, pe.Line, "", ErrColumns, pe.Err.Error())
	}
	return fmt.Errorf("traces: %s: %w", file, err)
}

func parseRow(file string, line int, rec []string, col map[string]int) (sim.JobSpec, error) {
	get := func(name string) string { return strings.TrimSpace(rec[col[name]]) }
	fail := func(column string, sentinel error, format string, args ...any) error {
		return parseError(file, line, column, sentinel, fmt.Sprintf(format, args...))
	}
	var s sim.JobSpec
	s.Name = get("job_id")
	if s.Name == "" {
		return s, fail("job_id", ErrNumber, "empty job id")
	}
	if err := input.Name(s.Name); err != nil {
		return s, fail("job_id", ErrID, "%v", err)
	}
	sub, err := parseTime(get("submission_time"))
	if err != nil {
		return s, fail("submission_time", ErrTime, "%s: %v; want seconds ≥ 0", clip(get("submission_time")), err)
	}
	s.Submit = sim.Time(sub)
	iters, err := strconv.ParseInt(get("num_iteration"), 10, 64)
	if err != nil || iters <= 0 {
		return s, fail("num_iteration", ErrNumber, "%s: want a positive integer", clip(get("num_iteration")))
	}
	s.Iterations = iters
	m, err := estimator.ParseModel(get("model_name"))
	if err != nil {
		return s, fail("model_name", ErrModel, "%s: want <family>__<size> such as bert__2.6B, moe__10B, wide_resnet__1B", clip(get("model_name")))
	}
	if d := get("deadline"); d != "" {
		dl, err := parseTime(d)
		if err != nil {
			return s, fail("deadline", ErrTime, "%s: %v; want seconds ≥ 0 (0 or empty: none)", clip(d), err)
		}
		if dl > 0 && dl < sub {
			return s, fail("deadline", ErrTime, "%s is before the submission time %s", clip(d), clip(get("submission_time")))
		}
		s.Deadline = sim.Time(dl)
	}
	batch, err := strconv.Atoi(get("batch_size"))
	if err != nil || batch <= 0 {
		return s, fail("batch_size", ErrNumber, "%s: want a positive integer", clip(get("batch_size")))
	}
	s.Workload = estimator.Workload{Model: m, Batch: batch}
	n, err := strconv.Atoi(get("num_gpu"))
	if err != nil || n <= 0 || n > 16 || n&(n-1) != 0 {
		return s, fail("num_gpu", ErrNumber, "%s: want 1, 2, 4, 8 or 16", clip(get("num_gpu")))
	}
	s.GPUs = n
	g, err := estimator.LookupGPU(get("gpu_type"))
	if err != nil {
		return s, fail("gpu_type", ErrGPU, "%s: want one of %s", clip(get("gpu_type")), strings.Join(estimator.GPUNames(), ", "))
	}
	s.GPU = g.Name
	return s, nil
}

func parseTime(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	return v, input.Time(v)
}

// clip shows a value from a trace in an error message (input.ShowValue: a
// plain token is quoted, anything else only described).
func clip(s string) string { return input.ShowValue(s) }

// colName shows a header name: as is when it is a plain short word, else
// quoted and cut short.
func colName(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if v := sim.ShowValue(s); strings.HasPrefix(v, `"`) && s != "" {
		return s
	}
	return sim.ShowValue(s)
}
