package traces

import (
	"math"
	"sort"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces/table"
)

// Stats summarises a trace for `arena trace inspect`.
type Stats struct {
	Jobs             int
	First, Last      sim.Time
	ByGPUs           map[int]int
	ByType           map[string]int
	ByFamily         map[string]int
	ByModel          map[string]int
	WithDeadline     int
	MinIter, MaxIter int64
	MedianIter       int64
	InWindow         int // jobs submitted within the first Rounds rounds (artifact chunking)
	Rounds           int
}

// Inspect computes the trace's statistics; rounds (> 0) sets the window
// counted in InWindow with the artifact's chunking rule.
func Inspect(t *Trace, rounds int) Stats {
	s := Stats{Jobs: len(t.Jobs), ByGPUs: map[int]int{}, ByType: map[string]int{}, ByFamily: map[string]int{}, ByModel: map[string]int{}, Rounds: rounds}
	if len(t.Jobs) == 0 {
		return s
	}
	t0 := t.Jobs[0].Submit
	s.First, s.Last = t0, t0
	iters := make([]int64, 0, len(t.Jobs))
	for _, j := range t.Jobs {
		s.First = min(s.First, j.Submit)
		s.Last = max(s.Last, j.Submit)
		s.ByGPUs[j.GPUs]++
		s.ByType[j.GPU]++
		s.ByFamily[j.Workload.Model.Family.String()]++
		s.ByModel[j.Workload.Model.Name()]++
		if j.Deadline > 0 {
			s.WithDeadline++
		}
		iters = append(iters, j.Iterations)
		// Artifact chunk: max(0, ceil((s − T0)/300) − 1) < rounds.
		k := int((float64(j.Submit-t0)+299.999999)/300) - 1
		if k < rounds {
			s.InWindow++
		}
	}
	sort.Slice(iters, func(a, b int) bool { return iters[a] < iters[b] })
	s.MinIter, s.MaxIter, s.MedianIter = iters[0], iters[len(iters)-1], iters[len(iters)/2]
	return s
}

// TableStats summarises a canonical job table of any kind — imported and
// unlabelled, re-labelled by a recipe, or an engine-ready trace — for
// `arena trace inspect`. Durations are the trace's run times; for a trace
// that carries only iterations they are estimated (DurationsEstimated).
type TableStats struct {
	Jobs        int
	First, Last float64 // earliest and latest submission, s
	Zone        string  // the first job's zone ("" if none)

	// ArrivalsPerHour is Jobs over the submission span in hours (0 when
	// every job arrives at once); PeakHour is the most jobs submitted in
	// one clock hour after First, IdleHours the share of such hours with
	// no submission.
	ArrivalsPerHour float64
	PeakHour        int
	IdleHours       float64

	// Durations: jobs with a run time, censored ones (a lower bound),
	// percentiles P[0..4] = p10, p50, p90, p99, max and the mean, s.
	WithDuration, Censored int
	DurationP              [5]float64
	MeanDuration           float64
	DurationsEstimated     bool

	// GPU demand: count per GPU count (key as printed: "1", "0.5", …),
	// per type ("" = any), per model ("" = unlabelled), per final state.
	ByGPUs   map[float64]int
	ByType   map[string]int
	ByModel  map[string]int
	ByStatus map[string]int
	// ByOutcome counts the outcome column ("" = passed or unknown).
	ByOutcome map[string]int
	MaxGPUs   float64

	// GPUHours is Σ duration × GPUs over the jobs with a run time (the
	// offered work, GPU-hours).
	GPUHours float64
}

// DurationQuantiles are the quantiles TableStats.DurationP holds.
var DurationQuantiles = [5]float64{0.10, 0.50, 0.90, 0.99, 1}

// SpanHours is the submission span in hours.
func (s *TableStats) SpanHours() float64 { return (s.Last - s.First) / 3600 }

// OfferedLoad is the offered work over what gpus GPUs deliver during the
// submission span: 1 means the cluster is busy the whole span just to
// keep up; above 1 it cannot, and queues grow. 0 when the span is 0.
func (s *TableStats) OfferedLoad(gpus int) float64 {
	h := s.SpanHours()
	if h <= 0 || gpus <= 0 {
		return 0
	}
	return s.GPUHours / (float64(gpus) * h)
}

// InspectTable computes a table's statistics. Percentiles are the nearest
// rank (the ⌈q·n⌉-th smallest), so each is a run time the trace contains.
func InspectTable(jobs []table.Job) TableStats {
	s := TableStats{Jobs: len(jobs), ByGPUs: map[float64]int{}, ByType: map[string]int{}, ByModel: map[string]int{}, ByStatus: map[string]int{}, ByOutcome: map[string]int{}}
	if len(jobs) == 0 {
		return s
	}
	s.First, s.Last, s.Zone = jobs[0].Submit, jobs[0].Submit, jobs[0].Zone
	durs := make([]float64, 0, len(jobs))
	sum := 0.0
	for i := range jobs {
		j := &jobs[i]
		s.First, s.Last = math.Min(s.First, j.Submit), math.Max(s.Last, j.Submit)
		s.ByGPUs[j.GPUs]++
		s.ByType[j.GPUType]++
		s.ByModel[j.Model]++
		s.ByStatus[j.Status]++
		s.ByOutcome[j.Outcome]++
		s.MaxGPUs = math.Max(s.MaxGPUs, j.GPUs)
		if j.Censored {
			s.Censored++
		}
		if j.HasDuration() {
			durs = append(durs, j.Duration)
			sum += j.Duration
			s.GPUHours += j.Duration * j.GPUs / 3600
		}
	}
	s.WithDuration = len(durs)
	if len(durs) > 0 {
		sort.Float64s(durs)
		for k, q := range DurationQuantiles {
			r := int(math.Ceil(q*float64(len(durs)))) - 1
			s.DurationP[k] = durs[max(r, 0)]
		}
		s.MeanDuration = sum / float64(len(durs))
	}
	if h := s.SpanHours(); h > 0 {
		s.ArrivalsPerHour = float64(len(jobs)) / h
		perHour := make([]int, int(h)+1)
		for i := range jobs {
			perHour[int((jobs[i].Submit-s.First)/3600)]++
		}
		idle := 0
		for _, n := range perHour {
			s.PeakHour = max(s.PeakHour, n)
			if n == 0 {
				idle++
			}
		}
		s.IdleHours = float64(idle) / float64(len(perHour))
	} else {
		s.PeakHour = len(jobs)
	}
	return s
}

// TableOf turns an engine-ready trace into canonical rows for
// InspectTable, each job's run time estimated as its iterations ÷ the
// trace's scale × the iteration time of its best-locality plan as est
// prices it (the engine's view of a run's estimator; no overheads, no
// queueing: the work the job offers). A job whose plan is infeasible gets
// no run time (−1).
func TableOf(t *Trace, est estimator.Estimator) []table.Job {
	out := make([]table.Job, len(t.Jobs))
	scale := max(t.IterationScale, 1)
	for i, j := range t.Jobs {
		d := -1.0
		if g, err := estimator.LookupGPU(j.GPU); err == nil && est != nil {
			if e := est.Estimate(j.Workload, estimator.BestLocality(j.GPU, j.GPUs, g.GPUsPerNode)); e.Feasible() {
				d = float64(j.Iterations) / float64(scale) * e.IterTime
			}
		}
		out[i] = table.Job{ID: j.Name, Submit: float64(j.Submit), Duration: d, Iterations: j.Iterations, IterationScale: scale,
			GPUs: float64(j.GPUs), GPUType: j.GPU, Model: j.Workload.Model.Name(), Batch: int64(j.Workload.Batch),
			Deadline: float64(j.Deadline), User: j.User, VC: j.VirtualCluster, Source: t.Name, Outcome: j.Outcome}
	}
	return out
}
