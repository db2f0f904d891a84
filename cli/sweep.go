package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy/registry"
)

type sweepFlags struct {
	out, shard, emit, image, claim string
	binary, logs, partition, time  string
	mem                            string
	parallel, shards, maxRounds    int
	runTimeout, progressEvery      time.Duration
	resume, merge, partial, quiet  bool
	list, allowExec, holm          bool
	allowOutsidePaths              bool
	from                           []string
	compare                        string
	baseline                       string
	sensitivity                    string
	interval                       string
}

func newSweepCmd(reg *registry.Registry) *cobra.Command {
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
OUT/summary.parquet. --list prints the runs (of the --shard) instead of running them.

--emit slurm|k8s prints a job-array script / Indexed Job manifest for the spec
instead of running it. The Slurm script, run with bash on a login node, submits
the array and a merge job that waits for it (docs/experiments.md, "Running on
Slurm"); paths in it are made absolute, the binary is this one unless --binary.

--sensitivity (or the spec's sensitivity key) re-runs every run with the model
perturbed — overheads ×0.75/1.25 × iteration times ×0.95/1.05 by default; add
'types=h100:0.8/1.2,l20:0.8/1.2' for each GPU type's speed error and
'estimators=profiledb,analytic' for the other performance model — into
OUT/sensitivity/, and marks each comparison robust (the sign of its JCT reduction
and throughput ratio, and the cell's ranking, hold at every point) or fragile:
summary.parquet's robust column and the seed table, with how far each point moves
a JCT reduction that does not hold (docs/statistics.md).

Progress goes to stderr: a bar on a terminal, otherwise (a batch log, CI) a
plain line every --progress with runs done/total and the ETA.`,
		Example: `  arena sweep experiments/data/specs/pai.yaml --out results/pai
  arena sweep my.yaml --out results/my --resume            # continue after a crash
  arena sweep my.yaml --out results/my --shard 0/4         # first of four slices
  arena sweep my.yaml --out results/my --merge             # join the slices
  arena sweep my.yaml --out results/my --emit slurm --shards 16 --time 2:00:00 > my.sbatch
  bash my.sbatch                                            # submits the array and the merge`,
		Args: cobra.RangeArgs(1, 2), // 2: a --sensitivity value after a space
		RunE: func(cmd *cobra.Command, args []string) error {
			if args = foldSensitivityArg(args, &f.sensitivity); len(args) != 1 {
				return fmt.Errorf("accepts 1 arg(s), received %d", len(args))
			}
			return runSweep(cmd, reg, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory (default: results/<spec name>)")
	fl.IntVar(&f.parallel, "parallel", 0, "concurrent runs (default: all cores)")
	fl.StringVar(&f.shard, "shard", "", "run only the I-th of N disjoint slices, I/N with 0 ≤ I < N")
	fl.BoolVar(&f.resume, "resume", false, "skip runs whose results are already complete in --out")
	fl.DurationVar(&f.runTimeout, "run-timeout", 0, "abandon any run taking longer than this (e.g. 10m); it counts as failed (0 = no limit)")
	fl.BoolVar(&f.allowExec, "allow-exec", false, "let the spec run the commands it names (exec: policies); without it such a spec is refused — see docs/trust.md")
	fl.BoolVar(&f.allowOutsidePaths, "allow-outside-paths", false, "let the spec read files outside its directory (absolute paths, ../, links leading out) in its keys and its policies' options; relative paths still resolve next to the spec; without it such a spec is refused — see docs/trust.md")
	fl.BoolVar(&f.merge, "merge", false, "do not run; join the complete runs in --out (and --from dirs) into summary.parquet")
	fl.StringSliceVar(&f.from, "from", nil, "with --merge: other output directories (shards run elsewhere) to gather runs from")
	fl.BoolVar(&f.partial, "partial", false, "with --merge: write summary.parquet even if runs are missing")
	fl.StringVar(&f.emit, "emit", "", "print a cluster job for the sweep instead of running it: slurm or k8s")
	fl.IntVar(&f.shards, "shards", 8, "with --emit: number of array tasks / Job completions")
	fl.StringVar(&f.image, "image", "", "with --emit k8s: container image with the arena binary")
	fl.StringVar(&f.claim, "claim", "", "with --emit k8s: PersistentVolumeClaim for the results")
	fl.StringVar(&f.binary, "binary", "", "with --emit slurm: the arena binary the tasks run (default: this one, by absolute path)")
	fl.StringVar(&f.logs, "logs", "", "with --emit slurm: directory of the per-task logs (default: OUT/slurm-logs)")
	fl.StringVar(&f.partition, "partition", "", "with --emit slurm: #SBATCH --partition for the array and the merge job")
	fl.StringVar(&f.time, "time", "", "with --emit slurm: #SBATCH --time per task and for the merge job, e.g. 2:00:00")
	fl.StringVar(&f.mem, "mem", "", "with --emit slurm: #SBATCH --mem per task, e.g. 4G")
	fl.StringVar(&f.compare, "compare", "", "do not run; check that DIR holds the same results as --out (every run's files byte for byte and summary.parquet, wall-clock fields aside); exit 1 listing differences")
	fl.StringVar(&f.baseline, "baseline", "", "compare every policy with this one (JCT reduction and throughput ratio, paired by seed, with t-intervals); default: the spec's baseline key, else the paper's form (arena against each)")
	addSensitivityFlag(cmd, &f.sensitivity)
	addHolmFlag(cmd, &f.holm)
	addIntervalFlag(cmd, &f.interval)
	fl.BoolVar(&f.list, "list", false, "print the keys of the runs (of --shard) in plan order and exit")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.DurationVar(&f.progressEvery, "progress", defaultProgressEvery, "when stderr is not a terminal: print a progress line this often (0 = never)")
	addProfileFlags(cmd)
	fl.IntVar(&f.maxRounds, "max-rounds", runner.DefaultMaxRounds, "refuse runs longer than this many rounds (see 'arena simulate --help'); raise it for a genuinely long run")
	return cmd
}

func runSweep(cmd *cobra.Command, reg *registry.Registry, specPath string, f sweepFlags) error {
	if err := checkInterval(f.interval); err != nil {
		return err
	}
	spec, err := sweep.LoadSpec(specPath, sweep.AllowOutsidePaths(f.allowOutsidePaths))
	if err != nil {
		return err
	}
	expand := spec.Expand
	if f.list {
		expand = spec.List // lists the runs: synthesises nothing
	}
	plan, err := expand(reg)
	if err != nil {
		return err
	}
	baseline, err := sweepBaseline(reg, spec, plan, f.baseline)
	if err != nil {
		return err
	}
	grid, err := sensitivityGrid(f.sensitivity, spec)
	if err != nil {
		return err
	}
	if grid != nil && grid != spec.Sensitivity { // the spec's was checked by Expand
		if err := grid.CheckPlan(plan); err != nil {
			return fmt.Errorf("--sensitivity: %w", err)
		}
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	for _, n := range plan.Notes {
		fmt.Fprintf(stderr, "note: %s: %s\n", specPath, n)
	}
	if f.out == "" {
		f.out = filepath.Join("results", plan.Name)
	}
	// A spec may be someone else's: the commands it names run only when
	// the user says so (docs/trust.md). Merging, comparing and listing
	// run nothing.
	if !f.allowExec && !f.merge && f.compare == "" && !f.list {
		if err := spec.CheckExec(reg, plan); err != nil {
			return err
		}
	}
	if f.emit != "" {
		return emitSweep(stdout, plan, specPath, f)
	}
	if len(plan.Runs) == 0 {
		return fmt.Errorf("%s: %w", specPath, sweep.ErrNoRuns)
	}
	if err := sweep.CapRounds(spec, plan, f.maxRounds, cmd.Flags().Changed("max-rounds")); err != nil {
		return err
	}
	if f.compare != "" {
		return compareSweep(stdout, plan, f)
	}
	session := &sweep.Session{Plan: plan, Sensitivity: grid, Baseline: baseline, Labels: spec.Labels, Log: stdout,
		Phase: func(desc string) (func(done, total int, key string), func()) {
			prog := newProgress(stderr, chooseProgress(stderr, f.quiet, f.progressEvery), desc, "runs", f.progressEvery)
			return prog.runUpdate, prog.finish
		}}
	if f.merge {
		rows, err := session.Merge(sweep.MergeOptions{Out: f.out, From: f.from, Partial: f.partial})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %d of %d runs into %s\n", len(rows), len(plan.Runs), filepath.Join(f.out, sweep.SummaryParquet))
		if err := applyInterval(rows, f.interval); err != nil {
			return err
		}
		if f.holm {
			sweep.SetHolm(rows)
		}
		return sweep.WriteReport(stdout, rows)
	}
	shard := sweep.Shard{}
	if f.shard != "" {
		if shard, err = sweep.ParseShard(f.shard); err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
	}
	if f.list {
		for _, r := range shard.Select(plan.Runs) {
			fmt.Fprintln(stdout, r.Key)
		}
		return nil
	}
	parallel := f.parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	session.Sweep = sweep.SweepOptions{Out: f.out, Parallel: parallel, Shard: shard, Resume: f.resume, RunTimeout: f.runTimeout}
	rows, err := session.Run(cmd.Context(), reg)
	if err != nil {
		return err
	}
	if shard.Count > 1 {
		consent := ""
		if f.allowOutsidePaths {
			consent = " --allow-outside-paths"
		}
		fmt.Fprintf(stdout, "when every shard has finished: arena sweep %s --merge --out %s%s\n", specPath, f.out, consent)
		return nil
	}
	if err := applyInterval(rows, f.interval); err != nil {
		return err
	}
	if f.holm {
		sweep.SetHolm(rows)
	}
	return sweep.WriteReport(stdout, rows)
}

// addHolmFlag adds --holm, shared by sweep and plot: the seed table marks
// (‡) the comparisons that remain significant after Holm's step-down over
// all of the table's comparisons (docs/statistics.md).
func addHolmFlag(cmd *cobra.Command, holm *bool) {
	cmd.Flags().BoolVar(holm, "holm", false, "in the seed table, mark (‡) the comparisons still significant after Holm's step-down over all the table's comparisons (family-wise error ≤ 5 %)")
}

// sweepBaseline is the comparisons' baseline: --baseline, else the spec's
// baseline key, else "" (the paper's form), in the registry's canonical
// spelling; one that names no policy of the plan is an error now, before
// the sweep runs.
func sweepBaseline(reg *registry.Registry, spec *sweep.Spec, plan *sweep.Plan, flag string) (string, error) {
	b, where := flag, "--baseline"
	if b == "" {
		b = spec.Baseline
		if b == "" {
			return "", nil
		}
		err := checkBaseline(reg, &b, plan)
		if err != nil {
			return "", spec.KeyError("baseline", err)
		}
		return b, nil
	}
	if err := checkBaseline(reg, &b, plan); err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	return b, nil
}

func checkBaseline(reg *registry.Registry, b *string, plan *sweep.Plan) error {
	if ps, err := reg.Parse(*b); err == nil {
		*b = ps.String()
	}
	return sweep.CheckBaseline(plan, *b)
}

// emitSweep prints the Slurm script or Kubernetes manifest that runs the
// sweep as array tasks (--emit).
func emitSweep(w io.Writer, plan *sweep.Plan, specPath string, f sweepFlags) error {
	// The tasks and the merge job re-read the spec, not this command line:
	// a flag they would not see is refused rather than silently dropped.
	for _, fl := range []struct{ flag, value, key string }{{"sensitivity", f.sensitivity, "sensitivity"}, {"baseline", f.baseline, "baseline"}} {
		if fl.value != "" {
			return fmt.Errorf("--%s with --emit: the array's tasks and merge job read the spec; set its %s: key instead", fl.flag, fl.key)
		}
	}
	if f.interval != sweep.IntervalSeeds {
		return fmt.Errorf("--interval with --emit: the merge job prints the table without it; run 'arena plot OUT --interval %s' after the merge", f.interval)
	}
	if f.holm {
		return fmt.Errorf("--holm with --emit: the merge job prints the table without it; run 'arena plot OUT --holm' after the merge")
	}
	opt, err := emitOptions(plan, specPath, f)
	if err != nil {
		return err
	}
	text, err := sweep.Emit(f.emit, opt)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

// compareSweep checks two output directories of the sweep hold the same
// results (--compare), wall-clock fields aside.
func compareSweep(w io.Writer, plan *sweep.Plan, f sweepFlags) error {
	if f.sensitivity != "" {
		return fmt.Errorf("--sensitivity with --compare: --compare compares the main runs only (not OUT/sensitivity); drop one of them")
	}
	diffs, err := sweep.CompareSweeps(plan, f.out, f.compare)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s and %s differ:\n  %s", f.out, f.compare, strings.Join(diffs, "\n  "))
	}
	fmt.Fprintf(w, "%s and %s hold the same results (%d runs; wall-clock fields aside)\n", f.out, f.compare, len(plan.Runs))
	return nil
}

// emitOptions gathers --emit's options. For Slurm, paths become absolute
// (a task's working directory is wherever sbatch ran) and the binary
// defaults to this one.
func emitOptions(plan *sweep.Plan, specPath string, f sweepFlags) (sweep.EmitOptions, error) {
	cpus := f.parallel
	if cpus <= 0 {
		cpus = 2
	}
	opt := sweep.EmitOptions{
		Spec: specPath, Name: plan.Name, Out: f.out, Shards: f.shards, CPUs: cpus, Image: f.image, Claim: f.claim, Runs: len(plan.Runs),
		Binary: f.binary, Logs: f.logs, Partition: f.partition, Time: f.time, Mem: f.mem, RunTimeout: f.runTimeout,
		AllowExec: f.allowExec, AllowOutsidePaths: f.allowOutsidePaths,
	}
	if f.emit != "slurm" {
		return opt, nil
	}
	if opt.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return opt, fmt.Errorf("--emit slurm: cannot find this binary (%v); name it with --binary", err)
		}
		opt.Binary = exe
	}
	if opt.Logs == "" {
		opt.Logs = filepath.Join(opt.Out, "slurm-logs")
	}
	for _, p := range []*string{&opt.Spec, &opt.Out, &opt.Logs, &opt.Binary} {
		if !filepath.IsAbs(*p) && (p != &opt.Binary || strings.ContainsRune(*p, filepath.Separator)) {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return opt, fmt.Errorf("--emit slurm: %w", err)
			}
			*p = abs
		}
	}
	return opt, nil
}
