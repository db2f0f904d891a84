package report

import (
	"slices"
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
	if len(plan.Runs) != 2*2*6*3 {
		t.Errorf("%d runs, want 2 clusters × 2 densities × 6 policies × 3 seeds", len(plan.Runs))
	}
}

// TestTopologyLLMSpec: the LLM-development spec parses and expands (one
// cluster, 5 policies, 3 seeds), keeps jobs' GPU counts exactly and prices
// them with the hybrid estimator.
func TestTopologyLLMSpec(t *testing.T) {
	s, err := BuiltinSpec(TopologyLLMSection)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 5*3 {
		t.Errorf("%d runs, want 5 policies × 3 seeds", len(plan.Runs))
	}
	for _, pr := range plan.Runs {
		r := pr.Run
		if r.Cluster != "h100-24k" || r.Estimator != "hybrid" || r.Synth == nil {
			t.Fatalf("run %s: cluster %s, estimator %s, synth %v; want h100-24k, hybrid, a synthesised trace", pr.Key, r.Cluster, r.Estimator, r.Synth)
		}
		if !slices.Contains(r.Synth.Keys, [2]string{"keep-gpus", "exact"}) || !slices.Contains(r.Synth.Keys, [2]string{"acme", "kalos"}) {
			t.Fatalf("run %s: synth keys %v lack keep-gpus=exact and acme=kalos", pr.Key, r.Synth.Keys)
		}
	}
}

// TestReproduceTopologyLLMSection runs a short LLM-development study (200
// Acme-Kalos jobs at 6,000/h on h100-24k, two seeds) and checks the
// section's form: its own heading and spec, the h100-24k table with its
// rack and pod columns, a row per policy.
func TestReproduceTopologyLLMSection(t *testing.T) {
	_, report := reproduceShort(t, TopologyLLMSection, `name: topology-llm
synth: {jobs: 200, rate: 6000, acme: kalos, recipe: arena, keep-durations: true, keep-gpus: exact}
clusters: [h100-24k]
estimators: [hybrid]
gpu_map: a100=h100,v100=h100,a40=h100,a10=h100
policies: [fcfs, tas]
timing: exact
rounds: 100
seeds: [1, 2]
baseline: fcfs
`)
	i := strings.Index(report, "## Topology: LLM-development")
	if i < 0 {
		t.Fatalf("REPORT.md has no LLM-development topology section:\n%s", report)
	}
	section := report[i:]
	if j := strings.Index(section, "\n## "); j > 0 {
		section = section[:j]
	}
	for _, want := range []string{"topology-llm.yaml", "### h100-24k, density 1", "| rack uplink use (%) | pod uplink use (%) |", "| fcfs |", "| tas |", "over 2 seeds"} {
		if !strings.Contains(section, want) {
			t.Errorf("section lacks %q:\n%s", want, section)
		}
	}
	if testing.Verbose() {
		t.Log(section)
	}
}
