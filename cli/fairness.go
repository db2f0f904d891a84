package cli

import (
	"fmt"
	"io"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/fairness"
)

// FairnessFile is the per-policy fairness report `simulate --fairness
// --out DIR` writes beside the results (sim/fairness.Report as JSON).
const FairnessFile = fairness.FileName

// fairnessReports are the runs' fairness reports (runner.Outcome.Fairness:
// the runner computes them for a run with tenants).
func fairnessReports(outcomes []*runner.Outcome) []*fairness.Report {
	reports := make([]*fairness.Report, len(outcomes))
	for i, o := range outcomes {
		reports[i] = o.Fairness
	}
	return reports
}

// printFairness prints each policy's fairness block under its name.
func printFairness(w io.Writer, outcomes []*runner.Outcome, reports []*fairness.Report) error {
	for i, r := range reports {
		fmt.Fprintf(w, "\n%s — ", outcomes[i].Summary.Policy)
		if err := r.Write(w); err != nil {
			return err
		}
	}
	return nil
}
