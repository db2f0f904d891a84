package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/fairness"
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
	if err := outdir.Subdir(runsDir); err != nil { // never a link out of OUT
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
			if CompleteRun(dir, r) {
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
	// (a killed merge's summary.parquet, a killed run's directory).
	if err := outdir.Subdir(filepath.Join(opt.Out, RunsDir)); err != nil { // never a link out of OUT
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := errors.Join(outdir.Clean(opt.Out), outdir.Clean(filepath.Join(opt.Out, RunsDir))); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var missing []string
	var loaded []*Results
	for _, pr := range plan.Runs {
		dir := RunDir(opt.Out, pr.Key)
		if !CompleteRun(dir, pr) {
			for _, from := range opt.From {
				src := RunDir(from, pr.Key)
				if CompleteRun(src, pr) {
					if err := copyRunDir(src, dir); err != nil {
						return nil, err
					}
					break
				}
			}
		}
		if err := incomplete(dir, pr.Key, &pr); err != nil {
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
		rows[i] = SummaryRow{Key: r.Record.Key, Group: r.Record.Group, Summary: r.Summary}
		rows[i].Density, rows[i].Seed = runner.Density(r.Record.Density), r.Record.Seed
		rows[i].Population = Population(r.Record.Run, &r.Summary)
		rows[i].Window = windowOf(r.Record.Run, &r.Summary)
		if run := r.Record.Run; run != nil {
			rows[i].FaultsKey = faultsKey(*run)
			if rows[i].FaultsKey != "" {
				rows[i].FaultsName = faultsName(*run)
			}
		}
	}
	recharge(rows)
	addSeedStats(rows)
	return rows
}

// copyRunDir copies a complete run directory into dst, replacing dst
// whole: the files src's manifest lists, as verified (outdir.ReadVerified:
// the bytes copied are the bytes checked).
func copyRunDir(src, dst string) error {
	verified, err := outdir.ReadVerified(src, RunFile, resultsdir.SummaryFile, resultsdir.JobsFile)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	err = outdir.ReplaceDir(dst, slices.Concat(resultsdir.Names, []string{RunFile}, fairness.FileNames), func(tmp string) error {
		for _, f := range verified {
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
var ErrNoRuns = errors.New("sweep: no runs: every policy of the spec is unregistered")

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
var ErrRunTimeout = errors.New("sweep: run timed out")

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
