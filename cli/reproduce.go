package cli

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/report"
	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/policy/registry"
)

type reproduceFlags struct {
	out, format   string
	baseline      string
	sensitivity   string
	parallel      int
	runTimeout    time.Duration
	resume, quiet bool
	printSpec     bool
	progressEvery time.Duration
}

func newReproduceCmd(reg *registry.Registry) *cobra.Command {
	var f reproduceFlags
	cmd := &cobra.Command{
		Use:   "reproduce [all|" + strings.Join(slices.Concat(report.Sections, report.ExtraSections), "|") + "]...",
		Short: "Re-run the paper's evaluation and write REPORT.md with its tables and figures",
		Long: `reproduce runs the paper's evaluation from the built-in specs — Philly (2000
rounds), Helios and PAI (500 rounds) × every registered policy on paper-1280, the
Arena ablations and the load sweep (density 0.1 … 2.5) — in both timing modes
(exact-timing runs drain: they go on past their rounds until every job has
ended or is stuck, docs/statistics.md; artifact timing keeps the artifact's
horizon), as one sweep in --out ("headline", not part of "all", is the Philly artifact-timing
comparison of Arena and the paper's baselines alone), and writes --out/REPORT.md: the tables in the paper's form
beside the published numbers, and the figures (--out/figures/). Policies not
registered yet are skipped and listed in the report's notes.

"testbed" (alone) predicts the authors' physical 64-GPU testbed run: the testbed
trace at ÷1, 72 rounds, the measured overhead profile, the runtime's admission for
FCFS and Gavel, the measured slowdown, the runtime's metric definitions, each
ratio with a sensitivity band (overheads ±25 %, iteration time ±5 %), step by
step from the artifact-constant configuration; it prints the table and writes
--out/REPORT.md, testbed.json and testbed.csv (docs/calibrating.md).

"tenants" (not part of "all") runs the tenants study of docs/tenants.md: Philly's
15 virtual clusters with their real job mix under FCFS, Arena and Gavel's
fairness policy, alone and under quotas, 5 seeds; REPORT.md gets its fairness
tables (means with t-intervals) and the tenant figures.

"faults" (not part of "all") runs the faults study of docs/faults.md: Philly in
exact timing under no faults, the llama3 and gcp-maintenance presets (5 seeds),
with a checkpoint model; REPORT.md gets per policy its JCT with and without
faults, GPU-hours lost, effective training time, interruptions and goodput
(means with t-intervals), the ranking change, and the fault figures.

"windows" (not part of "all") runs 48-hour Philly windows drawn from philly-pollux
at 5 start days (35d … 75d, 360 jobs each), arena, fcfs, gavel, sia and
elasticflow-ls in exact timing, 3 seeds; REPORT.md gets the seed table with the
interval over the 5 windows, seeds nested (per window the mean over its seeds,
then the t-interval over the window means: a window's seeds are not independent
draws), against fcfs.

Each checked verdict says whether it holds under model error: the Philly
artifact-timing runs the claims are checked on are re-run with overheads
×0.75/1.25 × iteration times ×0.95/1.05 (--sensitivity, on by default; =off skips
it) and a reduction or ratio "holds" when its sign (side of 1) is the same at
every point, else it is "fragile".

With --resume, runs already complete in --out are reused (e.g. after Ctrl-C).
'arena reproduce --print-spec philly' prints a built-in spec, to copy and edit
for 'arena sweep'.`,
		Example: `  arena reproduce
  arena reproduce philly ablations --out results/paper --resume
  arena reproduce testbed --out results/testbed
  arena reproduce --print-spec load > load.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReproduce(cmd, reg, foldSensitivityArg(args, &f.sensitivity), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "reproduce", "directory for runs, summary.parquet, REPORT.md and figures/")
	fl.IntVar(&f.parallel, "parallel", 0, "concurrent runs (default: all cores)")
	fl.BoolVar(&f.resume, "resume", false, "reuse runs already complete in --out")
	fl.DurationVar(&f.runTimeout, "run-timeout", 0, "abandon any run taking longer than this (e.g. 2m); noted in the report (0 = no limit)")
	fl.StringVar(&f.format, "format", "png", "figure format: pdf, svg or png")
	fl.StringVar(&f.baseline, "baseline", "", "reference policy of the report's comparison columns (e.g. fcfs: each policy's JCT reduction and throughput against fcfs; default: the paper's form, Arena against each policy)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	fl.DurationVar(&f.progressEvery, "progress", defaultProgressEvery, "when stderr is not a terminal: print a progress line this often (0 = never)")
	addSensitivityFlag(cmd, &f.sensitivity)
	fl.Lookup("sensitivity").Usage = "grid of the model-error check of REPORT.md's verdicts (on by default: the Philly artifact-timing runs the claims are checked on, re-run at overheads ×0.75/1/1.25 × iteration times ×0.95/1/1.05); off to skip it, or e.g. 'overheads=0.5,1.5;iteration-times=0.9,1.1'"
	fl.BoolVar(&f.printSpec, "print-spec", false, "print the built-in spec of each section named and exit")
	return cmd
}

func runReproduce(cmd *cobra.Command, reg *registry.Registry, args []string, f reproduceFlags) error {
	var sections []string
	for _, a := range args {
		if a == "all" {
			sections = append(sections, report.Sections...)
			continue
		}
		if !slices.Contains(report.Sections, a) && !slices.Contains(report.ExtraSections, a) {
			return fmt.Errorf("section %q: want all or one of %s", a, strings.Join(slices.Concat(report.Sections, report.ExtraSections), ", "))
		}
		sections = append(sections, a)
	}
	if slices.Contains(sections, report.TestbedSection) {
		if f.sensitivity != "" && f.sensitivity != "default" {
			return fmt.Errorf("--sensitivity %s: testbed's band is always the default grid (overheads ×0.75/1/1.25 × iteration times ×0.95/1/1.05)", f.sensitivity)
		}
		if len(sections) > 1 || f.printSpec {
			return fmt.Errorf("testbed runs alone and has no spec: arena reproduce testbed [--out DIR] [--parallel N]")
		}
		return runReproduceTestbed(cmd, reg, f)
	}
	if f.printSpec {
		if len(sections) == 0 {
			sections = report.Sections
		}
		for _, s := range sections {
			text, err := report.BuiltinSpecText(s)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# --- %s.yaml\n%s", s, text)
		}
		return nil
	}
	if !slices.Contains(plots.Formats, f.format) {
		return fmt.Errorf("--format %q: want %s", f.format, strings.Join(plots.Formats, ", "))
	}
	if f.baseline != "" {
		ps, err := reg.Parse(f.baseline)
		if err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		f.baseline = ps.String()
	}
	grid, err := sensitivityGrid(cmp.Or(f.sensitivity, "default"), nil) // on by default here
	if err == nil {
		err = globalGrid(grid)
	}
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	prog := newProgress(stderr, chooseProgress(stderr, f.quiet, f.progressEvery), "reproduce", "runs", f.progressEvery)
	res, err := report.Reproduce(cmd.Context(), reg, report.ReproduceOptions{
		Out: f.out, Sections: sections, Parallel: f.parallel, Resume: f.resume, RunTimeout: f.runTimeout, Format: f.format, Baseline: f.baseline, Progress: prog.runUpdate,
		Sensitivity: grid,
	})
	prog.finish()
	if err != nil {
		if res != nil && res.Report != "" {
			fmt.Fprintf(stderr, "report (incomplete): %s\n", res.Report)
		} else if res != nil && res.Sweep.Ran+res.Sweep.Skipped > 0 {
			fmt.Fprintf(stderr, "%d of %d runs complete in %s; continue with: arena reproduce --out %s --resume\n",
				res.Sweep.Ran+res.Sweep.Skipped, res.Runs, f.out, f.out)
		}
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d runs (%d ran, %d reused), %d figures, in %.1fs\nreport: %s\n",
		res.Runs, res.Sweep.Ran, res.Sweep.Skipped, len(res.Figures), res.Wall.Seconds(), res.Report)
	return nil
}

// runReproduceTestbed predicts the physical testbed run and prints the
// table; REPORT.md, testbed.json and testbed.csv go to --out.
func runReproduceTestbed(cmd *cobra.Command, reg *registry.Registry, f reproduceFlags) error {
	stderr := cmd.ErrOrStderr()
	prog := newProgress(stderr, chooseProgress(stderr, f.quiet, f.progressEvery), "reproduce testbed", "runs", f.progressEvery)
	rep, err := report.ReproduceTestbed(cmd.Context(), reg, report.TestbedOptions{Out: f.out, Parallel: f.parallel, Progress: prog.runUpdate})
	prog.finish()
	if err != nil {
		return err
	}
	rep.WriteTable(cmd.OutOrStdout())
	fmt.Fprintf(cmd.OutOrStdout(), "%d runs in %.1fs\nreport: %s (summary: testbed.json, testbed.csv)\n", rep.Runs, rep.Wall.Seconds(), filepath.Join(f.out, "REPORT.md"))
	return nil
}
