package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy/registry"
)

func newExportCmd(*registry.Registry) *cobra.Command {
	var asCSV bool
	cmd := &cobra.Command{
		Use:   "export --csv RESULTS...",
		Short: "Write CSV copies of results tables (for tools without a Parquet reader)",
		Long: `export writes a CSV copy next to every Parquet table of the results given —
jobs.csv, timeline.csv and allocations.csv of each run, and summary.csv of a
sweep — with the same columns (identity columns first: policy, trace, cluster,
timing, seed, density, arena_version, input_hash). Read them with any tool,
e.g. pandas.read_csv without pyarrow. A null cell (a confidence interval of a
single seed) is empty.`,
		Example: `  arena simulate --trace pai --policy fcfs,srtf --out results/pai && arena export --csv results/pai
  arena export --csv sweep-out`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !asCSV {
				return fmt.Errorf("say the format: --csv (the only one so far)")
			}
			files, err := sweep.ExportCSV(args)
			for _, f := range files {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asCSV, "csv", false, "write CSV")
	return cmd
}
