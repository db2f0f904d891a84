package gavel_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/experiments/data/reference"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// The Philly runs of both integer-programming baselines live here (Sia
// shares Gavel's placement and planning code).

var update = flag.Bool("update", false, "rewrite testdata/philly_golden.json with the current Philly figures")

func phillyRun(tb testing.TB, name string, timing sim.Timing, check bool) *runner.Outcome {
	tb.Helper()
	out, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "philly", Cluster: "paper-1280", Policy: name, Timing: timing, Rounds: 2000, Check: check,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// parityRuns: each registered version against the authors' stored run
// (reference.Philly). The acceptance bands are ±5 % on jobs
// finished and ±10 % on mean JCT; jobsBand and jctBand say which bands the
// version reaches and the test asserts them. A band not reached is logged,
// not asserted (docs/ilp-baselines.md explains what remains).
//
// Anchors: the bands are the outside anchor (the artifact's stored Philly
// runs); the golden figures (testdata/philly_golden.json, exact,
// regenerate with -update) are arena's own output and only guard against
// change, either way.
var parityRuns = []struct {
	policy, stored    string
	jobsBand, jctBand bool
}{
	{policy: "gavel-stored", stored: "gavel", jobsBand: true, jctBand: true},
	{policy: "gavel", stored: "gavel"},
	{policy: "sia-stored", stored: "sia"},
	{policy: "sia-head", stored: "sia", jobsBand: true},
}

// storedFigures are the stored file's figures, checked against the file so
// a changed reference is noticed.
var storedFigures = map[string]struct {
	jobs int
	jct  float64
}{"gavel": {642, 64879}, "sia": {633, 44394}}

// golden is one run's deterministic figures.
type golden struct {
	Finished int     `json:"finished"`
	MeanJCT  float64 `json:"mean_jct_s"`
	MeanThr  float64 `json:"mean_throughput"`
}

const goldenPath = "testdata/philly_golden.json"

func TestPhillyAgainstStoredRun(t *testing.T) {
	if testing.Short() {
		t.Skip("full Philly runs")
	}
	want := map[string]golden{}
	if !*update {
		data, err := os.ReadFile(goldenPath)
		if err != nil {
			t.Fatalf("%v (regenerate with go test -run TestPhillyAgainstStoredRun ./policy/gavel -update)", err)
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", goldenPath, err)
		}
	}
	got := map[string]golden{}
	for _, b := range parityRuns {
		t.Run(b.policy, func(t *testing.T) {
			ref, ok := reference.Philly(b.stored)
			if !ok {
				t.Fatal("no stored run")
			}
			refJCT := 0.0
			for _, v := range ref.JCT {
				refJCT += v
			}
			refJCT /= float64(len(ref.JCT))
			st := storedFigures[b.stored]
			if len(ref.JCT) != st.jobs || math.Abs(refJCT-st.jct) > 1 {
				t.Fatalf("stored run: %d jobs, mean JCT %.1f; expected %d, %.0f", len(ref.JCT), refJCT, st.jobs, st.jct)
			}
			s := phillyRun(t, b.policy, sim.Artifact, true).Summary
			dJobs := float64(s.Finished-st.jobs) / float64(st.jobs)
			dJCT := (s.MeanJCT - st.jct) / st.jct
			t.Logf("ours: %d finished (%+.1f %%), mean JCT %.0f s (%+.1f %%); stored: %d, %.0f s",
				s.Finished, 100*dJobs, s.MeanJCT, 100*dJCT, st.jobs, st.jct)
			if jobsOK := math.Abs(dJobs) <= 0.05; b.jobsBand && !jobsOK {
				t.Errorf("jobs finished %d: outside ±5 %% of %d", s.Finished, st.jobs)
			} else if !jobsOK {
				t.Logf("jobs finished outside ±5 %% (known, docs/ilp-baselines.md)")
			}
			if jctOK := math.Abs(dJCT) <= 0.10; b.jctBand && !jctOK {
				t.Errorf("mean JCT %.0f: outside ±10 %% of %.0f", s.MeanJCT, st.jct)
			} else if !jctOK {
				t.Logf("mean JCT outside ±10 %% (known, docs/ilp-baselines.md)")
			}
			// Exact figures: the runs are byte-identical run to run, so a
			// rounded golden would only hide small changes.
			g := golden{Finished: s.Finished, MeanJCT: s.MeanJCT, MeanThr: s.MeanThroughput}
			got[b.policy] = g
			if w, ok := want[b.policy]; !*update && (!ok || w != g) {
				t.Errorf("golden figures changed: %+v, golden %+v (if intended: go test -run TestPhillyAgainstStoredRun ./policy/gavel -update)", g, w)
			}
		})
	}
	if *update {
		data, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExactTimingRuns: the whole trace in exact timing (Sia with the
// corrected GPU counts) under the invariant checker, with its figures
// asserted exactly.
//
// Anchor: guard against change only. The authors' simulator has no exact
// timing, so no outside value exists for these runs (the outside-anchored
// Philly runs are TestPhillyAgainstStoredRun's, in artifact timing); the
// figures are arena's own output at commit 835cbcd, byte-identical run to
// run. A deliberate change updates them here, with the reason in the commit.
func TestExactTimingRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("full Philly runs")
	}
	for _, c := range []struct {
		name     string
		finished int
		meanJCT  float64 // s, exactly as summary.json prints it
	}{
		{"gavel", 605, 56317.31028356202},
		{"sia", 650, 42580.42719771279},
	} {
		s := phillyRun(t, c.name, sim.Exact, true).Summary
		if s.Finished != c.finished || s.MeanJCT != c.meanJCT {
			t.Errorf("%s: %d jobs finished, mean JCT %v s; want %d, %v (guard values: if the change is intended, update them)",
				c.name, s.Finished, s.MeanJCT, c.finished, c.meanJCT)
		}
	}
}

// BenchmarkPhilly is the wall time of each baseline's Philly run (2000
// rounds), solver included.
func BenchmarkPhilly(b *testing.B) {
	for _, name := range []string{"gavel", "gavel-stored", "sia", "sia-head", "sia-stored"} {
		for _, timing := range []sim.Timing{sim.Artifact, sim.Exact} {
			b.Run(name+"/"+timing.String(), func(b *testing.B) {
				for b.Loop() {
					phillyRun(b, name, timing, false)
				}
			})
		}
	}
}
