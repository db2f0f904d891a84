package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
)

// A Cap is one documented bound on input: its name in messages, its
// default, and the environment variable that raises it. docs/limits.md
// lists every cap; TestLimitsDocumented keeps that page in step.
type Cap struct {
	Name    string // "line", "rows" …: what the message calls it
	Env     string // ARENA_MAX_…
	Default int64
	Unit    string // "bytes", "rows", …
	Why     string // one line for the docs and messages
}

// The caps every parser applies. Each default sits well above what any
// real input needs (a trace line is under 200 bytes; the largest public
// trace, Helios, has 3.4M jobs) and well below what exhausts a machine.
var (
	LineCap = &Cap{Name: "line", Env: "ARENA_MAX_LINE_BYTES", Default: 64 << 10, Unit: "bytes",
		Why: "one physical line of a text input (CSV row, PAI row, spec line)"}
	RecordCap = &Cap{Name: "record", Env: "ARENA_MAX_RECORD_BYTES", Default: 16 << 20, Unit: "bytes",
		Why: "one record of an input that is not line-based (a job of Philly's JSON log)"}
	FieldCap = &Cap{Name: "field", Env: "ARENA_MAX_FIELD_BYTES", Default: 1024, Unit: "bytes",
		Why: "one field: a job id, a model, user or GPU name"}
	InputCap = &Cap{Name: "input", Env: "ARENA_MAX_INPUT_BYTES", Default: 8 << 30, Unit: "bytes",
		Why: "one input file, counted after decompression (a gzip bomb stops here)"}
	RowsCap = &Cap{Name: "rows", Env: "ARENA_MAX_ROWS", Default: 4_000_000, Unit: "rows",
		Why: "rows (jobs) of one trace or table; loading keeps every row in memory"}
	SpecCap = &Cap{Name: "spec file", Env: "ARENA_MAX_SPEC_BYTES", Default: 4 << 20, Unit: "bytes",
		Why: "a file read whole: spec, cluster spec, overhead profile, tenants file, golden file, exec parameters"}
	CountCap = &Cap{Name: "count", Env: "ARENA_MAX_COUNT", Default: 10_000_000, Unit: "items",
		Why: "any count a user or a file names (tile copies, --jobs, jobs:, queues, runs of a spec …)"}
	RunsCap = &Cap{Name: "runs", Env: "ARENA_MAX_RUNS", Default: 100_000, Unit: "runs",
		Why: "runs one sweep spec expands to (the product of its axes), checked before the plan is built"}
	ParquetRowGroupsCap = &Cap{Name: "parquet row groups", Env: "ARENA_MAX_PARQUET_ROW_GROUPS", Default: 100_000, Unit: "row groups",
		Why: "row groups declared in a Parquet footer"}
)

// Caps lists every cap, for docs and tests.
var Caps = []*Cap{LineCap, RecordCap, FieldCap, InputCap, RowsCap, SpecCap, CountCap, RunsCap, ParquetRowGroupsCap}

var capCache sync.Map // env name → int64

// Value is the cap in force: the environment variable when set to a
// positive integer (k, M, G suffixes allowed: 1G = 2^30), else Default.
// A malformed variable is refused by CheckEnv, which every command calls
// before it reads anything; Value alone falls back to the default.
func (c *Cap) Value() int64 {
	if v, ok := capCache.Load(c.Env); ok {
		return v.(int64)
	}
	v := c.Default
	if s, ok := os.LookupEnv(c.Env); ok {
		if n, err := parseSize(s); err == nil {
			v = n
		}
	}
	capCache.Store(c.Env, v)
	return v
}

// Int is Value as an int (clamped).
func (c *Cap) Int() int {
	v := c.Value()
	if v > math.MaxInt32 && strconv.IntSize == 32 {
		return math.MaxInt32
	}
	return int(v)
}

// Set overrides the cap for this process (tests); 0 restores the default.
func (c *Cap) Set(v int64) {
	if v <= 0 {
		capCache.Delete(c.Env)
		return
	}
	capCache.Store(c.Env, v)
}

// CheckEnv reports a malformed ARENA_MAX_* variable.
func CheckEnv() error {
	for _, c := range Caps {
		if s, ok := os.LookupEnv(c.Env); ok {
			if _, err := parseSize(s); err != nil {
				return fmt.Errorf("%s=%s: %v; want a positive integer (k, M, G suffixes allowed)", c.Env, Clip(s), err)
			}
		}
	}
	return nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mul := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mul, s = 1<<10, s[:n-1]
		case 'm', 'M':
			mul, s = 1<<20, s[:n-1]
		case 'g', 'G':
			mul, s = 1<<30, s[:n-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("not a positive integer")
	}
	if n > math.MaxInt64/mul {
		return 0, errors.New("too large")
	}
	return n * mul, nil
}

// PlusOne is n+1, saturating at MaxInt64: the "read one byte past the
// cap to see it passed" of every bounded read, which at the largest cap
// the parser accepts would otherwise wrap negative and read nothing.
func PlusOne(n int64) int64 {
	if n == math.MaxInt64 {
		return n
	}
	return n + 1
}

// ErrLimit is what every *LimitError unwraps to.
var ErrLimit = errors.New("input: over a limit")

// LimitError is an input past one of the caps: which cap, where, and how
// to raise it.
type LimitError struct {
	Cap   *Cap
	Max   int64
	File  string
	Line  int    // 0 when not known
	What  string // "line 3", "field id" …; "" for the cap's own name
	Found string // what was seen, when known ("a value of 10485760")
}

func (e *LimitError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	what := e.What
	if what == "" {
		what = e.Cap.Name
	}
	fmt.Fprintf(&b, "%s over the %s cap of %d %s", what, e.Cap.Name, e.Max, e.Cap.Unit)
	if e.Found != "" {
		b.WriteString(" (" + e.Found + ")")
	}
	fmt.Fprintf(&b, "; raise it with %s=N if the input is genuine (docs/limits.md)", e.Cap.Env)
	return b.String()
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// As lets errors.As find a limit error as an *Error too, Error being the
// one input-error type: its file and line, wrapping the limit error
// without them (so it reads as the limit error does).
func (e *LimitError) As(target any) bool {
	t, ok := target.(**Error)
	if !ok {
		return false
	}
	c := *e
	c.File, c.Line = "", 0
	*t = &Error{File: e.File, Line: e.Line, Err: &c}
	return true
}

// Options say which caps a Reader applies.
type Options struct {
	// Records: the input is not line-based (JSON): lines are counted but
	// not capped; Mark starts a record, capped by RecordCap.
	Records bool
	// Quoted: a newline inside double quotes does not end the line (CSV
	// quoted fields), so a record spread over many physical lines is
	// capped as one.
	Quoted bool
	// BytesOnly: only the input cap applies (a compressed stream, or one
	// whose parser bounds its own lines).
	BytesOnly bool
}

// Reader is the one bounded reader every parser reads through: it counts
// bytes (InputCap), lines (LineCap, or RecordCap between Marks) and fails
// the moment a cap is passed, before the reader above it (encoding/csv,
// bufio.Scanner, a JSON decoder) can buffer more. It never hands out more
// bytes than are left of the line allowance plus one, so no caller ever
// holds more than a line cap of one line. Its errors are *LimitError.
type Reader struct {
	r         io.Reader
	file      string
	opt       Options
	maxLine   int64
	maxRecord int64
	maxBytes  int64
	line      int
	start     int   // the line the current record started on
	cur       int64 // bytes of the current line (record)
	rec       int64 // bytes since Mark
	n         int64 // bytes so far
	inQuote   bool
	err       error
	noFast    bool // tests: count every byte in the byte loop
}

// NewReader bounds r, which file names in errors.
func NewReader(file string, r io.Reader, opt Options) *Reader {
	return &Reader{r: r, file: file, opt: opt, maxLine: LineCap.Value(), maxRecord: RecordCap.Value(),
		maxBytes: InputCap.Value(), line: 1, start: 1}
}

// Open opens path and bounds it. A .gz path is NOT decompressed here;
// Decompress does that.
func Open(path string, opt Options) (*Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return NewReader(path, f, opt), f, nil
}

// Line is the 1-based number of the line being read.
func (r *Reader) Line() int { return r.line }

// Mark starts a record (Options.Records): RecordCap applies from here.
func (r *Reader) Mark() { r.rec = 0 }

// File names the input.
func (r *Reader) File() string { return r.file }

func (r *Reader) fail(c *Cap, max int64, what string) error {
	r.err = &LimitError{Cap: c, Max: max, File: r.file, Line: r.line, What: what}
	return r.err
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Hand out at most what is left of the allowances plus one byte, so
	// the check below sees a cap passed before the caller buffers more.
	left := r.maxBytes - r.n
	switch {
	case r.opt.BytesOnly:
	case r.opt.Records:
		left = min(left, r.maxRecord-r.rec)
	default:
		left = min(left, r.maxLine-r.cur)
	}
	if left < 0 {
		left = 0
	}
	if left < int64(len(p))-1 { // left+1 would overflow at a cap of MaxInt64
		p = p[:left+1]
	}
	n, err := r.r.Read(p)
	if !r.noFast && r.fast(p[:n]) {
		return n, err
	}
	for i, b := range p[:n] {
		r.n++
		r.rec++
		if r.n > r.maxBytes {
			return i, r.fail(InputCap, r.maxBytes, "input")
		}
		if r.opt.BytesOnly {
			continue
		}
		if r.opt.Records && r.rec > r.maxRecord {
			return i, r.fail(RecordCap, r.maxRecord, "record")
		}
		switch {
		case b == '"' && r.opt.Quoted:
			r.inQuote = !r.inQuote
		case b == '\n':
			r.line++
			if !r.inQuote {
				r.cur, r.start = 0, r.line
				continue
			}
		}
		r.cur++
		if !r.opt.Records && r.cur > r.maxLine {
			what := "line " + strconv.Itoa(r.line)
			if r.start != r.line {
				// A quoted record spread over lines: name where it began.
				what = "the quoted record starting on line " + strconv.Itoa(r.start)
				r.line = r.start
			}
			return i, r.fail(LineCap, r.maxLine, what)
		}
	}
	return n, err
}

// ReadAll reads a whole small file (a spec, a cluster spec, a profile, a
// golden file) under SpecCap; what names the kind of file in the error.
func ReadAll(file string, r io.Reader) ([]byte, error) {
	max := SpecCap.Value()
	data, err := io.ReadAll(io.LimitReader(r, PlusOne(max)))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &LimitError{Cap: SpecCap, Max: max, File: file, What: "file"}
	}
	return data, nil
}

// ReadFile is ReadAll of the file at path.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(path, f)
}

// Field checks one field's length against FieldCap.
func Field(file string, line int, column, value string) error {
	if max := FieldCap.Value(); int64(len(value)) > max {
		return &LimitError{Cap: FieldCap, Max: max, File: file, Line: line, What: "field " + KeyName(column),
			Found: strconv.Itoa(len(value)) + " bytes"}
	}
	return nil
}

// Rows checks a row count against RowsCap: call it before keeping row n
// (1-based).
func Rows(file string, line, n int) error {
	if max := RowsCap.Value(); int64(n) > max {
		return &LimitError{Cap: RowsCap, Max: max, File: file, Line: line, What: "row " + strconv.Itoa(n)}
	}
	return nil
}

// fast counts p as the byte loop in Read does, a line at a time, when no
// cap is passed in it and no quote is open or opened in it (the common
// quote-free CSV); it reports whether it did. When it did not, it changed
// nothing and the byte loop counts p (and names the cap passed).
func (r *Reader) fast(p []byte) bool {
	n := int64(len(p))
	if r.n+n > r.maxBytes {
		return false
	}
	if r.opt.BytesOnly {
		r.n += n
		r.rec += n
		return true
	}
	if r.opt.Records && r.rec+n > r.maxRecord {
		return false
	}
	if r.inQuote || r.opt.Quoted && bytes.IndexByte(p, '"') >= 0 {
		return false
	}
	line, cur, start := r.line, r.cur, r.start
	for rest := p; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			cur += int64(len(rest))
			break
		}
		cur += int64(i)
		if !r.opt.Records && cur > r.maxLine {
			return false
		}
		line++
		cur, start = 0, line
		rest = rest[i+1:]
	}
	if !r.opt.Records && cur > r.maxLine {
		return false
	}
	r.n += n
	r.rec += n
	r.line, r.cur, r.start = line, cur, start
	return true
}
