package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces"
)

// The range rules of a run's fields, each written once: Validate, the
// flags of 'arena simulate' and a sweep spec's keys all say these words.
const (
	ruleTiming         = "want exact or artifact"
	ruleRounds         = "want a whole number of 300 s rounds, 0 or more (0 = the trace's default)"
	ruleMaxRounds      = "want a positive whole number of rounds"
	ruleDensity        = "want a number from 0.001 to 1000 (1 = the trace as is)"
	ruleFactor         = "want a factor from 0.01 to 100 (1 = none; below 0.01 iteration times vanish and throughput is meaningless)"
	ruleIterationScale = "want a positive integer (1: iterations as the trace gives them; 5: the artifact's simulation traces)"
	ruleOverheadScale  = "want a positive finite number (1 = the profile as is)"
	ruleSeed           = "want an integer"
	ruleBool           = "want true or false"
	ruleNonEmpty       = "want a non-empty value"
	ruleOnEvents       = "needs timing exact (the artifact schedules only at rounds)"
)

// FieldErrors are every problem Validate found, in field order. Each is an
// *input.Error whose Field is the field's path, its key in a run's JSON
// form and a spec ("slowdown"), with an index into a list where the value
// came from one ("policies[2]"), and no File (a run is no file; Key drops
// the index). The CLI renders it as the flag and a spec as file:line: key.
type FieldErrors []*input.Error

func (es FieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap lets errors.As find each field's error.
func (es FieldErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

func checkDensity(d float64) error {
	if !(d >= MinDensity && d <= MaxDensity) {
		return errors.New(ruleDensity)
	}
	return nil
}

// MinFactor is the smallest calibration factor: --slowdown 1e-6 made
// every job finish in its first round.
const MinFactor = 0.01

func checkFactor(f float64) error {
	if !(f >= MinFactor) || f > 100 {
		return errors.New(ruleFactor)
	}
	return nil
}

// Validate checks every field's range and the rules between fields; it
// does not load anything (Resolve finds a trace that does not exist, and
// checks the length against MaxRounds once the trace's default is known).
// A zero field is its default and always valid.
func (r *Run) Validate() error {
	var es FieldErrors
	add := func(key string, v any, rule string) {
		es = append(es, &input.Error{Field: key, Err: fmt.Errorf("%v: %s", v, rule)})
	}
	if strings.TrimSpace(r.Trace) == "" && r.Synth == nil {
		es = append(es, &input.Error{Field: "trace", Err: errors.New(ruleNonEmpty)})
	}
	if strings.TrimSpace(r.Cluster) == "" {
		es = append(es, &input.Error{Field: "cluster", Err: errors.New(ruleNonEmpty)})
	}
	if strings.TrimSpace(r.Policy) == "" {
		es = append(es, &input.Error{Field: "policy", Err: errors.New(ruleNonEmpty)})
	}
	if r.Timing != sim.Exact && r.Timing != sim.Artifact {
		add("timing", r.Timing, ruleTiming)
	}
	if r.Rounds < 0 {
		add("rounds", r.Rounds, ruleRounds)
	}
	if r.Estimator != "" && !slices.Contains(EstimatorNames(), r.Estimator) {
		es = append(es, &input.Error{Field: "estimator", Err: fmt.Errorf("%s: unknown (known: %s)", sim.ShowValue(r.Estimator), strings.Join(EstimatorNames(), ", "))})
	}
	if r.Density != 0 && checkDensity(r.Density) != nil {
		add("density", r.Density, ruleDensity)
	}
	if r.GPUMap != "" {
		if _, err := traces.ParseGPUMap(r.GPUMap); err != nil {
			es = append(es, &input.Error{Field: "gpu_map", Err: err})
		}
	}
	if r.ScheduleOnEvents && r.Timing != sim.Exact {
		es = append(es, &input.Error{Field: "schedule_on_events", Err: errors.New(ruleOnEvents)})
	}
	if r.IterationScale < 0 {
		add("iteration_scale", r.IterationScale, ruleIterationScale)
	}
	if r.OverheadScale != 0 && (!(r.OverheadScale > 0) || math.IsInf(r.OverheadScale, 0)) {
		add("overhead_scale", r.OverheadScale, ruleOverheadScale)
	}
	if r.MaxRounds < 0 {
		add("max_rounds", r.MaxRounds, ruleMaxRounds)
	}
	if r.Slowdown != 0 && checkFactor(r.Slowdown) != nil {
		add("slowdown", r.Slowdown, ruleFactor)
	}
	if r.RelaxedSlowdown != 0 && checkFactor(r.RelaxedSlowdown) != nil {
		add("relaxed_slowdown", r.RelaxedSlowdown, ruleFactor)
	}
	if r.TypeSlowdowns != "" {
		if _, err := ParseTypeSlowdowns(r.TypeSlowdowns); err != nil {
			es = append(es, &input.Error{Field: "type_slowdowns", Err: err})
		}
	}
	for _, c := range []struct {
		key string
		v   float64
	}{{"checkpoint_interval", r.CheckpointInterval}, {"checkpoint_cost", r.CheckpointCost}, {"checkpoint_restore", r.CheckpointRestore}, {"job_mtbf", r.JobMTBF}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			add(c.key, c.v, ruleSpan)
		}
	}
	if r.CheckpointCost > 0 && r.CheckpointInterval == 0 {
		add("checkpoint_cost", r.CheckpointCost, "a checkpoint cost needs a checkpoint interval (checkpoint_interval)")
	}
	if r.JobRetries < 0 || r.JobRetries > 1000 {
		add("job_retries", r.JobRetries, "want 0 to 1000")
	}
	if r.JobRetries > 0 && r.JobMTBF == 0 {
		add("job_retries", r.JobRetries, "retries need job failures (job_mtbf)")
	}
	if r.Timing != sim.Exact && (strings.TrimSpace(r.Faults) != "" || r.CheckpointInterval != 0 || r.CheckpointCost != 0 || r.CheckpointRestore != 0 || r.JobMTBF != 0) {
		es = append(es, &input.Error{Field: "faults", Err: errors.New(ruleFaultsExact)})
	}
	es = append(es, r.checkMeasure()...)
	if len(es) == 0 {
		return nil
	}
	return es
}

// Rules of the fault fields.
const (
	ruleSpan        = "want a duration ≥ 0: seconds (600) or a duration such as 10m, 1.5h, 1d"
	ruleFaultsExact = "cluster events and checkpoints need exact timing (timing: exact); artifact timing reproduces the artifact's fault-free rounds"
)

// ParseSpan reads a span ≥ 0 in seconds: a number of seconds, a Go
// duration ("10m", "1.5h") or days ("1d").
func ParseSpan(s string) (float64, error) {
	d, err := sim.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, ruleErr(strings.TrimSpace(s), ruleSpan)
	}
	return float64(d), nil
}

// ParseHorizon reads a horizon in sim.ParseDuration's grammar ("7d",
// "36h", "90m", "6d22h40m"), from one second to MaxHorizon. A bare number
// is refused: "7" is more likely 7 days meant than 7 seconds.
func ParseHorizon(s string) (time.Duration, error) {
	bad := fmt.Errorf("horizon %s: want a duration such as 7d, 36h or 90m, from 1s to 36500d", sim.ShowValue(s))
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return 0, bad
	}
	d, err := sim.ParseDuration(s)
	if err != nil || float64(d) < 1 || float64(d) > MaxHorizon.Seconds() {
		return 0, bad
	}
	return time.Duration(float64(d) * float64(time.Second)), nil
}

// strictJSON decodes data into v refusing unknown keys and trailing data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the run")
	}
	return nil
}
