package report

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim"
)

// The faults axis of the built-in faults spec is a real, seeded axis:
// every value has runs of its own (before, faults and checkpoints were no
// part of a run's key and the plan refused two runs of one name), the
// runs without seeded faults run once (the trace is deterministic), the
// seeded ones every seed; and a seed's events are the same for every
// policy and differ from another seed's. Behaviour, checked on the events
// the runs are resolved to.
func TestFaultsSpecIsSeededAxis(t *testing.T) {
	spec, err := BuiltinSpec(FaultsSection)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]map[int64]int{}
	for _, r := range plan.Runs {
		if count[r.Run.Faults] == nil {
			count[r.Run.Faults] = map[int64]int{}
		}
		count[r.Run.Faults][r.Run.Seed]++
		if r.Run.CheckpointInterval != 1800 || r.Run.CheckpointCost != 30 || r.Run.CheckpointRestore != 60 {
			t.Errorf("%s: checkpoint model %g/%g/%g, want 1800/30/60", r.Key, r.Run.CheckpointInterval, r.Run.CheckpointCost, r.Run.CheckpointRestore)
		}
	}
	policies := len(spec.Policies)
	if len(count["none"]) != 1 || count["none"][1] != policies {
		t.Errorf("faults none: runs per seed %v, want seed 1 only, %d policies", count["none"], policies)
	}
	for _, f := range []string{"llama3", "gcp-maintenance"} {
		if len(count[f]) != 5 {
			t.Errorf("faults %s: seeds %v, want 5", f, count[f])
		}
		for s, n := range count[f] {
			if n != policies {
				t.Errorf("faults %s seed %d: %d runs, want %d", f, s, n, policies)
			}
		}
	}
	rv := runner.NewResolver(testRegistry())
	events := func(policy string, seed int64) []sim.ClusterEvent {
		for _, r := range plan.Runs {
			if r.Run.Policy == policy && r.Run.Seed == seed && r.Run.Faults == "gcp-maintenance" {
				sc, err := rv.Resolve(r.Run)
				if err != nil {
					t.Fatal(err)
				}
				return sc.Config.Events
			}
		}
		t.Fatalf("no run of %s, seed %d", policy, seed)
		return nil
	}
	a1, f1, a2 := events("arena", 1), events("fcfs", 1), events("arena", 2)
	if len(a1) == 0 {
		t.Fatal("gcp-maintenance drew no event on paper-1280 over a week")
	}
	if !reflect.DeepEqual(a1, f1) {
		t.Error("seed 1: arena's and fcfs' events differ")
	}
	if reflect.DeepEqual(a1, a2) {
		t.Error("seeds 1 and 2 gave the same events")
	}
}

// The axis check of the report flags policies of one seed that saw
// different events (the comparison would not be paired). Hand-built runs.
func TestFaultsAxisCheckFlagsUnpaired(t *testing.T) {
	run := func(p string, seed int64, events int) *sweep.Results {
		return &sweep.Results{Record: sweep.RunRecord{Seed: seed}, Summary: sim.Summary{Policy: p, Faults: &sim.FaultSummary{ClusterEvents: events}}}
	}
	for _, tc := range []struct {
		name    string
		cells   map[string]faultCell
		surpass bool
		want    string
	}{
		{"paired", map[string]faultCell{"a": {1: run("a", 1, 5), 2: run("a", 2, 7)}, "b": {1: run("b", 1, 5), 2: run("b", 2, 7)}}, false, "Checked: the same for every policy of a seed, different across seeds"},
		{"unpaired", map[string]faultCell{"a": {1: run("a", 1, 5)}, "b": {1: run("b", 1, 6)}}, true, "policies of one seed saw different events"},
		{"same seeds", map[string]faultCell{"a": {1: run("a", 1, 5), 2: run("a", 2, 5)}}, true, "every seed gave the same events"},
	} {
		w := &reportWriter{}
		w.faultsAxisCheck("x", tc.cells, []string{"a", "b"})
		if !strings.Contains(w.b.String(), tc.want) || (len(w.surprises) > 0) != tc.surpass {
			t.Errorf("%s: %q, surprises %q", tc.name, w.b.String(), w.surprises)
		}
	}
}

// TestReproduceFaultsSection runs the faults study shortened (100 rounds, a
// fixed horizon as the built-in spec's,
// fcfs and arena, gcp-maintenance over two seeds) and checks REPORT.md
// holds its table with intervals over the seeds, the axis check, the
// ranking and the fault figures, which exist. Guard: the section reports.
func TestReproduceFaultsSection(t *testing.T) {
	res, report := reproduceShort(t, FaultsSection, `name: faults
traces: [philly]
clusters: [paper-1280]
policies: [arena, fcfs]
timing: exact
rounds: 100
drain: false
seeds: [1, 2]
faults: [none, gcp-maintenance]
checkpoint_interval: 30m
checkpoint_cost: 30s
checkpoint_restore: 60s
`)
	if res.Runs != 6 {
		t.Errorf("%d runs, want 6 (2 without faults, 4 with)", res.Runs)
	}
	for _, want := range []string{"## Faults: Philly under failures and maintenance", "### gcp-maintenance",
		"Checked: the same for every policy of a seed, different across seeds", "t-interval over 2 seeds", "one run (deterministic: exact)",
		"| policy | mean JCT (h), no faults | with faults | change |", "| arena |", "| fcfs |", "Ranking by mean JCT, best first",
		"a job writes a checkpoint after every 30 min of progress, taking 30 s", "availability.png", "lost-work.png"} {
		if !strings.Contains(report, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if len(res.Figures) != 2 {
		t.Errorf("%d figures, want 2", len(res.Figures))
	}
	for _, f := range res.Figures {
		if _, err := os.Stat(f.Path); err != nil {
			t.Errorf("figure %s: %v", filepath.Base(f.Path), err)
		}
	}
	if testing.Verbose() {
		i := strings.Index(report, "## Faults")
		t.Log(report[i:min(len(report), i+4000)])
	}
}

// A faults file named in a spec is read next to the spec, as a trace is,
// and a path leading outside the spec's directory is refused (a spec from
// a stranger must not make arena read files elsewhere); presets are names.
func TestSpecFaultsFileNextToSpec(t *testing.T) {
	dir := t.TempDir()
	ev := "time,node,event\n100,0,down\n400,0,up\n"
	if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(ev), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(faults string) (*sweep.Plan, error) {
		s, err := sweep.ParseSpec(filepath.Join(dir, "s.yaml"), dir, []byte("name: f\ntraces: [philly]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: exact\nrounds: 10\nfaults: ["+faults+"]\n"))
		if err != nil {
			return nil, err
		}
		return s.Expand(testRegistry())
	}
	plan, err := spec("ev.csv, llama3")
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Runs[0].Run.Faults; got != filepath.Join(dir, "ev.csv") {
		t.Errorf("faults file resolved to %q, want it next to the spec", got)
	}
	if got := plan.Runs[1].Run.Faults; got != "llama3" {
		t.Errorf("preset resolved to %q", got)
	}
	if _, err := spec("../ev.csv"); err == nil || !strings.Contains(err.Error(), "outside the spec's directory") {
		t.Errorf("a path outside the spec's directory: %v", err)
	}
}

// Hand-worked Holm over the faults section's neighbour comparisons (two
// seeds each, so Student's t on 1 degree of freedom, the Cauchy
// distribution: p = 2·atan(1/|t|)/π, se = |d₁ − d₂|/2). Two presets,
// three policies a < b < c by mean JCT in each, four neighbour pairs:
//
//   - preset x: b − a per seed {1.00, 1.01} h, t = 201, p = 0.00317;
//     c − b {0.10, 0.11}, t = 21, p = 0.0303;
//   - preset y: b − a {2, 2.02}, t = 201, p = 0.00317; c − b {0.5, 0.7},
//     t = 6, p = 0.1051.
//
// Holm over the four: 0.00317·4 = 0.0127 and 0.00317·3 = 0.0095 → 0.0127
// (both separated), then 0.0303·2 = 0.0606 > 0.05 stops: x's b and c,
// separated alone, are not after the adjustment; y's c − b, 0.1051·1,
// stays not.
func TestFaultsNeighboursHolm(t *testing.T) {
	run := func(jctHours float64) *sweep.Results {
		return &sweep.Results{Summary: sim.Summary{SubmittedMeanJCT: jctHours * 3600}}
	}
	cells := func(ab, bc [2]float64) map[string]faultCell {
		out := map[string]faultCell{"a": {}, "b": {}, "c": {}}
		for s := range 2 {
			out["a"][int64(s)] = run(10)
			out["b"][int64(s)] = run(10 + ab[s])
			out["c"][int64(s)] = run(10 + ab[s] + bc[s])
		}
		return out
	}
	st := &faultStudy{names: []string{"x", "y"}, policies: []string{"a", "b", "c"}, cells: map[string]map[string]faultCell{
		"x": cells([2]float64{1, 1.01}, [2]float64{0.10, 0.11}),
		"y": cells([2]float64{2, 2.02}, [2]float64{0.5, 0.7}),
	}}
	w := &reportWriter{}
	tests := w.neighbourFamily(st)
	pt := func(tv float64) float64 { return 2 * math.Atan(1/tv) / math.Pi }
	want := map[string][2]float64{ // p, Holm-adjusted p
		"x|a|b": {pt(201), 4 * pt(201)},
		"y|a|b": {pt(201), 4 * pt(201)},
		"x|b|c": {pt(21), 2 * pt(21)},
		"y|b|c": {pt(6), pt(6)},
	}
	for k, wv := range want {
		got := tests[k]
		if math.Abs(got.p-wv[0]) > 1e-6 || math.Abs(got.holm-wv[1]) > 1e-6 {
			t.Errorf("%s: p %g, Holm %g; want %g, %g", k, got.p, got.holm, wv[0], wv[1])
		}
	}
	w.faultsRanking("x", st.policies, nil, st.cells["x"], tests)
	out := w.b.String()
	if !strings.Contains(out, "4 neighbour comparisons in this section at 95 % each, ~0.2 false positives expected") || !strings.Contains(out, "b and c (paired difference") || strings.Contains(out, "a and b (paired") {
		t.Errorf("ranking text:\n%s", out)
	}
}
