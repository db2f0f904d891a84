package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/sweep"
)

// addIntervalFlag adds --interval, shared by sweep and plot: what the seed
// table's intervals are over (docs/statistics.md).
func addIntervalFlag(cmd *cobra.Command, interval *string) {
	cmd.Flags().StringVar(interval, "interval", sweep.IntervalSeeds, "what the seed table's intervals are over: seeds (each cell's seeds), or windows (cells that differ only by their synth window are one table: per window the mean over its seeds, then the t-interval over the window means)")
}

// checkInterval refuses an --interval value before anything runs.
func checkInterval(interval string) error {
	if interval != sweep.IntervalSeeds && interval != sweep.IntervalWindows {
		return fmt.Errorf("--interval %q: want %s or %s", interval, sweep.IntervalSeeds, sweep.IntervalWindows)
	}
	return nil
}

// applyInterval sets rows' intervals as --interval asks (after the
// baseline, before --holm).
func applyInterval(rows []sweep.SummaryRow, interval string) error {
	if err := checkInterval(interval); err != nil || interval == sweep.IntervalSeeds {
		return err
	}
	if err := sweep.SetWindowIntervals(rows); err != nil {
		return fmt.Errorf("--interval windows: %w", err)
	}
	return nil
}
