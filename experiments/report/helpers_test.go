package report

import (
	"context"
	"os"
	"testing"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy"
)

// smallSpec is a fast sweep: FCFS on PAI and the testbed trace, both
// timing modes, two densities (8 runs, well under a second in all); the
// same as package sweep's test sweep.
const smallSpec = `
name: small
traces: [pai, testbed]
clusters: [paper-1280]
policies: [fcfs]
timing: [artifact, exact]
density: [1, 2]
rounds: 300
`

func smallPlan(t *testing.T) *sweep.Plan {
	t.Helper()
	s, err := sweep.ParseSpec("small.yaml", "", []byte(smallSpec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// smallSweep runs plan into out.
func smallSweep(t *testing.T, plan *sweep.Plan, out string) {
	t.Helper()
	if _, err := sweep.RunSweep(context.Background(), policy.NewRegistry(), plan, sweep.SweepOptions{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
}

// reproduceShort runs one reproduce section on a short spec (its YAML)
// in a temporary directory and returns the result and REPORT.md's text.
func reproduceShort(t *testing.T, section, spec string) (*ReproduceResult, string) {
	t.Helper()
	short, err := sweep.ParseSpec("short.yaml", "", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Reproduce(context.Background(), testRegistry(), ReproduceOptions{Out: t.TempDir(), Parallel: 2, Specs: map[string]*sweep.Spec{section: short}, Sections: []string{section}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(data)
}
