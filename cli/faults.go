package cli

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/faults"
	"github.com/arena-sim/arena/sim/input"
)

// newFaultsCmd is `arena faults`: the failure, maintenance and spot
// presets, and the events a name (preset, spec or events file) gives on a
// cluster — to read before a run, to check a file, or to save a
// synthesised run's events as an editable file.
func newFaultsCmd(*registry.Registry) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "faults",
		Short: "List the cluster-fault presets (failures, maintenance, spot) and show the events one gives",
		Long: `faults lists the built-in presets of cluster events, each named after its
published source (docs/faults.md): failures per GPU type, planned maintenance
windows, spot reclaims. 'faults show PRESET' prints one as a faults spec (YAML,
with its source and arithmetic); 'faults events NAME' generates the events of
a preset or spec on a cluster for a seed, or checks an events file, and
summarises them.`,
		Example: `  arena faults
  arena faults show llama3
  arena faults events llama3 --cluster paper-1280 --seed 1 --end 365d
  arena faults events my-events.csv --cluster testbed-64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			for _, name := range faults.PresetNames() {
				_, text, _ := faults.Preset(name)
				fmt.Fprintf(w, "%-16s %s\n", name, presetSummary(text))
			}
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show PRESET",
		Short: "Print a preset as a faults spec (YAML), its source and arithmetic in comments",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, text, ok := faults.Preset(args[0])
			if !ok {
				return fmt.Errorf("faults: no preset %q (presets: %s)", args[0], strings.Join(faults.PresetNames(), ", "))
			}
			fmt.Fprint(cmd.OutOrStdout(), text)
			return nil
		},
	}
	var cluster, start, end, out string
	var seed int64
	events := &cobra.Command{
		Use:   "events NAME",
		Short: "Generate (preset, spec) or check (events file) a run's cluster events and summarise them",
		Long: `events resolves NAME as a run does — a preset, a faults spec (.yaml) or an
events file (.csv, .parquet) — on CLUSTER, with SEED and the window
[START, END) for synthesis, and prints the events by kind and cause and the
node-hours nodes spent out. -o writes them as an events file — Parquet for a
.parquet name, CSV for .csv — which reads back as the same events.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := clusterspec.Load(cluster)
			if err != nil {
				return err
			}
			c, err := sim.NewCluster(spec)
			if err != nil {
				return err
			}
			t0, err := faults.ParseDuration(start)
			if err != nil {
				return fmt.Errorf("--start: %w", err)
			}
			t1, err := faults.ParseDuration(end)
			if err != nil {
				return fmt.Errorf("--end: %w", err)
			}
			if t1 <= t0 {
				return fmt.Errorf("--end %s is not after --start %s: the window [START, END) would be empty; want END > START", input.Clip(end), input.Clip(start))
			}
			write, err := eventsWriter(out)
			if err != nil {
				return err
			}
			ev, err := faults.Load(args[0], c, seed, sim.Time(t0), sim.Time(t1))
			if err != nil {
				return err
			}
			if out != "" {
				if err := writeFileAtomic(out, func(w *bufio.Writer) error { return write(w, ev) }); err != nil {
					return err
				}
			}
			summariseEvents(cmd, args[0], c, ev, t0, t1)
			return nil
		},
	}
	events.Flags().StringVar(&cluster, "cluster", "paper-1280", "cluster: built-in ("+strings.Join(clusterspec.BuiltinNames(), ", ")+") or a YAML/JSON spec")
	events.Flags().Int64Var(&seed, "seed", 1, "seed of the synthesis (unused for an events file)")
	events.Flags().StringVar(&start, "start", "0", "start of the window (seconds, or 6h, 14d, …)")
	events.Flags().StringVar(&end, "end", "365d", "end of the window (seconds, or 6h, 14d, …)")
	events.Flags().StringVarP(&out, "out", "o", "", "write the events to this events file: FILE.csv (CSV) or FILE.parquet (Parquet)")
	cmd.AddCommand(show, events)
	return cmd
}

// eventsWriter is the writer of the events file format out's extension
// names (.csv, .parquet); any other extension is refused rather than
// written as something its name does not say.
func eventsWriter(out string) (func(io.Writer, []sim.ClusterEvent) error, error) {
	switch strings.ToLower(filepath.Ext(out)) {
	case ".csv":
		return faults.WriteEventsCSV, nil
	case ".parquet":
		return faults.WriteEventsParquet, nil
	case "":
		if out == "" {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("--out (-o) %s: want a file name ending .csv or .parquet (the events file formats)", input.Clip(out))
}

// presetSummary is a preset's first comment line without its name.
func presetSummary(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.TrimPrefix(line, "# ")
	if _, rest, ok := strings.Cut(line, ": "); ok {
		return rest
	}
	return line
}

// summariseEvents prints counts by kind and by cause and the node-hours
// out (from a down, or the end of a drain's or reclaim's notice, to the
// node's next up or the window's end).
func summariseEvents(cmd *cobra.Command, name string, c *sim.Cluster, ev []sim.ClusterEvent, start, end float64) {
	w := cmd.OutOrStdout()
	gpus := c.NumSlots()
	fmt.Fprintf(w, "faults %s on %s (%d nodes, %d GPUs), %s to %s: %d events\n", name, c.Name, len(c.Nodes), gpus,
		sim.Duration(start), sim.Duration(end), len(ev))
	byKind := map[sim.ClusterEventKind]int{}
	byCause := map[string]int{}
	outSince := make([]float64, len(c.Nodes))
	outCause := make([]string, len(c.Nodes))
	isOut := make([]bool, len(c.Nodes))
	hoursOut := map[string]float64{}
	gpuHoursOut := 0.0
	for _, e := range ev {
		byKind[e.Kind]++
		n := e.Node
		switch kind := e.Kind.Info(); {
		case kind.Down:
			byCause[e.Cause]++
			if !isOut[n] {
				isOut[n], outSince[n], outCause[n] = true, float64(e.Time)+float64(e.Notice), e.Cause
			}
		case kind.Up:
			if isOut[n] {
				h := (float64(e.Time) - outSince[n]) / 3600
				hoursOut[outCause[n]] += h
				gpuHoursOut += h * float64(c.Nodes[n].Capacity)
				isOut[n] = false
			}
		}
	}
	for n := range isOut {
		if isOut[n] && outSince[n] < end {
			h := (end - outSince[n]) / 3600
			hoursOut[outCause[n]] += h
			gpuHoursOut += h * float64(c.Nodes[n].Capacity)
		}
	}
	var kinds []string
	for _, k := range sim.ClusterEventKinds() {
		if byKind[k] > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, byKind[k]))
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintf(w, "  by kind:  %s\n", strings.Join(kinds, ", "))
	}
	priced, lo, hi := 0, math.Inf(1), math.Inf(-1)
	for _, e := range ev {
		if e.Price != 0 {
			priced, lo, hi = priced+1, min(lo, e.Price), max(hi, e.Price)
		}
	}
	if priced > 0 { // spot prices, for runs with --energy (docs/energy.md)
		fmt.Fprintf(w, "  priced:   %d events, $%g–$%g per GPU-hour (GPU cost with --energy)\n", priced, lo, hi)
	}
	causes := make([]string, 0, len(byCause))
	for k := range byCause {
		causes = append(causes, k)
	}
	sort.Slice(causes, func(a, b int) bool {
		if byCause[causes[a]] != byCause[causes[b]] {
			return byCause[causes[a]] > byCause[causes[b]]
		}
		return causes[a] < causes[b]
	})
	for _, k := range causes {
		fmt.Fprintf(w, "  %-24s %6d  node-hours out %10.1f\n", k, byCause[k], hoursOut[k])
	}
	if span := end - start; span > 0 && gpus > 0 {
		fmt.Fprintf(w, "  GPU-hours out: %.0f of %.0f (%.3f %% of the cluster's time)\n", gpuHoursOut, span/3600*float64(gpus), 100*gpuHoursOut/(span/3600*float64(gpus)))
	}
}
