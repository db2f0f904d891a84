package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces"
)

// Run describes one simulation: the only description of a run. The flags
// of 'arena simulate' bind to its fields (Fields), a sweep spec's keys are
// lists over them, and run.json and golden files carry it whole in its
// JSON form (the json tags; Timing as "exact"/"artifact"). A zero field
// means the default its comment gives, so a description written before a
// field existed reads as the run it described.
type Run struct {
	Trace   string `json:"trace" yaml:"trace"`     // built-in name or CSV path
	Cluster string `json:"cluster" yaml:"cluster"` // built-in name or spec path
	// Policy is a policy string: "name", "name(key=value,…)" or
	// "exec:COMMAND" (registry.Registry.Parse).
	Policy string     `json:"policy" yaml:"policy"`
	Timing sim.Timing `json:"timing" yaml:"timing"`
	// Rounds of 300 s; 0 means the trace's default (DefaultRounds).
	Rounds int `json:"rounds,omitempty" yaml:"rounds,omitempty"`
	// Check runs the engine's invariant checker after every event.
	Check bool `json:"check,omitempty" yaml:"check,omitempty"`
	// Estimator names the performance model (see EstimatorNames); "" is
	// the artifact's profile database.
	Estimator string `json:"estimator,omitempty" yaml:"estimator,omitempty"`
	// Density scales every job's iteration count (the artifact's
	// job_submit_density, ARENA.md §8): 0.5 halves the work a trace offers,
	// 2 doubles it. 0 means 1.
	Density float64 `json:"density,omitempty" yaml:"density,omitempty"`
	// Seed drives the synthesis of a Synth trace; the built-in traces and
	// the policies are deterministic, so otherwise it only labels the run.
	Seed int64 `json:"seed,omitempty" yaml:"seed,omitempty"`
	// Synth, when set, synthesises the trace for Seed instead of loading
	// Trace (which then only names it).
	Synth *SynthTrace `json:"synth,omitempty" yaml:"synth,omitempty"`
	// GPUMap rewrites the trace's requested GPU types ("a100=h100,…",
	// traces.ParseGPUMap) so a trace can run on a cluster of other types.
	GPUMap string `json:"gpu_map,omitempty" yaml:"gpu_map,omitempty"`
	// ProfilingDelay prepends each job's disaggregated-profiling time (the
	// analytic model's estimate, ARENA.md §3) to its first start.
	ProfilingDelay bool `json:"profiling_delay,omitempty" yaml:"profiling_delay,omitempty"`
	// ScheduleOnEvents (exact timing) also calls the policy at each arrival
	// and completion, not only every 300-s round.
	ScheduleOnEvents bool `json:"schedule_on_events,omitempty" yaml:"schedule_on_events,omitempty"`
	// IterationScale overrides the trace's iteration scale (the divisor of
	// its iteration counts, traces.Trace.IterationScale); 0 keeps the
	// trace's.
	IterationScale int64 `json:"iteration_scale,omitempty" yaml:"iteration_scale,omitempty"`
	// Overheads names the overhead profile (built-in name or YAML file;
	// "" = overheadprofile.Default, the artifact's constants).
	Overheads string `json:"overheads,omitempty" yaml:"overheads,omitempty"`
	// OverheadScale multiplies every overhead of the profile (sensitivity
	// runs); 0 means 1.
	OverheadScale float64 `json:"overhead_scale,omitempty" yaml:"overhead_scale,omitempty"`
	// MaxRounds caps the run's length (0 = DefaultMaxRounds); a longer
	// run, given or the trace's default, is refused before it starts. It
	// also bounds a draining run's cap.
	MaxRounds int `json:"max_rounds,omitempty" yaml:"max_rounds,omitempty"`
	// Slowdown and RelaxedSlowdown calibrate the engine's execution
	// (estimator.Slowdown): every iteration time × Slowdown, or ×
	// RelaxedSlowdown instead on a multi-node placement less compact than
	// best locality. 0 means 1 (none). Policies still decide with the
	// uncalibrated estimator.
	Slowdown        float64 `json:"slowdown,omitempty" yaml:"slowdown,omitempty"`
	RelaxedSlowdown float64 `json:"relaxed_slowdown,omitempty" yaml:"relaxed_slowdown,omitempty"`
	// TypeSlowdowns calibrates execution per GPU type: "h100=1.2,l20=0.8"
	// multiplies every executed iteration time on an h100 placement by
	// 1.2 and on an l20 one by 0.8, on top of Slowdown or RelaxedSlowdown
	// (ParseTypeSlowdowns; kept in its canonical form, types sorted). ""
	// none. Each type must be one of the cluster's.
	TypeSlowdowns string `json:"type_slowdowns,omitempty" yaml:"type_slowdowns,omitempty"`
	// UntilDone is retired for Drain: Validate refuses it, naming drain.
	// (The field reads the run.json of runs made before.)
	UntilDone bool `json:"until_done,omitempty" yaml:"until_done,omitempty"`
	// Measure is the window of jobs the run measures (ParseMeasure:
	// "1d..3d" by submission time after the first, "#4000..5000" by
	// arrival index; "" every job): only they enter the JCT, queueing and
	// slowdown figures; the others run all the same (sim.Config.Measure).
	Measure string `json:"measure,omitempty" yaml:"measure,omitempty"`
	// Drain runs past Rounds until every measured job has finished or is
	// stuck (sim.Config.Drain), at most sim.DrainCap rounds (and
	// MaxRounds). A sweep drains its exact-timing runs unless its spec
	// says drain: false.
	Drain bool `json:"drain,omitempty" yaml:"drain,omitempty"`
	// Faults names the run's cluster events (node failures, maintenance,
	// spot reclaims): a preset of sim/faults, synthesised for Seed over the
	// run's window, or an events file (CSV or Parquet); "" none. Exact
	// timing only.
	Faults string `json:"faults,omitempty" yaml:"faults,omitempty"`
	// CheckpointInterval, CheckpointCost and CheckpointRestore are every
	// job's checkpoint model, seconds (sim.Checkpoint: progress time
	// between checkpoints, time to write one, time to restore one on a
	// restart after an interruption); 0 none. Exact timing only.
	CheckpointInterval float64 `json:"checkpoint_interval,omitempty" yaml:"checkpoint_interval,omitempty"`
	// JobMTBF is each job's mean running time between failures of its
	// own, seconds (sim.JobFailures: seeded by Seed, the same draws under
	// every policy); 0 none. JobRetries is how many times a failed job is
	// restarted from its last checkpoint before it is given up. Exact
	// timing only.
	JobMTBF           float64 `json:"job_mtbf,omitempty" yaml:"job_mtbf,omitempty"`
	JobRetries        int64   `json:"job_retries,omitempty" yaml:"job_retries,omitempty"`
	CheckpointCost    float64 `json:"checkpoint_cost,omitempty" yaml:"checkpoint_cost,omitempty"`
	CheckpointRestore float64 `json:"checkpoint_restore,omitempty" yaml:"checkpoint_restore,omitempty"`
	// Tenants names the run's tenants for its fairness figures
	// (summary.json's fairness, sim/fairness): a tenants file (YAML,
	// docs/tenants.md), or TenantsVCs for each virtual cluster of the
	// trace a tenant of weight 1. "" = none: no fairness figures. It
	// changes no decision (a quota policy takes its own tenants= option),
	// so it is not part of the input hash.
	Tenants string `json:"tenants,omitempty" yaml:"tenants,omitempty"`
	// Energy asks for the run's energy, money and carbon figures
	// (summary.json's energy, sim/energy): "default" for the built-in
	// model, or an energy file (YAML, docs/energy.md). "" = none. It
	// changes no decision, so it is not part of the input hash.
	Energy string `json:"energy,omitempty" yaml:"energy,omitempty"`
	// OnRound reports progress (optional; not part of the description).
	OnRound func(done, total int) `json:"-" yaml:"-"`
}

// plainRun is Run without its methods, for the JSON form.
type plainRun Run

// MarshalJSON writes the run with its timing as a word, in field order.
func (r Run) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(plainRun(r))
	if err != nil {
		return nil, err
	}
	// The one "timing": key (a string value holding those characters
	// is escaped, \"timing\":, so it cannot match).
	num := []byte(`"timing":` + strconv.Itoa(int(r.Timing)))
	word, _ := json.Marshal(r.Timing.String())
	return bytes.Replace(data, num, append([]byte(`"timing":`), word...), 1), nil
}

// UnmarshalJSON reads the JSON form; unknown keys are an error (a typo
// must not silently describe another run).
func (r *Run) UnmarshalJSON(data []byte) error {
	aux := struct {
		*plainRun
		Timing string `json:"timing"`
	}{plainRun: (*plainRun)(r)}
	if err := strictJSON(data, &aux); err != nil {
		return err
	}
	if aux.Timing == "" {
		return &input.Error{Field: "timing", Err: fmt.Errorf("missing; %s", ruleTiming)}
	}
	t, err := sim.ParseTiming(aux.Timing)
	if err != nil {
		return &input.Error{Field: "timing", Err: fmt.Errorf("%q: %s", aux.Timing, ruleTiming)}
	}
	r.Timing = t
	return nil
}

// DefaultMaxRounds caps a run at 100,000 rounds of 300 s (347 days of
// simulated time, 50 times the paper's longest run) unless the caller
// raises it (--max-rounds). Run time and memory grow with the rounds, so
// without a cap a typo ("--horizon 2562047h") or one outlier timestamp in
// a trace (its default length spans the submissions) runs for hours and
// gigabytes; real traces need far less.
const DefaultMaxRounds = 100_000

// Density bounds: beyond them a job's iteration count rounds to nothing
// or overflows (density 1e300 once wrapped to 1 iteration per job).
const (
	MinDensity = 1e-3
	MaxDensity = 1e3
)

// MaxHorizon bounds --horizon / horizon: 100 years (the rounds cap,
// DefaultMaxRounds, is far lower; this bound only keeps the conversion
// to rounds exact: "1e99d" and "Infd" once ran the default 200 rounds).
const MaxHorizon = 100 * 365 * 24 * time.Hour

// CheckRounds refuses a run length over the cap (0 = DefaultMaxRounds),
// saying where the length came from and how to raise the cap.
func CheckRounds(rounds, maxRounds int, from string) error {
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	if rounds > maxRounds {
		if from != "" {
			from += ": "
		}
		return fmt.Errorf("%s%d rounds of 300 s (%s simulated) is over the cap of %d rounds (%s); a run's time and memory grow with its rounds — give --rounds or --horizon, or raise the cap with --max-rounds",
			from, rounds, sim.Duration(float64(rounds)*300), maxRounds, sim.Duration(float64(maxRounds)*300))
	}
	return nil
}

// HorizonRounds is the number of 300 s rounds covering d (rounded up).
func HorizonRounds(d time.Duration) int { return int(math.Ceil(d.Seconds() / 300)) }

// builtinRounds are the artifact's run lengths for its traces (testbed: the
// physical run's --max_sched_round 72).
var builtinRounds = map[string]int{"philly": 2000, "helios": 500, "pai": 500, "testbed": 72}

// DefaultRounds is the artifact's default run length for a trace: the
// paper's value for its traces, otherwise (first digit of the chunk count
// + 1)·10^(digits − 1) as the artifact computes it. The chunk count spans
// the earliest to the latest submission, whatever the row order (the
// artifact takes the first row as the start; on a sorted trace they agree).
func DefaultRounds(t *traces.Trace) int {
	if r, ok := builtinRounds[t.Name]; ok {
		return r
	}
	t0, last := float64(t.Jobs[0].Submit), float64(t.Jobs[0].Submit)
	for _, j := range t.Jobs {
		t0 = math.Min(t0, float64(j.Submit))
		last = math.Max(last, float64(j.Submit))
	}
	// Clamped before the conversion: an outlier timestamp must give a
	// huge length (which CheckRounds refuses), never a wrapped one.
	chunks := int(math.Min(1e15, math.Max(0, math.Ceil((last-t0)/300)-1))) + 1
	digits := len(strconv.Itoa(chunks))
	first := int(strconv.Itoa(chunks)[0] - '0')
	return (first + 1) * int(math.Pow10(digits-1))
}

// Density is a run's density with 0 read as 1.
func Density(d float64) float64 {
	if d == 0 {
		return 1
	}
	return d
}

// ScaleIterations returns jobs with every iteration count multiplied by
// density (truncated as the artifact's int(); at least 1 iteration). The
// input is not modified; density 0 or 1 returns it unchanged.
func ScaleIterations(jobs []sim.JobSpec, density float64) ([]sim.JobSpec, error) {
	if density == 0 || density == 1 {
		return jobs, nil
	}
	if err := checkDensity(density); err != nil {
		return nil, fmt.Errorf("density %v: %w", density, err)
	}
	out := make([]sim.JobSpec, len(jobs))
	for i, j := range jobs {
		it := float64(j.Iterations) * density
		if it >= 1<<62 {
			return nil, fmt.Errorf("density %v: job %s would have %.3g iterations, more than an integer holds", density, j.Name, it)
		}
		j.Iterations = max(1, int64(it))
		out[i] = j
	}
	return out, nil
}
