package importers

import (
	"bufio"
	"io"
	"math"
	"strings"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// lineReader yields lines with their 1-based numbers.
type lineReader struct {
	s    *bufio.Scanner
	line int
}

func newLineReader(file string, r io.Reader) *lineReader {
	s := bufio.NewScanner(input.NewReader(file, r, input.Options{}))
	s.Buffer(make([]byte, 64<<10), 16<<20)
	return &lineReader{s: s}
}

func (l *lineReader) next() (string, int, error) {
	ok := l.s.Scan()
	if ok && l.s.Err() != nil {
		// The reader failed (a cap): the scanner hands out what it had
		// as a last line, which is not one.
		return "", l.line + 1, l.s.Err()
	}
	if !ok {
		if err := l.s.Err(); err != nil {
			return "", l.line, err
		}
		return "", l.line, io.EOF
	}
	l.line++
	return l.s.Text(), l.line, nil
}

var (
	paiJobColumns     = []string{"job_name", "inst_id", "user", "status", "start_time", "end_time"}
	paiTaskColumns    = []string{"job_name", "task_name", "inst_num", "status", "start_time", "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"}
	paiMachineColumns = []string{"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"}
)

// paiTasks is one job's tasks aggregated.
type paiTasks struct {
	gpus       float64
	start, end float64 // earliest start, latest end (NaN when none)
	running    bool    // a task has a start but no end
	gpuType    string
}

// headerless opens a header-less PAI table; a first row equal to the
// column names (a user who prepended the .header file) is skipped.
func headerless(file string, r io.Reader, cols []string) (*csvRows, error) {
	c, err := newCSV(file, r, cols, false, ',')
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *csvRows) isHeader(cols []string) bool {
	return c.line == 1 && strings.EqualFold(c.rec[0], cols[0]) && strings.EqualFold(c.rec[len(c.rec)-1], cols[len(cols)-1])
}

// optFloat parses an optional PAI time ("" → NaN).
func (c *csvRows) optFloat(name string) (float64, error) {
	if c.get(name) == "" {
		return math.NaN(), nil
	}
	return c.float(name, 0)
}

// ReadPAI reads pai_job_table (header-less job_name,inst_id,user,status,
// start_time,end_time) joined with opt.Tasks (pai_task_table). The job's
// start_time is its submission; GPUs are Σ inst_num·plan_gpu/100 over its
// tasks (fractional: plan_gpu is a percentage); run time is the latest task
// end − the earliest task start; a job with a task still running is
// censored. Times are seconds shifted by a secret constant, read in UTC+8.
// Jobs without tasks (no GPU demand known) and CPU-only jobs are skipped; a
// job none of whose tasks started never ran: the never-ran rule applies.
func ReadPAI(file string, r io.Reader, opt Options, emit Emit) error {
	if opt.Tasks == nil {
		return fieldErr(file, 0, "", "the pai format needs the task table too (--tasks pai_task_table.csv)")
	}
	tname := opt.TasksName
	if tname == "" {
		tname = "pai_task_table"
	}
	tasks, err := readPAITasks(tname, opt.Tasks)
	if err != nil {
		return err
	}
	c, err := headerless(file, r, paiJobColumns)
	if err != nil {
		return err
	}
	for {
		if err := c.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if c.isHeader(paiJobColumns) {
			continue
		}
		name := c.get("job_name")
		if name == "" {
			return c.fail("job_name", "empty")
		}
		sub, err := c.float("start_time", 0)
		if err != nil {
			return err
		}
		t := tasks[name]
		if t == nil {
			opt.skip("pai job without tasks")
			continue
		}
		if t.gpus == 0 && !opt.KeepCPU {
			opt.skip("pai CPU-only job")
			continue
		}
		j := table.Job{ID: name, Submit: sub, Duration: -1, IterationScale: 1, GPUs: t.gpus, GPUType: t.gpuType,
			User: c.get("user"), Status: c.get("status"), Outcome: Outcome("pai", c.get("status")), Censored: t.running, Zone: ZoneChina, Source: "pai"}
		if math.IsNaN(t.start) {
			if err := opt.neverRan("pai job none of whose tasks started", j, emit, file, c.line); err != nil {
				return err
			}
			continue
		}
		if !math.IsNaN(t.end) {
			if t.end < t.start {
				opt.warn(WarnNegative, tname, 0, "end_time", "job %s: its tasks end at %v, before the first starts at %v", name, t.end, t.start)
				opt.skip(WarnNegative)
				continue
			}
			j.Duration = t.end - t.start
		}
		if err := opt.emit(emit, file, c.line, j); err != nil {
			return err
		}
	}
}

// readPAITasks reads the task table (tname, for messages) into each job's
// totals: GPUs summed over its tasks (inst_num × plan_gpu / 100), its
// first start and last end, whether a started task is still running, and
// the first GPU type named. Separate because the task table is read whole
// before the job table, which is joined to it by job_name.
func readPAITasks(tname string, r io.Reader) (map[string]*paiTasks, error) {
	tasks := map[string]*paiTasks{}
	tc, err := headerless(tname, r, paiTaskColumns)
	if err != nil {
		return nil, err
	}
	for {
		if err := tc.next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if tc.isHeader(paiTaskColumns) {
			continue
		}
		name := tc.get("job_name")
		if name == "" {
			return nil, tc.fail("job_name", "empty")
		}
		inst, err := tc.float("inst_num", 0)
		if err != nil {
			return nil, err
		}
		g := 0.0
		if tc.get("plan_gpu") != "" {
			if g, err = tc.float("plan_gpu", 0); err != nil {
				return nil, err
			}
		}
		st, err := tc.optFloat("start_time")
		if err != nil {
			return nil, err
		}
		en, err := tc.optFloat("end_time")
		if err != nil {
			return nil, err
		}
		t := tasks[name]
		if t == nil {
			t = &paiTasks{start: math.NaN(), end: math.NaN()}
			if err := input.Rows(tname, tc.line, len(tasks)+1); err != nil {
				return nil, err
			}
			tasks[name] = t
		}
		t.gpus += inst * g / 100
		if !math.IsNaN(st) {
			t.start = nanMin(t.start, st)
			if math.IsNaN(en) {
				t.running = true
			}
		}
		if !math.IsNaN(en) {
			t.end = nanMax(t.end, en)
		}
		if t.gpuType == "" {
			t.gpuType = tc.get("gpu_type")
		}
	}
	return tasks, nil
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return math.Min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return math.Max(a, b)
}

// ReadPAIMachines reads pai_machine_spec (header-less machine,gpu_type,
// cap_cpu,cap_mem,cap_gpu); machines without GPUs are left out.
func ReadPAIMachines(file string, r io.Reader) (*Capacity, error) {
	c, err := headerless(file, r, paiMachineColumns)
	if err != nil {
		return nil, err
	}
	cap := &Capacity{}
	for {
		if err := c.next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if c.isHeader(paiMachineColumns) {
			continue
		}
		n, err := c.int("cap_gpu", 0)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			cap.add(c.get("gpu_type"), int(n))
		}
	}
	if cap.GPUs() == 0 {
		return nil, fieldErr(file, 0, "", "no machine with GPUs")
	}
	return cap, nil
}
