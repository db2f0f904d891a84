package cli

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/traces"
)

// newTraceTileCmd is `arena trace tile`: the seeded scale-up of a trace
// that the performance benchmarks and README's performance table use.
func newTraceTileCmd() *cobra.Command {
	var o traces.TileOptions
	var out string
	cmd := &cobra.Command{
		Use:   "tile TRACE -o OUT.csv",
		Short: "Write a larger trace made of time-shifted copies of TRACE (same job mix; for scale tests)",
		Long: `tile writes COPIES copies of TRACE (a built-in name or an artifact-format CSV)
as one trace in the artifact's CSV format. Copy k is shifted in time by
(k + u)·span/OVERLAP, span being TRACE's first-to-last submission time and u
uniform in [0, 1) drawn from SEED (0 with --regular); the first copy keeps
the original times. --overlap 1 lays the copies end to end (the original's
load on the original cluster, a longer trace); --overlap 8 offers eight times
the load, for a cluster eight times as large. With random offsets two
neighbouring copies can overlap for a while (u of copy k above u of copy k+1);
--regular makes them abut exactly. Job names get "#<copy>".`,
		Example: `  arena trace tile philly --copies 42 --overlap 8 --seed 1 -o philly-x42.csv   # 81,396 jobs
  arena simulate --trace philly-x42.csv --cluster examples/scale/paper-10240.yaml --policy fcfs --rounds 40000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("tile: -o OUT.csv is required")
			}
			// tile writes the artifact's CSV only: a canonical table would
			// drop what the artifact format carries, so another extension is
			// refused rather than written as CSV under a misleading name.
			if ext := strings.ToLower(filepath.Ext(out)); ext != ".csv" {
				return fmt.Errorf("tile: -o %s: tile writes the artifact's CSV format; name the output *.csv", input.Clip(out))
			}
			t, err := traces.Load(args[0])
			if err != nil {
				return err
			}
			big, err := traces.Tile(t, o)
			if err != nil {
				return err
			}
			if err := writeFileAtomic(out, func(w *bufio.Writer) error { return traces.WriteArenaCSV(w, big) }); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d jobs (%d copies of %s, %d jobs each)\n", out, len(big.Jobs), o.Copies, t.Name, len(t.Jobs))
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Copies, "copies", 10, "number of copies")
	cmd.Flags().Float64Var(&o.Overlap, "overlap", 1, "copies submitted per span of the original (load multiplier)")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 0, "seed of the copies' offsets")
	cmd.Flags().BoolVar(&o.Regular, "regular", false, "no random offsets: copy k starts exactly k·span/OVERLAP after the first")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output CSV file")
	return cmd
}

// writeFileAtomic writes path through a temporary file in the same
// directory and renames it, so an error leaves no partial file.
func writeFileAtomic(path string, write func(*bufio.Writer) error) error {
	f, err := outdir.CreateTemp(path) // mode from the umask, not 0600
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = outdir.Commit(f.Name(), path)
	}
	if err != nil {
		outdir.Discard(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
