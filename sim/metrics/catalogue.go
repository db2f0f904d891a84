package metrics

import (
	"fmt"
	"strings"

	"github.com/arena-sim/arena/sim"
)

// Catalogue is every metric of a run, in the order of the side-by-side
// table of 'arena simulate'. A new metric is a new row (and the
// sim.Summary field it reads).
var Catalogue = []Metric{
	// The run's extent.
	{Key: "rounds", Unit: "rounds", Int: true, Doc: "rounds simulated: the horizon in rounds (a draining run: the rounds it went on for)",
		Label: "rounds simulated (drained)", When: func(s *sim.Summary) bool { return s.UntilDone || s.Drain }, Get: count(func(s *sim.Summary) int { return s.Rounds })},
	{Key: "horizon_s", Unit: "s", Doc: "the simulated window: rounds × round length", Get: value(func(s *sim.Summary) float64 { return s.HorizonS })},
	{Key: "rounds_asked", Column: "-", Unit: "rounds", Int: true, Doc: "the rounds asked of a run that went on past them (drain, until done); rounds is where it stopped (summary.json only)",
		Get: count(func(s *sim.Summary) int { return s.RoundsAsked })},
	{Key: "drain_cap_rounds", Column: "-", Unit: "rounds", Int: true, Doc: "a draining run's cap: max(10 × rounds asked, rounds asked + 20 × the measured jobs' arrival span in rounds) (summary.json only)",
		Get: count(func(s *sim.Summary) int { return s.DrainCapRounds })},
	{Key: "jobs_measured", Column: "-", Unit: "jobs", Int: true, Doc: "jobs of the trace in the run's measurement window (measure; with a window or drain): the population of every job count and JCT figure (summary.json only)",
		Get: count(func(s *sim.Summary) int { return s.JobsMeasured })},
	{Key: "jobs_charged_at_horizon", Column: "-", Unit: "jobs", Int: true, Doc: "measured jobs the 'all submitted' figures charge at the horizon: unfinished, dropped or failed (summary.json only)",
		Get: count(func(s *sim.Summary) int { return s.JobsChargedAtHorizon })},
	{Key: "horizon_charge_offset_s", Column: "-", Unit: "s", Doc: "Σ (charge − horizon) over those jobs, the horizon in seconds after the start: re-charges them at another horizon (summary.json only)",
		Get: value(func(s *sim.Summary) float64 { return s.HorizonChargeOffsetS })},
	{Key: "jobs_in_trace", Unit: "jobs", Int: true, Doc: "jobs of the workload, submitted in the window or not", Get: count(func(s *sim.Summary) int { return s.JobsInTrace })},
	{Key: "jobs_submitted", Unit: "jobs", Int: true, Doc: "jobs submitted inside the window: the population of every 'all submitted' figure", Get: count(func(s *sim.Summary) int { return s.Submitted })},

	// What became of the jobs.
	{Key: "jobs_finished", Unit: "jobs", Int: true, Better: Higher, Stats: true, Doc: "jobs finished inside the window",
		Label: "jobs finished", Get: count(func(s *sim.Summary) int { return s.Finished })},
	{Key: "jobs_running", Unit: "jobs", Int: true, Doc: "jobs holding GPUs at the horizon",
		Label: "jobs running at end", Get: count(func(s *sim.Summary) int { return s.Running })},
	{Key: "jobs_pending", Unit: "jobs", Int: true, Better: Lower, Doc: "jobs admitted and waiting at the horizon (⚠ in the table when nothing runs: jobs_stuck_pending)",
		Label: "jobs pending at end", Show: warnIf(func(s *sim.Summary) int { return s.Pending }, func(s *sim.Summary) bool { return s.StuckPending > 0 }),
		Get: count(func(s *sim.Summary) int { return s.Pending })},
	{Key: "jobs_dropped", Unit: "jobs", Int: true, Better: Lower, Doc: "jobs the policy refused (they count in the 'all submitted' figures at their age at the horizon)",
		Label: "jobs dropped", Show: warnIf(func(s *sim.Summary) int { return s.Dropped }, func(s *sim.Summary) bool { return s.Dropped > 0 }),
		Get: count(func(s *sim.Summary) int { return s.Dropped })},
	{Key: "jobs_unfinished", Column: "-", Unit: "jobs", Int: true, Better: Lower, Doc: "jobs_running + jobs_pending (summary.json only)",
		Get: count(func(s *sim.Summary) int { return s.Unfinished })},
	{Key: "never_started_share", Unit: "ratio", Better: Lower, Stats: true, Doc: "share of submitted jobs that never held a GPU by the horizon (pending since submission, dropped or given up)",
		Get: value(func(s *sim.Summary) float64 { return s.NeverStartedShare })},
	{Key: "jobs_stuck_pending", Unit: "jobs", Int: true, Better: Lower, Doc: "jobs pending at the horizon with nothing running: a queue the policy left on an idle cluster; 0 otherwise",
		Get: count(func(s *sim.Summary) int { return s.StuckPending })},
	{Key: "jobs_stuck", Unit: "jobs", Int: true, Better: Lower, Stats: true,
		Doc:   "jobs pending and never started at the horizon although, after some round's decision since they arrived, idle GPUs could have held their request (its GPU type and count; any grid that can run the job when the request cannot): ⚠ when over 1 % of the submitted jobs",
		Label: "jobs stuck (could have run)", Show: warnIf(func(s *sim.Summary) int { return s.JobsStuck }, func(s *sim.Summary) bool { return s.StuckShare > sim.StuckThreshold }),
		Get: count(func(s *sim.Summary) int { return s.JobsStuck })},
	{Key: "stuck_share", Unit: "ratio", Better: Lower, Stats: true, Doc: "jobs_stuck / jobs_submitted",
		Get: value(func(s *sim.Summary) float64 { return s.StuckShare })},
	{Key: "work_done_gpu_hours", Unit: "GPU-h", Stats: true, Doc: "GPU-hours jobs held GPUs over the window (running or reconfiguring): the work behind the means",
		Label: "work done (GPU-h)", Get: value(func(s *sim.Summary) float64 { return s.WorkDoneGPUHours })},

	// JCT over every submitted job: the default comparison.
	{Key: "submitted_mean_jct_s", Unit: "s", Better: Lower, Stats: true, Compared: "jct_reduction",
		Doc:   "the default comparison metric: mean over every submitted job of its JCT if it finished, else its charge: its age at the horizon (horizon − submit) plus its remaining iterations × the best iteration time any grid of the cluster offers it (a lower bound of its JCT: abandoning a job never costs less than finishing it at its best rate; docs/statistics.md)",
		Label: "mean JCT, all submitted (s)", Get: value(func(s *sim.Summary) float64 { return s.SubmittedMeanJCT })},
	{Key: "submitted_p50_jct_s", Unit: "s", Better: Lower, Doc: "median of the same list as submitted_mean_jct_s (≥ in the table when a charged job is at or below its rank: a lower bound)",
		Label: "p50 JCT, all submitted (s)", Show: bounded(func(s *sim.Summary) (float64, bool) { return s.SubmittedP50JCT, s.SubmittedP50LowerBound }),
		Get: value(func(s *sim.Summary) float64 { return s.SubmittedP50JCT })},
	{Key: "submitted_p95_jct_s", Unit: "s", Better: Lower, Doc: "95th percentile of the same list (≥ in the table when a lower bound)",
		Label: "p95 JCT, all submitted (s)", Show: bounded(func(s *sim.Summary) (float64, bool) { return s.SubmittedP95JCT, s.SubmittedP95LowerBound }),
		Get: value(func(s *sim.Summary) float64 { return s.SubmittedP95JCT })},
	{Key: "submitted_p99_jct_s", Unit: "s", Better: Lower, Doc: "99th percentile of the same list (≥ in the table when a lower bound)",
		Label: "p99 JCT, all submitted (s)", Show: bounded(func(s *sim.Summary) (float64, bool) { return s.SubmittedP99JCT, s.SubmittedP99LowerBound }),
		Get: value(func(s *sim.Summary) float64 { return s.SubmittedP99JCT })},
	{Key: "submitted_mean_age_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "the default metric's previous definition: every unfinished or dropped job at its age at the horizon alone (no remaining work)",
		Get: value(func(s *sim.Summary) float64 { return s.SubmittedMeanAgeJCT })},
	{Key: "jobs_charged", Unit: "jobs", Int: true, Doc: "submitted jobs charged rather than measured in submitted_mean_jct_s (n_unfinished: running, pending, dropped or failed at the horizon)",
		Get: count(func(s *sim.Summary) int { return s.Charged })},
	{Key: "charged_remaining_work_s", Unit: "s", Doc: "sum over the charged jobs of their charge's remaining-work part (charge − (horizon − submit)): submitted_mean_jct_s = submitted_mean_age_jct_s + this / jobs_submitted",
		Get: value(func(s *sim.Summary) float64 { return s.ChargedRemainingS })},
	{Key: "censored_mean_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "mean over admitted, not dropped jobs of the JCT, or the age at the horizon if unfinished (leaves dropped jobs out)",
		Label: "censored mean JCT (s)", Get: value(func(s *sim.Summary) float64 { return s.CensoredMeanJCT })},

	// JCT over finished jobs, and the artifact's padded mean.
	{Key: "mean_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "mean JCT (finish − submit) of the jobs finished inside the window; none when none finished",
		Label: "mean JCT, finished (s)", Get: finished(func(s *sim.Summary) float64 { return s.MeanJCT })},
	{Key: "padded_mean_jct_s", Unit: "s", Better: Lower, Stats: true, Compared: "padded_jct_reduction",
		Doc:   "the artifact's metric (paper parity): the finished JCTs padded with pad_value_s up to pad_to jobs; depends on the runs compared together",
		Label: "artifact padded mean JCT (s)", Get: finished(func(s *sim.Summary) float64 { return s.PaddedMeanJCT })},
	{Key: "pad_to", Unit: "jobs", Int: true, Doc: "the padded mean's list length: the most jobs any run of the comparison group finished", Get: count(func(s *sim.Summary) int { return s.PadTo })},
	{Key: "pad_value_s", Unit: "s", Doc: "the value the padded mean pads with: the group's largest finished JCT", Get: value(func(s *sim.Summary) float64 { return s.PadValue })},
	{Key: "median_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "median JCT of the finished jobs",
		Label: "median JCT (s)", Get: finished(func(s *sim.Summary) float64 { return s.MedianJCT })},
	{Key: "p95_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "95th percentile JCT of the finished jobs",
		Label: "p95 JCT (s)", Get: finished(func(s *sim.Summary) float64 { return s.P95JCT })},
	{Key: "p99_jct_s", Unit: "s", Better: Lower, Stats: true, Doc: "99th percentile JCT of the finished jobs",
		Label: "p99 JCT (s)", Get: finished(func(s *sim.Summary) float64 { return s.P99JCT })},
	{Key: "mean_bounded_slowdown", Unit: "ratio", Better: Lower, Stats: true,
		Doc:   "mean over finished jobs of max(1, JCT / max(run time alone, 10 s)), the run time alone on the job's request (its GPU type and count at the best locality; its best grid when the request cannot run), whatever grid the policy chose",
		Label: "mean / p99 bounded slowdown", Show: func(s *sim.Summary) string {
			if s.Finished == 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f / %.1f", s.MeanBoundedSlowdown, s.P99BoundedSlowdown)
		}, Get: finished(func(s *sim.Summary) float64 { return s.MeanBoundedSlowdown })},
	{Key: "p99_bounded_slowdown", Unit: "ratio", Better: Lower, Doc: "99th percentile of the bounded slowdown of finished jobs",
		Get: finished(func(s *sim.Summary) float64 { return s.P99BoundedSlowdown })},
	{Key: "makespan_s", Unit: "s", Better: Lower, Stats: true, Doc: "last finish − earliest submission; with jobs unfinished, the horizon − earliest submission, a lower bound (≥ in the table)",
		Label: "makespan (s)", Show: func(s *sim.Summary) string {
			if s.MakespanLowerBound {
				return fmt.Sprintf("≥ %.0f", s.Makespan)
			}
			return fmt.Sprintf("%.0f", s.Makespan)
		}, Get: value(func(s *sim.Summary) float64 { return s.Makespan })},

	// Queueing and throughput.
	{Key: "mean_queueing_s", Unit: "s", Better: Lower, Stats: true, Doc: "mean time from submission to first start over every admitted job (the artifact's list)",
		Label: "mean queueing, admitted (s)", Get: value(func(s *sim.Summary) float64 { return s.MeanQueueing })},
	{Key: "mean_queueing_finished_s", Unit: "s", Better: Lower, Doc: "mean queueing over finished jobs only",
		Label: "mean queueing, finished (s)", Get: value(func(s *sim.Summary) float64 { return s.MeanQueueingFinished })},
	{Key: "mean_throughput", Column: "mean_throughput_samples_per_s", Unit: "samples/s", Better: Higher, Stats: true, Compared: "throughput_ratio",
		Doc:   "cluster throughput averaged over the rounds",
		Label: "mean throughput (samples/s)", Digits: 1, Get: value(func(s *sim.Summary) float64 { return s.MeanThroughput })},
	{Key: "peak_throughput", Column: "peak_throughput_samples_per_s", Unit: "samples/s", Better: Higher, Stats: true,
		Doc:   "the highest round's cluster throughput",
		Label: "peak throughput (samples/s)", Digits: 1, Get: value(func(s *sim.Summary) float64 { return s.PeakThroughput })},
	{Key: "reconfigurations", Unit: "count", Int: true, Doc: "starts after the first, resizes and moves of jobs (each pays the overhead profile's cost)",
		Label: "reconfigurations", Get: count(func(s *sim.Summary) int { return s.Reconfigurations })},
	{Key: "solver_budget_hits", Unit: "count", Int: true, Optional: true, Doc: "the policy's searches stopped by their deterministic budget (policies with one only)",
		Get: optionalInt(func(s *sim.Summary) *int { return s.SolverBudgetHits })},
	{Key: "artifact_assertions_failed", Unit: "count", Int: true, Optional: true, Doc: "artifact assertions the policy found false and skipped (policies with them only): where the artifact would have stopped",
		Get: optionalInt(func(s *sim.Summary) *int { return s.ArtifactAssertionsFailed })},

	// The machine: wall-clock figures, different between identical runs.
	{Key: "wall_run_s", Path: "wallclock.run_s", Unit: "s (wall)", Section: Machine, Doc: "real time the run took",
		Label: "wall time (s)", Digits: 2, Get: value(func(s *sim.Summary) float64 { return s.Wallclock.RunS })},
	{Key: "wall_decisions", Path: "wallclock.decisions", Unit: "count", Int: true, Section: Machine, Doc: "policy decisions timed",
		Get: count(func(s *sim.Summary) int { return s.Wallclock.Decisions })},
	{Key: "wall_decision_total_s", Path: "wallclock.decision_total_s", Unit: "s (wall)", Section: Machine, Doc: "real time spent in the policy's decisions",
		Get: value(func(s *sim.Summary) float64 { return s.Wallclock.DecisionSum })},
	{Key: "wall_decision_p50_s", Column: "-", Path: "wallclock.decision_p50_s", Unit: "s (wall)", Section: Machine, Doc: "median decision latency (summary.json only)",
		Get: value(func(s *sim.Summary) float64 { return s.Wallclock.DecisionP50 })},
	{Key: "wall_decision_p99_s", Path: "wallclock.decision_p99_s", Unit: "s (wall)", Section: Machine, Doc: "99th percentile decision latency (the table shows it in ms)",
		Label: "decision p99 (ms)", Show: func(s *sim.Summary) string { return fmt.Sprintf("%.2f", s.Wallclock.DecisionP99*1e3) },
		Get: value(func(s *sim.Summary) float64 { return s.Wallclock.DecisionP99 })},
	{Key: "wall_decision_max_s", Column: "-", Path: "wallclock.decision_max_s", Unit: "s (wall)", Section: Machine, Doc: "slowest decision (summary.json only)",
		Get: value(func(s *sim.Summary) float64 { return s.Wallclock.DecisionMax })},

	// Faults (docs/faults.md): runs with cluster events, a checkpoint
	// model or jobs that fail on their own.
	{Key: "cluster_events", Path: "faults.cluster_events", Unit: "count", Int: true, Section: Faults, Stats: true, Doc: "cluster events applied in the window (failures, drains, reclaims, returns)",
		Label: "cluster events", Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.ClusterEvents) })},
	{Key: "outages", Path: "faults.outages", Unit: "count", Int: true, Section: Faults, Stats: true,
		Doc:   "node outages among the cluster events (down, drain, reclaim): each takes a node away",
		Label: "node outages (expected)", Show: func(s *sim.Summary) string {
			if e := s.Faults.ExpectedOutages; e != nil {
				return fmt.Sprintf("%d (%.2f)", s.Faults.Outages, *e)
			}
			return fmt.Sprint(s.Faults.Outages)
		},
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.Outages) })},
	{Key: "expected_outages", Path: "faults.expected_outages", Unit: "count", Section: Faults,
		Doc: "node outages the run's faults preset or spec gives its cluster over the window on average (rate × GPUs or nodes × span); none for an events file",
		Get: func(s *sim.Summary) (float64, bool) {
			if s.Faults == nil || s.Faults.ExpectedOutages == nil {
				return 0, false
			}
			return *s.Faults.ExpectedOutages, true
		}},
	{Key: "interruptions", Path: "faults.interruptions", Unit: "count", Int: true, Better: Lower, Section: Faults, Stats: true, Doc: "jobs stopped by cluster events (a job stopped twice counts twice)",
		Label: "interruptions (jobs hit)", Show: func(s *sim.Summary) string {
			return fmt.Sprintf("%d (%d)", s.Faults.Interruptions, s.Faults.JobsInterrupted)
		},
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.Interruptions) })},
	{Key: "jobs_interrupted", Path: "faults.jobs_interrupted", Unit: "jobs", Int: true, Better: Lower, Section: Faults, Stats: true, Doc: "jobs stopped at least once",
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.JobsInterrupted) })},
	{Key: "mean_interruptions_per_job", Path: "faults.mean_interruptions_per_job", Unit: "count", Better: Lower, Section: Faults, Stats: true, Doc: "interruptions per job that held a GPU",
		Get: fault(func(f *sim.FaultSummary) float64 { return f.MeanInterruptionsPerJob })},
	{Key: "max_interruptions_per_job", Path: "faults.max_interruptions_per_job", Unit: "count", Int: true, Better: Lower, Section: Faults, Stats: true, Doc: "the most interruptions of one job",
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.MaxInterruptionsPerJob) })},
	{Key: "jobs_given_up", Path: "faults.jobs_given_up", Unit: "jobs", Int: true, Better: Lower, Section: Faults, Stats: true,
		Doc:   "jobs that failed on their own more often than their retries allow (counted at their age at the horizon)",
		Label: "jobs failed past retries", When: func(s *sim.Summary) bool { return s.Faults != nil && s.Faults.JobsGivenUp > 0 },
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.JobsGivenUp) })},
	{Key: "lost_gpu_hours", Path: "faults.lost_gpu_hours", Unit: "GPU-h", Better: Lower, Section: Faults, Stats: true, Doc: "lost_work_gpu_hours + recovery_gpu_hours",
		Label: "GPU-hours lost (redone + restart)", Show: func(s *sim.Summary) string {
			f := s.Faults
			return fmt.Sprintf("%.0f (%.0f + %.0f)", f.LostGPUHours, f.LostWorkGPUHours, f.RecoveryGPUHours)
		}, Get: fault(func(f *sim.FaultSummary) float64 { return f.LostGPUHours })},
	{Key: "lost_work_gpu_hours", Path: "faults.lost_work_gpu_hours", Unit: "GPU-h", Better: Lower, Section: Faults, Stats: true, Doc: "progress since the last checkpoint lost to interruptions, redone",
		Get: fault(func(f *sim.FaultSummary) float64 { return f.LostWorkGPUHours })},
	{Key: "recovery_gpu_hours", Path: "faults.recovery_gpu_hours", Unit: "GPU-h", Better: Lower, Section: Faults, Stats: true, Doc: "restart overhead and checkpoint restore after interruptions",
		Get: fault(func(f *sim.FaultSummary) float64 { return f.RecoveryGPUHours })},
	{Key: "effective_training_time_ratio", Path: "faults.effective_training_time_ratio", Unit: "ratio", Better: Higher, Section: Faults, Stats: true,
		Doc:   "GPU-seconds of kept progress over GPU-seconds held, over all jobs",
		Label: "effective training time", Show: func(s *sim.Summary) string { return fmt.Sprintf("%.1f%%", 100*s.Faults.EffectiveTrainingTimeRatio) },
		Get: fault(func(f *sim.FaultSummary) float64 { return f.EffectiveTrainingTimeRatio })},
	{Key: "mean_job_effective_training_time_ratio", Path: "faults.mean_job_effective_training_time_ratio", Unit: "ratio", Better: Higher, Section: Faults, Stats: true,
		Doc: "the mean of the jobs' own effective-training-time ratios (jobs that held a GPU)",
		Get: fault(func(f *sim.FaultSummary) float64 { return f.MeanJobETTR })},
	{Key: "goodput_samples_per_s", Path: "faults.goodput_samples_per_s", Unit: "samples/s", Better: Higher, Section: Faults, Stats: true,
		Doc:   "samples of kept progress per second of the window (mean_throughput counts lost samples too)",
		Label: "goodput (samples/s)", Digits: 1, Get: fault(func(f *sim.FaultSummary) float64 { return f.Goodput })},
	{Key: "unavailable_gpu_hours", Path: "faults.unavailable_gpu_hours", Unit: "GPU-h", Section: Faults, Stats: true, Doc: "capacity on nodes down, draining or reclaimed over the window",
		Get: fault(func(f *sim.FaultSummary) float64 { return f.UnavailableGPUHours })},
	{Key: "jobs_failed", Path: "faults.jobs_failed", Unit: "jobs", Int: true, Section: Faults, Stats: true, Doc: "finished jobs the trace records as failed (they ran the recorded work)",
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.JobsFailed) })},
	{Key: "jobs_killed", Path: "faults.jobs_killed", Unit: "jobs", Int: true, Section: Faults, Stats: true, Doc: "finished jobs the trace records as killed",
		Get: fault(func(f *sim.FaultSummary) float64 { return float64(f.JobsKilled) })},

	// Fairness (docs/tenants.md): runs with tenants.
	{Key: "max_rho", Path: "fairness.max_rho", Unit: "ratio", Better: Lower, Section: Fairness, Stats: true, Doc: "the largest finish-time fairness ρ of a finished job",
		Get: fair(func(f *sim.Fairness) float64 { return f.MaxRho })},
	{Key: "mean_rho", Path: "fairness.mean_rho", Unit: "ratio", Better: Lower, Section: Fairness, Stats: true, Doc: "mean ρ over rated finished jobs",
		Get: fair(func(f *sim.Fairness) float64 { return f.MeanRho })},
	{Key: "frac_rho_above_1", Path: "fairness.frac_rho_above_1", Unit: "ratio", Better: Lower, Section: Fairness, Stats: true, Doc: "share of rated jobs with ρ > 1 (worse off than on their fair share)",
		Get: fair(func(f *sim.Fairness) float64 { return f.FracRhoAbove1 })},
	{Key: "jain_gpu_share", Path: "fairness.jain_gpu_share", Unit: "ratio", Better: Higher, Section: Fairness, Stats: true, Doc: "Jain's index of the tenants' GPU share per weight",
		Get: fair(func(f *sim.Fairness) float64 { return f.JainShare })},
	{Key: "jain_slowdown", Path: "fairness.jain_slowdown", Unit: "ratio", Better: Higher, Section: Fairness, Stats: true, Doc: "Jain's index of the tenants' mean slowdowns",
		Get: fair(func(f *sim.Fairness) float64 { return f.JainSlowdown })},
	{Key: "over_cap_gpu_seconds", Path: "fairness.over_cap_gpu_seconds", Unit: "GPU-s", Section: Fairness, Stats: true, Doc: "GPU-seconds tenants held beyond their caps",
		Get: fair(func(f *sim.Fairness) float64 { return f.OverCapSeconds })},
	{Key: "quota_reclaims", Path: "fairness.quota.reclaims", Unit: "count", Section: Fairness, Stats: true, Doc: "preemptions by the quota wrapper to give tenants their guarantees (quota runs only)",
		Get: quota(func(q *sim.QuotaCounts) int { return q.Reclaims })},
	{Key: "quota_reclaimed_gpus", Path: "fairness.quota.reclaimed_gpus", Unit: "count", Section: Fairness, Stats: true, Doc: "GPUs those reclaims freed",
		Get: quota(func(q *sim.QuotaCounts) int { return q.ReclaimedGPUs })},
	{Key: "quota_vetoed", Path: "fairness.quota.vetoed", Unit: "count", Section: Fairness, Stats: true, Doc: "inner-policy actions the quota wrapper refused",
		Get: quota(func(q *sim.QuotaCounts) int { return q.Vetoed })},
	{Key: "quota_violations", Path: "fairness.quota.violations", Unit: "count", Better: Lower, Section: Fairness, Stats: true, Doc: "rounds a tenant was held beyond its cap",
		Get: quota(func(q *sim.QuotaCounts) int { return q.Violations })},
	{Key: "rated_jobs", Path: "fairness.rated_jobs", Unit: "jobs", Section: Fairness, Stats: true, Doc: "finished jobs with a ρ",
		Get: fair(func(f *sim.Fairness) float64 { return float64(f.Rated) })},
	{Key: "unrated_jobs", Path: "fairness.unrated_jobs", Unit: "jobs", Section: Fairness, Stats: true, Doc: "finished jobs without a ρ (no isolated run time)",
		Get: fair(func(f *sim.Fairness) float64 { return float64(f.Unrated) })},
	{Key: "fairness_dropped_jobs", Column: "-", Path: "fairness.dropped_jobs", Unit: "jobs", Section: Fairness, Doc: "dropped jobs, which have no ρ (summary.json only: jobs_dropped)",
		Get: fair(func(f *sim.Fairness) float64 { return float64(f.Dropped) })},
	{Key: "fairness_unfinished_jobs", Column: "-", Path: "fairness.unfinished_jobs", Unit: "jobs", Section: Fairness, Doc: "jobs running or pending at the end, which have no ρ (summary.json only: jobs_unfinished)",
		Get: fair(func(f *sim.Fairness) float64 { return float64(f.Unfinished) })},

	// Energy, money and carbon (docs/energy.md): runs with --energy.
	{Key: "energy_kwh", Path: "energy.kwh", Unit: "kWh", Better: Lower, Section: Energy, Stats: true, Compared: "energy_reduction",
		Doc:   "facility energy over the window: every GPU, busy or idle, with its server share, × PUE",
		Label: "energy (kWh)", Get: energy(func(e *sim.Energy) float64 { return e.KWh })},
	{Key: "energy_jobs_kwh", Path: "energy.jobs_kwh", Unit: "kWh", Section: Energy, Stats: true, Doc: "facility energy of the GPUs jobs held (computing or reconfiguring)",
		Get: energy(func(e *sim.Energy) float64 { return e.JobsKWh })},
	{Key: "energy_idle_kwh", Path: "energy.idle_kwh", Unit: "kWh", Better: Lower, Section: Energy, Stats: true, Doc: "facility energy of GPUs powered but held by no job",
		Label: "idle energy (kWh)", Get: energy(func(e *sim.Energy) float64 { return e.IdleKWh })},
	{Key: "energy_reconfig_kwh", Path: "energy.reconfig_kwh", Unit: "kWh", Better: Lower, Section: Energy, Stats: true, Doc: "facility energy of GPUs held while their job paid an overhead (start, resize, migration), failure recovery excluded",
		Label: "reconfiguration energy (kWh)", Get: energy(func(e *sim.Energy) float64 { return e.ReconfigKWh })},
	{Key: "energy_failure_kwh", Path: "energy.failure_kwh", Unit: "kWh", Better: Lower, Section: Energy, Stats: true, Doc: "facility energy lost to failures: work redone plus restart and restore (0 without the fault model)",
		Label: "energy lost to failures (kWh)", When: func(s *sim.Summary) bool { return s.Faults != nil },
		Get: energy(func(e *sim.Energy) float64 { return e.FailureKWh })},
	{Key: "energy_gpu_kwh", Path: "energy.gpu_kwh", Unit: "kWh", Section: Energy, Doc: "the GPUs' own energy (no server share, no PUE)",
		Get: energy(func(e *sim.Energy) float64 { return e.GPUKWh })},
	{Key: "kg_co2", Path: "energy.kg_co2", Unit: "kg CO2eq", Better: Lower, Section: Energy, Stats: true, Compared: "carbon_reduction",
		Doc:   "facility energy × the grid's carbon intensity at each instant",
		Label: "carbon (kg CO2eq)", Get: energy(func(e *sim.Energy) float64 { return e.KgCO2 })},
	{Key: "jobs_kg_co2", Path: "energy.jobs_kg_co2", Unit: "kg CO2eq", Better: Lower, Section: Energy, Stats: true, Compared: "jobs_carbon_reduction",
		Doc: "the carbon of the GPU-time jobs held (energy_jobs_kwh at the intensity of when they held it): what shifting work in time changes",
		Get: energy(func(e *sim.Energy) float64 { return e.JobsKgCO2 })},
	{Key: "electricity_usd", Path: "energy.electricity_usd", Unit: "$", Better: Lower, Section: Energy, Stats: true, Doc: "facility energy × the electricity price",
		Label: "electricity ($)", Get: energy(func(e *sim.Energy) float64 { return e.ElectricityUSD })},
	{Key: "gpu_cost_usd", Path: "energy.gpu_cost_usd", Unit: "$", Better: Lower, Section: Energy, Stats: true, Compared: "cost_reduction",
		Doc:   "GPU-hours jobs held × the price tier's $/GPU-hour of their type (renting them by use)",
		Label: "GPU cost ($)", Get: energy(func(e *sim.Energy) float64 { return e.GPUCostUSD })},
	{Key: "cluster_cost_usd", Path: "energy.cluster_cost_usd", Unit: "$", Section: Energy, Doc: "every GPU of the cluster over the window × its type's $/GPU-hour (renting the cluster)",
		Get: energy(func(e *sim.Energy) float64 { return e.ClusterCostUSD })},
	{Key: "joules_per_sample", Path: "energy.joules_per_sample", Unit: "J/sample", Better: Lower, Section: Energy, Stats: true, Doc: "facility energy per useful sample: per sample processed, or with the fault model per sample of kept progress (goodput × window)",
		Label: "energy per sample (J)", Digits: 1, Get: energy(func(e *sim.Energy) float64 { return e.JoulesPerSample })},
	{Key: "mg_co2_per_sample", Path: "energy.mg_co2_per_sample", Unit: "mg CO2eq/sample", Better: Lower, Section: Energy, Stats: true, Doc: "carbon per useful sample (as joules_per_sample)",
		Label: "carbon per sample (mg)", Digits: 2, Get: energy(func(e *sim.Energy) float64 { return e.MgCO2PerSample })},
	{Key: "mean_gpu_watts", Path: "energy.mean_gpu_watts", Unit: "W", Section: Energy, Doc: "mean power of one GPU over the window (GPU only)",
		Get: energy(func(e *sim.Energy) float64 { return e.MeanGPUWatts })},
	{Key: "p25_gpu_watts", Path: "energy.p25_gpu_watts", Unit: "W", Section: Energy, Doc: "25th percentile of per-GPU power over GPU-time",
		Get: energy(func(e *sim.Energy) float64 { return e.P25GPUWatts })},
	{Key: "p50_gpu_watts", Path: "energy.p50_gpu_watts", Unit: "W", Section: Energy, Doc: "median per-GPU power over GPU-time (Acme: 96.5 W Seren, 101.5 W Kalos)",
		Get: energy(func(e *sim.Energy) float64 { return e.P50GPUWatts })},
	{Key: "p75_gpu_watts", Path: "energy.p75_gpu_watts", Unit: "W", Section: Energy, Doc: "75th percentile of per-GPU power over GPU-time",
		Get: energy(func(e *sim.Energy) float64 { return e.P75GPUWatts })},
	{Key: "near_tdp_share", Path: "energy.near_tdp_share", Unit: "ratio", Section: Energy, Doc: "share of GPU-time at or above 90 % of its type's TDP",
		Get: energy(func(e *sim.Energy) float64 { return e.NearTDPShare })},
	// Network (docs/topology.md): runs on a cluster with a topology.
	{Key: "jobs_crossing_network", Path: "network.jobs_crossing", Unit: "jobs", Int: true, Section: Network, Stats: true,
		Doc:   "jobs that ran across fast domains (their collectives on the scale-out network) at some time",
		Label: "jobs across fast domains", Get: network(func(n *sim.NetworkSummary) float64 { return float64(n.JobsCrossing) })},
	{Key: "jobs_slowed_by_contention", Path: "network.jobs_slowed", Unit: "jobs", Int: true, Better: Lower, Section: Network, Stats: true,
		Doc: "of those, jobs whose mean contention slowdown is over 1 (they shared a congested uplink)",
		Get: network(func(n *sim.NetworkSummary) float64 { return float64(n.JobsSlowed) })},
	{Key: "mean_contention_slowdown", Path: "network.mean_contention_slowdown", Unit: "ratio", Better: Lower, Section: Network, Stats: true,
		Doc:   "mean over jobs across fast domains of their time-weighted contention slowdown: iteration time over the time alone on the fabric (1: none)",
		Label: "contention slowdown mean / max", Show: func(s *sim.Summary) string {
			return fmt.Sprintf("%.3f / %.3f", s.Network.MeanSlowdown, s.Network.MaxSlowdown)
		}, Get: network(func(n *sim.NetworkSummary) float64 { return n.MeanSlowdown })},
	{Key: "p99_contention_slowdown", Path: "network.p99_contention_slowdown", Unit: "ratio", Better: Lower, Section: Network, Stats: true,
		Doc: "99th percentile of the same per-job slowdowns", Get: network(func(n *sim.NetworkSummary) float64 { return n.P99Slowdown })},
	{Key: "max_contention_slowdown", Path: "network.max_contention_slowdown", Unit: "ratio", Better: Lower, Section: Network, Stats: true,
		Doc: "the largest of the same per-job slowdowns", Get: network(func(n *sim.NetworkSummary) float64 { return n.MaxSlowdown })},
	{Key: "tier1_link_utilisation", Path: "network.tier1_utilisation", Unit: "ratio", Section: Network, Stats: true,
		Doc:   "the innermost switch tier's (rack) uplinks: bandwidth used over the window ÷ their capacity × the window (network.tiers names the tier)",
		Label: "uplink utilisation by tier", Show: func(s *sim.Summary) string {
			var b strings.Builder
			for i, t := range s.Network.Tiers {
				if i > 0 {
					b.WriteString(" · ")
				}
				fmt.Fprintf(&b, "%s %.1f%%", t.Tier, 100*t.Utilisation)
			}
			return b.String()
		}, Get: network(func(n *sim.NetworkSummary) (float64, bool) { return opt(n.Tier1Utilisation) })},
	{Key: "tier2_link_utilisation", Path: "network.tier2_utilisation", Unit: "ratio", Section: Network, Stats: true,
		Doc: "the second switch tier's (pod) uplinks, as tier1_link_utilisation; none without a second tier", Get: network(func(n *sim.NetworkSummary) (float64, bool) { return opt(n.Tier2Utilisation) })},
	{Key: "tier3_link_utilisation", Path: "network.tier3_utilisation", Unit: "ratio", Section: Network, Stats: true,
		Doc: "the third switch tier's uplinks, as tier1_link_utilisation; none without a third tier", Get: network(func(n *sim.NetworkSummary) (float64, bool) { return opt(n.Tier3Utilisation) })},
	{Key: "contention_updates", Path: "network.updates", Unit: "count", Int: true, Section: Network,
		Doc: "contention updates: a job joining or leaving the network's links (each re-times the jobs on those links)",
		Get: network(func(n *sim.NetworkSummary) float64 { return float64(n.Updates) })},
}

// network reads a value of the network section: f returns a float64, or
// a float64 and whether the run has it.
func network[F func(*sim.NetworkSummary) float64 | func(*sim.NetworkSummary) (float64, bool)](f F) func(*sim.Summary) (float64, bool) {
	return func(s *sim.Summary) (float64, bool) {
		if s.Network == nil {
			return 0, false
		}
		switch g := any(f).(type) {
		case func(*sim.NetworkSummary) float64:
			return g(s.Network), true
		case func(*sim.NetworkSummary) (float64, bool):
			return g(s.Network)
		}
		return 0, false
	}
}

func opt(x *float64) (float64, bool) {
	if x == nil {
		return 0, false
	}
	return *x, true
}
