package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/regress"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim/resultsdir"
)

type regressFlags struct {
	golden    []string
	tolerance string
	update    bool
	verbose   bool
}

func newRegressCmd(reg *registry.Registry) *cobra.Command {
	var f regressFlags
	cmd := &cobra.Command{
		Use:   "regress --golden FILE",
		Short: "Re-run golden runs and fail if any summary metric moved beyond its tolerance",
		Long: `regress re-runs each run of a golden summary file (JSON; docs/experiments.md)
and compares every metric of its summary (the wall-clock section aside) with the
golden value. It exits non-zero naming each metric that moved beyond its
tolerance and by how much. Tolerances: --tolerance for every metric unless the
golden file sets "tolerance" (its default) or "tolerances" (per metric), as
"2%" (relative) or "0.5" (absolute). "bounds" limit one direction only, so an
improvement is not reported as a regression:
  "bounds": {"mean_jct_s": {"max_increase": "2%"}, "jobs_finished": {"max_decrease": "0"}}
"relations" compare runs of the file, named by policy:
  "relations": ["arena.mean_throughput >= 1.3 * fcfs.mean_throughput",
                "arena.padded_mean_jct_s < fcfs.padded_mean_jct_s"]
A golden run with no summary (and named by no relation) is an error: it would
pass whatever the run did.

--golden may name a directory: every *.json in it is checked. --update rewrites
the golden files with the current results (after an intended change).`,
		Example: `  arena regress --golden experiments/testdata/golden
  arena regress --golden experiments/testdata/golden/fcfs-pai.json --tolerance 0.5%
  arena regress --golden experiments/testdata/golden --update`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRegress(cmd, reg, f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.golden, "golden", nil, "golden summary file(s) or directories of them (required)")
	fl.StringVar(&f.tolerance, "tolerance", "2%", "tolerance of metrics the golden file sets none for individually: relative (2%) or absolute (0.5)")
	fl.BoolVar(&f.update, "update", false, "rewrite the golden files with the current results")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "also list metrics that moved within tolerance")
	cmd.MarkFlagRequired("golden")
	return cmd
}

// goldenFiles expands files and directories of golden files.
func goldenFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("--golden: %w", err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.json"))
		if len(m) == 0 {
			return nil, fmt.Errorf("--golden %s: no *.json files in the directory", a)
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	return files, nil
}

func runRegress(cmd *cobra.Command, reg *registry.Registry, f regressFlags) error {
	var override *regress.Tolerance
	if cmd.Flags().Changed("tolerance") {
		tol, err := regress.ParseTolerance(f.tolerance)
		if err != nil {
			return fmt.Errorf("--tolerance: %w", err)
		}
		override = &tol
	}
	files, err := goldenFiles(f.golden)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	failed := 0
	for _, file := range files {
		g, err := regress.LoadGolden(file)
		if err != nil {
			return err
		}
		if f.update {
			if err := regress.UpdateGolden(cmd.Context(), reg, g); err != nil {
				return err
			}
			data, err := g.Encode()
			if err != nil {
				return err
			}
			if err := resultsdir.WriteFileAtomic(file, data); err != nil {
				return err
			}
			fmt.Fprintf(out, "updated %s (%d runs)\n", file, len(g.Runs))
			continue
		}
		rep, err := regress.Regress(cmd.Context(), reg, g, override)
		if err != nil && !errors.Is(err, regress.ErrRegression) {
			return err
		}
		if err != nil {
			failed++
			fmt.Fprintf(out, "FAIL %s: %v\n", file, err)
		} else {
			msg := fmt.Sprintf("ok   %s: %d runs match", file, rep.Runs)
			if n := len(rep.Relations); n > 0 {
				msg += fmt.Sprintf(", %d relation(s) hold", n)
			}
			fmt.Fprintln(out, msg)
		}
		if f.verbose {
			for _, r := range rep.Relations {
				fmt.Fprintf(out, "     %s\n", r)
			}
			for _, d := range rep.Deviations {
				if !d.Fail {
					fmt.Fprintf(out, "     %s\n", d)
				}
			}
		}
		if len(rep.NewMetrics) > 0 {
			fmt.Fprintf(out, "     (not in the golden file, not compared: %v; --update to track them)\n", rep.NewMetrics)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d golden files regressed", failed, len(files))
	}
	return nil
}
