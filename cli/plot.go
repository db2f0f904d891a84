package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments"
	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/policy"
)

type plotFlags struct {
	kinds, out, format, title, size, cdf, policies string
	baseline                                       string
	window                                         time.Duration
}

func init() { commands = append(commands, newPlotCmd) }

func newPlotCmd(reg *policy.Registry) *cobra.Command {
	var f plotFlags
	cmd := &cobra.Command{
		Use:   "plot RESULTS...",
		Short: "Draw paper-ready figures (PDF, SVG or PNG) from results",
		Long: `plot reads results directories — one run's (with summary.json), the output of
'arena simulate --out' or of 'arena sweep' — and draws the figures of each
comparison group (runs that differ only in policy) as
<out>/<group>.<kind>.<format>. --out defaults to RESULTS/figures (the first
RESULTS given). Padded mean JCTs are computed within each group.

Kinds: jct-cdf, jct-bars, throughput, queue, utilization (the default "all"),
occupancy (one Gantt-style figure per run: every GPU over time, coloured by the
job holding it), and load (padded mean JCT and mean throughput against the load
density, one line per policy, one panel per trace; several seeds at a density give the
mean with its 95 % t-interval as error bars). Runs of several seeds also get
<cell>.seeds.jct-bars: mean JCTs over seeds with their intervals (summary.parquet's
*_mean / *_ci_lo / *_ci_hi columns).

Figures have no title (the caption belongs to the paper; --title adds one) and
are sized for a paper: --size column (3.3×2.4 in) or full (7×3 in) or WxH in
inches, fonts 8 pt. Colours are Okabe–Ito's colour-blind-safe set, and every
line also has its own dash pattern and marker, for black-and-white print.

The JCT CDF counts every submitted job (--cdf all): a policy that finished
fewer jobs ends lower, its unfinished jobs marked × at the horizon (censored:
their JCT exceeds it); --cdf common counts only the jobs every policy
finished. Throughput and queue length are trailing rolling means (--window;
the default, about 1/40 of the run, is stated in the axis label).`,
		Example: `  arena simulate --trace pai --policy fcfs,elasticflow-ls --out results/pai && arena plot results/pai
  arena plot results/pai --format pdf --size full --kind jct-cdf,throughput
  arena plot results/pai --kind occupancy --policies fcfs
  arena plot results/load --kind load --format svg --out figures`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlot(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kinds, "kind", "all", "comma-separated figure kinds: jct-cdf, jct-bars, throughput, queue, utilization, occupancy, load")
	fl.StringVar(&f.out, "out", "", "directory for the figures (default: RESULTS/figures)")
	fl.StringVar(&f.format, "format", "png", "pdf, svg or png")
	fl.StringVar(&f.size, "size", "column", "column (3.3×2.4 in), full (7×3 in) or WxH in inches, e.g. 3.3x2")
	fl.StringVar(&f.title, "title", "", "title drawn above each figure (default: none)")
	fl.StringVar(&f.cdf, "cdf", "all", "JCT CDF population: all (every submitted job; unfinished censored at the horizon) or common (jobs every policy finished)")
	fl.DurationVar(&f.window, "window", 0, "rolling-mean window of throughput and queue figures, e.g. 6h (0: about 1/40 of the run; -1s: raw per-round values)")
	fl.StringVar(&f.baseline, "baseline", "", "compare every policy with this one in the captions and the seed table printed (default: the paper's form, arena against each)")
	fl.StringVar(&f.policies, "policies", "", "comma-separated policies to draw (default: every policy in RESULTS)")
	return cmd
}

func runPlot(cmd *cobra.Command, args []string, f plotFlags) error {
	kinds, err := experiments.ParseKinds(f.kinds)
	if err != nil {
		return fmt.Errorf("--kind: %w", err)
	}
	if !slices.Contains(plots.Formats, f.format) {
		return fmt.Errorf("--format %q: want %s", f.format, strings.Join(plots.Formats, ", "))
	}
	size, err := plots.ParseSize(f.size)
	if err != nil {
		return fmt.Errorf("--size: %w", err)
	}
	if f.cdf != "all" && f.cdf != "common" {
		return fmt.Errorf("--cdf %q: want all or common", f.cdf)
	}
	opt := experiments.FigureOptions{Format: f.format, Size: size, Title: f.title, CDF: f.cdf, Window: f.window.Seconds()}
	if f.out == "" {
		f.out = filepath.Join(args[0], "figures")
	}
	dirs, err := experiments.FindResults(args)
	if err != nil {
		return err
	}
	var keep []string
	if f.policies != "" {
		for _, p := range strings.Split(f.policies, ",") {
			keep = append(keep, strings.TrimSpace(p))
		}
	}
	var all []*experiments.Results
	for _, d := range dirs {
		r, err := experiments.LoadResults(d, true)
		if err != nil {
			return err
		}
		all = append(all, r)
	}
	// Pad over every policy of a group, then keep the ones asked for: a
	// padded mean does not change with the policies drawn.
	experiments.PadGroups(all)
	if keep != nil {
		var kept []*experiments.Results
		for _, r := range all {
			if slices.Contains(keep, r.Summary.Policy) {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			return fmt.Errorf("--policies %s: none of them is in %s", f.policies, strings.Join(args, ", "))
		}
		all = kept
	}
	// The captions' rows, checked before any figure is drawn: a baseline
	// none of the runs has is an error naming it.
	rows, err := experiments.RowsAgainst(all, f.baseline)
	if err != nil {
		return fmt.Errorf("--%w", err)
	}
	var runKinds []string
	wantLoad := false
	for _, k := range kinds {
		if slices.Contains(experiments.LoadKinds, k) {
			wantLoad = true
		} else {
			runKinds = append(runKinds, k)
		}
	}
	var written []experiments.FigureFile
	if len(runKinds) > 0 {
		var order []string
		groups := map[string][]*experiments.Results{}
		for _, r := range all {
			g := r.Record.Group
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], r)
		}
		for _, g := range order {
			figs, err := experiments.WriteFigures(f.out, g+".", groups[g], runKinds, opt)
			if err != nil {
				return err
			}
			written = append(written, figs...)
		}
		if slices.Contains(runKinds, "jct-bars") {
			// Cells run with several seeds: means with 95 % intervals.
			figs, err := experiments.WriteSeedFigures(f.out, all, opt)
			if err != nil {
				return err
			}
			written = append(written, figs...)
		}
	}
	if wantLoad {
		figs, err := experiments.WriteLoadFigures(f.out, "", all, opt)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	for _, w := range written {
		fmt.Fprintln(cmd.OutOrStdout(), w.Path)
	}
	return printPlotCaptions(cmd.OutOrStdout(), f.out, rows)
}
