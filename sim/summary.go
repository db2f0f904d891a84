package sim

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Summary is the headline of one run (summary.json). Times are seconds of
// simulated time unless the field says wall-clock.
type Summary struct {
	Policy    string `json:"policy"`
	Trace     string `json:"trace"`
	Cluster   string `json:"cluster"`
	Timing    string `json:"timing"`
	Estimator string `json:"estimator"`
	// GPUMap is the rewrite of the trace's requested GPU types the run
	// applied ("a10=l20,a100=h100", sorted; absent for none): its jobs
	// ran at the speeds of the types they were mapped to.
	GPUMap string `json:"gpu_map,omitempty"`
	Rounds int    `json:"rounds"`
	Seed   int64  `json:"seed"`
	// Density scales every job's iterations (1 = the trace as is).
	Density float64 `json:"density"`
	// WorkloadHash is a digest of the jobs alone as the engine ran them
	// (not the policy, its options, the cluster or the faults): two runs
	// of one seed with equal workload hashes ran the same jobs, so their
	// comparison is paired.
	WorkloadHash string `json:"workload_hash,omitempty"`
	// Version is the arena version that produced the run (sim.Version);
	// InputHash a digest of the run's inputs (Identity).
	Version     string  `json:"arena_version"`
	InputHash   string  `json:"input_hash"`
	HorizonS    float64 `json:"horizon_s"`
	JobsInTrace int     `json:"jobs_in_trace"`
	Submitted   int     `json:"jobs_submitted"`
	Finished    int     `json:"jobs_finished"`
	Running     int     `json:"jobs_running"`
	Pending     int     `json:"jobs_pending"`
	Dropped     int     `json:"jobs_dropped"`
	// Unfinished = Running + Pending: jobs admitted but not done at the
	// horizon.
	Unfinished int `json:"jobs_unfinished"`
	// NeverStartedShare is the share of submitted jobs that never held a
	// GPU by the horizon (pending since submission, dropped, or given up
	// before a start); 0 when none were submitted.
	NeverStartedShare float64 `json:"never_started_share"`
	// StuckPending is Pending when the run ends with nothing running: a
	// queue the policy left on an idle cluster (it may never place those
	// jobs, e.g. Gavel's DP-memory filter on Helios); 0 otherwise.
	StuckPending int `json:"jobs_stuck_pending"`
	// CensoredMeanJCT is the mean over every admitted, not dropped job of
	// its JCT if it finished, else its age at the horizon (horizon −
	// submit), a lower bound of its JCT. It leaves dropped jobs out, so a
	// policy can lower it by refusing work: no longer the default
	// comparison (SubmittedMeanJCT is), kept with its old values.
	CensoredMeanJCT float64 `json:"censored_mean_jct_s"`
	// SubmittedMeanJCT is the default comparison metric (ComparisonJCT):
	// the mean over every submitted job of its charge (JobRecord.Charge):
	// its JCT if it finished, else — running, pending, dropped or failed —
	// its age at the horizon (horizon − submit) plus its remaining
	// iterations at the best iteration time any grid of the cluster
	// offers it under the run's estimator. That is a lower bound of the
	// job's JCT had it been run, so abandoning a job (never starting it,
	// dropping it, leaving it queued) costs at least what finishing it at
	// its best rate would have: abandoning is never cheaper than doing it.
	// A job no grid can run is charged its age alone (docs/statistics.md).
	// Independent of the runs compared; read it beside Finished,
	// Unfinished, Dropped and JobsStuck.
	SubmittedMeanJCT float64 `json:"submitted_mean_jct_s"`
	// SubmittedMeanAgeJCT is the previous definition of the default
	// metric, kept: every unfinished or dropped job at its age at the
	// horizon alone. SubmittedMeanJCT − SubmittedMeanAgeJCT =
	// ChargedRemainingS / Submitted.
	SubmittedMeanAgeJCT float64 `json:"submitted_mean_age_jct_s"`
	// Charged (n_unfinished) is the submitted jobs charged rather than
	// measured: every one not finished (running, pending, dropped,
	// failed). ChargedRemainingS is the sum over them of the remaining-
	// work part of their charge (charge − (horizon − submit)), seconds:
	// with the ages, what a sweep needs to charge the same runs at
	// another horizon.
	Charged           int     `json:"jobs_charged"`
	ChargedRemainingS float64 `json:"charged_remaining_work_s"`
	// SubmittedP50/P95/P99JCT are percentiles of the same list (every
	// submitted job at its charge). When a job at or below the
	// percentile's rank is charged rather than finished, the percentile is
	// a lower bound of the policy's (its charge is): the matching
	// ...LowerBound is set (the table prints "≥").
	SubmittedP50JCT        float64 `json:"submitted_p50_jct_s"`
	SubmittedP95JCT        float64 `json:"submitted_p95_jct_s"`
	SubmittedP99JCT        float64 `json:"submitted_p99_jct_s"`
	SubmittedP50LowerBound bool    `json:"submitted_p50_lower_bound,omitempty"`
	SubmittedP95LowerBound bool    `json:"submitted_p95_lower_bound,omitempty"`
	SubmittedP99LowerBound bool    `json:"submitted_p99_lower_bound,omitempty"`
	// JobsStuck counts the jobs that end the run pending and never
	// started although, after some round's decision since they arrived,
	// idle GPUs (free, on available nodes) could have held their request
	// (its GPU type and count, any spread the estimator can run; a request
	// nothing can run: any grid that can run the job). StuckShare is
	// JobsStuck / Submitted.
	JobsStuck  int     `json:"jobs_stuck"`
	StuckShare float64 `json:"stuck_share"`
	// WorkDoneGPUHours is the GPU-hours jobs held GPUs over the window
	// (running or reconfiguring; the sum of jobs.parquet's gpu_seconds
	// ÷ 3600): the work a policy did for its mean JCT.
	WorkDoneGPUHours float64 `json:"work_done_gpu_hours"`
	// MeanBoundedSlowdown is, over finished jobs, the mean of max(1,
	// JCT / max(run time alone, 10 s)), the run time alone being the job's
	// iterations on its request at the best locality without queueing or
	// overhead (JobRecord.RunAlone: the same whatever the policy chose, so
	// starting a job small cannot inflate its denominator; the usual bound
	// of 10 s keeps seconds-long jobs from dominating); P99BoundedSlowdown
	// its 99th percentile. 0 when none finished.
	MeanBoundedSlowdown float64 `json:"mean_bounded_slowdown"`
	P99BoundedSlowdown  float64 `json:"p99_bounded_slowdown"`
	// JCT statistics over jobs finished inside the window (finish − submit);
	// 0 when none finished (tables print "–").
	MeanJCT   float64 `json:"mean_jct_s"`
	MedianJCT float64 `json:"median_jct_s"`
	P95JCT    float64 `json:"p95_jct_s"`
	P99JCT    float64 `json:"p99_jct_s"`
	// PaddedMeanJCT is the artifact's comparison metric, kept for parity
	// with the paper: the JCT list padded with PadValue up to PadTo jobs
	// (see PadMeans). It depends on the runs compared together (adding a
	// policy can change every run's value); 0 until computed.
	PaddedMeanJCT float64 `json:"padded_mean_jct_s,omitempty"`
	PadTo         int     `json:"pad_to,omitempty"`
	PadValue      float64 `json:"pad_value_s,omitempty"`
	// Makespan is over all jobs of the trace: the last job's end (finish;
	// drops end nothing) minus the earliest submission. When a job is
	// unfinished at the horizon or never arrived, the makespan is unknown:
	// Makespan is then the horizon minus the earliest submission and
	// MakespanLowerBound is set.
	Makespan           float64 `json:"makespan_s"`
	MakespanLowerBound bool    `json:"makespan_lower_bound"`
	// UntilDone: the run went on past its rounds until every job ended
	// (Config.UntilDone); UntilDoneCapReached: it stopped at its cap.
	UntilDone           bool `json:"until_done,omitempty"`
	UntilDoneCapReached bool `json:"until_done_cap_reached,omitempty"`
	// The measurement window and draining (measure.go; absent from runs
	// of every job with a fixed horizon): Measure is the window ("" all
	// jobs), JobsMeasured the jobs of the trace in it (set with a window
	// or drain). With a window, every job count and JCT, queueing and
	// slowdown figure above is over the measured jobs alone.
	Measure      string `json:"measure,omitempty"`
	JobsMeasured int    `json:"jobs_measured,omitempty"`
	// Drain: the run went on past its rounds (RoundsAsked) until its
	// measured jobs ended (Rounds is where it stopped), under a cap of
	// DrainCapRounds; DrainCapReached: it stopped there with measured
	// jobs left (its comparisons are inconclusive); DrainStuck: it
	// stopped with measured jobs left on an idle cluster.
	Drain           bool `json:"drain,omitempty"`
	RoundsAsked     int  `json:"rounds_asked,omitempty"`
	DrainCapRounds  int  `json:"drain_cap_rounds,omitempty"`
	DrainCapReached bool `json:"drain_cap_reached,omitempty"`
	DrainStuck      bool `json:"drain_stuck,omitempty"`
	// HorizonWarning says why a fixed horizon (no drain) may decide the
	// run's figures: it ends before the last measured job arrives, or
	// more than 1 % of the measured jobs are unfinished ("" none).
	HorizonWarning string `json:"horizon_warning,omitempty"`
	// JobsChargedAtHorizon counts the measured jobs the 'all submitted'
	// figures charge at the horizon (unfinished, dropped, failed), and
	// HorizonChargeOffsetS is Σ (charge − horizon) over them, the horizon
	// in seconds after the run's start: at another horizon H the
	// submitted mean JCT is (Σ finished JCT + Σ (H + offset)) / Submitted.
	JobsChargedAtHorizon int     `json:"jobs_charged_at_horizon,omitempty"`
	HorizonChargeOffsetS float64 `json:"horizon_charge_offset_s,omitempty"`
	// MeanQueueing is over the artifact's list (every admitted job);
	// MeanQueueingFinished over finished jobs only.
	MeanQueueing         float64 `json:"mean_queueing_s"`
	MeanQueueingFinished float64 `json:"mean_queueing_finished_s"`
	// Throughput in samples/s over the per-round values.
	MeanThroughput float64 `json:"mean_throughput"`
	PeakThroughput float64 `json:"peak_throughput"`
	// Utilization is the mean share of busy GPUs per type over the rounds.
	Utilization      map[string]float64 `json:"utilization"`
	Reconfigurations int                `json:"reconfigurations"`
	// SolverBudgetHits counts the policy's searches stopped by their
	// deterministic budget (sim.BudgetReporter); absent for policies
	// without one.
	SolverBudgetHits *int `json:"solver_budget_hits,omitempty"`
	// ArtifactAssertionsFailed counts the artifact assertions the policy
	// found false and skipped (sim.AssertionReporter): where the artifact
	// would have stopped. Absent for policies without such assertions.
	ArtifactAssertionsFailed *int `json:"artifact_assertions_failed,omitempty"`
	// Faults is the fault model's section (cluster events, checkpoints,
	// lost work); absent from runs without either.
	Faults *FaultSummary `json:"faults,omitempty"`
	// Fairness holds the run's fairness figures (finish-time fairness ρ,
	// Jain's indices, per-tenant JCT and GPU-hours, quota counts) when the
	// run has tenants (runner.Run.Tenants); absent otherwise.
	Fairness *Fairness `json:"fairness,omitempty"`
	// Energy holds the run's energy, money and carbon figures when the run
	// asks for them (runner.Run.Energy); absent otherwise.
	Energy *Energy `json:"energy,omitempty"`
	// Network is the contention section (per-job contention slowdown,
	// per-tier uplink utilisation) of runs on a cluster with a topology;
	// absent otherwise.
	Network *NetworkSummary `json:"network,omitempty"`
	// Wallclock holds measurements of the machine, not of the simulation;
	// they differ between identical runs.
	Wallclock Wallclock `json:"wallclock"`
}

// Wallclock is the real time a run took and its policy's decision latency.
type Wallclock struct {
	RunS        float64 `json:"run_s"`
	Decisions   int     `json:"decisions"`
	DecisionSum float64 `json:"decision_total_s"`
	DecisionP50 float64 `json:"decision_p50_s"`
	DecisionP99 float64 `json:"decision_p99_s"`
	DecisionMax float64 `json:"decision_max_s"`
}

// Summarize computes the summary of a result.
func (r *Result) Summarize(trace string, jobsInTrace int, estimatorName string) Summary {
	s := Summary{
		Policy: r.Policy, Trace: trace, Cluster: r.Cluster, Timing: r.Timing.String(), Estimator: estimatorName,
		Rounds: r.Rounds, HorizonS: float64(r.Rounds) * float64(r.RoundLength),
		JobsInTrace: jobsInTrace, Submitted: r.Submitted, Finished: len(r.JCTs),
		Utilization: map[string]float64{}, SolverBudgetHits: r.BudgetHits,
		ArtifactAssertionsFailed: r.AssertionsFailed,
	}
	if r.Faults != nil {
		fs := r.Faults.Summary
		s.Faults = &fs
	}
	if r.Network != nil {
		ns := *r.Network
		ns.Tiers, ns.Jobs = slices.Clone(ns.Tiers), nil // the per-job rows are network.parquet's
		s.Network = &ns
	}
	// The per-job and per-round figures are the engine's (runTotals), not
	// the records: the summary is the same whatever the recorder kept.
	tot := &r.totals
	lastFinish, earliest := tot.lastFinish, tot.earliest
	horizon := float64(r.Start) + s.HorizonS
	s.Running, s.Pending, s.Dropped, s.Reconfigurations = tot.running, tot.pending, tot.dropped, tot.reconfigs
	// Copies: Summarize sorts them and may be called more than once.
	submitted := slices.Clone(tot.submitted)
	open := tot.open
	slowdown := slices.Clone(tot.slowdown)
	if len(r.JCTs) > 0 {
		s.MeanJCT = mean(r.JCTs)
		sorted := append([]float64(nil), r.JCTs...)
		sortFloats(sorted)
		s.MedianJCT = quantile(sorted, 0.5)
		s.P95JCT = quantile(sorted, 0.95)
		s.P99JCT = quantile(sorted, 0.99)
	}
	s.Unfinished = s.Running + s.Pending
	if s.Submitted > 0 {
		s.NeverStartedShare = float64(tot.neverStarted) / float64(s.Submitted)
	}
	if s.Running == 0 {
		s.StuckPending = s.Pending
	}
	if tot.censoredN > 0 {
		s.CensoredMeanJCT = tot.censoredSum / float64(tot.censoredN) // mean's sum, in the same order
	}
	s.SubmittedMeanJCT = mean(submitted)
	if n := len(submitted); n > 0 {
		s.SubmittedMeanAgeJCT = tot.ageSum / float64(n) // mean's sum, in the same order
		// The charged jobs' values, sorted: a percentile is a lower bound
		// when one of them is at or below its upper rank.
		var charged []float64
		for i, v := range submitted {
			if open[i] {
				charged = append(charged, v)
			}
		}
		sortFloats(submitted)
		sortFloats(charged)
		bound := func(q float64) (float64, bool) {
			v := quantile(submitted, q)
			hi := min(int(math.Floor(q*float64(n-1)))+1, n-1)
			return v, len(charged) > 0 && charged[0] <= submitted[hi]
		}
		s.SubmittedP50JCT, s.SubmittedP50LowerBound = bound(0.5)
		s.SubmittedP95JCT, s.SubmittedP95LowerBound = bound(0.95)
		s.SubmittedP99JCT, s.SubmittedP99LowerBound = bound(0.99)
	}
	s.Charged, s.ChargedRemainingS = tot.charged, tot.remainingSum
	s.JobsStuck = tot.stuck
	if s.Submitted > 0 {
		s.StuckShare = float64(tot.stuck) / float64(s.Submitted)
	}
	s.WorkDoneGPUHours = tot.gpuSeconds / 3600
	if len(slowdown) > 0 {
		s.MeanBoundedSlowdown = mean(slowdown)
		sortFloats(slowdown)
		s.P99BoundedSlowdown = quantile(slowdown, 0.99)
	}
	s.UntilDone, s.UntilDoneCapReached = r.UntilDone, r.CapReached && r.UntilDone
	r.summarizeMeasure(&s)
	if r.Submitted > 0 {
		if s.Unfinished+tot.unmeasuredOpen == 0 && tot.arrived == jobsInTrace {
			s.Makespan = lastFinish - earliest
			if s.Finished == 0 {
				s.Makespan = 0
			}
		} else {
			s.Makespan, s.MakespanLowerBound = horizon-earliest, true
		}
	}
	s.MeanQueueing = mean(r.Queueing)
	s.MeanQueueingFinished = mean(r.Queueing[:len(r.JCTs)])
	if tot.thrRounds > 0 {
		s.MeanThroughput = tot.thrSum / float64(tot.thrRounds)
		s.PeakThroughput = tot.thrPeak
	}
	return s
}

// SlowdownBound is the usual lower bound on the run time in a bounded
// slowdown (seconds): a job shorter than it counts as lasting it.
const SlowdownBound = 10.0

// BoundedSlowdown is max(1, jct / max(runAlone, SlowdownBound)).
func BoundedSlowdown(jct, runAlone float64) float64 {
	return math.Max(1, jct/math.Max(runAlone, SlowdownBound))
}

// ComparisonJCT is the default comparison metric of s: SubmittedMeanJCT,
// which counts every submitted job (unfinished and dropped ones at their
// age plus their remaining work at its best rate), so a policy cannot
// improve it by dropping, stranding or abandoning jobs.
func (s *Summary) ComparisonJCT() float64 { return s.SubmittedMeanJCT }

// ComparisonJCTName is ComparisonJCT's summary.json key.
const ComparisonJCTName = "submitted_mean_jct_s"

// Accounting is "828 finished · 158 unfinished · 0 dropped": what stands
// behind a mean, printed beside it in every comparison.
// A run with jobs failed past their retries (Config.JobFailures) adds
// "· N failed".
func (s *Summary) Accounting() string {
	a := strconv.Itoa(s.Finished) + " finished · " + strconv.Itoa(s.Unfinished) + " unfinished · " + strconv.Itoa(s.Dropped) + " dropped"
	if s.Faults != nil && s.Faults.JobsGivenUp > 0 {
		a += " · " + strconv.Itoa(s.Faults.JobsGivenUp) + " failed"
	}
	return a
}

// StuckThreshold is the share of submitted jobs stuck (JobsStuck) above
// which a run's means get a ⚠: 1 %.
const StuckThreshold = 0.01

// Neglects says whether a policy dropped jobs, left a queue on an idle
// cluster (StuckPending) or left more than StuckThreshold of the
// submitted jobs stuck (never started though the cluster could have run
// them): its means deserve a ⚠.
func (s *Summary) Neglects() bool {
	return s.Dropped > 0 || s.StuckPending > 0 || s.StuckShare > StuckThreshold
}

// SetUtilization fills Utilization: per GPU type, the GPU-seconds jobs held
// GPUs of that type (running or reconfiguring) over the window, divided by
// the type's GPUs × the window's length. Exact timing integrates holdings
// between events (a job that ends mid-round stops counting then); artifact
// timing counts a job running after a round's decision for the whole round,
// as the artifact does. (timeline.parquet's busy_<type> columns are the
// GPUs held right after each round's decision, a sample.)
func (r *Result) SetUtilization(s *Summary, c *Cluster) {
	window := float64(r.Rounds) * float64(r.RoundLength)
	if window <= 0 {
		return
	}
	for _, t := range r.Types {
		if n := c.TotalGPUs(t); n > 0 {
			s.Utilization[t] = r.BusyGPUSeconds[t] / (float64(n) * window)
		}
	}
}

// SetWallclock fills the wall-clock section.
func (r *Result) SetWallclock(s *Summary) {
	s.Wallclock.RunS = r.Wall.Seconds()
	s.Wallclock.Decisions = len(r.DecisionNs)
	if len(r.DecisionNs) == 0 {
		return
	}
	d := make([]float64, len(r.DecisionNs))
	for i, ns := range r.DecisionNs {
		d[i] = time.Duration(ns).Seconds()
		s.Wallclock.DecisionSum += d[i]
	}
	sort.Float64s(d)
	s.Wallclock.DecisionP50 = quantile(d, 0.5)
	s.Wallclock.DecisionP99 = quantile(d, 0.99)
	s.Wallclock.DecisionMax = d[len(d)-1]
}

// PadMeans applies the artifact's padded mean JCT rule to runs compared
// together: every run whose finished count is below the largest one is
// padded with the global maximum JCT (over all runs) up to that count.
// jcts[i] are the JCTs of summaries[i].
func PadMeans(summaries []*Summary, jcts [][]float64) {
	padTo, padValue := 0, 0.0
	for i := range summaries {
		padTo = max(padTo, len(jcts[i]))
		for _, v := range jcts[i] {
			padValue = math.Max(padValue, v)
		}
	}
	for i, s := range summaries {
		sum := 0.0
		for _, v := range jcts[i] {
			sum += v
		}
		sum += float64(padTo-len(jcts[i])) * padValue
		if padTo > 0 {
			s.PaddedMeanJCT = sum / float64(padTo)
		}
		s.PadTo, s.PadValue = padTo, padValue
	}
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Quantile is the q-quantile of sorted data with linear interpolation
// (numpy's default), the rule of every percentile in summary.json; other
// reports of a run (sim/fairness) use it so their percentiles agree.
func Quantile(sorted []float64, q float64) float64 { return quantile(sorted, q) }

// quantile of sorted data with linear interpolation (numpy's default).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// runTotals are the summary's inputs beyond Result's exported figures: the
// JCT lists of the submitted jobs (trace order), their counts by state, and
// the timeline's throughput sum and peak (round order), each accumulated
// in the order Summarize once walked Jobs and Timeline, so its floating-
// point sums are the same.
type runTotals struct {
	// censoredSum and censoredN: the censored JCTs' mean needs no list.
	censoredSum         float64
	censoredN           int
	submitted, slowdown []float64
	// open[i]: submitted[i] is a charge, not a JCT (the job did not
	// finish); ageSum the old list's sum (unfinished jobs at their age),
	// charged and remainingSum the charged jobs and the remaining-work part
	// of their charges; stuck the stuck jobs; gpuSeconds the GPU-seconds held.
	open                      []bool
	ageSum, remainingSum      float64
	charged, stuck            int
	gpuSeconds                float64
	running, pending, dropped int
	neverStarted              int
	reconfigs                 int
	lastFinish, earliest      float64
	thrSum, thrPeak           float64
	thrRounds                 int
	// The measurement window's (measure.go): the jobs arrived, measured
	// or not; the unmeasured ones running or pending at the end; the
	// measured jobs charged at the horizon and Σ (charge − horizon).
	arrived, unmeasuredOpen int
	chargedN                int
	chargedOffset           float64
}

// addJob counts one submitted job's record.
func (t *runTotals) addJob(j *JobRecord, horizon float64) {
	t.earliest = math.Min(t.earliest, j.Submit)
	t.gpuSeconds += j.GPUSeconds
	if j.State == "finished" {
		t.ageSum += j.JCT
	} else {
		age := horizon - j.Submit
		t.ageSum += age
		t.open = append(t.open, true)
		t.charged++
		t.remainingSum += j.Charge - age
		if j.Stuck {
			t.stuck++
		}
	}
	switch j.State {
	case "finished":
		t.censoredSum += j.JCT
		t.censoredN++
		t.submitted = append(t.submitted, j.JCT)
		t.open = append(t.open, false)
		t.slowdown = append(t.slowdown, BoundedSlowdown(j.JCT, j.RunAlone))
		t.lastFinish = math.Max(t.lastFinish, j.Finish)
	case "running", "pending":
		t.censoredSum += horizon - j.Submit
		t.censoredN++
		t.submitted = append(t.submitted, t.atHorizon(j.Charge, horizon))
		if j.State == "running" {
			t.running++
		} else {
			t.pending++
		}
	case "dropped":
		t.submitted = append(t.submitted, t.atHorizon(j.Charge, horizon))
		t.dropped++
	case "failed":
		// Failed past its retries (Config.JobFailures): like a dropped
		// job, at its charge — no policy gains by losing a job — but not
		// the policy's drop.
		t.submitted = append(t.submitted, t.atHorizon(j.Charge, horizon))
	}
	t.reconfigs += int(j.Reconfigs)
	if j.FirstStart < 0 {
		t.neverStarted++
	}
}

// addRound counts one round's throughput.
func (t *runTotals) addRound(thr float64) {
	t.thrSum += thr
	t.thrPeak = math.Max(t.thrPeak, thr)
	t.thrRounds++
}
