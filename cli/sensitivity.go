package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/experiments/sweep"
)

// sensitivityUsage is the help of --sensitivity (sweep and reproduce).
const sensitivityUsage = "re-run every run with the model perturbed — overhead profile × and iteration times × each factor of a grid (alone: overheads=0.75,1.25;iteration-times=0.95,1.05), with sweep also per GPU type (types=h100:0.8/1.2,l20:0.8/1.2) and other performance models (estimators=profiledb,analytic) — and mark each comparison robust (its sign and the ranking hold at every point) or fragile; off disables a spec's sensitivity key"

// addSensitivityFlag adds --sensitivity[=GRID]: alone it is the default
// grid.
func addSensitivityFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "sensitivity", "", sensitivityUsage)
	cmd.Flags().Lookup("sensitivity").NoOptDefVal = "default"
}

// foldSensitivityArg accepts `--sensitivity 'overheads=…'` (a space, not
// "="): a flag with an optional value does not take the next word, so it
// arrives as an argument; an argument that reads as a grid while
// --sensitivity was given alone is taken as its value.
func foldSensitivityArg(args []string, v *string) []string {
	if *v != "default" {
		return args
	}
	for i, a := range args {
		if slices.ContainsFunc([]string{"overheads=", "iteration-times=", "iteration_times=", "types=", "gpu-types=", "gpu_types=", "estimators="}, func(p string) bool { return strings.HasPrefix(a, p) }) {
			*v = a
			return append(args[:i:i], args[i+1:]...)
		}
	}
	return args
}

// sensitivityGrid is the sweep's grid: --sensitivity, else the spec's
// sensitivity key, else none (nil).
func sensitivityGrid(flag string, spec *sweep.Spec) (*sweep.Sensitivity, error) {
	switch flag {
	case "":
		if spec != nil {
			return spec.Sensitivity, nil
		}
		return nil, nil
	case "off", "false", "none":
		return nil, nil
	}
	g, err := sweep.ParseSensitivity(flag)
	if err != nil {
		return nil, fmt.Errorf("--sensitivity: %w", err)
	}
	return &g, nil
}

// globalGrid refuses a grid with per-GPU-type or estimator points where
// only the overheads × iteration-times grid is supported (reproduce's
// report).
func globalGrid(g *sweep.Sensitivity) error {
	if g != nil && (len(g.GPUTypes) > 0 || len(g.Estimators) > 0) {
		return fmt.Errorf("--sensitivity: types= and estimators= are for arena sweep; reproduce's report perturbs overheads and iteration times only (overheads=…;iteration-times=…)")
	}
	return nil
}
