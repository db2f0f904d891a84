package report

import (
	"strings"
	"testing"
)

// TestReproduceEnergySection runs the energy study shortened (120 jobs of
// Philly's days 35–37, two seeds, drained) and checks REPORT.md holds its
// table of JCT beside kWh, CO₂ and $ with intervals over the seeds, the
// paired reductions against the baseline and the anchors. Guard: a
// section with energy accounting reports it.
func TestReproduceEnergySection(t *testing.T) {
	if _, err := BuiltinSpec(EnergySection); err != nil {
		t.Fatal(err)
	}
	_, report := reproduceShort(t, EnergySection, `name: energy
synth: {from: philly-pollux, since: 35d, until: 37d, sample: 120, recipe: arena}
clusters: [paper-1280]
policies: [fcfs, carbon-aware, cost-aware]
timing: exact
rounds: 200
drain: true
seeds: [1, 2]
energy: de-2020-06
baseline: fcfs
`)
	for _, want := range []string{"## Energy: what each schedule costs in kWh, $ and CO₂", "Energy model `de-2020-06`",
		"| policy | mean JCT, all submitted (h) | kWh | idle kWh |", "t-interval over 2 seeds", "| carbon-aware |",
		"Against **fcfs**, paired by seed", "| cost-aware | ", "| Kalos (Acme, measured) |"} {
		if !strings.Contains(report, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if i := strings.Index(report, "## Energy"); testing.Verbose() && i >= 0 {
		t.Log(report[i:min(len(report), i+3000)])
	}
}
