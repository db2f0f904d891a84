package importers

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the traces' zones must resolve on any machine

	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// Emit receives imported jobs in file order.
type Emit func(table.Job) error

// Options tune an import.
type Options struct {
	// Attempts (philly): "job" keeps one row per job (duration summed over
	// attempts, submit = submitted_time), "attempt" one row per attempt
	// (each arriving at its own start). Default "job".
	Attempts string
	// Tasks (pai) is the pai_task_table to join with the job table.
	Tasks io.Reader
	// TasksName names Tasks in errors.
	TasksName string
	// KeepCPU keeps jobs that use no GPU (helios, pai, alibaba2023).
	KeepCPU bool
	// KeepNeverRan keeps the jobs the trace records as never started (the
	// never-ran rule, doc.go) with duration_s −1 and their final state;
	// by default they are skipped and counted under a "never ran: …"
	// reason.
	KeepNeverRan bool
	// Skipped, if set, hears why each skipped row was skipped.
	Skipped func(reason string)
	// Warned, if set, hears each absurd value: a negative run time (the
	// row or attempt is skipped) or a job larger than any cluster arena
	// knows (kept: the trace may be right, its layout may be misread).
	Warned func(Warning)
}

// Warning is an absurd value an import met, where it met it.
type Warning struct {
	Reason string // one of the Warn… constants
	File   string
	Line   int
	Field  string
	Detail string
}

func (w Warning) String() string {
	loc := w.File
	if w.Line > 0 {
		loc += ":" + strconv.Itoa(w.Line)
	}
	if w.Field != "" {
		loc += ": " + w.Field
	}
	return loc + ": " + w.Detail
}

// Warning reasons.
const (
	WarnNegative = "negative run time (end before start); the row is skipped"
	WarnTooLarge = "job larger than any cluster arena knows; kept (check the format: a misread layout gives such counts)"
)

// Never-ran reasons, as Skipped hears them ("never ran: " + why).
const NeverRanPrefix = "never ran: "

func (o Options) skip(reason string) {
	if o.Skipped != nil {
		o.Skipped(reason)
	}
}

func (o Options) warn(reason, file string, line int, field, format string, args ...any) {
	if o.Warned != nil {
		o.Warned(Warning{Reason: reason, File: file, Line: line, Field: field, Detail: fmt.Sprintf(format, args...)})
	}
}

// neverRan applies the never-ran rule to j: skipped and counted under
// why, or, with KeepNeverRan, emitted with no run time and its state.
func (o Options) neverRan(why string, j table.Job, emit Emit, file string, line int) error {
	if !o.KeepNeverRan {
		o.skip(NeverRanPrefix + why)
		return nil
	}
	j.Duration, j.Censored = -1, false
	return o.emit(emit, file, line, j)
}

// emit passes j on, warning first when it is larger than any cluster
// arena knows.
func (o Options) emit(emit Emit, file string, line int, j table.Job) error {
	if j.GPUs > float64(MaxKnownGPUs) {
		o.warn(WarnTooLarge, file, line, "gpus", "job %s asks for %s GPUs; the largest cluster arena knows (%s) has %d",
			j.ID, strconv.FormatFloat(j.GPUs, 'f', -1, 64), maxKnownCluster, MaxKnownGPUs)
	}
	return emit(j)
}

// MaxKnownGPUs is the GPU count of the largest built-in cluster.
var MaxKnownGPUs, maxKnownCluster = largestCluster()

func largestCluster() (int, string) {
	best, name := 0, ""
	for _, n := range clusterspec.BuiltinNames() {
		spec, err := clusterspec.Load(n)
		if err != nil {
			continue
		}
		g := 0
		for _, p := range spec.Pools {
			g += p.Nodes * p.GPUsPerNode
		}
		if g > best {
			best, name = g, n
		}
	}
	return best, name
}

// Format is one importer.
type Format struct {
	Name        string
	Description string
	Read        func(file string, r io.Reader, opt Options, emit Emit) error
}

var formats = []Format{
	{"philly", "Microsoft Philly cluster_job_log (JSON array)", ReadPhilly},
	{"pollux", "Pollux/Sia philly.csv (timestamp,duration,num_gpus,gpu_time,cluster)", ReadPollux},
	{"helios", "Helios cluster_log.csv", ReadHelios},
	{"pai", "Alibaba PAI 2020 pai_job_table.csv (+ --tasks pai_task_table.csv)", ReadPAI},
	{"alibaba2023", "Alibaba GPU 2023 openb_pod_list_*.csv", ReadAlibaba2023},
	{"gavel", "Gavel TSV trace (*.trace)", ReadGavel},
	{"arena", "Arena artifact simulate_trace_*.csv", ReadArena},
}

// Formats lists the importers.
func Formats() []Format { return append([]Format(nil), formats...) }

// Lookup finds an importer by name.
func Lookup(name string) (Format, error) {
	var names []string
	for _, f := range formats {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Format{}, input.Errorf("unknown trace format %q (known: %s)", name, strings.Join(names, ", "))
}

// ReadAll imports a whole trace into memory, under the rows cap
// (input.RowsCap). A Format's Read streams: memory stays flat in rows
// when emit does not keep them (trace import).
func ReadAll(f Format, file string, r io.Reader, opt Options) ([]table.Job, error) {
	var jobs []table.Job
	err := f.Read(file, r, opt, func(j table.Job) error {
		if err := input.Rows(file, 0, len(jobs)+1); err != nil {
			return err
		}
		jobs = append(jobs, j)
		return nil
	})
	return jobs, err
}

func fieldErr(file string, line int, field, format string, args ...any) error {
	return &input.Error{File: file, Line: line, Field: field, Err: input.Errorf(format, args...)}
}

// csvRows streams a CSV file. With header, columns are found by name and
// want lists the required ones; without, want gives the positions' names.
type csvRows struct {
	file   string
	cr     *csv.Reader
	col    map[string]int
	rec    []string
	line   int
	fields int
	names  []string // column names, for messages
}

func newCSV(file string, r io.Reader, want []string, header bool, comma rune) (*csvRows, error) {
	// Bounded by the line cap, not by quoted records: LazyQuotes lets a
	// stray quote stand in a field, so quotes do not say where records end.
	cr := csv.NewReader(input.NewReader(file, r, input.Options{}))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.LazyQuotes = true
	c := &csvRows{file: file, cr: cr, col: map[string]int{}}
	if !header {
		for i, w := range want {
			c.col[w] = i
		}
		c.fields, c.names = len(want), want
		return c, nil
	}
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fieldErr(file, 1, "", "empty file; want a header %s", strings.Join(want, ","))
	}
	if err != nil {
		return nil, c.wrap(err)
	}
	for i, h := range head {
		name := strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		c.col[name] = i
		c.names = append(c.names, name) // a copy: ReuseRecord reuses head
	}
	for _, w := range want {
		if _, ok := c.col[w]; !ok {
			return nil, fieldErr(file, 1, w, "missing column; want a header with %s", strings.Join(want, ","))
		}
	}
	c.fields = len(head)
	return c, nil
}

func (c *csvRows) wrap(err error) error {
	var le *input.LimitError
	if errors.As(err, &le) {
		return err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fieldErr(c.file, pe.Line, "", "%v", pe.Err)
	}
	return fmt.Errorf("%s: %w", c.file, err)
}

// next reads the next non-blank row; io.EOF at the end.
func (c *csvRows) next() error {
	for {
		rec, err := c.cr.Read()
		if err != nil {
			if err == io.EOF {
				return err
			}
			return c.wrap(err)
		}
		c.line, _ = c.cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != c.fields {
			return fieldErr(c.file, c.line, "", "%d fields; want %d", len(rec), c.fields)
		}
		for i, f := range rec {
			name := "field " + strconv.Itoa(i+1)
			if i < len(c.names) {
				name = c.names[i]
			}
			if err := input.Field(c.file, c.line, name, f); err != nil {
				return err
			}
		}
		c.rec = rec
		return nil
	}
}

func (c *csvRows) get(name string) string { return strings.TrimSpace(c.rec[c.col[name]]) }

func (c *csvRows) float(name string, min float64) (float64, error) {
	s := c.get(name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < min {
		return 0, fieldErr(c.file, c.line, name, "%q: want a number ≥ %g", s, min)
	}
	return v, nil
}

func (c *csvRows) int(name string, min int64) (int64, error) {
	s := c.get(name)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < min {
		return 0, fieldErr(c.file, c.line, name, "%q: want an integer ≥ %d", s, min)
	}
	return v, nil
}

func (c *csvRows) fail(name, format string, args ...any) error {
	return fieldErr(c.file, c.line, name, format, args...)
}

// Zones of the traces' local clocks.
const (
	ZonePhilly = "America/Los_Angeles"
	ZoneChina  = "Asia/Shanghai"
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // time/tzdata is linked in
	}
	return loc
}

var (
	pacific  = mustZone(ZonePhilly)
	shanghai = mustZone(ZoneChina)
)

const localLayout = "2006-01-02 15:04:05"

// localTime parses "YYYY-MM-DD HH:MM:SS" in loc into Unix seconds.
func localTime(s string, loc *time.Location) (float64, bool) {
	t, err := time.ParseInLocation(localLayout, s, loc)
	if err != nil || t.Unix() < 0 {
		return 0, false
	}
	return float64(t.Unix()), true
}

// Capacity is a cluster's GPU inventory read from a machine file: per GPU
// class (as the trace names it) the number of machines by GPUs per machine.
type Capacity struct {
	// Machines[class][gpusPerMachine] = machine count.
	Machines map[string]map[int]int
}

func (c *Capacity) add(class string, gpus int) {
	if c.Machines == nil {
		c.Machines = map[string]map[int]int{}
	}
	if c.Machines[class] == nil {
		c.Machines[class] = map[int]int{}
	}
	c.Machines[class][gpus]++
}

// Classes lists the GPU classes in name order.
func (c *Capacity) Classes() []string {
	var out []string
	for k := range c.Machines {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GPUs is the total GPU count.
func (c *Capacity) GPUs() int {
	n := 0
	for _, m := range c.Machines {
		for g, k := range m {
			n += g * k
		}
	}
	return n
}

// String renders "class: N machines × G GPUs, …".
func (c *Capacity) String() string {
	var parts []string
	for _, cl := range c.Classes() {
		var gs []int
		for g := range c.Machines[cl] {
			gs = append(gs, g)
		}
		sort.Ints(gs)
		for _, g := range gs {
			parts = append(parts, fmt.Sprintf("%s: %d machines × %d GPUs", cl, c.Machines[cl][g], g))
		}
	}
	return strings.Join(parts, "; ")
}
