package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arena-sim/arena/experiments/data/specs"
	"github.com/arena-sim/arena/experiments/runner"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

func TestParseSpecErrorsNameFileLineAndKey(t *testing.T) {
	base := "name: t\ntraces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: exact\n"
	cases := []struct {
		name, yaml string
		line       int
		key, msg   string
	}{
		{"unknown key", base + "polices: [fcfs]\n", 6, "polices", "unknown key"},
		{"bad timing", "traces: pai\nclusters: paper-1280\npolicies: fcfs\ntiming: [exact, fast]\n", 4, "timing", `"fast"`},
		{"negative density", base + "density: [1, -2]\n", 6, "density", "from 0.001 to 1000"},
		{"bad rounds", base + "rounds: many\n", 6, "rounds", "whole number"},
		{"rounds and horizon", base + "rounds: 10\nhorizon: 7d\n", 7, "horizon", "alternatives"},
		{"bad horizon", base + "horizon: soon\n", 6, "horizon", "duration"},
		{"bad seed", base + "seeds: [1, x]\n", 6, "seeds", "integer"},
		{"duplicate key", base + "trace: helios\n", 6, "trace", "given twice"},
		{"missing policies", "traces: [pai]\nclusters: [paper-1280]\ntiming: exact\n", 1, "policies", "missing"},
		{"nested list", "traces: [[pai]]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: exact\n", 1, "traces", "plain values"},
		{"bad skip_missing", base + "skip_missing: perhaps\n", 6, "skip_missing", "true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec("my.yaml", "", []byte(c.yaml))
			var se *input.Error
			if !errors.As(err, &se) {
				t.Fatalf("want a *input.Error, got %v", err)
			}
			if se.File != "my.yaml" || se.Line != c.line || se.Field != c.key {
				t.Errorf("located at %s:%d key %q, want my.yaml:%d key %q (%v)", se.File, se.Line, se.Field, c.line, c.key, err)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "my.yaml:") {
				t.Errorf("message %q: want it to start with the file and mention %q", err, c.msg)
			}
		})
	}
}

func TestParseSpecYAMLSyntaxErrorHasLine(t *testing.T) {
	_, err := ParseSpec("s.yaml", "", []byte("name: x\ntraces: [pai\n"))
	var se *input.Error
	if !errors.As(err, &se) || se.Line == 0 {
		t.Fatalf("want a located *input.Error, got %v", err)
	}
}

func TestExpandCrossProductAndPolicyResolution(t *testing.T) {
	s, err := ParseSpec("s.yaml", "", []byte(`
name: grid
traces: [pai, testbed]
clusters: paper-1280
policies: [fcfs, not-yet-written]
skip_missing: true
timing: [artifact, exact]
density: [0.5, 1]
seeds: [1, 2]
rounds: 10
`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	// pai and testbed are deterministic: their two seeds collapse to seed 1.
	if got, want := len(plan.Runs), 2*2*2*1; got != want {
		t.Fatalf("%d runs, want %d", got, want)
	}
	if len(plan.Notes) != 3 || !strings.Contains(plan.Notes[0], "not-yet-written") ||
		!strings.Contains(plan.Notes[1], "trace pai is deterministic") || !strings.Contains(plan.Notes[2], "trace testbed is deterministic") {
		t.Errorf("notes %q: want one naming the unregistered policy, one per deterministic trace", plan.Notes)
	}
	keys := map[string]bool{}
	for _, r := range plan.Runs {
		if keys[r.Key] {
			t.Errorf("duplicate key %s", r.Key)
		}
		keys[r.Key] = true
		if !strings.HasPrefix(r.Key, "fcfs.") || !strings.HasSuffix(r.Key, r.Group) {
			t.Errorf("key %s: want policy.group", r.Key)
		}
	}
	first := plan.Runs[0].Run
	if first.Trace != "pai" || first.Timing != sim.Artifact || first.Density != 0.5 || first.Seed != 1 || first.Rounds != 10 {
		t.Errorf("first run %+v: want pai, artifact, density 0.5, seed 1, 10 rounds", first)
	}

	s.SkipMissing = false
	if _, err := s.Expand(policy.NewRegistry()); err == nil || !strings.Contains(err.Error(), "not-yet-written") {
		t.Errorf("without skip_missing, an unregistered policy must be an error naming it, got %v", err)
	}
}

func TestResolvePoliciesGlobsAndExclusions(t *testing.T) {
	reg := policy.NewRegistry()
	all := slices.DeleteFunc(reg.Names(), func(n string) bool { return n == "exec" }) // needs its command
	got, _, err := ResolvePolicies(reg, []string{"*"}, false)
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("* = %v (%v), want every registered policy %v", got, err, all)
	}
	got, _, err = ResolvePolicies(reg, []string{"fcfs", "*", "!fcfs"}, false)
	if err != nil || slices.Contains(got, "fcfs") || len(got) != len(all)-1 {
		t.Errorf("exclusion: got %v (%v)", got, err)
	}
	_, notes, _ := ResolvePolicies(reg, []string{"fcfs", "zz-*"}, false)
	if len(notes) != 1 {
		t.Errorf("a glob matching nothing must be noted, notes %v", notes)
	}
	if _, _, err := ResolvePolicies(reg, []string{"[bad"}, false); err == nil {
		t.Error("a malformed glob must be an error")
	}
}

func TestExpandRejectsUnknownTraceWithLine(t *testing.T) {
	s, err := ParseSpec("s.yaml", "", []byte("policies: fcfs\ntraces: [no-such-trace]\nclusters: paper-1280\ntiming: exact\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Expand(policy.NewRegistry())
	var se *input.Error
	if !errors.As(err, &se) || se.Line != 2 || se.Field != "traces" {
		t.Fatalf("want s.yaml:2 key traces, got %v", err)
	}
}

func TestScaleIterations(t *testing.T) {
	jobs := []sim.JobSpec{{Iterations: 1000}, {Iterations: 3}}
	got, err := runner.ScaleIterations(jobs, 0.5)
	if err != nil || got[0].Iterations != 500 || got[1].Iterations != 1 {
		t.Errorf("×0.5: %+v (%v)", got, err)
	}
	if jobs[0].Iterations != 1000 {
		t.Error("the input trace must not be modified")
	}
	if _, err := runner.ScaleIterations(jobs, -1); err == nil {
		t.Error("a negative density must be an error")
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "4/4", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	s, err := ParseShard("2/3")
	if err != nil || s.Index != 2 || s.Count != 3 {
		t.Errorf("2/3 = %+v, %v", s, err)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, name := range specs.Names() {
		data, _ := specs.Text(name)
		f.Add(data)
	}
	f.Add([]byte("traces: [pai\n"))
	f.Add([]byte("density: [0, -1, .5]\nhorizon: 1d\nrounds: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.yaml", "", data)
		if err != nil {
			var se *input.Error
			if !errors.As(err, &se) || se.File != "fuzz.yaml" {
				t.Fatalf("error not located: %v", err)
			}
			return
		}
		// A spec's traces come from its traces or its synth key (tenants.yaml).
		if len(s.Traces)+len(s.Synth) == 0 || len(s.Policies) == 0 || len(s.Timings) == 0 || len(s.Densities) == 0 {
			t.Fatalf("accepted a spec with an empty axis: %+v", s)
		}
		for _, d := range s.Densities {
			if !(d >= runner.MinDensity && d <= runner.MaxDensity) {
				t.Fatalf("accepted density %v", d)
			}
		}
		if s.Name == "" || checkName(s.Name) != nil {
			t.Fatalf("accepted spec name %q", s.Name)
		}
	})
}

// TestSpecPathsAreRelativeToTheSpecFile runs a sweep whose cluster is a
// file next to the spec, from another working directory.
func TestSpecPathsAreRelativeToTheSpecFile(t *testing.T) {
	dir := t.TempDir()
	cluster := "name: tiny\npools:\n  - {gpu: a40, nodes: 8, gpus_per_node: 2}\n  - {gpu: a10, nodes: 8, gpus_per_node: 2}\n"
	if err := os.WriteFile(filepath.Join(dir, "tiny.yaml"), []byte(cluster), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "traces: testbed\nclusters: tiny.yaml\npolicies: fcfs\ntiming: exact\nhorizon: 2h\ndrain: false\n"
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSpec(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 1 || plan.Runs[0].Key != "fcfs.testbed.tiny.exact.r24.d1.s0" {
		t.Fatalf("runs %+v: want one named fcfs.testbed.tiny.exact.r24.d1.s0 (2 h = 24 rounds; drain: false, a fixed horizon)", plan.Runs)
	}
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	r, err := LoadResults(RunDir(out, plan.Runs[0].Key), true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Cluster != "tiny" || r.Summary.Rounds != 24 || len(r.Timeline) != 24 || len(r.Types) != 2 {
		t.Errorf("summary %s/%d rounds, timeline %d rows, types %v", r.Summary.Cluster, r.Summary.Rounds, len(r.Timeline), r.Types)
	}
}

// Policy strings with options in a spec: each list item is one policy; its
// canonical form names the runs; a bad option is an error naming the spec
// line, the policy and the key, even with skip_missing.
func TestSpecPolicyOptions(t *testing.T) {
	src := "policies: [tiresias, 'tiresias(queues=3, threshold=4h)', 'TIRESIAS(queues=2)', 'exec:python3 p.py', '*', '!arena*', '!elasticflow*', '!fcfs', '!gavel*', '!sia*', '!srtf', '!ftf', '!quota', '!carbon-aware', '!cost-aware', '!tas']\ntraces: testbed\nclusters: testbed-64\ntiming: exact\nrounds: 5\n"
	s, err := ParseSpec("s.yaml", "", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range plan.Runs {
		got = append(got, r.Run.Policy+" → "+r.Key)
	}
	want := []string{"tiresias → tiresias.testbed.testbed-64.exact.r5.d1.s0.dr", "tiresias(queues=3,threshold=4h) → tiresias_queues=3_threshold=4h.testbed.testbed-64.exact.r5.d1.s0.dr",
		"exec:python3 p.py → exec_python3_p_py.testbed.testbed-64.exact.r5.d1.s0.dr"}
	if !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q (the default-valued duplicate folds into tiresias; \"*\" never adds exec, which needs its command)", got, want)
	}
	bad, _ := ParseSpec("s.yaml", "", []byte("skip_missing: true\npolicies: ['tiresias(queus=3)']\ntraces: testbed\nclusters: testbed-64\ntiming: exact\n"))
	_, err = bad.Expand(policy.NewRegistry())
	if err == nil || !strings.Contains(err.Error(), "s.yaml:2") || !strings.Contains(err.Error(), "policy tiresias: option queus") {
		t.Errorf("bad option: %v", err)
	}
}

// TestSpecOverheadsAndIterationScale: the two keys reach every run, a
// profile file is relative to the spec, the run keys say they are not the
// defaults, and a profile that prices none of a policy's classes is an
// error naming the key.
func TestSpecOverheadsAndIterationScale(t *testing.T) {
	dir := t.TempDir()
	prof := "name: mine\nclasses:\n  full-search: {fixed: 60}\n"
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte(prof), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "traces: pai\nclusters: testbed-64\npolicies: fcfs\ntiming: exact\nrounds: 3\noverheads: mine.yaml\niteration_scale: 1\n"
	s, err := ParseSpec(filepath.Join(dir, "s.yaml"), dir, []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	r := plan.Runs[0]
	if r.Run.Overheads != filepath.Join(dir, "mine.yaml") || r.Run.IterationScale != 1 || !strings.HasSuffix(r.Key, ".o-mine.i1.dr") {
		t.Errorf("run %+v", r)
	}
	s, err = ParseSpec("s.yaml", dir, []byte(strings.Replace(spec, "mine.yaml", "testbed", 1)+"skip_missing: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Expand(testRegistry()); err != nil {
		t.Errorf("fcfs under testbed: %v", err)
	}
	s, _ = ParseSpec("s.yaml", dir, []byte(strings.Replace(strings.Replace(spec, "mine.yaml", "testbed", 1), "fcfs", "srtf", 1)))
	if _, err := s.Expand(testRegistry()); err == nil || !strings.Contains(err.Error(), `key overheads: policy srtf`) {
		t.Errorf("srtf under testbed: %v, want an error on key overheads", err)
	}
	if _, err := ParseSpec("s.yaml", dir, []byte(spec+"iteration_scale: 0\n")); err == nil {
		t.Error("accepted a duplicate iteration_scale")
	}
	if _, err := ParseSpec("s.yaml", dir, []byte(strings.Replace(spec, "iteration_scale: 1", "iteration_scale: 0", 1))); err == nil || !strings.Contains(err.Error(), "want a positive integer") {
		t.Errorf("iteration_scale 0: %v", err)
	}
}

// FuzzParseHorizon (--horizon, horizon:): never panics; an accepted value
// is within [1 s, MaxHorizon] and a positive number of rounds.
func FuzzParseHorizon(f *testing.F) {
	for _, s := range []string{"7d", "36h", "90m", "1e99d", "Infd", "NaNd", "2562047h", "-1d", "0.5d", "1s", "36500d", "36501d", "1h30m", "d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := runner.ParseHorizon(s)
		if err != nil {
			return
		}
		if d < time.Second || d > runner.MaxHorizon || runner.HorizonRounds(d) < 1 {
			t.Fatalf("%q: accepted %v (%d rounds)", s, d, runner.HorizonRounds(d))
		}
	})
}

// FuzzParseShard (--shard): never panics; an accepted I/N has 0 ≤ I < N
// and prints back as itself.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/2", "1/0", " 1 / 2 ", "9223372036854775807/1", "1/2/3", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("%q: accepted %+v", s, sh)
		}
		if sh.Count > 1 {
			if back, err := ParseShard(sh.String()); err != nil || back != sh {
				t.Fatalf("%q: round trip %v, %v", s, back, err)
			}
		}
	})
}
