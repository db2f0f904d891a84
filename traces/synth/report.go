package synth

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/arena-sim/arena/traces/table"
)

// Report says what each stage of a synthesis changed, so that no stage
// rewrites a trace silently: how many jobs each filter, the window, the
// sample and the recipe's work check dropped; whether arrivals were
// replaced; how many run times and GPU counts a stage redrew; and, for a
// recipe, how far the run times the engine will see are from the trace's.
type Report struct {
	In, Out int
	// Dropped lists, in stage order, the stages that dropped jobs.
	Dropped []Drop
	// Rearrived: arrivals replaced by a Poisson process; Cycled jobs were
	// emitted beyond the input by cycling through it.
	Rearrived bool
	Cycled    int
	// DurationsRedrawn by the durations stage (gavel); GPUsRedrawn: GPU
	// counts the gpu-mix stage changed.
	DurationsRedrawn, GPUsRedrawn int

	// Recipe is the recipe applied ("" none); the rest describe it.
	Recipe string
	// RecipeJobs the recipe re-labelled; WithDuration of them had a run
	// time; WorkRedrawn of those got iterations drawn uniformly in the
	// iteration range instead of derived from the run time (arena).
	RecipeJobs, WithDuration, WorkRedrawn int
	// GPUsChanged: jobs whose GPU count the recipe changed; OneGPUBefore,
	// OneGPUAfter: jobs asking for exactly one GPU before and after.
	GPUsChanged, OneGPUBefore, OneGPUAfter int
	// RunTimes compares, over the jobs with a run time, the run time the
	// engine will see (iterations ÷ scale × the best-locality iteration
	// time; arena recipe only) with the trace's.
	RunTimes *RunTimeFit

	opts Options
}

// Drop is one stage's dropped jobs.
type Drop struct {
	Stage string
	Jobs  int
}

// RunTimeFit compares two run-time columns.
type RunTimeFit struct {
	N int
	// Pearson is the correlation of the raw values, Spearman of their
	// ranks (robust to the heavy tail); MedianRatio is the median of
	// engine ÷ trace over jobs with a positive trace run time.
	Pearson, Spearman, MedianRatio float64
}

func (r *Report) stage(name string, n int) {
	if n > 0 {
		r.Dropped = append(r.Dropped, Drop{name, n})
	}
}

// recipeCounts holds what a recipe needs to report, taken before it
// re-labels jobs in place.
type recipeCounts struct {
	gpus, dur []float64
	iterTime  []float64 // the drawn plan's iteration time (arena), 0 if none
	redrawn   int
}

func newRecipeCounts(jobs []table.Job) *recipeCounts {
	rc := &recipeCounts{gpus: make([]float64, len(jobs)), dur: make([]float64, len(jobs)), iterTime: make([]float64, len(jobs))}
	for i, j := range jobs {
		rc.gpus[i], rc.dur[i] = j.GPUs, j.Duration
	}
	return rc
}

func (rc *recipeCounts) finish(rep *Report, jobs []table.Job) {
	rep.RecipeJobs, rep.WorkRedrawn = len(jobs), rc.redrawn
	var trace, engine []float64
	for i, j := range jobs {
		if rc.gpus[i] != j.GPUs {
			rep.GPUsChanged++
		}
		if rc.gpus[i] == 1 {
			rep.OneGPUBefore++
		}
		if j.GPUs == 1 {
			rep.OneGPUAfter++
		}
		if rc.dur[i] >= 0 {
			rep.WithDuration++
			if rc.iterTime[i] > 0 {
				trace = append(trace, rc.dur[i])
				engine = append(engine, float64(j.Iterations)/float64(max(j.IterationScale, 1))*rc.iterTime[i])
			}
		}
	}
	if len(trace) > 1 {
		f := &RunTimeFit{N: len(trace), Pearson: pearson(trace, engine), Spearman: pearson(ranks(trace), ranks(engine))}
		var ratio []float64
		for i := range trace {
			if trace[i] > 0 {
				ratio = append(ratio, engine[i]/trace[i])
			}
		}
		if len(ratio) > 0 {
			sort.Float64s(ratio)
			f.MedianRatio = ratio[len(ratio)/2]
		}
		rep.RunTimes = f
	}
}

// pearson is the sample correlation; NaN when either side is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks gives 1-based ranks, ties sharing their mean rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		k := i
		for k+1 < len(idx) && x[idx[k+1]] == x[idx[i]] {
			k++
		}
		mean := float64(i+k)/2 + 1
		for m := i; m <= k; m++ {
			r[idx[m]] = mean
		}
		i = k + 1
	}
	return r
}

func pct(k, n int) string {
	if n == 0 {
		return "0 %"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(k)/float64(n))
}

// Lines renders the report, one stage a line, for `arena trace synth`.
func (r *Report) Lines() []string {
	o := r.opts
	out := []string{fmt.Sprintf("in: %d jobs", r.In)}
	for _, d := range r.Dropped {
		out = append(out, fmt.Sprintf("%s: dropped %d (%s of the input)", d.Stage, d.Jobs, pct(d.Jobs, r.In)))
	}
	if r.Rearrived {
		s := fmt.Sprintf("rate: arrivals replaced by a Poisson process at %g jobs/h", o.Rate)
		if r.Cycled > 0 {
			s += fmt.Sprintf("; %d jobs repeat the input's (cycled)", r.Cycled)
		}
		out = append(out, s)
	}
	if o.RateScale > 0 && o.RateScale != 1 {
		out = append(out, fmt.Sprintf("rate-scale: inter-arrival times divided by %g", o.RateScale))
	}
	if o.Acme != "" {
		out = append(out, fmt.Sprintf("acme: GPU counts, run times, outcomes and job types (vc) of all %d jobs drawn from %s's published statistics", r.DurationsRedrawn, AcmeClusters[o.Acme].Name))
	} else if r.DurationsRedrawn > 0 {
		out = append(out, fmt.Sprintf("durations: %d run times redrawn from Gavel's law (all)", r.DurationsRedrawn))
	}
	if o.GPUMix != "" {
		out = append(out, fmt.Sprintf("gpu-mix: %d GPU counts changed (%s)", r.GPUsRedrawn, pct(r.GPUsRedrawn, r.Out)))
	}
	if r.Recipe != "" {
		out = append(out, r.recipeLines()...)
	}
	return append(out, fmt.Sprintf("out: %d jobs", r.Out))
}

func (r *Report) recipeLines() []string {
	o := r.opts
	n := r.RecipeJobs
	var out []string
	switch r.Recipe {
	case "arena":
		lo, hi := o.IterMin, o.IterMax
		if lo == 0 && hi == 0 {
			lo, hi = 2000, 10000
		}
		s := fmt.Sprintf("recipe arena: models, batch, GPU type drawn for all %d jobs; ", n)
		switch {
		case o.KeepDurations:
			s += fmt.Sprintf("run times kept (--keep-durations) for the %d with one", r.WithDuration)
		case r.WithDuration > 0:
			s += fmt.Sprintf("run times REPLACED by a uniform draw for %d of the %d jobs with one (%s): duration ÷ iteration time fell outside the iteration range [%g, %g]",
				r.WorkRedrawn, r.WithDuration, pct(r.WorkRedrawn, r.WithDuration), lo, hi)
		default:
			s += "work kept from the trace's iterations"
		}
		out = append(out, s)
		if f := r.RunTimes; f != nil {
			out = append(out, fmt.Sprintf("  engine run time (iterations ÷ scale × best-locality iteration time) vs the trace's, %d jobs: Pearson r %.2f, Spearman ρ %.2f, median ratio %.3g",
				f.N, f.Pearson, f.Spearman, f.MedianRatio))
		}
		g := fmt.Sprintf("  GPU counts changed for %d of %d jobs (%s); 1-GPU jobs %s → %s", r.GPUsChanged, n, pct(r.GPUsChanged, n), pct(r.OneGPUBefore, n), pct(r.OneGPUAfter, n))
		if o.KeepGPUsExact {
			g += " (--keep-gpus exact: kept as they are, labels priced by the hybrid estimator)"
		} else if o.KeepGPUs {
			g += " (--keep-gpus: rounded up to a power of two, at most 16)"
		} else {
			g += " (drawn from the artifact's mix)"
		}
		out = append(out, g)
		var keep []string
		if !o.KeepDurations && r.WithDuration > 0 {
			keep = append(keep, "--keep-durations")
		}
		if !o.KeepGPUs {
			keep = append(keep, "--keep-gpus")
		}
		if len(keep) > 0 {
			out = append(out, "  to keep the trace's run times and GPU counts: "+strings.Join(keep, " "))
		}
	default:
		s := fmt.Sprintf("recipe %s: model assigned by GPU-time bucket for all %d jobs; run times kept", r.Recipe, n)
		if r.GPUsChanged > 0 {
			s += fmt.Sprintf("; %d GPU counts capped at 16", r.GPUsChanged)
		}
		out = append(out, s)
	}
	return out
}
