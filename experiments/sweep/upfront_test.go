package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// Every name a spec gives is checked for every planned run before the
// first run starts: a bad faults preset, faults spec or events file, a
// tenants file that is missing or malformed, an unknown policy or a bad
// policy option, and a cluster whose GPU types the run's estimator cannot
// price. Each is refused by Expand (so RunSweep never starts) with the
// spec file, the line and the key; the bad value sits after a good one
// in each list, so only a check of every run finds it.
func TestExpandChecksEveryRunsNamesFirst(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bad-faults.yaml": "name: x\nfailures:\n  - per: gpu\n    rate: -1\n",
		"teams.yaml":      "tenants: [oops\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := "traces: testbed\nclusters: testbed-64\npolicies: fcfs\nrounds: 5\n"
	for _, tc := range []struct {
		name, extra, key string
		line             int
		says             string
	}{
		{"unknown faults preset", "faults: [llama3, llama4]\n", "faults", 5, `"llama4": not a preset`},
		{"faults file missing", "faults: [none, nosuch.csv]\n", "faults", 5, "nosuch.csv"},
		{"faults spec malformed", "faults: [llama3, bad-faults.yaml]\n", "faults", 5, "rate"},
		{"tenants file missing", "tenants: [vcs, nosuch.yaml]\n", "tenants", 5, "nosuch.yaml"},
		{"tenants file malformed", "tenants: [vcs, teams.yaml]\n", "tenants", 5, "teams.yaml"},
		{"unpriced cluster, default estimator", "clusters: [testbed-64, h100-l20]\n", "clusters[1]", 4, "cannot price: h100, l20"},
		{"unpriced cluster, estimator given", "clusters: [testbed-64, h100-l20]\nestimators: [analytic, profiledb]\n", "estimators", 5, "the profiledb estimator cannot price: h100, l20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := base + tc.extra
			if strings.HasPrefix(tc.extra, "clusters:") {
				src = strings.Replace(base, "clusters: testbed-64\n", "", 1) + tc.extra
			}
			s, err := ParseSpec(filepath.Join(dir, "s.yaml"), dir, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Expand(policy.NewRegistry())
			var se *input.Error
			if !errors.As(err, &se) || se.File != filepath.Join(dir, "s.yaml") || se.Field != tc.key || se.Line != tc.line || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Expand: %v; want %s:%d: key %s: …%s…", err, filepath.Join(dir, "s.yaml"), tc.line, tc.key, tc.says)
			}
		})
	}
	for _, tc := range []struct{ policies, says string }{
		{"[fcfs, no-such-policy]", "no-such-policy"},
		{"[fcfs, 'tiresias(queus=3)']", "queus"},
	} {
		s, err := ParseSpec("s.yaml", "", []byte(strings.Replace(base, "policies: fcfs", "policies: "+tc.policies, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Expand(policy.NewRegistry())
		var se *input.Error
		if !errors.As(err, &se) || se.File != "s.yaml" || !strings.HasPrefix(se.Field, "policies") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("policies %s: %v; want an error at key policies naming %s", tc.policies, err, tc.says)
		}
	}
}

// A spec without a timing key runs exact timing (the project's default);
// one with it runs the modes it lists.
func TestSpecTimingDefaultsToExact(t *testing.T) {
	for src, want := range map[string][]sim.Timing{
		"traces: testbed\nclusters: testbed-64\npolicies: fcfs\nrounds: 5\n":                            {sim.Exact},
		"traces: testbed\nclusters: testbed-64\npolicies: fcfs\nrounds: 5\ntiming: artifact\n":          {sim.Artifact},
		"traces: testbed\nclusters: testbed-64\npolicies: fcfs\nrounds: 5\ntiming: [artifact, exact]\n": {sim.Artifact, sim.Exact},
	} {
		s, err := ParseSpec("s.yaml", "", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		plan, err := s.Expand(policy.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		var got []sim.Timing
		for _, r := range plan.Runs {
			got = append(got, r.Run.Timing)
		}
		if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Errorf("%q: timings %v, want %v", src, got, want)
		}
	}
}

// A merged sweep names the runs whose faults gave them no node outage or
// fewer than one expected, and only those.
func TestReportNamesRunsWhoseFaultsGaveNothing(t *testing.T) {
	e := func(x float64) *float64 { return &x }
	row := func(key, faults string, outages int, expected *float64) SummaryRow {
		r := SummaryRow{Key: key, FaultsName: faults, Summary: sim.Summary{Policy: "fcfs", Seed: 1}}
		if faults != "none" {
			r.FaultsKey = ".f-" + faults
			r.Faults = &sim.FaultSummary{Outages: outages, ExpectedOutages: expected}
		}
		return r
	}
	rows := []SummaryRow{
		row("none.run", "none", 0, nil),
		row("zero.run", "llama3", 0, e(0.4)),
		row("one-of-few.run", "llama3", 1, e(0.4)),
		row("enough.run", "gcp-maintenance", 5, e(4.6)),
		row("file-empty.run", "events", 0, nil),
		row("file-full.run", "events", 2, nil),
	}
	var b strings.Builder
	if err := WriteReport(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "⚠ 3 run(s) with faults saw no node outage or expected fewer than one") {
		t.Errorf("report:\n%s", out)
	}
	for key, named := range map[string]bool{"zero.run (0, 0.40 expected)": true, "one-of-few.run (1, 0.40 expected)": true, "file-empty.run (0, no expectation": true,
		"none.run": false, "enough.run": false, "file-full.run": false} {
		if strings.Contains(out, key) != named {
			t.Errorf("%s named: %v, want %v:\n%s", key, !named, named, out)
		}
	}
}
