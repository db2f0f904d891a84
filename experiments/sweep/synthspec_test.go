package sweep

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/input"
)

const synthSpec = `name: s
synth:
  from: philly-pollux
  window: 2+8
  sample: 40
  recipe: arena
  rate: [20, 40]
  iteration-scale: 1
traces: [pai]
clusters: [testbed-64]
policies: [fcfs]
timing: exact
rounds: 20
seeds: [1, 2]
`

// A list-valued synthesis key is an axis; the seeds of a synthesised trace
// each give a run, those of a built-in (deterministic) trace collapse to
// the first with a note.
func TestSynthSpecExpand(t *testing.T) {
	s, err := ParseSpec("s.yaml", "", []byte(synthSpec))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Synth) != 2 || s.Synth[0].Name != "philly-pollux.arena.rate=20" || s.Synth[1].Name != "philly-pollux.arena.rate=40" {
		t.Fatalf("synth traces %+v", s.Synth)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range plan.Runs {
		keys = append(keys, r.Key)
	}
	want := []string{"fcfs.pai.testbed-64.exact.r20.d1.s1.dr",
		"fcfs.philly-pollux_arena_rate_20.testbed-64.exact.r20.d1.s1.dr", "fcfs.philly-pollux_arena_rate_20.testbed-64.exact.r20.d1.s2.dr",
		"fcfs.philly-pollux_arena_rate_40.testbed-64.exact.r20.d1.s1.dr", "fcfs.philly-pollux_arena_rate_40.testbed-64.exact.r20.d1.s2.dr"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("runs %v\nwant %v", keys, want)
	}
	if len(plan.Notes) != 1 || !strings.Contains(plan.Notes[0], "trace pai is deterministic") {
		t.Errorf("notes %v, want one about pai's seeds", plan.Notes)
	}
	// Two seeds synthesise two different traces; the same seed the same.
	a, _ := s.Synth[0].Build(1)
	b, _ := s.Synth[0].Build(2)
	c, _ := s.Synth[0].Build(1)
	if len(a.Jobs) != 40 || reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Jobs, c.Jobs) || a.IterationScale != 1 {
		t.Errorf("builds: %d jobs, seeds differ %v, same seed same %v, scale %d", len(a.Jobs), !reflect.DeepEqual(a.Jobs, b.Jobs), reflect.DeepEqual(a.Jobs, c.Jobs), a.IterationScale)
	}
	out, err := runner.Execute(context.Background(), policy.NewRegistry(), plan.Runs[1].Run)
	if err != nil {
		t.Fatal(err)
	}
	if out.Summary.Trace != "philly-pollux.arena.rate=20" || out.Summary.JobsInTrace != 40 {
		t.Errorf("summary trace %q with %d jobs", out.Summary.Trace, out.Summary.JobsInTrace)
	}
}

func TestSynthSpecErrors(t *testing.T) {
	cases := []struct{ body, key string }{
		{"synth: {from: philly-pollux, seed: 3}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n", "synth.seed"},
		{"synth: {from: philly-pollux, rate: fast}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n", "synth.rate"},
		{"synth: {from: philly-pollux, warp: 9}\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n", "synth.warp"},
		{"synth: [a]\nclusters: [c]\npolicies: [fcfs]\ntiming: exact\n", "synth"},
	}
	for _, c := range cases {
		_, err := ParseSpec("s.yaml", "", []byte(c.body))
		var se *input.Error
		if !errors.As(err, &se) || se.Field != c.key || se.Line != 1 {
			t.Errorf("%q: %v, want an error on line 1 key %q", c.body, err, c.key)
		}
	}
	// A raw source without a recipe has no models: Expand says so.
	s, err := ParseSpec("s.yaml", "", []byte("synth: {from: philly-pollux, sample: 5}\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Expand(policy.NewRegistry()); err == nil || !strings.Contains(err.Error(), "--recipe arena") {
		t.Errorf("expand of an unlabelled synth: %v, want a hint to use the arena recipe", err)
	}
}

// What a spec's syntheses would hold — every synthesised trace for every
// seed, all kept while the sweep runs — is checked against the rows cap
// before any is built: from the keys (jobs, sample) at --list, and from
// the source's window counted, not synthesised, at expansion. Before,
// each trace was only checked as it was built, so a 7-line spec asking
// for millions of jobs × seeds built them (> 2 GB) even to list its runs.
func TestSynthSizeCheckedBeforeBuilding(t *testing.T) {
	input.RowsCap.Set(1000)
	defer input.RowsCap.Set(0)
	reg := policy.NewRegistry()
	const scratch = "name: big\nsynth: {rate: 10, jobs: [600, 700], durations: gavel, gpu-mix: gavel, recipe: arena}\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\nseeds: [1, 2]\n"
	s, err := ParseSpec("big.yaml", "", []byte(scratch))
	if err != nil {
		t.Fatal(err)
	}
	for name, expand := range map[string]func(runner.Policies) (*Plan, error){"Expand": s.Expand, "List": s.List} {
		_, err := expand(reg)
		var ie *input.Error
		var le *input.LimitError
		if !errors.As(err, &ie) || ie.Field != "synth" || ie.Line != 2 || !errors.As(err, &le) || le.Cap != input.RowsCap ||
			!strings.Contains(err.Error(), "jobs 2600") || !strings.Contains(err.Error(), "ARENA_MAX_ROWS") {
			t.Errorf("%s of 2 traces of 600 and 700 jobs × 2 seeds under a cap of 1000: %v; want the synth key refused at the rows cap", name, err)
		}
	}
	// Within the cap it expands; one seed of a deterministic trace counts once.
	input.RowsCap.Set(2600)
	if _, err := s.List(reg); err != nil {
		t.Errorf("2600 jobs under a cap of 2600: %v", err)
	}

	// A source whose size only its window decides: counted on the source.
	input.RowsCap.Set(0)
	const window = "name: w\nsynth: {from: philly-pollux, until: 30d, recipe: arena}\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\nseeds: [1, 2, 3]\n"
	s, err = ParseSpec("w.yaml", "", []byte(window))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Synth[0].Size(1)
	if err != nil || n == 0 {
		t.Fatalf("size of the window: %d, %v", n, err)
	}
	input.RowsCap.Set(int64(3*n - 1))
	if _, err := s.Expand(reg); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("jobs %d", 3*n)) {
		t.Errorf("%d jobs × 3 seeds under a cap of %d: %v; want it refused", n, 3*n-1, err)
	}
	input.RowsCap.Set(int64(3 * n))
	if _, err := s.Expand(reg); err != nil {
		t.Errorf("%d jobs × 3 seeds under a cap of %d: %v", n, 3*n, err)
	}
}
