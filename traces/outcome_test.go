package traces

import (
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces/table"
)

// The outcome (and checkpoint) columns reach the engine's job specs (sim.JobSpec.Outcome)
// through a table in either form, and InspectTable counts it. Fails on a
// FromTable that drops the column.
func TestOutcomeReachesJobSpecs(t *testing.T) {
	jobs := []table.Job{
		{ID: "a", Submit: 1, Duration: -1, Iterations: 5, IterationScale: 1, GPUs: 1, GPUType: "a10", Model: "gpt-760m", Batch: 128, Status: "Failed", Outcome: table.OutcomeFailed},
		{ID: "b", Submit: 2, Duration: -1, Iterations: 5, IterationScale: 1, GPUs: 1, GPUType: "a10", Model: "gpt-760m", Batch: 128, Status: "Killed", Outcome: table.OutcomeKilled},
		{ID: "c", Submit: 3, Duration: -1, Iterations: 5, IterationScale: 1, GPUs: 1, GPUType: "a10", Model: "gpt-760m", Batch: 128, Status: "Pass",
			CheckpointInterval: 1800, CheckpointRestore: 90},
	}
	for _, name := range []string{"o.csv", "o.parquet"} {
		p := filepath.Join(t.TempDir(), name)
		if err := table.WriteFile(p, jobs); err != nil {
			t.Fatal(err)
		}
		tr, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := []string{tr.Jobs[0].Outcome, tr.Jobs[1].Outcome, tr.Jobs[2].Outcome}; got[0] != "failed" || got[1] != "killed" || got[2] != "" {
			t.Errorf("%s: outcomes %q", name, got)
		}
		// The checkpoint columns reach JobSpec.Checkpoint too.
		if ck := tr.Jobs[2].Checkpoint; ck.Interval != 1800 || ck.Cost != 0 || ck.Restore != 90 || tr.Jobs[0].Checkpoint != (sim.Checkpoint{}) {
			t.Errorf("%s: checkpoints %+v, %+v", name, ck, tr.Jobs[0].Checkpoint)
		}
	}
	s := InspectTable(jobs)
	if s.ByOutcome["failed"] != 1 || s.ByOutcome["killed"] != 1 || s.ByOutcome[""] != 1 {
		t.Errorf("ByOutcome %v", s.ByOutcome)
	}
}
