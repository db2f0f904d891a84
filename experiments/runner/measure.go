package runner

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// The rules of the measurement window and of draining (sim.Window,
// sim.Config.Drain; docs/statistics.md, "The measurement window").
const (
	ruleMeasure = "want a window of jobs: by submission time after the first submission, e.g. 1d..3d or 36h..72h (either end may be left open: 1d..), or by arrival index, e.g. #4000..5000 (jobs 4000 to 4999); all for every job"
	// ruleUntilDone is until_done's error: it is retired for drain.
	ruleUntilDone = "until_done is retired: use drain (drain: true, --drain), which runs past the rounds until every measured job has finished or is stuck, with a cap, and keeps a sweep's cells on the rounds asked (docs/runs.md)"
)

// ParseMeasure reads a measurement window (Run.Measure): "" or "all" for
// every job; "A..B" the jobs submitted from A to before B after the first
// submission (ParseSpan's durations: 1d, 36h, 5400); "#A..B" the jobs at
// arrival positions A to B−1. Either end may be left out (open); the end
// must be after the start.
func ParseMeasure(s string) (sim.Window, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return sim.AllJobs, nil
	}
	bad := ruleErr(s, ruleMeasure)
	w := sim.Window{To: math.Inf(1)}
	body, byIndex := strings.CutPrefix(s, "#")
	w.ByIndex = byIndex
	from, to, ok := strings.Cut(body, "..")
	if !ok || strings.TrimSpace(from) == "" && strings.TrimSpace(to) == "" {
		return w, bad
	}
	end := func(v string, open float64) (float64, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return open, nil
		}
		if byIndex {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return 0, bad
			}
			return float64(n), nil
		}
		f, err := ParseSpan(v)
		if err != nil {
			return 0, bad
		}
		return f, nil
	}
	var err error
	if w.From, err = end(from, 0); err != nil {
		return w, err
	}
	if w.To, err = end(to, math.Inf(1)); err != nil {
		return w, err
	}
	if !(w.To > w.From) {
		return w, ruleErr(s, "the window's end must be after its start; "+ruleMeasure)
	}
	return w, nil
}

// checkMeasure is Validate's rule for measure, drain and the retired
// until_done.
func (r *Run) checkMeasure() FieldErrors {
	var es FieldErrors
	if _, err := ParseMeasure(r.Measure); err != nil {
		es = append(es, &input.Error{Field: "measure", Err: err})
	}
	if r.UntilDone {
		es = append(es, &input.Error{Field: "until_done", Err: errors.New(ruleUntilDone)})
	}
	return es
}
