package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/policy"
)

// notRunFlags are the flags of 'arena simulate' that do not describe the
// run (where results go, what is printed, profiling of arena itself, and
// --baseline: which policy the others are compared with, the spec's own
// baseline: key). Any other flag must be a field of runner.Run with a
// spec key.
var notRunFlags = []string{"out", "quiet", "progress", "no-reference", "cpuprofile", "memprofile", "help", "baseline", "fairness", "tenants"}

// Every flag of 'arena simulate' that describes a run binds to a field of
// the run table and is a key a sweep spec accepts with the flag's default
// as its value. Fails when a flag is added outside the table (as
// --until-done, --gpu-map, --profiling-delay, --schedule-on-events were:
// the spec could not say them), or a field's spec key is refused.
func TestEverySimulateRunFlagIsASpecKey(t *testing.T) {
	cmd := newSimulateCmd(policy.NewRegistry())
	def := simulateDefaults()
	var checked []string
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if slices.Contains(notRunFlags, fl.Name) {
			return
		}
		f, ok := runner.FieldByFlag(fl.Name)
		if !ok {
			t.Errorf("--%s describes the run (it is not in notRunFlags) but binds to no field of runner.Fields: a spec cannot set it", fl.Name)
			return
		}
		if f.Key == "until_done" { // retired: the key, like the flag, points to drain
			if _, err := sweep.ParseSpec("t.yaml", "", []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\nuntil_done: true\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:4") || !strings.Contains(err.Error(), "use drain") {
				t.Errorf("until_done in a spec: %v", err)
			}
			checked = append(checked, fl.Name)
			return
		}
		val := f.Get(&def)
		if sample, ok := map[string]string{"policy": "fcfs", "horizon": "7d", "iteration_scale": "5", "gpu_map": "a100=h100", "rounds": "100", "energy": "default"}[f.Key]; ok {
			val = sample // no default, or the default "none" a spec cannot write
		}
		keys := map[string]string{"traces": "pai", "clusters": "paper-1280", "policies": "fcfs", "timing": "exact"}
		keys[f.SpecName()] = val
		var spec string
		for _, k := range []string{"traces", "clusters", "policies", "timing"} {
			spec += fmt.Sprintf("%s: [%q]\n", k, keys[k])
			delete(keys, k)
		}
		for k, v := range keys {
			spec += fmt.Sprintf("%s: %q\n", k, v)
		}
		s, err := sweep.ParseSpec("t.yaml", "", []byte(spec))
		if err != nil {
			t.Errorf("--%s: its spec key %s: %v", fl.Name, f.SpecName(), err)
			return
		}
		if !s.HasKey(f.SpecName()) {
			t.Errorf("--%s: spec key %s not recorded", fl.Name, f.SpecName())
		}
		checked = append(checked, fl.Name)
	})
	for _, want := range []string{"until-done", "drain", "measure", "gpu-map", "profiling-delay", "schedule-on-events", "overheads", "check", "max-rounds"} {
		if !slices.Contains(checked, want) {
			t.Errorf("--%s was not checked", want)
		}
	}
}

// A field set in a spec reaches every run of the sweep, as the flag
// reaches the run of 'arena simulate'.
func TestSpecKeysReachTheRuns(t *testing.T) {
	spec := "traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs, gavel]\ntiming: [exact]\nrounds: 20\n" +
		"drain: true\nmeasure: '#1..3'\ngpu_map: a100=a100\nprofiling_delay: true\nschedule_on_events: [false, true]\nmax_rounds: 500\noverheads: testbed\ncheck: true\n"
	s, err := sweep.ParseSpec("t.yaml", "", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Runs) != 4 {
		t.Fatalf("%d runs, want 2 policies × schedule_on_events [false, true]", len(plan.Runs))
	}
	for i, pr := range plan.Runs {
		r := pr.Run
		if !r.Drain || r.Measure != "#1..3" || r.GPUMap != "a100=a100" || !r.ProfilingDelay || r.MaxRounds != 500 || r.Overheads != "testbed" || !r.Check || r.ScheduleOnEvents != (i >= 2) {
			t.Errorf("run %s: %+v", pr.Key, r)
		}
	}
	if !strings.HasSuffix(plan.Runs[3].Key, ".o-testbed.gm-a100_a100.m-i1-3.pd.ev.dr.chk") {
		t.Errorf("key %s", plan.Runs[3].Key)
	}
}
