package importers

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/traces/table"
)

// ReadPollux reads the Pollux/Sia reduction of Philly:
// timestamp,duration,num_gpus,gpu_time,cluster. Timestamps are taken as
// US-Pacific local time (the Philly log's zone; the reduction states none),
// rows are kept in file order (the file is not time-sorted) and the id is
// the 0-based data row, as Pollux's workload sampler numbers them.
func ReadPollux(file string, r io.Reader, opt Options, emit Emit) error {
	c, err := newCSV(file, r, []string{"timestamp", "duration", "num_gpus", "gpu_time", "cluster"}, true, ',')
	if err != nil {
		return err
	}
	for row := 0; ; row++ {
		if err := c.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		sub, ok := localTime(c.get("timestamp"), pacific)
		if !ok {
			return c.fail("timestamp", "%q: want \"YYYY-MM-DD HH:MM:SS\"", c.get("timestamp"))
		}
		dur, err := c.float("duration", math.Inf(-1))
		if err != nil {
			return err
		}
		gpus, err := c.int("num_gpus", 1)
		if err != nil {
			return err
		}
		if _, err := c.float("gpu_time", math.Inf(-1)); err != nil {
			return err
		}
		if dur < 0 {
			opt.warn(WarnNegative, file, c.line, "duration", "row %d: %v s", row, dur)
			opt.skip(WarnNegative)
			continue
		}
		j := table.Job{ID: strconv.Itoa(row), Submit: sub, Duration: dur, IterationScale: 1, GPUs: float64(gpus),
			VC: c.get("cluster"), Zone: ZonePhilly, Source: "pollux"}
		if err := opt.emit(emit, file, c.line, j); err != nil {
			return err
		}
	}
}

// ReadHelios reads a Helios cluster_log.csv. Times are Asia/Shanghai local
// time; CPU-only jobs (gpu_num 0) are skipped unless opt.KeepCPU. A job
// with no start_time (cancelled in the queue; Helios writes duration 0
// for it) never ran: the never-ran rule applies.
func ReadHelios(file string, r io.Reader, opt Options, emit Emit) error {
	c, err := newCSV(file, r, []string{"job_id", "user", "vc", "gpu_num", "state", "submit_time", "duration"}, true, ',')
	if err != nil {
		return err
	}
	for {
		if err := c.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		gpus, err := c.int("gpu_num", 0)
		if err != nil {
			return err
		}
		if gpus == 0 && !opt.KeepCPU {
			opt.skip("helios CPU-only job")
			continue
		}
		sub, ok := localTime(c.get("submit_time"), shanghai)
		if !ok {
			return c.fail("submit_time", "%q: want \"YYYY-MM-DD HH:MM:SS\"", c.get("submit_time"))
		}
		if c.get("job_id") == "" {
			return c.fail("job_id", "empty")
		}
		j := table.Job{ID: c.get("job_id"), Submit: sub, IterationScale: 1, GPUs: float64(gpus),
			User: c.get("user"), VC: c.get("vc"), Status: c.get("state"), Outcome: Outcome("helios", c.get("state")), Zone: ZoneChina, Source: "helios"}
		if _, has := c.col["start_time"]; has && absent(c.get("start_time")) {
			if err := opt.neverRan("helios job without start_time", j, emit, file, c.line); err != nil {
				return err
			}
			continue
		}
		dur, err := c.float("duration", math.Inf(-1))
		if err != nil {
			return err
		}
		if dur < 0 {
			opt.warn(WarnNegative, file, c.line, "duration", "job %s: %v s", j.ID, dur)
			opt.skip(WarnNegative)
			continue
		}
		j.Duration = dur
		if err := opt.emit(emit, file, c.line, j); err != nil {
			return err
		}
	}
}

// ReadHeliosCapacity reads cluster_gpu_number.csv (date,<vc…>,total) and
// returns the largest daily total and, per VC, its largest daily count.
func ReadHeliosCapacity(file string, r io.Reader) (total int, perVC map[string]int, err error) {
	c, err := newCSV(file, r, []string{"date", "total"}, true, ',')
	if err != nil {
		return 0, nil, err
	}
	perVC = map[string]int{}
	rows := 0
	for {
		if err := c.next(); err == io.EOF {
			break
		} else if err != nil {
			return 0, nil, err
		}
		rows++
		for name := range c.col {
			if name == "date" {
				continue
			}
			n, err := c.int(name, 0)
			if err != nil {
				return 0, nil, err
			}
			if name == "total" {
				total = max(total, int(n))
			} else {
				perVC[name] = max(perVC[name], int(n))
			}
		}
	}
	if rows == 0 {
		return 0, nil, fieldErr(file, 0, "", "no data rows")
	}
	return total, perVC, nil
}

// ReadAlibaba2023 reads an openb_pod_list_*.csv. Run time is deletion −
// scheduled time (−1 for a pod never scheduled); a deletion at or after
// the trace end (12902960 s) is censored. GPUs are num_gpu, or gpu_milli /
// 1000 for a shared single GPU. CPU-only pods are skipped unless KeepCPU.
// A pod never scheduled (empty scheduled_time: Pending) never ran: the
// never-ran rule applies.
func ReadAlibaba2023(file string, r io.Reader, opt Options, emit Emit) error {
	c, err := newCSV(file, r, []string{"name", "num_gpu", "gpu_milli", "gpu_spec", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}, true, ',')
	if err != nil {
		return err
	}
	const traceEnd = 12902960
	for {
		if err := c.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		n, err := c.int("num_gpu", 0)
		if err != nil {
			return err
		}
		milli, err := c.int("gpu_milli", 0)
		if err != nil {
			return err
		}
		gpus := float64(n)
		if n == 1 && milli > 0 && milli < 1000 {
			gpus = float64(milli) / 1000
		}
		if n == 0 && !opt.KeepCPU {
			opt.skip("alibaba2023 CPU-only pod")
			continue
		}
		created, err := c.float("creation_time", 0)
		if err != nil {
			return err
		}
		deleted, err := c.float("deletion_time", 0)
		if err != nil {
			return err
		}
		j := table.Job{ID: c.get("name"), Submit: created, Duration: -1, IterationScale: 1, GPUs: gpus,
			GPUType: c.get("gpu_spec"), Status: c.get("pod_phase"), Outcome: Outcome("alibaba2023", c.get("pod_phase")), Censored: deleted >= traceEnd, Source: "alibaba2023"}
		if j.ID == "" {
			return c.fail("name", "empty")
		}
		if absent(c.get("scheduled_time")) {
			if err := opt.neverRan("alibaba2023 pod never scheduled", j, emit, file, c.line); err != nil {
				return err
			}
			continue
		}
		sched, err := c.float("scheduled_time", 0)
		if err != nil {
			return err
		}
		if deleted < sched {
			opt.warn(WarnNegative, file, c.line, "deletion_time", "pod %s: deleted at %v, before it was scheduled at %v", j.ID, deleted, sched)
			opt.skip(WarnNegative)
			continue
		}
		j.Duration = deleted - sched
		if err := opt.emit(emit, file, c.line, j); err != nil {
			return err
		}
	}
}

// Gavel's trace forms, by field count.
var gavelForms = map[int][]string{
	7:  {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time", "scale_factor"},
	9:  {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time"},
	10: {"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time"},
}

// ReadGavel reads a Gavel TSV trace (no header; 7, 9 or 10 tab-separated
// fields, the form fixed by the first line). total_steps become iterations
// at scale 1, scale_factor the GPU count and job_type the model (Gavel's
// own names, such as "ResNet-50 (batch size 64)", which a recipe re-labels).
func ReadGavel(file string, r io.Reader, opt Options, emit Emit) error {
	var c *csvRows
	lines := newLineReader(file, r)
	for {
		text, line, err := lines.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(strings.TrimRight(text, "\r"), "\t")
		if c == nil {
			form, ok := gavelForms[len(fields)]
			if !ok {
				return fieldErr(file, line, "", "%d tab-separated fields; want 7, 9 or 10 (Gavel's trace forms)", len(fields))
			}
			c = &csvRows{file: file, col: map[string]int{}, fields: len(form)}
			for i, f := range form {
				c.col[f] = i
			}
		}
		if len(fields) != c.fields {
			return fieldErr(file, line, "", "%d fields; the first line has %d", len(fields), c.fields)
		}
		c.rec, c.line = fields, line
		steps, err := c.int("total_steps", 1)
		if err != nil {
			return err
		}
		arr, err := c.float("arrival_time", 0)
		if err != nil {
			return err
		}
		sf, err := c.int("scale_factor", 1)
		if err != nil {
			return err
		}
		if c.get("job_type") == "" {
			return c.fail("job_type", "empty")
		}
		j := table.Job{ID: strconv.Itoa(line - 1), Submit: arr, Duration: -1, Iterations: steps, IterationScale: 1,
			GPUs: float64(sf), Model: c.get("job_type"), Source: "gavel"}
		if err := opt.emit(emit, file, line, j); err != nil {
			return err
		}
	}
}

// ReadArena reads the Arena artifact's simulate_trace_*.csv; its iteration
// counts are on the artifact's scale 5 and its model names are mapped to
// this project's ("bert__2.6B" → "gpt-2.6b").
func ReadArena(file string, r io.Reader, opt Options, emit Emit) error {
	c, err := newCSV(file, r, []string{"job_id", "submission_time", "num_iteration", "model_name", "deadline", "batch_size", "num_gpu", "gpu_type"}, true, ',')
	if err != nil {
		return err
	}
	for {
		if err := c.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		sub, err := c.float("submission_time", 0)
		if err != nil {
			return err
		}
		iters, err := c.int("num_iteration", 1)
		if err != nil {
			return err
		}
		m, merr := estimator.ParseModel(c.get("model_name"))
		if merr != nil {
			return c.fail("model_name", "%q: want <family>__<size> such as bert__2.6B", c.get("model_name"))
		}
		dl := 0.0
		if c.get("deadline") != "" {
			if dl, err = c.float("deadline", 0); err != nil {
				return err
			}
		}
		batch, err := c.int("batch_size", 1)
		if err != nil {
			return err
		}
		gpus, err := c.int("num_gpu", 1)
		if err != nil {
			return err
		}
		if _, gerr := estimator.LookupGPU(c.get("gpu_type")); gerr != nil {
			return c.fail("gpu_type", "%q: want one of %s", c.get("gpu_type"), strings.Join(estimator.GPUNames(), ", "))
		}
		if c.get("job_id") == "" {
			return c.fail("job_id", "empty")
		}
		j := table.Job{ID: c.get("job_id"), Submit: sub, Duration: -1, Iterations: iters, IterationScale: 5, GPUs: float64(gpus),
			GPUType: strings.ToLower(c.get("gpu_type")), Model: m.Name(), Batch: batch, Deadline: dl, Source: "arena"}
		if err := opt.emit(emit, file, c.line, j); err != nil {
			return err
		}
	}
}

// absent reports whether a time field records nothing: empty, or the
// "None"/"NaN"/"NULL" that pandas and Python writers leave.
func absent(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none", "nan", "null", "nat":
		return true
	}
	return false
}
