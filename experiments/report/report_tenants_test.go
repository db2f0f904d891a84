package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceTenantsSection runs the tenants study shortened (one day of
// Philly, 100 rounds, two seeds, each VC a tenant) and checks REPORT.md
// holds its fairness tables with intervals over the seeds and links the
// tenant figures, which exist. Guard: a section with tenants reports them.
func TestReproduceTenantsSection(t *testing.T) {
	if _, err := BuiltinSpec(TenantsSection); err != nil {
		t.Fatal(err)
	}
	res, report := reproduceShort(t, TenantsSection, `name: tenants
synth: {from: philly-pollux, recipe: arena, keep-durations: true, keep-gpus: true, since: 60d, until: 61d}
clusters: [paper-1280]
policies: [fcfs, "quota(fcfs,tenants=philly-vcs)", "gavel-fair(tenants=philly-vcs)"]
timing: exact
rounds: 100
seeds: [1, 2]
tenants: vcs
baseline: fcfs
`)
	for _, want := range []string{"## Tenants: Philly's virtual clusters", "| policy | jobs finished | mean JCT, all submitted (h) | max ρ |",
		"t-interval over 2 seeds", "| quota(fcfs,tenants=philly-vcs) |", "Mean JCT of each tenant's finished jobs", "tenant-share.png", "rho-cdf.png"} {
		if !strings.Contains(report, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	for _, f := range res.Figures {
		if _, err := os.Stat(f.Path); err != nil {
			t.Errorf("figure %s: %v", filepath.Base(f.Path), err)
		}
	}
	if testing.Verbose() {
		i := strings.Index(report, "## Tenants")
		t.Log(report[i:min(len(report), i+3000)])
	}
}
