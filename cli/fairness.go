package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/fairness"
	"github.com/arena-sim/arena/sim/resultsdir"
	"github.com/arena-sim/arena/sim/tenants"
)

// FairnessFile is the per-policy fairness report `simulate --fairness
// --out DIR` writes beside the results (sim/fairness.Report as JSON).
const FairnessFile = "fairness.json"

// fairnessReports computes each run's finish-time fairness and tenant
// figures (sim/fairness; docs/tenants.md), tenants from ten or, with
// ten nil, each virtual cluster of the trace a tenant of weight 1. The
// runs' jobs and start overhead come from their scenarios, the estimator
// is the one the engine executed with.
func fairnessReports(ten *tenants.File, scenarios map[string]*runner.Scenario, outcomes []*runner.Outcome) ([]*fairness.Report, error) {
	reports := make([]*fairness.Report, len(outcomes))
	for i, o := range outcomes {
		sc := scenarios[o.Summary.Policy]
		if ten != nil {
			if err := ten.Check(o.Cluster, sc.Jobs); err != nil {
				return nil, fmt.Errorf("--tenants: %w", err)
			}
		}
		r, err := fairness.Compute(o.Result, sc.Jobs, o.Cluster, ten, sc.Source.View(estimator.ViewOptimal), fairness.Options{Overhead: sc.Overhead})
		if err != nil {
			return nil, fmt.Errorf("%s: fairness: %w", o.Summary.Policy, err)
		}
		reports[i] = r
	}
	return reports, nil
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

// fairnessFile is a report as the extra results file resultsdir.Write writes.
func fairnessFile(r *fairness.Report) (resultsdir.File, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return resultsdir.File{}, err
	}
	return resultsdir.File{Name: FairnessFile, Data: append(data, '\n')}, nil
}
