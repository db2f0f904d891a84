package report

import (
	"strings"
	"testing"
)

// TestReproduceTopologySection runs a short topology study (two seeds, 60
// rounds, 40 jobs) and checks the section's tables: one per cluster, a
// row per policy with the network columns, tiers named by the cluster.
func TestReproduceTopologySection(t *testing.T) {
	_, report := reproduceShort(t, TopologySection, `name: topology
synth: {from: philly-pollux, since: 35d, length: 2d, sample: 40, recipe: arena}
clusters: [h100-racks]
estimators: [analytic]
gpu_map: a100=h100,v100=h100,a40=h100,a10=h100
policies: [fcfs, tas]
timing: exact
rounds: 60
seeds: [1, 2]
baseline: fcfs
`)
	i := strings.Index(report, "## Topology")
	if i < 0 {
		t.Fatalf("REPORT.md has no Topology section:\n%s", report)
	}
	section := report[i:]
	if j := strings.Index(section, "\n## "); j > 0 {
		section = section[:j]
	}
	for _, want := range []string{"### h100-racks, density 1", "| policy | jobs finished | mean JCT, all submitted (h) | across domains | slowdown mean | slowdown max | rack uplink use (%) |", "| fcfs |", "| tas |", "over 2 seeds"} {
		if !strings.Contains(section, want) {
			t.Errorf("Topology section lacks %q:\n%s", want, section)
		}
	}
	if testing.Verbose() {
		t.Log(section)
	}
}

// TestTopologySpec: the built-in spec parses and expands.
func TestTopologySpec(t *testing.T) {
	s, err := BuiltinSpec(TopologySection)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 2*2*5*3 {
		t.Errorf("%d runs, want 2 clusters × 2 densities × 5 policies × 3 seeds", len(plan.Runs))
	}
}
