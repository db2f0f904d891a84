package cli

import (
	"fmt"
	"github.com/arena-sim/arena/policy"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces"
)

func init() { commands = append(commands, newTraceCmd) }

func newTraceCmd(reg *policy.Registry) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Inspect job traces",
	}
	var rounds int
	inspect := &cobra.Command{
		Use:   "inspect TRACE...",
		Short: "Print a trace's size, span, GPU, type and model mix (built-in name or CSV file)",
		Example: `  arena trace inspect philly
  arena trace inspect helios pai my_trace.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for i, name := range args {
				t, err := traces.Load(name)
				if err != nil {
					return err
				}
				if i > 0 {
					fmt.Fprintln(cmd.OutOrStdout())
				}
				r := rounds
				if r == 0 {
					r = defaultRoundsFor(t)
				}
				printStats(cmd.OutOrStdout(), t, traces.Inspect(t, r))
			}
			return nil
		},
	}
	inspect.Flags().IntVar(&rounds, "rounds", 0, "window in 300-s rounds for the 'submitted in window' count (default: the trace's)")
	cmd.AddCommand(inspect)
	cmd.AddCommand(newTraceTileCmd())
	cmd.AddCommand(newTraceImportCmd(), newTraceSynthCmd())
	return cmd
}

func defaultRoundsFor(t *traces.Trace) int {
	switch t.Name {
	case "philly":
		return 2000
	case "helios", "pai":
		return 500
	case "testbed":
		return 72
	}
	return 0
}

func printStats(w io.Writer, t *traces.Trace, s traces.Stats) {
	fmt.Fprintf(w, "trace %s: %d jobs over %s (first submission %.0f s)\n", t.Name, s.Jobs, sim.Duration(float64(s.Last-s.First)), float64(s.First))
	fmt.Fprintf(w, "  iteration scale: ÷%d (%s)\n", t.IterationScale, t.ScaleSource)
	if s.Rounds > 0 {
		fmt.Fprintf(w, "  submitted within %d rounds of 300 s: %d\n", s.Rounds, s.InWindow)
	}
	fmt.Fprintf(w, "  iterations (trace, before the scale): min %d, median %d, max %d; with deadline: %d\n", s.MinIter, s.MedianIter, s.MaxIter, s.WithDeadline)
	fmt.Fprintf(w, "  GPUs requested: %s\n", countsInt(s.ByGPUs))
	fmt.Fprintf(w, "  GPU types:      %s\n", counts(s.ByType))
	fmt.Fprintf(w, "  families:       %s\n", counts(s.ByFamily))
	fmt.Fprintf(w, "  models:         %s\n", counts(s.ByModel))
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func countsInt(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
