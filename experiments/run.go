package experiments

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces"
)

// Run describes one simulation.
type Run struct {
	Trace   string // built-in name or CSV path
	Cluster string // built-in name or spec path
	// Policy is a policy string: "name", "name(key=value,…)" or
	// "exec:COMMAND" (policy.Registry.Parse).
	Policy string
	Timing sim.Timing
	// Rounds of 300 s; 0 means the trace's default (DefaultRounds).
	Rounds int
	Check  bool
	// Estimator names the performance model (see EstimatorNames); "" is
	// the artifact's profile database.
	Estimator string
	// Density scales every job's iteration count (the artifact's
	// job_submit_density, ARENA.md §8): 0.5 halves the work a trace offers,
	// 2 doubles it. 0 means 1.
	Density float64
	// Seed drives the synthesis of a Synth trace; the built-in traces and
	// the policies are deterministic, so otherwise it only labels the run.
	Seed int64
	// Synth, when set, synthesises the trace for Seed instead of loading
	// Trace (which then only names it).
	Synth *SynthTrace
	// GPUMap rewrites the trace's requested GPU types ("a100=h100,…",
	// traces.ParseGPUMap) so a trace can run on a cluster of other types.
	GPUMap string
	// ProfilingDelay prepends each job's disaggregated-profiling time (the
	// analytic model's estimate, ARENA.md §3) to its first start.
	ProfilingDelay bool
	// ScheduleOnEvents (exact timing) also calls the policy at each arrival
	// and completion, not only every 300-s round.
	ScheduleOnEvents bool
	// IterationScale overrides the trace's iteration scale (the divisor of
	// its iteration counts, traces.Trace.IterationScale); 0 keeps the
	// trace's.
	IterationScale int64
	// Overheads names the overhead profile (built-in name or YAML file;
	// "" = sim.DefaultOverheads, the artifact's constants).
	Overheads string
	// OverheadScale multiplies every overhead of the profile (sensitivity
	// runs); 0 means 1.
	OverheadScale float64
	// MaxRounds caps the run's length (0 = DefaultMaxRounds); a longer
	// run, given or the trace's default, is refused before it starts. It
	// is also UntilDone's safety cap.
	MaxRounds int
	// Slowdown and RelaxedSlowdown calibrate the engine's execution
	// (estimator.Slowdown): every iteration time × Slowdown, or ×
	// RelaxedSlowdown instead on a multi-node placement less compact than
	// best locality. 0 means none. Policies still decide with the uncalibrated
	// estimator.
	Slowdown, RelaxedSlowdown float64
	// UntilDone runs past Rounds until every job has finished or been
	// dropped (sim.Config.UntilDone), at most MaxRounds rounds.
	UntilDone bool
	// OnRound reports progress (optional).
	OnRound func(done, total int)
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

// Outcome is a finished run.
type Outcome struct {
	Run     Run
	Result  *sim.Result
	Summary sim.Summary
	Cluster *sim.Cluster
}

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

// Policies is where runs find their policies: *policy.Registry, or a
// wrapper (tests plant regressions by substituting an entry).
type Policies interface {
	Lookup(name string) (policy.Entry, error)
	Names() []string
}

// Execute runs one simulation.
func Execute(ctx context.Context, reg Policies, r Run) (*Outcome, error) {
	tr, err := loadTrace(r)
	if err != nil {
		return nil, err
	}
	if r.GPUMap != "" {
		m, err := traces.ParseGPUMap(r.GPUMap)
		if err != nil {
			return nil, err
		}
		traces.RemapGPUs(tr, m)
	}
	spec, err := sim.LoadClusterSpec(r.Cluster)
	if err != nil {
		return nil, err
	}
	cluster, err := sim.NewCluster(spec)
	if err != nil {
		return nil, err
	}
	ps, err := policy.ParseWith(reg.Lookup, r.Policy)
	if err != nil {
		return nil, err
	}
	entry := ps.Entry
	src, err := SourceFor(r.Estimator)
	if err != nil {
		return nil, err
	}
	prof, err := sim.LoadOverheads(r.Overheads)
	if err != nil {
		return nil, err
	}
	overhead, err := prof.Resolve(entry.Overhead)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", entry.Name, err)
	}
	if r.OverheadScale != 0 && r.OverheadScale != 1 {
		if !(r.OverheadScale > 0) || math.IsInf(r.OverheadScale, 0) {
			return nil, fmt.Errorf("overhead scale %v: want a positive number", r.OverheadScale)
		}
		overhead = overhead.Scale(r.OverheadScale)
	}
	scale := tr.IterationScale
	if r.IterationScale != 0 {
		if r.IterationScale < 0 {
			return nil, fmt.Errorf("iteration scale %d: want a positive integer", r.IterationScale)
		}
		scale = r.IterationScale
	}
	from := fmt.Sprintf("--rounds %d", r.Rounds)
	if r.Rounds <= 0 {
		r.Rounds = DefaultRounds(tr)
		from = fmt.Sprintf("trace %s: its default length (spanning its submissions)", tr.Name)
	}
	if err := CheckRounds(r.Rounds, r.MaxRounds, from); err != nil {
		return nil, err
	}
	jobs, err := ScaleIterations(tr.Jobs, r.Density)
	if err != nil {
		return nil, err
	}
	var exec estimator.Estimator = src.View(estimator.ViewOptimal)
	for _, f := range []struct {
		name string
		v    float64
	}{{"slowdown", r.Slowdown}, {"relaxed slowdown", r.RelaxedSlowdown}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v > 100 {
			return nil, fmt.Errorf("%s %v: want a factor in (0, 100] (0 = none)", f.name, f.v)
		}
	}
	if r.Slowdown != 0 && r.Slowdown != 1 || r.RelaxedSlowdown != 0 && r.RelaxedSlowdown != 1 {
		exec = estimator.Slowdown{Base: exec, Global: r.Slowdown, Relaxed: r.RelaxedSlowdown, NodeCap: cluster.NodeCapacity}
	}
	cfg := sim.DefaultConfig(cluster, exec)
	cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.Check, cfg.OnRound = r.Timing, r.Rounds, overhead, r.Check, r.OnRound
	cfg.IterationScale = scale
	cfg.ScheduleOnEvents = r.ScheduleOnEvents
	if r.UntilDone {
		cfg.UntilDone, cfg.MaxRounds = true, r.MaxRounds
		if cfg.MaxRounds <= 0 {
			cfg.MaxRounds = DefaultMaxRounds
		}
	}
	if r.ProfilingDelay {
		if cfg.ProfilingDelay, err = ProfilingDelay(); err != nil {
			return nil, err
		}
	}
	// Built last, so that nothing can fail between its start and its
	// Close (an exec policy holds a process, an ILP one a solver).
	p, err := entry.New(policy.Options{Cluster: cluster, Source: src, Timing: r.Timing, Values: ps.Values, Overheads: prof, Overhead: overhead})
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", ps, err)
	}
	res, err := sim.Run(ctx, cfg, p, jobs)
	if c, ok := p.(io.Closer); ok { // a policy holding a process or an external solver
		if cerr := c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("policy %s: %w", ps, cerr)
		}
	}
	if err != nil {
		return nil, err
	}
	// Results record the whole policy string (options included), so two
	// runs of one policy with different options stay apart.
	res.Policy = ps.String()
	if r.Estimator == "" {
		r.Estimator = "profiledb"
	}
	sum := res.Summarize(tr.Name, len(tr.Jobs), r.Estimator)
	sum.Seed = r.Seed
	sum.Density = density(r.Density)
	sum.Version = sim.Version()
	sum.InputHash = InputHash(r, ps.String(), spec, cfg, jobs)
	res.SetUtilization(&sum, cluster)
	res.SetWallclock(&sum)
	return &Outcome{Run: r, Result: res, Summary: sum, Cluster: cluster}, nil
}

// ScaleIterations returns jobs with every iteration count multiplied by
// density (truncated as the artifact's int(); at least 1 iteration). The
// input is not modified; density 0 or 1 returns it unchanged.
func ScaleIterations(jobs []sim.JobSpec, density float64) ([]sim.JobSpec, error) {
	if density == 0 || density == 1 {
		return jobs, nil
	}
	if !(density >= MinDensity && density <= MaxDensity) {
		return nil, fmt.Errorf("density %v: want a number from %g to %g (1 = the trace as is)", density, MinDensity, MaxDensity)
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

// loadTrace loads or synthesises the run's trace.
func loadTrace(r Run) (*traces.Trace, error) {
	if r.Synth != nil {
		return r.Synth.Build(r.Seed)
	}
	return traces.Load(r.Trace)
}
