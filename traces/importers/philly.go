package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// phillyJob is one element of cluster_job_log. Times are strings, null or
// "None" (logging errors); they stay raw until parsed.
type phillyJob struct {
	Status    string          `json:"status"`
	VC        string          `json:"vc"`
	JobID     string          `json:"jobid"`
	User      string          `json:"user"`
	Submitted json.RawMessage `json:"submitted_time"`
	Attempts  []struct {
		Start  json.RawMessage `json:"start_time"`
		End    json.RawMessage `json:"end_time"`
		Detail []struct {
			IP   string   `json:"ip"`
			GPUs []string `json:"gpus"`
		} `json:"detail"`
	} `json:"attempts"`
}

// lineCounter maps byte offsets of a stream to line numbers, keeping only
// the newlines not yet passed (offsets are asked in increasing order).
type lineCounter struct {
	r     io.Reader
	read  int64
	nl    []int64 // offsets of newlines read but not yet passed
	lines int     // newlines passed
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		k := bytes.IndexByte(p[i:n], '\n')
		if k < 0 {
			break
		}
		l.nl = append(l.nl, l.read+int64(i+k))
		i += k + 1
	}
	l.read += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte offset off.
func (l *lineCounter) lineAt(off int64) int {
	k := 0
	for k < len(l.nl) && l.nl[k] < off {
		k++
	}
	l.lines += k
	l.nl = l.nl[k:]
	return l.lines + 1
}

// rawTime decodes a Philly time: a string, or null / "None" (absent).
func rawTime(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || strings.Contains(s, "None") || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// ReadPhilly reads Philly's cluster_job_log. Jobs with no attempts, or no
// attempt with both times, never ran: the never-ran rule applies. Attempts
// with a missing time are dropped, and so are attempts ending before they
// start (with a warning). Times are US-Pacific local time. By default one
// row per job: submit = submitted_time, duration = the sum of its attempts,
// GPUs = the GPUs of its last attempt; with Attempts "attempt" one row per
// attempt, the first arriving at submitted_time and each later one at the
// end of the previous attempt (Blox's rule). A job whose last attempt has
// no end time was still running at the snapshot: its row is censored and
// its run time counts the attempts that ended.
func ReadPhilly(file string, r io.Reader, opt Options, emit Emit) error {
	perAttempt := false
	switch opt.Attempts {
	case "", "job":
	case "attempt":
		perAttempt = true
	default:
		return input.Errorf("philly: attempts %q: want job or attempt", opt.Attempts)
	}
	// A JSON log need not have lines: each job (array element) is capped
	// by the record cap instead, from a Mark before it is decoded.
	br := input.NewReader(file, r, input.Options{Records: true})
	lc := &lineCounter{r: bufio.NewReaderSize(br, 1<<20)}
	dec := json.NewDecoder(lc)
	syntax := func(err error) error { return phillySyntaxErr(file, lc, err) }
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return fieldErr(file, 1, "", "empty file; want a JSON array of jobs")
		}
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fieldErr(file, lc.lineAt(dec.InputOffset()), "", "want a JSON array of jobs, found %v", tok)
	}
	for dec.More() {
		br.Mark()
		start := dec.InputOffset()
		var j phillyJob
		if err := dec.Decode(&j); err != nil {
			return syntax(err)
		}
		line := lc.lineAt(start + 1)
		if j.JobID == "" {
			return fieldErr(file, line, "jobid", "missing; want application_<ts>_<n>")
		}
		subS, ok := rawTime(j.Submitted)
		if !ok {
			return fieldErr(file, line, "submitted_time", "job %s: missing; want \"YYYY-MM-DD HH:MM:SS\"", j.JobID)
		}
		submit, ok := localTime(subS, pacific)
		if !ok {
			return fieldErr(file, line, "submitted_time", "job %s: %q: want \"YYYY-MM-DD HH:MM:SS\" (US-Pacific)", j.JobID, subS)
		}
		base := table.Job{ID: j.JobID, IterationScale: 1, User: j.User, VC: j.VC, Status: j.Status, Outcome: Outcome("philly", j.Status), Zone: ZonePhilly, Source: "philly"}
		rows, total, gpus, censored, err := phillyAttempts(file, line, &j, base, submit, opt)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			// Never ran: GPUs are those the last attempt logged, if any.
			row := base
			row.Submit = submit
			if k := len(j.Attempts) - 1; k >= 0 {
				for _, d := range j.Attempts[k].Detail {
					row.GPUs += float64(len(d.GPUs))
				}
			}
			if err := opt.neverRan("philly job without an attempt that ran (no attempts, or none with a start and an end)", row, emit, file, line); err != nil {
				return err
			}
			continue
		}
		if perAttempt {
			for _, row := range rows {
				if err := opt.emit(emit, file, line, row); err != nil {
					return err
				}
			}
			continue
		}
		row := base
		row.Submit, row.Duration, row.GPUs, row.Censored = submit, total, float64(gpus), censored
		if err := opt.emit(emit, file, line, row); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	return nil
}

// phillySyntaxErr turns a JSON decoding error of a Philly job log into one
// naming the file, the line (from lc) and, for a wrong type, the field.
// Separate because it maps the decoder's offsets to lines, apart from
// reading the jobs.
func phillySyntaxErr(file string, lc *lineCounter, err error) error {
	var le *input.LimitError
	if errors.As(err, &le) {
		return err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fieldErr(file, lc.lineAt(se.Offset), "", "not valid JSON: %v", err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fieldErr(file, lc.lineAt(te.Offset), te.Field, "want %s, found a JSON %s", te.Type, te.Value)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fieldErr(file, lc.lineAt(lc.read), "", "the file ends inside the job array")
	}
	return fmt.Errorf("%s: %w", file, err)
}

// phillyAttempts reads job j's attempts (j on line of file, submitted at
// submit): one row per attempt that ran, each submitted when the previous
// one ended, plus an open-ended censored row for a last attempt still
// running at the snapshot; the seconds run summed over attempts; the GPUs
// of the last attempt that ran; and whether the job was censored. Attempts
// without a start and an end, with no GPUs, or ending before they start (a
// warning) are logging errors and left out. Separate because it is the
// Philly attempt model, which both --attempts modes share.
func phillyAttempts(file string, line int, j *phillyJob, base table.Job, submit float64, opt Options) (rows []table.Job, total float64, gpus int, censored bool, err error) {
	prevEnd := submit
	for k, a := range j.Attempts {
		n := 0
		for _, d := range a.Detail {
			n += len(d.GPUs)
		}
		st, okS := rawTime(a.Start)
		en, okE := rawTime(a.End)
		if k == len(j.Attempts)-1 && okS && !okE && n > 0 {
			// still running at the snapshot: counts, with an open end
			s, ok1 := localTime(st, pacific)
			if !ok1 {
				return nil, 0, 0, false, fieldErr(file, line, "attempts["+strconv.Itoa(k)+"].start_time", "job %s: %q: want \"YYYY-MM-DD HH:MM:SS\"", j.JobID, st)
			}
			censored, gpus = true, n
			row := base
			row.ID = j.JobID + "#" + strconv.Itoa(k+1)
			row.Submit, row.Duration, row.GPUs, row.Attempt, row.Censored = prevEnd, -1, float64(n), int32(k+1), true
			_ = s
			rows = append(rows, row)
			continue
		}
		if !okS || !okE {
			continue
		}
		s, ok1 := localTime(st, pacific)
		e, ok2 := localTime(en, pacific)
		if !ok1 {
			return nil, 0, 0, false, fieldErr(file, line, "attempts["+strconv.Itoa(k)+"].start_time", "job %s: %q: want \"YYYY-MM-DD HH:MM:SS\"", j.JobID, st)
		}
		if !ok2 {
			return nil, 0, 0, false, fieldErr(file, line, "attempts["+strconv.Itoa(k)+"].end_time", "job %s: %q: want \"YYYY-MM-DD HH:MM:SS\"", j.JobID, en)
		}
		if e < s {
			opt.warn(WarnNegative, file, line, "attempts["+strconv.Itoa(k)+"].end_time", "job %s: attempt %d ends at %s, before its start %s", j.JobID, k+1, en, st)
			continue // a logging error: the attempt is dropped
		}
		if n == 0 {
			continue // a logging error: no GPUs
		}
		total += e - s
		gpus = n
		row := base
		row.ID = j.JobID + "#" + strconv.Itoa(k+1)
		row.Submit, row.Duration, row.GPUs, row.Attempt = prevEnd, e-s, float64(n), int32(k+1)
		rows = append(rows, row)
		prevEnd = e
	}
	return rows, total, gpus, censored, nil
}

// ReadPhillyMachines reads cluster_machine_list: "machineId,number of
// GPUs,single GPU mem" rows (e.g. "m31,8, 24GB"); the class of a machine
// is its GPU memory ("24GB"), since the file names no GPU model.
func ReadPhillyMachines(file string, r io.Reader) (*Capacity, error) {
	c, err := newCSV(file, r, []string{"machineId", "number of GPUs", "single GPU mem"}, true, ',')
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
		n, err := c.int("number of GPUs", 0)
		if err != nil {
			return nil, err
		}
		mem := strings.ReplaceAll(c.get("single GPU mem"), " ", "")
		if !strings.HasSuffix(mem, "GB") {
			return nil, c.fail("single GPU mem", "%q: want a size such as 24GB", mem)
		}
		if _, err := strconv.ParseFloat(strings.TrimSuffix(mem, "GB"), 64); err != nil {
			return nil, c.fail("single GPU mem", "%q: want a size such as 24GB", mem)
		}
		if n > 0 {
			cap.add(mem, int(n))
		}
	}
	if cap.GPUs() == 0 {
		return nil, fieldErr(file, 0, "", "no machine with GPUs")
	}
	return cap, nil
}
