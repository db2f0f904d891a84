package cli

import (
	"fmt"
	"github.com/arena-sim/arena/policy"
	"slices"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments"
)

type plotFlags struct {
	kinds, out, format, title string
}

func init() { commands = append(commands, newPlotCmd) }

func newPlotCmd(reg *policy.Registry) *cobra.Command {
	var f plotFlags
	cmd := &cobra.Command{
		Use:   "plot RESULTS...",
		Short: "Draw figures (JCT CDF, mean-JCT bars, throughput, queue, utilisation, load curves) from results",
		Long: `plot reads results directories — one run's (with summary.json), the output of
'arena simulate --out' or of 'arena sweep' — and draws the figures of each
comparison group (runs that differ only in policy) into --out:
<group>.<kind>.png. Padded mean JCTs are computed within each group.

Kinds: jct-cdf, jct-bars, throughput, queue, utilization (the default: all of
them), and load (padded mean JCT and mean throughput against the load density,
one line per policy, over every run given).`,
		Example: `  arena simulate --trace pai --policy fcfs,elasticflow-ls --out results/pai && arena plot results/pai
  arena plot results/load --kind load --format svg --out figures`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlot(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kinds, "kind", "all", "comma-separated figure kinds: jct-cdf, jct-bars, throughput, queue, utilization, load")
	fl.StringVar(&f.out, "out", "figures", "directory for the figures")
	fl.StringVar(&f.format, "format", "png", "png or svg")
	fl.StringVar(&f.title, "title", "", "figure title prefix (default: the group's trace, cluster and timing)")
	return cmd
}

func runPlot(cmd *cobra.Command, args []string, f plotFlags) error {
	kinds, err := experiments.ParseKinds(f.kinds)
	if err != nil {
		return fmt.Errorf("--kind: %w", err)
	}
	if f.format != "png" && f.format != "svg" {
		return fmt.Errorf("--format %q: want png or svg", f.format)
	}
	dirs, err := experiments.FindResults(args)
	if err != nil {
		return err
	}
	var all []*experiments.Results
	for _, d := range dirs {
		r, err := experiments.LoadResults(d, true)
		if err != nil {
			return err
		}
		all = append(all, r)
	}
	experiments.PadGroups(all)
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
			rs := groups[g]
			title := f.title
			if title == "" {
				s := rs[0].Summary
				title = fmt.Sprintf("%s on %s, %s timing", s.Trace, s.Cluster, s.Timing)
				if d := rs[0].Record.Density; d != 0 && d != 1 {
					title += fmt.Sprintf(", density %g", d)
				}
			}
			figs, err := experiments.WriteFigures(f.out, g+".", title, rs, runKinds, f.format)
			if err != nil {
				return err
			}
			written = append(written, figs...)
		}
	}
	if wantLoad {
		title := f.title
		if title == "" {
			title = "load sweep"
		}
		figs, err := experiments.WriteLoadFigures(f.out, "", title, all, f.format)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	for _, w := range written {
		fmt.Fprintln(cmd.OutOrStdout(), w.Path)
	}
	return nil
}
