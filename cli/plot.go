package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/report"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/policy/registry"
)

type plotFlags struct {
	kinds, out, format, title, size, cdf, policies, spec string
	baseline, interval                                   string
	window                                               time.Duration
	labels                                               []string
	perSeed, holm                                        bool
}

func newPlotCmd(reg *registry.Registry) *cobra.Command {
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
tenant-share and rho-cdf ("tenants"; in "all" for runs with tenants: each
tenant's GPUs over time stacked, one panel per policy, and the CDF of
finish-time fairness ρ per policy, docs/tenants.md),
availability and lost-work ("faults"; in "all" for runs with cluster events:
GPUs available per type over time with failures marked, and each policy's
cumulative progress lost, docs/faults.md),
occupancy (one Gantt-style figure per run: every GPU over time, coloured by the
job holding it), and load (padded mean JCT and mean throughput against the load
density, one line per policy, one panel per trace; several seeds at a density give the
mean with its 95 % t-interval as error bars).

Runs of several seeds (a sweep with seeds: [1, 2, 3, 4, 5]) are drawn once per
cell, not once per seed: <cell>.seeds.<kind> shows the mean over seeds with a
band (JCT CDF, throughput, queue) or whiskers (bars) of the 95 % Student-t
interval over seeds, named in the legend. --per-seed adds every seed's own
figures.

Legend labels are the policies as run; --label 'exec:python3 sjf.py=SJF'
(repeatable) or a spec's labels: mapping (--spec FILE) renames them.

Figures have no title (the caption belongs to the paper; --title adds one) and
are sized for a paper: --size column (3.3×2.4 in) or full (7×3 in) or WxH in
inches, fonts 8 pt. Colours are Okabe–Ito's colour-blind-safe set, and every
line also has its own dash pattern and marker, every bar its own hatch, for
black-and-white print; the legend stays under a quarter of the figure's height
(a smaller font, then shortened labels). PDFs embed only the glyphs they use
and their text is searchable (×, —, ≤ come out as written).

The JCT CDF counts every submitted job (--cdf all): a policy that finished
fewer jobs ends lower, its unfinished jobs marked × at the horizon (censored:
their JCT exceeds it); --cdf common counts only the jobs every policy
finished. Throughput and queue length are trailing rolling means (--window;
the default, about 1/40 of the run, is stated in the axis label).`,
		Example: `  arena simulate --trace pai --policy fcfs,elasticflow-ls --out results/pai && arena plot results/pai
  arena plot results/pai --format pdf --size full --kind jct-cdf,throughput
  arena plot results/pai --kind occupancy --policies fcfs
  arena plot results/load --kind load --format svg --out figures
  arena plot results/my-sweep --format pdf --label 'exec:python3 sjf.py=SJF' --label fcfs=FCFS
  arena plot results/my-sweep --spec my-sweep.yaml --per-seed`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlot(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kinds, "kind", "all", "comma-separated figure kinds: jct-cdf, jct-bars, throughput, queue, utilization, occupancy, load, tenant-share, rho-cdf, tenants, availability, lost-work, faults")
	fl.StringVar(&f.out, "out", "", "directory for the figures (default: RESULTS/figures)")
	fl.StringVar(&f.format, "format", "png", "pdf, svg or png")
	fl.StringVar(&f.size, "size", "column", "column (3.3×2.4 in), full (7×3 in) or WxH in inches, e.g. 3.3x2")
	fl.StringVar(&f.title, "title", "", "title drawn above each figure (default: none)")
	fl.StringVar(&f.cdf, "cdf", "all", "JCT CDF population: all (every submitted job; unfinished censored at the horizon) or common (jobs every policy finished)")
	fl.DurationVar(&f.window, "window", 0, "rolling-mean window of throughput and queue figures, e.g. 6h (0: about 1/40 of the run; -1s: raw per-round values)")
	fl.StringVar(&f.baseline, "baseline", "", "compare every policy with this one in the captions and the seed table printed (default: the sweep's baseline, else the paper's form, arena against each)")
	fl.StringVar(&f.policies, "policies", "", "comma-separated policies to draw (default: every policy in RESULTS)")
	fl.StringArrayVar(&f.labels, "label", nil, "POLICY=LABEL: the policy's name in legends and on axes (repeatable), e.g. 'exec:python3 sjf.py=SJF'")
	fl.StringVar(&f.spec, "spec", "", "a sweep spec whose labels: mapping renames policies and whose baseline: key sets the comparisons (--label and --baseline win; a merged sweep's own spec is read from its sweep.json)")
	addHolmFlag(cmd, &f.holm)
	addIntervalFlag(cmd, &f.interval)
	fl.BoolVar(&f.perSeed, "per-seed", false, "also draw every seed's own figures when runs have several seeds (default: only the seed-aggregated ones)")
	return cmd
}

// runPlot checks plot's flags, loads the results and draws the figures asked
// for, then prints each file written and the captions' rows.
func runPlot(cmd *cobra.Command, args []string, f plotFlags) error {
	kinds, err := report.ParseKinds(f.kinds)
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
	labels, typed, baseline, err := plotPresentation(f, args)
	if err != nil {
		return err
	}
	opt := report.FigureOptions{Format: f.format, Size: size, Title: f.title, CDF: f.cdf, Window: f.window.Seconds(), Labels: labels}
	if f.out == "" {
		f.out = filepath.Join(args[0], "figures")
	}
	all, err := loadPlotResults(args, f.policies)
	if err != nil {
		return err
	}
	// The captions' rows, checked before any figure is drawn: a baseline
	// none of the runs has is an error naming it.
	rows, err := sweep.RowsAgainst(all, baseline)
	if err != nil {
		return fmt.Errorf("--%w", err)
	}
	sweep.SetLabels(rows, labels)
	if err := applyInterval(rows, f.interval); err != nil {
		return err
	}
	if f.holm {
		sweep.SetHolm(rows)
	}
	// A label for a policy none of the runs has is a typo, not a no-op.
	var names []string
	for _, r := range all {
		if !slices.Contains(names, r.Summary.Policy) {
			names = append(names, r.Summary.Policy)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(typed)) {
		if !slices.Contains(names, k) {
			return fmt.Errorf("label %q=%q: no run of policy %q in %s (policies: %s)", k, labels[k], k, strings.Join(args, ", "), strings.Join(names, ", "))
		}
	}
	groups, err := plotKindGroups(kinds, f.kinds, all, args)
	if err != nil {
		return err
	}
	runKinds, tenantKinds, faultKinds, wantLoad := groups.run, groups.tenant, groups.fault, groups.load
	var written []report.FigureFile
	if len(runKinds) > 0 {
		figs, err := writeRunFigures(f.out, all, runKinds, f.perSeed, opt)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	if len(tenantKinds) > 0 {
		figs, err := writeTenantFigures(f.out, all, tenantKinds, opt)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	if len(faultKinds) > 0 {
		figs, err := writeFaultFigures(f.out, all, faultKinds, opt)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	if wantLoad {
		figs, err := report.WriteLoadFigures(f.out, "", all, opt)
		if err != nil {
			return err
		}
		written = append(written, figs...)
	}
	for _, w := range written {
		fmt.Fprintln(cmd.OutOrStdout(), w.Path)
		for _, n := range w.Notes {
			fmt.Fprintf(cmd.ErrOrStderr(), "note: %s: %s\n", w.Path, n)
		}
	}
	return report.WriteCaptionsFile(cmd.OutOrStdout(), f.out, rows)
}

// kindGroups are the figure kinds asked for, by who draws them.
type kindGroups struct {
	run, tenant, fault []string
	load               bool
}

// plotKindGroups sorts kinds (as --kind asked for them) by who draws them.
// The tenant and fault figures come with "all" where runs have tenants or
// saw cluster events; asked for by name, runs without them are an error.
func plotKindGroups(kinds []string, asked string, all []*sweep.Results, args []string) (kindGroups, error) {
	var g kindGroups
	for _, k := range kinds {
		switch {
		case slices.Contains(report.LoadKinds, k):
			g.load = true
		case slices.Contains(report.TenantKinds, k):
			g.tenant = append(g.tenant, k)
		case slices.Contains(report.FaultKinds, k):
			g.fault = append(g.fault, k)
		default:
			g.run = append(g.run, k)
		}
	}
	// The tenant figures come with "all" where runs have tenants; asked
	// for by name, runs without tenants are an error.
	if len(g.tenant) > 0 && !report.HasTenants(all) {
		if !slices.Contains(strings.Split(asked, ","), "all") && asked != "" {
			return g, fmt.Errorf("--kind %s: no run in %s has tenants (simulate or sweep with --tenants FILE|vcs, or tenants: in a spec)", strings.Join(g.tenant, ","), strings.Join(args, ", "))
		}
		g.tenant = nil
	}
	// Likewise the fault figures, where runs had cluster events.
	if len(g.fault) > 0 && !report.HasFaults(all) {
		if !slices.Contains(strings.Split(asked, ","), "all") && asked != "" {
			return g, fmt.Errorf("--kind %s: no run in %s saw a cluster event (simulate or sweep with --faults PRESET|FILE, or faults: in a spec)", strings.Join(g.fault, ","), strings.Join(args, ", "))
		}
		g.fault = nil
	}
	return g, nil
}

// plotPresentation returns the policies' display labels (all of them, and
// those the user typed: --spec's and --label's, where one naming no run
// is a typo) and the comparisons' baseline. Labels: a merged sweep's own (its sweep.json,
// from the spec it ran), then --spec's labels: key, then --label's, each
// winning over the one before. Baseline: --baseline, else --spec's
// baseline: key, else the sweep's. Separate because it is the one place
// the sources are merged, and a --spec with neither key is refused.
func plotPresentation(f plotFlags, args []string) (labels, typed map[string]string, baseline string, err error) {
	labels, typed = map[string]string{}, map[string]string{}
	for _, a := range args {
		rec, ok, err := sweep.ReadSweepRecord(a)
		if err != nil {
			return nil, nil, "", err
		}
		if ok {
			maps.Copy(labels, rec.Labels)
			if baseline == "" {
				baseline = rec.Baseline
			}
		}
	}
	if f.spec != "" {
		// plot reads only the spec's labels: and baseline:, never a file
		// the spec names, so its paths need no consent
		// (--allow-outside-paths is sweep's, which opens them).
		spec, err := sweep.LoadSpec(f.spec, sweep.AllowOutsidePaths(true))
		if err != nil {
			return nil, nil, "", fmt.Errorf("--spec: %w", err)
		}
		if !spec.HasKey("labels") && !spec.HasKey("baseline") {
			return nil, nil, "", fmt.Errorf("--spec %s: no labels: or baseline: key (the keys plot reads)", f.spec)
		}
		maps.Copy(labels, spec.Labels)
		maps.Copy(typed, spec.Labels)
		if spec.Baseline != "" {
			baseline = spec.Baseline
		}
	}
	flagLabels, err := report.ParseLabels(f.labels)
	if err != nil {
		return nil, nil, "", fmt.Errorf("--label: %w", err)
	}
	maps.Copy(labels, flagLabels)
	maps.Copy(typed, flagLabels)
	if f.baseline != "" {
		baseline = f.baseline
	}
	return labels, typed, baseline, nil
}

// loadPlotResults loads every results directory under args, pads each
// group's means over all its policies, and then keeps the runs of the
// policies in the comma-separated list (all when it is empty). Separate
// because the order matters: a padded mean does not change with the
// policies drawn, so padding comes before the filter.
func loadPlotResults(args []string, policies string) ([]*sweep.Results, error) {
	dirs, err := sweep.FindResults(args)
	if err != nil {
		return nil, err
	}
	var keep []string
	if policies != "" {
		for _, p := range strings.Split(policies, ",") {
			keep = append(keep, strings.TrimSpace(p))
		}
	}
	var all []*sweep.Results
	for _, d := range dirs {
		r, err := sweep.LoadResults(d, true)
		if err != nil {
			return nil, err
		}
		all = append(all, r)
	}
	// Pad over every policy of a group, then keep the ones asked for: a
	// padded mean does not change with the policies drawn.
	sweep.PadGroups(all)
	if keep != nil {
		var kept []*sweep.Results
		for _, r := range all {
			if slices.Contains(keep, r.Summary.Policy) {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			return nil, fmt.Errorf("--policies %s: none of them is in %s", policies, strings.Join(args, ", "))
		}
		all = kept
	}
	return all, nil
}

// writeRunFigures draws the per-run kinds (all but the load figures):
// cells run with several seeds over seeds (mean with a t-interval), and
// each comparison group's own figures, in first-seen group order, except
// that a group already drawn over seeds gets only its occupancy figure
// unless perSeed. Separate because it is the choice of which figures a
// group gets, apart from the flag checks.
func writeRunFigures(out string, all []*sweep.Results, runKinds []string, perSeed bool, opt report.FigureOptions) ([]report.FigureFile, error) {
	// Cells run with several seeds are drawn over seeds (mean with a
	// t-interval); their groups' per-seed figures only on request.
	cells := report.SeedCells(all)
	written, err := report.WriteSeedFigures(out, cells, runKinds, opt)
	if err != nil {
		return nil, err
	}
	aggregated := map[string]bool{}
	for _, c := range cells {
		for _, g := range c.Groups {
			aggregated[g] = true
		}
	}
	var order []string
	groups := map[string][]*sweep.Results{}
	for _, r := range all {
		g := r.Record.Group
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	for _, g := range order {
		kinds := runKinds
		if aggregated[g] && !perSeed {
			// Occupancy is one run's picture: it has no aggregate.
			kinds = nil
			if slices.Contains(runKinds, "occupancy") {
				kinds = []string{"occupancy"}
			}
		}
		if len(kinds) == 0 {
			continue
		}
		figs, err := report.WriteFigures(out, g+".", groups[g], kinds, opt)
		if err != nil {
			return nil, err
		}
		written = append(written, figs...)
	}
	return written, nil
}

// writeTenantFigures draws the tenant figures of runs with tenants: one
// set per seed cell (ρ pooled over the seeds), and per comparison group
// outside the cells.
func writeTenantFigures(out string, all []*sweep.Results, kinds []string, opt report.FigureOptions) ([]report.FigureFile, error) {
	var written []report.FigureFile
	cells := report.SeedCells(all)
	inCell := map[string]bool{}
	for _, c := range cells {
		var rs []*sweep.Results
		for _, p := range c.Policies {
			rs = append(rs, c.Runs[p]...)
		}
		for _, g := range c.Groups {
			inCell[g] = true
		}
		figs, err := report.WriteTenantFigures(out, c.Name+".", rs, kinds, opt)
		if err != nil {
			return nil, err
		}
		written = append(written, figs...)
	}
	var order []string
	groups := map[string][]*sweep.Results{}
	for _, r := range all {
		g := r.Record.Group
		if inCell[g] {
			continue
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	for _, g := range order {
		figs, err := report.WriteTenantFigures(out, g+".", groups[g], kinds, opt)
		if err != nil {
			return nil, err
		}
		written = append(written, figs...)
	}
	return written, nil
}

// writeFaultFigures draws the fault figures per trace, cluster and timing
// (<trace>.<cluster>.<timing>.<kind>…): the runs of one such set differ in
// policy, seed and faults, which the figures draw apart.
func writeFaultFigures(out string, all []*sweep.Results, kinds []string, opt report.FigureOptions) ([]report.FigureFile, error) {
	var order []string
	sets := map[string][]*sweep.Results{}
	for _, r := range all {
		k := strings.Join([]string{sweep.PolicyDir(r.Summary.Trace), sweep.PolicyDir(r.Summary.Cluster), r.Summary.Timing}, ".")
		if _, ok := sets[k]; !ok {
			order = append(order, k)
		}
		sets[k] = append(sets[k], r)
	}
	var written []report.FigureFile
	for _, k := range order {
		figs, err := report.WriteFaultFigures(out, k+".", sets[k], kinds, opt)
		if err != nil {
			return nil, err
		}
		written = append(written, figs...)
	}
	return written, nil
}
