package sweep

import (
	"strings"
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

// TestSeedTableOneTablePerCell: rows ordered policy by policy (as 'arena
// plot' finds run directories) over two faults cells print one table per
// cell, each headed by its faults, every policy in it, with the labels
// given. Before, the heading changed with every row: 4 one-row tables, the
// faults nowhere in them.
func TestSeedTableOneTablePerCell(t *testing.T) {
	mk := func(policy, faults string, seed int64, jct float64) SummaryRow {
		r := row(policy, sim.Summary{Trace: "philly", Cluster: "paper-1280", Policy: policy, Timing: "exact", Rounds: 10, Density: 1,
			Seed: seed, SubmittedMeanJCT: jct, MeanThroughput: 1, Submitted: 1, Finished: 1})
		r.FaultsKey, r.FaultsName = ".f-"+faults, faults
		return r
	}
	var rows []SummaryRow
	for _, p := range []string{"arena", "fcfs"} {
		for _, f := range []string{"none", "llama3"} {
			rows = append(rows, mk(p, f, 1, 100), mk(p, f, 2, 110))
		}
	}
	addSeedStats(rows)
	SetLabels(rows, map[string]string{"fcfs": "FCFS"})
	var b strings.Builder
	if err := WriteSeedTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\nphilly on paper-1280"); n != 2 {
		t.Fatalf("%d tables, want 2 (one per faults cell):\n%s", n, out)
	}
	for _, want := range []string{"density 1, faults none — mean", "density 1, faults llama3 — mean"} {
		i := strings.Index(out, want)
		if i < 0 {
			t.Fatalf("no heading %q:\n%s", want, out)
		}
		table := out[i:]
		if j := strings.Index(table[1:], "\nphilly on"); j >= 0 {
			table = table[:j+1]
		}
		if !strings.Contains(table, "\n  arena ") || !strings.Contains(table, "\n  FCFS ") {
			t.Errorf("table %q lacks a policy or its label:\n%s", want, table)
		}
	}
}
