package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arena-sim/arena/sim/input"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/traces/table"
)

// Options describe a synthesis. The zero value replays the input as is
// (shifted so the first job arrives at 0).
type Options struct {
	// Seed drives every random choice.
	Seed uint64

	// Filters, applied first. Zero means no bound.
	MinDuration, MaxDuration float64  // seconds; jobs without a duration pass only unbounded filters
	MaxGPUs                  float64  // jobs asking for more are dropped (Sia: 16; Blox: 16)
	MaxGPUTime               float64  // GPU-seconds; Pollux keeps gpu_time < 1000 GPU-h
	Since, Until             float64  // seconds after the first submission; Until 0 = no end
	VCs                      []string // keep only these virtual clusters
	Status                   []string // keep only these final states

	// Window keeps jobs whose submission falls in [WindowStart,
	// WindowStart+WindowHours) hours: of the time of day in the trace's zone
	// ("tod", Pollux: every day pooled, arrival = time since the window's
	// start) or after the first submission ("relative", Sia).
	WindowMode               string
	WindowStart, WindowHours float64
	// Sample draws this many jobs without replacement (0 = all).
	Sample int

	// Rate > 0 replaces arrivals by a Poisson process of Rate jobs/hour
	// (jobs keep their order); Jobs > 0 then emits that many jobs, cycling
	// through the input (Blox) — or, with no input, synthesises them.
	Rate float64
	Jobs int
	// RateScale > 0 compresses inter-arrival times by this factor (2 =
	// twice the arrival rate, same jobs).
	RateScale float64

	// Durations "gavel" redraws run times from Gavel's law; "" keeps them.
	Durations string
	// GPUMix redraws GPU demand: "gavel" (1:0.7,2:0.1,4:0.15,8:0.05) or an
	// explicit "count:weight,…"; "" keeps the trace's.
	GPUMix string

	// Acme ("seren" or "kalos") redraws every job's GPU count, run time,
	// outcome and job type (written to the vc column) from that Acme
	// cluster's published statistics (AcmeClusters, docs/workloads.md);
	// "" keeps the trace's. It replaces Durations and GPUMix.
	Acme string
	// AcmeMaxGPUs (a power of two above the cluster's published maximum,
	// e.g. 8192; 0: the published maximum, 1,024) extends Acme's ladder of
	// GPU counts to it, the geometric law re-solved for the published
	// mean (newAcmeModel; docs/workloads.md).
	AcmeMaxGPUs int

	// Recipe re-labels jobs: "arena", "pollux", "sia" or "" (none).
	Recipe string
	// KeepGPUs (arena recipe): keep the trace's GPU count (rounded up to a
	// power of two, at most 16) instead of drawing it.
	KeepGPUs bool
	// KeepGPUsExact (arena recipe, keep-gpus: exact): keep the trace's GPU
	// count exactly — any count, 12, 24, 128, 1,024 — and draw labels the
	// hybrid estimator (the database's exact entries, the analytic model
	// elsewhere) finds feasible there; run such a trace with --estimator
	// hybrid. Implies KeepGPUs.
	KeepGPUsExact bool
	// KeepDurations (arena recipe): keep the trace's run times. Iterations
	// become duration × scale ÷ the drawn plan's best-locality iteration
	// time, never redrawn, so the engine runs each job for its trace run
	// time on that plan; the scale defaults to 1 instead of 5.
	KeepDurations bool
	// IterRange (arena recipe) bounds iterations = duration / iteration
	// time; outside it they are redrawn uniformly in it. Default
	// [2000, 10000] (the artifact's Helios range).
	IterMin, IterMax float64
	// IterationScale (arena recipe) is the scale written with the trace:
	// the engine runs iterations ÷ scale. Default 5, the artifact's.
	IterationScale int64
	// DeadlineFactor (arena recipe): deadline = submit + factor·duration;
	// unless DeadlineSet, the artifact's 1.5. 0 with DeadlineSet: none.
	DeadlineFactor float64
	DeadlineSet    bool
	// ProfileDB checks the arena recipe's plans (default: the embedded DB).
	ProfileDB *estimator.ProfileDB

	// Start is when the output's first job arrives (seconds; default 0),
	// deadlines shifted with it. The artifact's simulator takes a job
	// submitted at 0 s as submitted at its wall clock (`sub_time if
	// sub_time else time.time()`), so a workload for both simulators wants
	// Start > 0 (docs/known-differences.md).
	Start float64
}

// maxStart bounds Start at half of traces.MaxTime (1e10 s, beyond which
// trace readers refuse a time), leaving the other half for the workload's
// own span; a literal, so this package stays free of the readers.
const maxStart = 5e9

// Stage stream ids: one PCG stream per stage.
const (
	streamSample uint64 = iota + 0x9e3779b97f4a7c15
	streamArrival
	streamDuration
	streamGPUs
	streamLabel
	streamAcme
)

func (o *Options) rng(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(o.Seed, stream)) }

// Deterministic reports whether the options draw nothing at random: the
// result is then the same for every seed.
func (o *Options) Deterministic() bool {
	return o.Sample == 0 && o.Rate == 0 && o.Durations == "" && o.GPUMix == "" && o.Recipe == "" && o.Acme == ""
}

// Run applies the options to jobs (not modified) and returns the workload
// sorted by submission, the first at time o.Start (0 by default).
func Run(jobs []table.Job, o Options) ([]table.Job, error) {
	out, _, err := RunReport(jobs, o)
	return out, err
}

// RunReport is Run, also saying what each stage changed.
func RunReport(jobs []table.Job, o Options) ([]table.Job, *Report, error) {
	rep := &Report{In: len(jobs), Recipe: o.Recipe, opts: o}
	out, err := run(jobs, o, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.Out = len(out)
	return out, rep, nil
}

// run applies synth's stages in order: filters, window, sort, sample,
// arrivals (rate), rate scaling, redraws, recipe, and the shift of submit
// times to start at o.Start.
func run(jobs []table.Job, o Options, rep *Report) ([]table.Job, error) {
	if err := o.check(len(jobs)); err != nil {
		return nil, err
	}
	out := filter(jobs, o, rep)
	var err error
	if o.WindowMode != "" {
		n := len(out)
		if out, err = window(out, o); err != nil {
			return nil, err
		}
		rep.stage("window", n-len(out))
	}
	sortBySubmit(out)
	if o.Sample > 0 {
		if out, err = sampleJobs(out, o, rep); err != nil {
			return nil, err
		}
	}
	if o.Rate > 0 {
		rep.Rearrived = true
		if len(out) > 0 {
			rep.Cycled = max(0, o.Jobs-len(out))
		}
		out = poisson(out, o)
	} else if o.Jobs > 0 {
		return nil, errors.New("synth: jobs needs a rate (jobs/hour) to place their arrivals")
	}
	if len(out) == 0 {
		return nil, errors.New("synth: no job left after the filters and window")
	}
	if o.RateScale > 0 && o.RateScale != 1 {
		t0 := out[0].Submit
		for i := range out {
			out[i].Submit = t0 + (out[i].Submit-t0)/o.RateScale
		}
	}
	if err := redraw(out, o, rep); err != nil {
		return nil, err
	}
	if out, err = applyRecipe(out, o, rep); err != nil {
		return nil, err
	}
	t0 := out[0].Submit
	for i := range out {
		out[i].Submit -= t0
		if out[i].Deadline > 0 {
			out[i].Deadline -= t0
		}
		out[i].Zone = "" // submit_s is now relative
	}
	if o.Start > 0 {
		// After the shift to 0, so every stage (windows, rate scaling,
		// the recipe's deadlines) works as without a start.
		for i := range out {
			out[i].Submit += o.Start
			if out[i].Deadline > 0 {
				out[i].Deadline += o.Start
			}
		}
	}
	return out, nil
}

// sampleJobs draws o.Sample of out (which must hold at least as many)
// without replacement from the sample stream, keeping their order.
// Separate because it is the stage's one random draw, whose stream must
// stay the same for a seed to keep its trace.
func sampleJobs(out []table.Job, o Options, rep *Report) ([]table.Job, error) {
	if o.Sample > len(out) {
		return nil, fmt.Errorf("synth: sample %d jobs: only %d pass the filters and window", o.Sample, len(out))
	}
	r := o.rng(streamSample)
	idx := r.Perm(len(out))[:o.Sample]
	sort.Ints(idx)
	picked := make([]table.Job, len(idx))
	for i, k := range idx {
		picked[i] = out[k]
	}
	rep.stage("sample", len(out)-len(picked))
	return picked, nil
}

// redraw replaces, in place, the jobs' durations (o.Durations "gavel":
// Gavel's distribution) and GPU counts (o.GPUMix), each from its own
// random stream, and counts what changed. Separate because these are the
// stages that discard the trace's own values.
func redraw(out []table.Job, o Options, rep *Report) error {
	if o.Acme != "" {
		return acme(out, o, rep)
	}
	if o.Durations == "gavel" {
		r := o.rng(streamDuration)
		for i := range out {
			out[i].Duration, out[i].Censored = GavelDuration(r), false
		}
		rep.DurationsRedrawn = len(out)
	}
	if o.GPUMix != "" {
		mix, err := ParseGPUMix(o.GPUMix)
		if err != nil {
			return err
		}
		r := o.rng(streamGPUs)
		for i := range out {
			g := float64(mix.draw(r))
			if g != out[i].GPUs {
				rep.GPUsRedrawn++
			}
			out[i].GPUs = g
		}
	}
	return nil
}

// applyRecipe derives each job's work from its run time with o.Recipe
// (arena, or the pollux/sia buckets), first dropping (and counting) the
// jobs it cannot derive work from. Separate because it is where a trace's
// jobs become workloads, apart from the stages that choose and place them.
func applyRecipe(out []table.Job, o Options, rep *Report) ([]table.Job, error) {
	if o.Recipe != "" {
		// A job the recipe cannot derive work from (no run time — a job
		// kept by an importer's --keep-never-ran — and, for arena, no
		// iterations either) is dropped here and counted, not an error.
		n := len(out)
		out = slices.DeleteFunc(out, func(j table.Job) bool {
			return !j.HasDuration() && (o.Recipe != "arena" || j.Iterations <= 0)
		})
		rep.stage("no run time to derive work from (never ran, or unknown)", n-len(out))
		if len(out) == 0 {
			return nil, errors.New("synth: no job with a run time left for the recipe")
		}
	}
	switch o.Recipe {
	case "":
	case "arena":
		if err := arenaRecipe(out, o, rep); err != nil {
			return nil, err
		}
	case "pollux", "sia":
		if err := bucketRecipe(out, o, rep); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (o *Options) check(n int) error {
	bad := func(format string, args ...any) error { return fmt.Errorf("synth: "+format, args...) }
	for _, v := range []struct {
		name string
		v    float64
	}{{"min-duration", o.MinDuration}, {"max-duration", o.MaxDuration}, {"max-gpus", o.MaxGPUs}, {"max-gpu-time", o.MaxGPUTime},
		{"since", o.Since}, {"until", o.Until}, {"window start", o.WindowStart}, {"window hours", o.WindowHours},
		{"rate", o.Rate}, {"rate-scale", o.RateScale}, {"iter-min", o.IterMin}, {"iter-max", o.IterMax}, {"deadline-factor", o.DeadlineFactor},
		{"start", o.Start}} {
		if !(v.v >= 0) || math.IsInf(v.v, 0) {
			return bad("%s %v: want a finite number ≥ 0", v.name, v.v)
		}
	}
	switch {
	case o.Start > maxStart:
		return bad("start %v s: at most %g (a trace time beyond it is refused when read)", o.Start, float64(maxStart))
	case o.MaxDuration > 0 && o.MaxDuration < o.MinDuration:
		return bad("max-duration %v is below min-duration %v", o.MaxDuration, o.MinDuration)
	case o.Until > 0 && o.Until <= o.Since:
		return bad("until %v is not after since %v", o.Until, o.Since)
	case o.Sample < 0 || o.Jobs < 0:
		return bad("sample and jobs want counts ≥ 0")
	case input.Count("jobs", int64(o.Jobs), 0, input.RowsCap) != nil:
		return input.Count("jobs", int64(o.Jobs), 0, input.RowsCap)
	case o.WindowMode != "" && o.WindowMode != "tod" && o.WindowMode != "relative":
		return bad("window mode %q: want tod or relative", o.WindowMode)
	case o.WindowMode == "tod" && (o.WindowStart >= 24 || o.WindowHours <= 0 || o.WindowHours > 24):
		return bad("time-of-day window %v+%vh: want a start in [0, 24) and 0 < hours ≤ 24", o.WindowStart, o.WindowHours)
	case o.WindowMode == "relative" && o.WindowHours <= 0:
		return bad("window of %v hours: want > 0", o.WindowHours)
	case o.Durations != "" && o.Durations != "gavel":
		return bad("durations %q: want gavel (or nothing to keep the trace's)", o.Durations)
	case o.Recipe != "" && o.Recipe != "arena" && o.Recipe != "pollux" && o.Recipe != "sia":
		return bad("recipe %q: want arena, pollux or sia", o.Recipe)
	case o.IterMax > 0 && o.IterMax < o.IterMin:
		return bad("iter range [%v, %v] is empty", o.IterMin, o.IterMax)
	case o.IterationScale < 0:
		return bad("iteration scale %d: want ≥ 1", o.IterationScale)
	case n == 0 && (o.Jobs == 0 || o.Rate == 0):
		return bad("no input trace: give jobs and a rate to synthesise a workload from scratch")
	case o.Acme != "" && (o.Durations != "" || o.GPUMix != ""):
		return bad("acme draws run times and GPU counts itself: drop durations and gpu-mix")
	case o.AcmeMaxGPUs != 0 && o.Acme == "":
		return bad("acme-max-gpus extends the acme recipe's GPU counts: give acme too")
	case o.Acme != "" && AcmeClusters[o.Acme].Name == "":
		return bad("acme %q: want seren or kalos", o.Acme)
	case n == 0 && o.Durations == "" && o.Acme == "":
		return bad("no input trace: give durations (gavel) to synthesise run times")
	case n == 0 && o.GPUMix == "" && o.Acme == "":
		return bad("no input trace: give a GPU mix (gavel or count:weight,…)")
	}
	return nil
}

func filter(jobs []table.Job, o Options, rep *Report) []table.Job {
	t0 := firstSubmit(jobs)
	// A job is counted under the first filter it fails, in this order.
	var drop [len(filterStages)]int
	out := make([]table.Job, 0, len(jobs))
	for i := range jobs {
		if k := dropStage(&jobs[i], t0, &o); k >= 0 {
			drop[k]++
			continue
		}
		out = append(out, jobs[i])
	}
	for k, name := range filterStages {
		rep.stage(name, drop[k])
	}
	return out
}

// filterStages names the filters in the order dropStage applies them.
var filterStages = [...]string{"min-duration", "max-duration", "max-gpus", "max-gpu-time", "since", "until", "vc", "status"}

func firstSubmit(jobs []table.Job) float64 {
	t0 := math.Inf(1)
	for i := range jobs {
		t0 = math.Min(t0, jobs[i].Submit)
	}
	return t0
}

// dropStage is the index in filterStages of the first filter j fails, or
// -1 when it passes them all (t0: the input's first submission).
func dropStage(j *table.Job, t0 float64, o *Options) int {
	switch {
	case o.MinDuration > 0 && (!j.HasDuration() || j.Duration < o.MinDuration):
		return 0
	case o.MaxDuration > 0 && (!j.HasDuration() || j.Duration > o.MaxDuration):
		return 1
	case o.MaxGPUs > 0 && j.GPUs > o.MaxGPUs:
		return 2
	case o.MaxGPUTime > 0 && (!j.HasDuration() || j.Duration*j.GPUs >= o.MaxGPUTime):
		return 3
	case j.Submit-t0 < o.Since:
		return 4
	case o.Until > 0 && j.Submit-t0 >= o.Until:
		return 5
	case len(o.VCs) > 0 && !slices.Contains(o.VCs, j.VC):
		return 6
	case len(o.Status) > 0 && !slices.Contains(o.Status, j.Status):
		return 7
	}
	return -1
}

// Size is how many jobs Run would return for jobs and o, counted without
// building anything: o.Jobs when arrivals are redrawn with a job count,
// else the jobs that pass the filters and the window, or o.Sample of
// them. It reads jobs twice and allocates nothing in proportion to them,
// so a sweep can check what its syntheses would hold before it builds
// one. It refuses as Run does options that fail their checks, a sample
// larger than what passes, jobs without a rate and an empty result; the
// later stages' errors (a recipe's) show only when Run runs.
func Size(jobs []table.Job, o Options) (int, error) {
	if err := o.check(len(jobs)); err != nil {
		return 0, err
	}
	if o.Rate == 0 && o.Jobs > 0 {
		return 0, errors.New("synth: jobs needs a rate (jobs/hour) to place their arrivals")
	}
	t0 := firstSubmit(jobs)
	// The relative window starts at the first job that passes the filters.
	w0 := math.Inf(1)
	for i := range jobs {
		if dropStage(&jobs[i], t0, &o) < 0 {
			w0 = math.Min(w0, jobs[i].Submit)
		}
	}
	n := 0
	for i := range jobs {
		if dropStage(&jobs[i], t0, &o) >= 0 {
			continue
		}
		if o.WindowMode != "" {
			in, _, err := inWindow(jobs[i], w0, o)
			if err != nil {
				return 0, err
			}
			if !in {
				continue
			}
		}
		n++
	}
	if o.Sample > 0 {
		if o.Sample > n {
			return 0, fmt.Errorf("synth: sample %d jobs: only %d pass the filters and window", o.Sample, n)
		}
		n = o.Sample
	}
	switch {
	case o.Rate > 0 && o.Jobs > 0:
		return o.Jobs, nil // what passes is cycled through, or none: blank jobs
	case n == 0:
		return 0, errors.New("synth: no job left after the filters and window")
	}
	return n, nil
}

// window keeps the jobs inside the window and re-times them from its start.
func window(jobs []table.Job, o Options) ([]table.Job, error) {
	out := jobs[:0:0]
	t0 := firstSubmit(jobs)
	for _, j := range jobs {
		in, rel, err := inWindow(j, t0, o)
		if err != nil {
			return nil, err
		}
		if !in {
			continue
		}
		if o.WindowMode != "relative" {
			j.Submit = rel
			if j.Deadline > 0 {
				j.Deadline = 0
			}
		}
		out = append(out, j)
	}
	return out, nil
}

// inWindow reports whether j falls in o's window (t0: the first
// submission, for a relative window) and, for a time-of-day window, its
// submission from the window's start.
func inWindow(j table.Job, t0 float64, o Options) (bool, float64, error) {
	if o.WindowMode == "relative" {
		lo, hi := t0+o.WindowStart*3600, t0+(o.WindowStart+o.WindowHours)*3600
		return j.Submit >= lo && j.Submit < hi, j.Submit, nil
	}
	loc := time.UTC
	if j.Zone != "" {
		l, err := time.LoadLocation(j.Zone)
		if err != nil {
			return false, 0, input.Errorf("synth: job %s: zone %q: %w", j.ID, j.Zone, err)
		}
		loc = l
	}
	sec, frac := math.Modf(j.Submit)
	t := time.Unix(int64(sec), int64(frac*1e9)).In(loc)
	tod := float64(t.Hour()*3600+t.Minute()*60+t.Second()) + frac
	rel := tod - o.WindowStart*3600
	if rel < 0 {
		rel += 86400 // a window that wraps past midnight
	}
	return rel < o.WindowHours*3600, rel, nil
}

func sortBySubmit(jobs []table.Job) {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
}

// poisson re-times jobs as a Poisson process at o.Rate jobs/hour starting
// at 0; with o.Jobs > 0 it emits that many, cycling through jobs (or
// synthesising blank ones when there is no input).
func poisson(jobs []table.Job, o Options) []table.Job {
	n := len(jobs)
	if o.Jobs > 0 {
		n = o.Jobs
	}
	r := o.rng(streamArrival)
	mean := 3600 / o.Rate
	out := make([]table.Job, n)
	t := 0.0
	for i := range out {
		if len(jobs) > 0 {
			out[i] = jobs[i%len(jobs)]
			if o.Jobs > len(jobs) {
				out[i].ID += "~" + strconv.Itoa(i/len(jobs))
			}
		} else {
			out[i] = table.Job{ID: strconv.Itoa(i), Duration: -1, IterationScale: 1, Source: "synth"}
		}
		if i > 0 {
			t += r.ExpFloat64() * mean
		}
		out[i].Submit, out[i].Deadline = t, 0
	}
	return out
}

// GavelDuration draws Gavel's run-time law: 60·10^U(1.5,3) s with
// probability 0.8, else 60·10^U(3,4) s.
func GavelDuration(r *rand.Rand) float64 {
	if r.Float64() < 0.8 {
		return 60 * math.Pow(10, 1.5+1.5*r.Float64())
	}
	return 60 * math.Pow(10, 3+r.Float64())
}

// GPUMix is a discrete distribution of GPU counts.
type GPUMix struct {
	Counts  []int
	Weights []float64 // normalised, cumulative
}

// ParseGPUMix reads "gavel" or "count:weight,…" (weights need not sum to 1).
func ParseGPUMix(s string) (GPUMix, error) {
	if s == "gavel" {
		s = "1:0.7,2:0.1,4:0.15,8:0.05"
	}
	var m GPUMix
	sum := 0.0
	for _, part := range strings.Split(s, ",") {
		c, w, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err1 := strconv.Atoi(c)
		f, err2 := strconv.ParseFloat(w, 64)
		if !ok || err1 != nil || err2 != nil || n <= 0 || !(f >= 0) || math.IsInf(f, 0) {
			return m, input.Errorf("synth: GPU mix %q: entry %q: want count:weight, e.g. 1:0.7,2:0.1,4:0.15,8:0.05", s, part)
		}
		sum += f
		m.Counts = append(m.Counts, n)
		m.Weights = append(m.Weights, sum)
	}
	if !(sum > 0) {
		return m, input.Errorf("synth: GPU mix %q: weights sum to 0", s)
	}
	for i := range m.Weights {
		m.Weights[i] /= sum
	}
	return m, nil
}

func (m GPUMix) draw(r *rand.Rand) int {
	u := r.Float64()
	for i, w := range m.Weights {
		if u < w {
			return m.Counts[i]
		}
	}
	return m.Counts[len(m.Counts)-1]
}
