package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim/resultsdir"
)

func newCalibrateCmd(reg *registry.Registry) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Refit the analytic performance model's parameters to the profile database",
		Long: `calibrate fits the analytic model's free parameters (compute efficiency per GPU
type and family, GEMM-width efficiency curve, per-layer latency, link
efficiencies per GPU type, exposed data-parallel share) to every entry of the
embedded profile database with gonum's Nelder-Mead, from a fixed starting
point, and writes them as JSON. The repository's copy is
estimator/data/analytic_params.json (embedded at build time; rebuild after
regenerating). See docs/perf-model.md.`,
		Example: `  arena calibrate --out estimator/data/analytic_params.json
  go generate ./estimator/   # same`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			entries, err := analytic.DatabaseEntries()
			if err != nil {
				return err
			}
			fit, err := analytic.Calibrate(entries, analytic.StartParams(), analytic.FitOptions{})
			if err != nil {
				return err
			}
			s := analytic.Errors(entries, fit.Predicted)
			p := fit.Params
			p.Fit = &analytic.FitInfo{
				Command: "arena calibrate", Entries: s.Entries, Feasible: s.Feasible,
				MedianAbsErr: round4(s.Median), P90AbsErr: round4(s.P90), Evaluations: fit.Evals,
				OptimizerNote: "gonum optimize.NelderMead on squared log error, 3 rounds of candidate re-search",
			}
			data, err := analytic.MarshalParams(p)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			if err := resultsdir.WriteFileAtomic(out, data); err != nil { // whole or absent, also on Ctrl-C
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d entries, in-sample median |err| %.1f%%, p90 %.1f%%\n", out, s.Entries, 100*s.Median, 100*s.P90)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "-", "output file (- = stdout)")
	return cmd
}

func round4(x float64) float64 { return float64(int64(x*1e4+0.5)) / 1e4 }
