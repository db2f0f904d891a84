package sweep

import (
	"testing"

	"github.com/arena-sim/arena/sim"
)

// Rows differing only in their faults are different cells of the seed
// statistics: a policy's rows under llama3 have two seeds, its one row
// without faults one (before, the cells merged and the seeds of one
// overwrote the other's). Hand-built rows.
func TestSeedCellsSeparateFaults(t *testing.T) {
	row := func(faults string, seed int64, jct float64) SummaryRow {
		r := row("", sim.Summary{Trace: "philly", Cluster: "paper-1280", Policy: "fcfs", Timing: "exact", Rounds: 10, Density: 1,
			Seed: seed, SubmittedMeanJCT: jct})
		r.FaultsKey = faults
		return r
	}
	rows := []SummaryRow{row(".f-none.ck1800-30-60", 1, 100), row(".f-llama3.ck1800-30-60", 1, 110), row(".f-llama3.ck1800-30-60", 2, 130)}
	addSeedStats(rows)
	if rows[0].Seeds != 1 || rows[0].Stat("submitted_mean_jct_s").Mean != 100 {
		t.Errorf("no faults: %d seeds, mean %g; want 1, 100", rows[0].Seeds, rows[0].Stat("submitted_mean_jct_s").Mean)
	}
	if rows[1].Seeds != 2 || rows[1].Stat("submitted_mean_jct_s").Mean != 120 {
		t.Errorf("llama3: %d seeds, mean %g; want 2, 120", rows[1].Seeds, rows[1].Stat("submitted_mean_jct_s").Mean)
	}
}
