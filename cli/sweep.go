package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments"
	"github.com/arena-sim/arena/policy"
)

type sweepFlags struct {
	out, shard, emit, image, claim string
	parallel, shards, maxRounds    int
	runTimeout                     time.Duration
	resume, merge, partial, quiet  bool
	from                           []string
}

func init() { commands = append(commands, newSweepCmd) }

func newSweepCmd(reg *policy.Registry) *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep SPEC.yaml",
		Short: "Run the cross product of an experiment spec on a worker pool (resumable, shardable)",
		Long: `sweep runs every combination of an experiment spec's traces, clusters, policies,
timing modes, densities, seeds and estimators (docs/experiments.md describes the
YAML). Each run's results go to OUT/runs/<run>/ (run.json, jobs.parquet,
timeline.parquet, rounds.csv, summary.json — written atomically, summary.json
last); OUT/summary.parquet has one row per run, with padded mean JCTs computed
within each comparison group.

--resume skips runs already complete, so a killed or interrupted sweep loses
nothing but the runs in progress. --shard I/N runs only runs i with i mod N = I
(0-based), e.g. one Slurm array task; --merge then joins the shards' runs into
OUT/summary.parquet. --emit slurm|k8s prints a job-array script / Indexed Job
manifest for the spec instead of running it.`,
		Example: `  arena sweep experiments/data/specs/pai.yaml --out results/pai
  arena sweep my.yaml --out results/my --resume            # continue after a crash
  arena sweep my.yaml --out results/my --shard 0/4         # first of four slices
  arena sweep my.yaml --out results/my --merge             # join the slices
  arena sweep my.yaml --out results/my --emit slurm --shards 16 > my.sbatch`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSweep(cmd, reg, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory (default: results/<spec name>)")
	fl.IntVar(&f.parallel, "parallel", 0, "concurrent runs (default: all cores)")
	fl.StringVar(&f.shard, "shard", "", "run only the I-th of N disjoint slices, I/N with 0 ≤ I < N")
	fl.BoolVar(&f.resume, "resume", false, "skip runs whose results are already complete in --out")
	fl.DurationVar(&f.runTimeout, "run-timeout", 0, "abandon any run taking longer than this (e.g. 10m); it counts as failed (0 = no limit)")
	fl.BoolVar(&f.merge, "merge", false, "do not run; join the complete runs in --out (and --from dirs) into summary.parquet")
	fl.StringSliceVar(&f.from, "from", nil, "with --merge: other output directories (shards run elsewhere) to gather runs from")
	fl.BoolVar(&f.partial, "partial", false, "with --merge: write summary.parquet even if runs are missing")
	fl.StringVar(&f.emit, "emit", "", "print a cluster job for the sweep instead of running it: slurm or k8s")
	fl.IntVar(&f.shards, "shards", 8, "with --emit: number of array tasks / Job completions")
	fl.StringVar(&f.image, "image", "", "with --emit k8s: container image with the arena binary")
	fl.StringVar(&f.claim, "claim", "", "with --emit k8s: PersistentVolumeClaim for the results")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	addProfileFlags(cmd)
	fl.IntVar(&f.maxRounds, "max-rounds", experiments.DefaultMaxRounds, "refuse runs longer than this many rounds (see 'arena simulate --help'); raise it for a genuinely long run")
	return cmd
}

func runSweep(cmd *cobra.Command, reg *policy.Registry, specPath string, f sweepFlags) error {
	spec, err := experiments.LoadSpec(specPath)
	if err != nil {
		return err
	}
	plan, err := spec.Expand(reg)
	if err != nil {
		return err
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	for _, n := range plan.Notes {
		fmt.Fprintf(stderr, "note: %s: %s\n", specPath, n)
	}
	if f.out == "" {
		f.out = filepath.Join("results", plan.Name)
	}
	if f.emit != "" {
		cpus := f.parallel
		if cpus <= 0 {
			cpus = 2
		}
		text, err := experiments.Emit(f.emit, experiments.EmitOptions{
			Spec: specPath, Name: plan.Name, Out: f.out, Shards: f.shards, CPUs: cpus, Image: f.image, Claim: f.claim, Runs: len(plan.Runs),
		})
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, text)
		return err
	}
	if len(plan.Runs) == 0 {
		return fmt.Errorf("%s: %w", specPath, experiments.ErrNoRuns)
	}
	for i := range plan.Runs {
		plan.Runs[i].Run.MaxRounds = f.maxRounds
	}
	if r := plan.Runs[0].Run.Rounds; r > 0 { // every run shares the spec's rounds
		if err := experiments.CheckRounds(r, f.maxRounds, specPath+": rounds/horizon"); err != nil {
			return err
		}
	}
	if f.merge {
		rows, err := experiments.MergeSweep(plan, experiments.MergeOptions{Out: f.out, From: f.from, Partial: f.partial})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %d of %d runs into %s\n", len(rows), len(plan.Runs), filepath.Join(f.out, experiments.SummaryParquet))
		return experiments.WriteSeedTable(stdout, rows)
	}
	shard := experiments.Shard{}
	if f.shard != "" {
		if shard, err = experiments.ParseShard(f.shard); err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
	}
	parallel := f.parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	opt := experiments.SweepOptions{Out: f.out, Parallel: parallel, Shard: shard, Resume: f.resume, RunTimeout: f.runTimeout}
	bar := newRunBar(stderr, !f.quiet && isTerminal(stderr), "sweep "+plan.Name)
	opt.Progress = bar.update
	start := time.Now()
	rep, err := experiments.RunSweep(cmd.Context(), reg, plan, opt)
	bar.finish()
	fmt.Fprintf(stdout, "sweep %s (shard %s): %d runs, %d already complete, %d ran, %d failed, in %.1fs; results in %s\n",
		plan.Name, shard, rep.Total, rep.Skipped, rep.Ran, len(rep.Failed), time.Since(start).Seconds(), filepath.Join(f.out, experiments.RunsDir))
	if err != nil {
		return err
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "when every shard has finished: arena sweep %s --merge --out %s\n", specPath, f.out)
		return nil
	}
	rows, err := experiments.MergeSweep(plan, experiments.MergeOptions{Out: f.out})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d runs in %s\n", len(rows), filepath.Join(f.out, experiments.SummaryParquet))
	return experiments.WriteSeedTable(stdout, rows)
}

// runBar is a progress bar over runs, shown only on a terminal.
type runBar struct {
	w     io.Writer
	show  bool
	desc  string
	bar   *progressbar.ProgressBar
	total int
}

func newRunBar(w io.Writer, show bool, desc string) *runBar {
	return &runBar{w: w, show: show, desc: desc}
}

func (b *runBar) update(done, total int, _ string) {
	if !b.show {
		return
	}
	if b.bar == nil || b.total != total {
		b.total = total
		b.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(b.desc), progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("runs"), progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
	}
	b.bar.Set(done)
}

func (b *runBar) finish() {
	if b.bar != nil {
		b.bar.Finish()
	}
}
