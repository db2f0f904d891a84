package report

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/policy"
)

// allKindsSpec is one small sweep whose runs every figure kind can draw:
// three policies with long names (tenants), two seeds (seed cells), two
// densities (load curves), Philly's VCs as tenants, gcp-maintenance
// (cluster events) on paper-1280 (four GPU types). Under a second.
const allKindsSpec = `name: allkinds
synth: {from: philly-pollux, recipe: arena, keep-durations: true, keep-gpus: true, since: 60d, until: 61d}
clusters: [paper-1280]
policies: [fcfs, "quota(fcfs,tenants=philly-vcs)", "quota(gavel-fair(tenants=philly-vcs),tenants=philly-vcs)"]
timing: exact
rounds: 100
seeds: [1, 2]
density: [1, 2]
tenants: vcs
faults: [gcp-maintenance]
labels: {"quota(fcfs,tenants=philly-vcs)": quota(fcfs), "quota(gavel-fair(tenants=philly-vcs),tenants=philly-vcs)": quota(gavel-fair)}
`

// Every figure kind arena draws — every kind --kind accepts, each over
// one run per policy and, where it has one, over seeds — drawn at column
// width (3.3 × 2.4 in, `arena plot`'s default) has all its text (titles,
// axis labels, tick labels, legend entries) inside the canvas, apart,
// and at 6 pt or more: plots.Figure.Encode checks the boxes of the text it
// drew (plots.LayoutProblems) and notes what does not fit. A kind added
// to any list of kinds joins the check, and fails it until this sweep
// draws it. Before the fix, the availability and lost-work figures
// clipped their titles and y labels and the tenant-share panels
// overlapped their titles and axis labels.
func TestEveryFigureKindFitsAtColumnWidth(t *testing.T) {
	kinds, err := ParseKinds("all,occupancy,load")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := sweep.ParseSpec("allkinds.yaml", "", []byte(allKindsSpec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := sweep.RunSweep(context.Background(), policy.NewRegistry(), plan, sweep.SweepOptions{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	var all []*sweep.Results
	groups := map[string][]*sweep.Results{}
	var order []string
	for _, pr := range plan.Runs {
		r, err := sweep.LoadResults(sweep.RunDir(out, pr.Key), true)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
		if _, ok := groups[r.Record.Group]; !ok {
			order = append(order, r.Record.Group)
		}
		groups[r.Record.Group] = append(groups[r.Record.Group], r)
	}
	sweep.PadGroups(all)
	o := FigureOptions{Format: "png", Size: plots.Column, Labels: spec.Labels}
	dir := filepath.Join(out, "figures")
	var figs []FigureFile
	add := func(f []FigureFile, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f...)
	}
	// One group's figures (one run per policy), every per-run kind.
	g := order[0]
	add(WriteFigures(dir, g+".", groups[g], slices.DeleteFunc(slices.Clone(kinds), func(k string) bool {
		return !slices.Contains(plots.Kinds, k)
	}), o))
	add(WriteTenantFigures(dir, g+".", groups[g], TenantKinds, o))
	// Over seeds: the seed cells' figures and tenant figures.
	cells := SeedCells(all)
	if len(cells) == 0 {
		t.Fatal("no seed cell")
	}
	add(WriteSeedFigures(dir, cells[:1], kinds, o))
	var cellRuns []*sweep.Results
	for _, p := range cells[0].Policies {
		cellRuns = append(cellRuns, cells[0].Runs[p]...)
	}
	add(WriteTenantFigures(dir, cells[0].Name+".", cellRuns, TenantKinds, o))
	add(WriteFaultFigures(dir, "faults.", all, FaultKinds, o))
	add(WriteLoadFigures(dir, "", all, o))

	drawn := map[string]bool{}
	for _, f := range figs {
		drawn[f.Kind] = true
		if strings.HasPrefix(f.Kind, "load-") {
			drawn["load"] = true
		}
		for _, n := range f.Notes {
			if strings.HasPrefix(n, "text does not fit") {
				t.Errorf("%s: %s", filepath.Base(f.Path), n)
			}
		}
	}
	for _, k := range append(kinds, SeedKinds...) {
		if !drawn[k] {
			t.Errorf("kind %s was not drawn: give this test's sweep what it needs", k)
		}
	}
	t.Logf("%d figures checked", len(figs))
}
