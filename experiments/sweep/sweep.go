package sweep

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/fairness"
	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// Layout of a sweep's output directory.
const (
	// RunsDir holds one results directory per run, named by its key.
	RunsDir = "runs"
	// SummaryParquet is the merged table, one row per run.
	SummaryParquet = "summary.parquet"
)

// Shard selects the I-th (0-based) of N disjoint slices of a sweep: run i
// of the plan belongs to shard i mod N. The zero value is the whole sweep.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N" with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || cnt < 1 || idx < 0 || idx >= cnt {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 0 ≤ I < N, e.g. 0/4 (Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)", s)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns the runs of the shard, in plan order.
func (s Shard) Select(runs []PlannedRun) []PlannedRun {
	if s.Count <= 1 {
		return runs
	}
	var out []PlannedRun
	for i, r := range runs {
		if i%s.Count == s.Index {
			out = append(out, r)
		}
	}
	return out
}

// SweepOptions control RunSweep.
type SweepOptions struct {
	Out      string
	Parallel int // workers; 0 = all cores
	Shard    Shard
	// Resume skips runs whose results are already complete in Out.
	Resume bool
	// RunTimeout, if positive, abandons a run that takes longer (wall
	// clock); it counts as failed and leaves no complete results.
	RunTimeout time.Duration
	// Progress, if set, is called after every run, finished or failed
	// (done of total; skipped runs count as done at the start). It is
	// called from one goroutine at a time.
	Progress func(done, total int, key string)
}

// SweepReport says what a sweep did.
type SweepReport struct {
	Total, Skipped, Ran int
	// Failed maps run keys to their errors; a failed run leaves no
	// complete results, so --resume retries it.
	Failed map[string]error
}

// RunDir is the results directory of a run of a sweep in out.
func RunDir(out, key string) string { return filepath.Join(out, RunsDir, key) }

// RunSweep executes the shard's runs of plan on a worker pool, storing each
// in Out/runs/<key>/. Cancelling ctx stops it after the runs in progress
// are abandoned; finished runs stay complete on disk.
func RunSweep(ctx context.Context, reg runner.Policies, plan *Plan, opt SweepOptions) (SweepReport, error) {
	runs := opt.Shard.Select(plan.Runs)
	rep := SweepReport{Total: len(runs), Failed: map[string]error{}}
	lock, err := lockOut(opt.Out, opt.Shard)
	if err != nil {
		return rep, err
	}
	defer lock.Unlock()
	runsDir := filepath.Join(opt.Out, RunsDir)
	if err := os.MkdirAll(runsDir, 0o777); err != nil {
		return rep, fmt.Errorf("sweep: %w", err)
	}
	var todo []PlannedRun
	var mixed []string
	for _, r := range runs {
		// This process owns r's directory (the lock): temporaries of it
		// are an interrupted earlier attempt's.
		if err := outdir.CleanFor(runsDir, r.Key); err != nil {
			return rep, fmt.Errorf("sweep: %w", err)
		}
		if opt.Resume {
			// Another version's run is refused whole or not (its files
			// are not this version's to redo); this version's is skipped
			// only if its files are as written (Complete).
			dir := RunDir(opt.Out, r.Key)
			if rec, err := readRunRecord(dir); err == nil && rec.Key == r.Key {
				if _, err := readSummary(dir); err == nil {
					if v := versionOf(dir); v != sim.Version() {
						mixed = append(mixed, fmt.Sprintf("%s (arena %s)", dir, cmp.Or(v, "before 0.9")))
						continue
					}
				}
			}
			if Complete(dir, r.Key) {
				rep.Skipped++
				continue
			}
		}
		todo = append(todo, r)
	}
	if len(mixed) > 0 {
		if len(mixed) > 5 {
			mixed = append(mixed[:5], fmt.Sprintf("… %d more", len(mixed)-5))
		}
		return rep, fmt.Errorf("sweep: --resume: %s holds runs of another arena version than this one (%s); results of different versions are not mixed — use a new --out, or remove those runs:\n  %s",
			opt.Out, sim.Version(), strings.Join(mixed, "\n  "))
	}
	// Longest runs first: the sweep's wall time is then close to its
	// total work divided by the workers, not one long run started last.
	rv := plan.resolver
	if rv == nil {
		rv = runner.NewResolver(reg)
	}
	slices.SortStableFunc(todo, func(a, b PlannedRun) int { return cmp.Compare(estimatedCost(rv, b.Run), estimatedCost(rv, a.Run)) })
	var mu sync.Mutex
	done := rep.Skipped
	if opt.Progress != nil {
		opt.Progress(done, rep.Total, "")
	}
	runner.Each(ctx, opt.Parallel, len(todo), func(i int) {
		r := todo[i]
		err := executeWithin(ctx, rv, r, RunDir(opt.Out, r.Key), opt.RunTimeout)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			rep.Ran++
		case ctx.Err() == nil:
			rep.Failed[r.Key] = err
		}
		if ctx.Err() == nil {
			done++ // a failed run is done too, as far as time left goes
			if opt.Progress != nil {
				opt.Progress(done, rep.Total, r.Key)
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if len(rep.Failed) > 0 {
		keys := sortedKeys(rep.Failed)
		var msgs []string
		for _, k := range keys {
			msgs = append(msgs, k+": "+rep.Failed[k].Error())
		}
		return rep, fmt.Errorf("sweep: %d of %d runs failed:\n  %s", len(keys), rep.Total, strings.Join(msgs, "\n  "))
	}
	return rep, nil
}

// versionOf returns the arena version recorded in a run directory's
// summary ("" for results written before versions were recorded).
func versionOf(dir string) string {
	s, err := readSummary(dir)
	if err != nil {
		return ""
	}
	return s.Version
}

// lockOut takes OUT's lock for a sweep: exclusive for a whole sweep,
// shared plus the shard's own for a shard (outdir.LockShard).
func lockOut(out string, shard Shard) (*outdir.Lock, error) {
	var lock *outdir.Lock
	var err error
	if shard.Count > 1 {
		lock, err = outdir.LockShard(out, shard.String())
	} else {
		lock, err = outdir.LockDir(out)
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return lock, nil
}

// SummaryRow is one row of summary.parquet: a run's parameters, its
// summary, its padded mean JCT within its group, and (in wall_* columns)
// the machine's timings, which differ between identical runs.
type SummaryRow struct {
	Key         string  `parquet:"run"`
	Group       string  `parquet:"group"`
	Trace       string  `parquet:"trace"`
	Cluster     string  `parquet:"cluster"`
	Policy      string  `parquet:"policy"`
	Timing      string  `parquet:"timing"`
	Estimator   string  `parquet:"estimator"`
	Rounds      int32   `parquet:"rounds"`
	Density     float64 `parquet:"density"`
	Seed        int64   `parquet:"seed"`
	HorizonS    float64 `parquet:"horizon_s"`
	JobsInTrace int32   `parquet:"jobs_in_trace"`
	Submitted   int32   `parquet:"jobs_submitted"`
	Finished    int32   `parquet:"jobs_finished"`
	Running     int32   `parquet:"jobs_running"`
	Pending     int32   `parquet:"jobs_pending"`
	Dropped     int32   `parquet:"jobs_dropped"`
	MeanJCT     float64 `parquet:"mean_jct_s"`
	MedianJCT   float64 `parquet:"median_jct_s"`
	P95JCT      float64 `parquet:"p95_jct_s"`
	P99JCT      float64 `parquet:"p99_jct_s"`
	// CensoredMeanJCT is the default comparison metric (sim.Summary): an
	// unfinished job counts its age at the horizon, so it does not depend
	// on which other policies share the group, unlike PaddedMeanJCT (the
	// artifact's metric, kept for paper parity).
	CensoredMeanJCT      float64 `parquet:"censored_mean_jct_s"`
	PaddedMeanJCT        float64 `parquet:"padded_mean_jct_s"`
	PadTo                int32   `parquet:"pad_to"`
	PadValue             float64 `parquet:"pad_value_s"`
	Makespan             float64 `parquet:"makespan_s"`
	MeanQueueing         float64 `parquet:"mean_queueing_s"`
	MeanQueueingFinished float64 `parquet:"mean_queueing_finished_s"`
	MeanThroughput       float64 `parquet:"mean_throughput_samples_per_s"`
	PeakThroughput       float64 `parquet:"peak_throughput_samples_per_s"`
	Reconfigurations     int32   `parquet:"reconfigurations"`
	// SolverBudgetHits and ArtifactAssertionsFailed are summary.json's
	// solver_budget_hits and artifact_assertions_failed; null for
	// policies without a budget or without the artifact's assertions.
	SolverBudgetHits         *int32 `parquet:"solver_budget_hits,optional"`
	ArtifactAssertionsFailed *int32 `parquet:"artifact_assertions_failed,optional"`
	// Utilization is the mean busy share (0–1) per GPU type, written as
	// one utilization_<type> column per type ("-" as "_"; NaN where the
	// run's cluster lacks the type).
	Utilization map[string]float64 `parquet:"-"`
	// ArenaVersion and InputHash identify the code and the inputs (see
	// sim.Identity).
	ArenaVersion    string  `parquet:"arena_version"`
	InputHash       string  `parquet:"input_hash"`
	WallRunS        float64 `parquet:"wall_run_s"`
	WallDecisions   int32   `parquet:"wall_decisions"`
	WallDecisionSum float64 `parquet:"wall_decision_total_s"`
	WallDecisionP99 float64 `parquet:"wall_decision_p99_s"`
	// Across seeds (seedstats.go): Seeds is the number of seeds of the
	// row's cell (every parameter but the seed); <metric>_mean/_ci_lo/_ci_hi
	// are each headline metric's mean and 95 % t-interval over them
	// (package ci, ci_method; null bounds with fewer than two seeds);
	// jct_reduction and throughput_ratio (with bounds) compare this row's
	// policy and the reference policy, paired by seed (comparison; null on
	// the reference's own rows).
	Seeds               int32    `parquet:"seeds"`
	FinishedMean        float64  `parquet:"jobs_finished_mean"`
	FinishedCILo        *float64 `parquet:"jobs_finished_ci_lo,optional"`
	FinishedCIHi        *float64 `parquet:"jobs_finished_ci_hi,optional"`
	MeanJCTMean         float64  `parquet:"mean_jct_s_mean"`
	MeanJCTCILo         *float64 `parquet:"mean_jct_s_ci_lo,optional"`
	MeanJCTCIHi         *float64 `parquet:"mean_jct_s_ci_hi,optional"`
	MedianJCTMean       float64  `parquet:"median_jct_s_mean"`
	MedianJCTCILo       *float64 `parquet:"median_jct_s_ci_lo,optional"`
	MedianJCTCIHi       *float64 `parquet:"median_jct_s_ci_hi,optional"`
	P95JCTMean          float64  `parquet:"p95_jct_s_mean"`
	P95JCTCILo          *float64 `parquet:"p95_jct_s_ci_lo,optional"`
	P95JCTCIHi          *float64 `parquet:"p95_jct_s_ci_hi,optional"`
	P99JCTMean          float64  `parquet:"p99_jct_s_mean"`
	P99JCTCILo          *float64 `parquet:"p99_jct_s_ci_lo,optional"`
	P99JCTCIHi          *float64 `parquet:"p99_jct_s_ci_hi,optional"`
	CensoredMeanJCTMean float64  `parquet:"censored_mean_jct_s_mean"`
	CensoredMeanJCTCILo *float64 `parquet:"censored_mean_jct_s_ci_lo,optional"`
	CensoredMeanJCTCIHi *float64 `parquet:"censored_mean_jct_s_ci_hi,optional"`
	PaddedMeanJCTMean   float64  `parquet:"padded_mean_jct_s_mean"`
	PaddedMeanJCTCILo   *float64 `parquet:"padded_mean_jct_s_ci_lo,optional"`
	PaddedMeanJCTCIHi   *float64 `parquet:"padded_mean_jct_s_ci_hi,optional"`
	MakespanMean        float64  `parquet:"makespan_s_mean"`
	MakespanCILo        *float64 `parquet:"makespan_s_ci_lo,optional"`
	MakespanCIHi        *float64 `parquet:"makespan_s_ci_hi,optional"`
	MeanQueueingMean    float64  `parquet:"mean_queueing_s_mean"`
	MeanQueueingCILo    *float64 `parquet:"mean_queueing_s_ci_lo,optional"`
	MeanQueueingCIHi    *float64 `parquet:"mean_queueing_s_ci_hi,optional"`
	MeanThroughputMean  float64  `parquet:"mean_throughput_mean"`
	MeanThroughputCILo  *float64 `parquet:"mean_throughput_ci_lo,optional"`
	MeanThroughputCIHi  *float64 `parquet:"mean_throughput_ci_hi,optional"`
	PeakThroughputMean  float64  `parquet:"peak_throughput_mean"`
	PeakThroughputCILo  *float64 `parquet:"peak_throughput_ci_lo,optional"`
	PeakThroughputCIHi  *float64 `parquet:"peak_throughput_ci_hi,optional"`
	RefPolicy           string   `parquet:"ref_policy"`
	// JCTReduction is, per seed, 1 − the compared policy's
	// submitted_mean_jct_s (the default comparison metric) / the other's,
	// averaged over seeds: 1 − arena's / this policy's by default, 1 −
	// this policy's / the baseline's with a baseline.
	JCTReduction     *float64 `parquet:"jct_reduction,optional"`
	JCTReductionCILo *float64 `parquet:"jct_reduction_ci_lo,optional"`
	JCTReductionCIHi *float64 `parquet:"jct_reduction_ci_hi,optional"`
	// PaddedJCTReduction is the same with the artifact's padded mean JCT
	// (padded within the seed's comparison group): the paper's metric.
	PaddedJCTReduction     *float64 `parquet:"padded_jct_reduction,optional"`
	PaddedJCTReductionCILo *float64 `parquet:"padded_jct_reduction_ci_lo,optional"`
	PaddedJCTReductionCIHi *float64 `parquet:"padded_jct_reduction_ci_hi,optional"`
	// ThroughputRatio is mean throughput, per seed, in the same direction
	// (arena's / this policy's; this policy's / the baseline's).
	ThroughputRatio     *float64 `parquet:"throughput_ratio,optional"`
	ThroughputRatioCILo *float64 `parquet:"throughput_ratio_ci_lo,optional"`
	ThroughputRatioCIHi *float64 `parquet:"throughput_ratio_ci_hi,optional"`

	// summary.json's fields of the same names (sim.Summary): the default
	// comparison metric over every submitted job, its percentiles, the
	// bounded slowdown and the queue left on an idle cluster.
	SubmittedMeanJCT    float64 `parquet:"submitted_mean_jct_s"`
	SubmittedP50JCT     float64 `parquet:"submitted_p50_jct_s"`
	SubmittedP95JCT     float64 `parquet:"submitted_p95_jct_s"`
	SubmittedP99JCT     float64 `parquet:"submitted_p99_jct_s"`
	MeanBoundedSlowdown float64 `parquet:"mean_bounded_slowdown"`
	P99BoundedSlowdown  float64 `parquet:"p99_bounded_slowdown"`
	StuckPending        int32   `parquet:"jobs_stuck_pending"`

	SubmittedMeanJCTMean float64  `parquet:"submitted_mean_jct_s_mean"`
	SubmittedMeanJCTCILo *float64 `parquet:"submitted_mean_jct_s_ci_lo,optional"`
	SubmittedMeanJCTCIHi *float64 `parquet:"submitted_mean_jct_s_ci_hi,optional"`
	BoundedSlowdownMean  float64  `parquet:"mean_bounded_slowdown_mean"`
	BoundedSlowdownCILo  *float64 `parquet:"mean_bounded_slowdown_ci_lo,optional"`
	BoundedSlowdownCIHi  *float64 `parquet:"mean_bounded_slowdown_ci_hi,optional"`
	// CIMethod names the interval of every _ci_lo/_ci_hi column
	// ("t-interval": Student-t over the seeds, paired for the ratios).
	CIMethod string `parquet:"ci_method"`
	// Comparison says which way jct_reduction and throughput_ratio go
	// (ref_policy is the policy compared with: arena, or the baseline):
	// "arena vs fcfs" (the paper's default: arena's reduction against
	// this row's policy) or, with a baseline (--baseline, the spec's
	// baseline key), "fcfs vs sia" (this row's policy against it).
	Comparison string `parquet:"comparison"`

	// Under model error (sensitivity.go, markRobust; null/empty when no
	// sensitivity analysis ran).
	Robust            *bool  `parquet:"robust,optional"`
	Robustness        string `parquet:"robustness"`
	RankingRobust     *bool  `parquet:"ranking_robust,optional"`
	RankingRobustness string `parquet:"ranking_robustness"`
	SensitivityGrid   string `parquet:"sensitivity_grid"`

	// Fairness is summary.json's fairness (runs with tenants; nil
	// otherwise), FairSeeds each fairness column's mean and interval over
	// the seeds (fairrows.go): written as columns of their own only when a
	// row has them. Extra holds, read back from a table, the numeric
	// columns beyond SummaryRow's own and the utilisation ones.
	// Faults is the run's faults and checkpoint model as its run key
	// names them (".f-llama3.ck1800-30-60"; "" without): runs differing in
	// them are different cells of the seed statistics. Not a column: the
	// run and group columns carry it.
	Faults    string                 `parquet:"-"`
	Fairness  *sim.Fairness          `parquet:"-"`
	FairSeeds map[string]ci.Interval `parquet:"-"`
	Extra     map[string]float64     `parquet:"-"`
}

// MergeOptions control MergeSweep.
type MergeOptions struct {
	Out string
	// From lists other sweep output directories (e.g. shards run on other
	// machines) whose complete runs are copied into Out first.
	From []string
	// Partial writes the table even when runs are missing.
	Partial bool
	// Baseline is the policy the comparison columns are against (""
	// the paper's form, arena against each; SetBaseline).
	Baseline string
	// Sensitivity, when set, fills the robustness columns from the
	// perturbed runs in SensitivityDir(Out) (MarkRobust).
	Sensitivity *Sensitivity
}

// MergeSweep gathers the complete runs of plan (from Out and opt.From)
// into Out/runs, computes padded mean JCTs per comparison group and writes
// Out/summary.parquet with one row per run in plan order. The result is
// the same whichever shards ran which runs.
func MergeSweep(plan *Plan, opt MergeOptions) ([]SummaryRow, error) {
	lock, err := lockOut(opt.Out, Shard{})
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	// Alone in OUT: any temporary there is an interrupted writer's
	// (a killed merge's .summary.parquet.tmp-*, a killed run's directory).
	if err := errors.Join(outdir.Clean(opt.Out), outdir.Clean(filepath.Join(opt.Out, RunsDir))); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var missing []string
	var loaded []*Results
	for _, pr := range plan.Runs {
		dir := RunDir(opt.Out, pr.Key)
		if !Complete(dir, pr.Key) {
			for _, from := range opt.From {
				src := RunDir(from, pr.Key)
				if Complete(src, pr.Key) {
					if err := copyRunDir(src, dir); err != nil {
						return nil, err
					}
					break
				}
			}
		}
		if err := incomplete(dir, pr.Key); err != nil {
			why := ""
			if !errors.Is(err, fs.ErrNotExist) {
				why = " (" + shorten(err.Error()) + ")"
			}
			missing = append(missing, pr.Key+why)
			continue
		}
		r, err := LoadResults(dir, false)
		if err != nil {
			return nil, err
		}
		loaded = append(loaded, r)
	}
	if len(missing) > 0 && !opt.Partial {
		show := missing
		if len(show) > 10 {
			show = append(show[:10:10], fmt.Sprintf("… %d more", len(missing)-10))
		}
		return nil, fmt.Errorf("merge: %d of %d runs have no complete results in %s (run the missing shards, or --resume):\n  %s",
			len(missing), len(plan.Runs), strings.Join(append([]string{opt.Out}, opt.From...), ", "), strings.Join(show, "\n  "))
	}
	rows := SummaryRows(loaded)
	if err := SetBaseline(rows, opt.Baseline); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if opt.Sensitivity != nil {
		if err := MarkRobust(rows, plan, opt.Out, *opt.Sensitivity, opt.Baseline, opt.Partial); err != nil {
			return nil, err
		}
	}
	data, err := EncodeSummaryParquet(rows)
	if err != nil {
		return nil, err
	}
	if err := resultsdir.WriteFileAtomic(filepath.Join(opt.Out, SummaryParquet), data); err != nil {
		return nil, err
	}
	return rows, nil
}

// PadGroups applies sim.PadMeans within each comparison group of rs (the
// runs sharing every parameter but the policy), in place.
func PadGroups(rs []*Results) {
	groups := map[string][]*Results{}
	var order []string
	for _, r := range rs {
		if _, ok := groups[r.Record.Group]; !ok {
			order = append(order, r.Record.Group)
		}
		groups[r.Record.Group] = append(groups[r.Record.Group], r)
	}
	for _, g := range order {
		members := groups[g]
		sums := make([]*sim.Summary, len(members))
		jcts := make([][]float64, len(members))
		for i, r := range members {
			sums[i], jcts[i] = &r.Summary, r.Record.JCTs
		}
		sim.PadMeans(sums, jcts)
	}
}

// SummaryRows pads the runs' means within their groups and flattens them.
func SummaryRows(rs []*Results) []SummaryRow {
	PadGroups(rs)
	return SummaryRowsAsPadded(rs)
}

// SummaryRowsAsPadded flattens runs whose padded means are already set
// (e.g. over a wider set than rs), with the across-seed columns.
func SummaryRowsAsPadded(rs []*Results) []SummaryRow {
	rows := make([]SummaryRow, len(rs))
	for i, r := range rs {
		s, rec := r.Summary, r.Record
		rows[i] = SummaryRow{
			Key: rec.Key, Group: rec.Group, Trace: s.Trace, Cluster: s.Cluster, Policy: s.Policy, Timing: s.Timing,
			Estimator: s.Estimator, Rounds: int32(s.Rounds), Density: runner.Density(rec.Density), Seed: rec.Seed,
			HorizonS: s.HorizonS, JobsInTrace: int32(s.JobsInTrace), Submitted: int32(s.Submitted), Finished: int32(s.Finished),
			Running: int32(s.Running), Pending: int32(s.Pending), Dropped: int32(s.Dropped),
			MeanJCT: s.MeanJCT, MedianJCT: s.MedianJCT, P95JCT: s.P95JCT, P99JCT: s.P99JCT,
			CensoredMeanJCT: s.CensoredMeanJCT, PaddedMeanJCT: s.PaddedMeanJCT, PadTo: int32(s.PadTo), PadValue: s.PadValue, Makespan: s.Makespan,
			SubmittedMeanJCT: s.SubmittedMeanJCT, SubmittedP50JCT: s.SubmittedP50JCT, SubmittedP95JCT: s.SubmittedP95JCT, SubmittedP99JCT: s.SubmittedP99JCT,
			MeanBoundedSlowdown: s.MeanBoundedSlowdown, P99BoundedSlowdown: s.P99BoundedSlowdown, StuckPending: int32(s.StuckPending),
			MeanQueueing: s.MeanQueueing, MeanQueueingFinished: s.MeanQueueingFinished,
			MeanThroughput: s.MeanThroughput, PeakThroughput: s.PeakThroughput, Reconfigurations: int32(s.Reconfigurations),
			Utilization: s.Utilization, ArenaVersion: s.Version, InputHash: s.InputHash,
			WallRunS: s.Wallclock.RunS, WallDecisions: int32(s.Wallclock.Decisions),
			WallDecisionSum: s.Wallclock.DecisionSum, WallDecisionP99: s.Wallclock.DecisionP99,
			SolverBudgetHits: int32Ptr(s.SolverBudgetHits), ArtifactAssertionsFailed: int32Ptr(s.ArtifactAssertionsFailed),
			Fairness: s.Fairness,
		}
		if rec.Run != nil {
			rows[i].Faults = faultsKey(*rec.Run)
		}
	}
	addSeedStats(rows)
	return rows
}

func int32Ptr(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}

// utilizationColumn names a GPU type's utilisation column.
func utilizationColumn(t string) string { return "utilization_" + strings.ReplaceAll(t, "-", "_") }

// EncodeSummaryParquet encodes summary rows: SummaryRow's columns, then one
// utilization_<type> column per GPU type of any row.
func EncodeSummaryParquet(rows []SummaryRow) ([]byte, error) {
	var types []string
	for _, r := range rows {
		for t := range r.Utilization {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	slices.Sort(types)
	// SummaryRow's fields are copied one by one, not embedded: parquet-go
	// (v0.32) writes a pointer to a zero value as null when the pointer
	// sits in an anonymous struct of a reflect.StructOf type, which turned
	// a 0 count or a confidence bound of exactly 0 into a missing value.
	base := reflect.TypeFor[SummaryRow]()
	var fields []reflect.StructField
	for i := range base.NumField() {
		sf := base.Field(i)
		fields = append(fields, reflect.StructField{Name: sf.Name, Type: sf.Type, Tag: sf.Tag})
	}
	nBase := len(fields)
	for i, t := range types {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("U%d", i), Type: reflect.TypeFor[float64](),
			Tag: reflect.StructTag(`parquet:"` + utilizationColumn(t) + `"`)})
	}
	extra := fairColumns(rows)
	for i, c := range extra {
		fields = append(fields, c.structField(i))
	}
	rowType := reflect.StructOf(fields)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(rowType).Interface()))
	for _, r := range rows {
		v := reflect.New(rowType).Elem()
		rv := reflect.ValueOf(r)
		for i := range nBase {
			v.Field(i).Set(rv.Field(i))
		}
		for i, t := range types {
			u, ok := r.Utilization[t]
			if !ok {
				u = math.NaN()
			}
			v.Field(nBase + i).SetFloat(u)
		}
		for i, c := range extra {
			c.set(v.Field(nBase+len(types)+i), &r)
		}
		if err := w.Write(v.Addr().Interface()); err != nil {
			return nil, fmt.Errorf("summary.parquet: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("summary.parquet: %w", err)
	}
	return buf.Bytes(), nil
}

// ReadSummaryParquet reads a summary table, utilisation columns included.
func ReadSummaryParquet(file string) ([]SummaryRow, error) {
	rows, err := pq.ReadAll[SummaryRow](file)
	if err != nil {
		return nil, err
	}
	pf, err := pq.Open(file)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	cols := map[int]string{}
	extra := map[int]string{} // numeric columns beyond SummaryRow's (fairrows.go)
	own := map[string]bool{}
	for _, fl := range parquet.SchemaOf(new(SummaryRow)).Fields() {
		own[fl.Name()] = true
	}
	for i, fl := range pf.Schema().Fields() {
		if t, ok := strings.CutPrefix(fl.Name(), "utilization_"); ok {
			cols[i] = t
		} else if !own[fl.Name()] && fl.Type().Kind() == parquet.Double {
			extra[i] = fl.Name()
		}
	}
	if len(cols) == 0 && len(extra) == 0 {
		return rows, nil
	}
	k := 0
	err = pf.EachRow(func(row parquet.Row) error {
		if k >= len(rows) {
			return fmt.Errorf("%s: more rows than the first read", file)
		}
		if len(cols) > 0 {
			rows[k].Utilization = map[string]float64{}
		}
		for _, v := range row {
			if t, ok := cols[v.Column()]; ok && !math.IsNaN(v.Double()) {
				rows[k].Utilization[t] = v.Double()
			}
			if n, ok := extra[v.Column()]; ok && !v.IsNull() {
				if rows[k].Extra == nil {
					rows[k].Extra = map[string]float64{}
				}
				rows[k].Extra[n] = v.Double()
			}
		}
		k++
		return nil
	})
	return rows, err
}

// WithoutWallclock returns rows with the machine-dependent wall_* columns
// zeroed: two identical sweeps agree on everything else byte for byte.
func WithoutWallclock(rows []SummaryRow) []SummaryRow {
	out := append([]SummaryRow(nil), rows...)
	for i := range out {
		out[i].WallRunS, out[i].WallDecisions, out[i].WallDecisionSum, out[i].WallDecisionP99 = 0, 0, 0, 0
	}
	return out
}

// copyRunDir copies a complete run directory (its regular, visible
// files) into dst, replacing dst whole.
func copyRunDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	var files []resultsdir.File
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			files = append(files, resultsdir.File{Name: e.Name(), Data: data})
		}
	}
	err = outdir.ReplaceDir(dst, slices.Concat(resultsdir.Names, []string{RunFile}, fairness.FileNames), func(tmp string) error {
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o666); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return nil
}

// ErrNoRuns is returned when a plan has nothing to run.
var ErrNoRuns = errors.New("no runs: every policy of the spec is unregistered")

// EstimatedCost ranks runs by expected run time, for scheduling only:
// rounds × load density × the policy entry's relative decision cost
// (Entry.Cost: Arena and the ILP baselines search far more per round than
// the queue-based policies). An unknown policy counts as cost 1.
func EstimatedCost(reg runner.Policies, r runner.Run) float64 {
	return estimatedCost(runner.NewResolver(reg), r)
}

func estimatedCost(rv *runner.Resolver, r runner.Run) float64 {
	rounds := float64(r.Rounds)
	if rounds <= 0 {
		rounds = 500
		if r.Trace == "philly" {
			rounds = 2000
		}
	}
	factor := 1.0
	if ps, err := rv.ParsePolicy(r.Policy); err == nil && ps.Entry.Cost > 0 {
		factor = ps.Entry.Cost
	}
	return rounds * max(runner.Density(r.Density), 0.25) * factor
}

// ErrRunTimeout marks a run abandoned for exceeding SweepOptions.RunTimeout.
var ErrRunTimeout = errors.New("run timed out")

func executeWithin(ctx context.Context, rv *runner.Resolver, r PlannedRun, dir string, timeout time.Duration) error {
	if timeout <= 0 {
		_, err := executeTo(ctx, rv, r, dir)
		return err
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := executeTo(runCtx, rv, r, dir)
	if err != nil && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: abandoned after %s of wall-clock time (--run-timeout)", ErrRunTimeout, timeout)
	}
	return err
}
