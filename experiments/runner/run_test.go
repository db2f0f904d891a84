package runner

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// A run's JSON form round-trips whole, writes its timing as a word, and
// reads the form golden files had before it held a whole run.
func TestRunJSON(t *testing.T) {
	r := Run{Trace: "pai", Cluster: "paper-1280", Policy: `exec:echo "timing":1`, Timing: sim.Artifact, Rounds: 30,
		Density: 0.5, Seed: 3, GPUMap: "a100=h100", ProfilingDelay: true, Overheads: "testbed", Slowdown: 1.1, Drain: true, Measure: "1d..3d",
		Synth: &SynthTrace{Name: "s", From: "philly-pollux", Keys: [][2]string{{"recipe", "arena"}}}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"policy":"exec:echo \"timing\":1","timing":"artifact","rounds":30`) {
		t.Errorf("JSON form %s", data)
	}
	var back Run
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(data) {
		t.Errorf("round trip:\n%s\n%s", data, again)
	}
	var old Run
	if err := json.Unmarshal([]byte(`{"trace": "pai", "cluster": "paper-1280", "policy": "fcfs", "timing": "exact", "rounds": 500}`), &old); err != nil || old.Timing != sim.Exact || old.Rounds != 500 {
		t.Errorf("old golden form: %+v, %v", old, err)
	}
	for _, bad := range []string{`{"trace":"pai","cluster":"c","policy":"p","timing":"exact","round":5}`, `{"trace":"pai","cluster":"c","policy":"p","timing":"fast"}`, `{"trace":"pai","cluster":"c","policy":"p"}`} {
		if err := json.Unmarshal([]byte(bad), new(Run)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// Validate names every bad field by its key, with the one wording of
// its rule.
func TestValidateFieldPaths(t *testing.T) {
	r := Run{Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Artifact, Rounds: -1, Density: 5000,
		Slowdown: 101, ScheduleOnEvents: true, GPUMap: "a100", Estimator: "oracle"}
	err := r.Validate()
	fes, ok := err.(FieldErrors)
	if !ok {
		t.Fatalf("Validate: %v", err)
	}
	var paths []string
	for _, fe := range fes {
		paths = append(paths, fe.Field)
	}
	if got := strings.Join(paths, " "); got != "rounds estimator density gpu_map schedule_on_events slowdown" {
		t.Errorf("paths %q (%v)", got, err)
	}
	if !strings.Contains(err.Error(), "density: 5000: "+ruleDensity) {
		t.Errorf("density wording: %v", err)
	}
	ok2 := Run{Trace: "pai", Cluster: "paper-1280", Policy: "fcfs"}
	if err := ok2.Validate(); err != nil {
		t.Errorf("zero fields are defaults: %v", err)
	}
}

// Every field of the table sets and reads back its value, and refuses
// a value its rule refuses.
func TestFieldsTable(t *testing.T) {
	seenKey, seenFlag := map[string]bool{}, map[string]bool{}
	for _, f := range Fields {
		if seenKey[f.SpecName()] || (f.Flag != "" && seenFlag[f.Flag]) {
			t.Errorf("%s: key or flag twice", f.Key)
		}
		seenKey[f.SpecName()], seenFlag[f.Flag] = true, true
		if f.Set == nil || f.Get == nil || f.Usage == "" {
			t.Errorf("%s: incomplete", f.Key)
		}
	}
	var r Run
	for key, v := range map[string]string{"slowdown": "1.5", "density": "2", "gpu_map": "a100=h100", "drain": "true", "measure": "#4000..5000", "iteration_scale": "3", "timing": "artifact", "seeds": "7"} {
		f, ok := FieldByKey(key)
		if !ok {
			t.Fatalf("no field %s", key)
		}
		if err := f.Set(&r, v); err != nil {
			t.Errorf("%s %s: %v", key, v, err)
		}
		if got := f.Get(&r); got != v {
			t.Errorf("%s: set %s, got %s", key, v, got)
		}
	}
	for key, v := range map[string]string{"slowdown": "0", "density": "0", "iteration_scale": "0", "rounds": "-2", "max_rounds": "0", "timing": "fast", "horizon": "0s", "drain": "maybe", "until_done": "true", "measure": "3d..1d"} {
		f, _ := FieldByKey(key)
		if err := f.Set(&r, v); err == nil {
			t.Errorf("%s %s: accepted", key, v)
		}
	}
}

// ParseMeasure reads the two forms of a window, either end open, and
// refuses anything else naming both forms; until_done is refused naming
// drain, as a field and in Validate.
func TestParseMeasure(t *testing.T) {
	for in, want := range map[string]sim.Window{
		"1d..3d":      {From: 86400, To: 3 * 86400},
		"36h..":       {From: 36 * 3600, To: math.Inf(1)},
		"..5400":      {From: 0, To: 5400},
		"#4000..5000": {ByIndex: true, From: 4000, To: 5000},
		" #10.. ":     {ByIndex: true, From: 10, To: math.Inf(1)},
		"all":         sim.AllJobs,
		"":            sim.AllJobs,
	} {
		got, err := ParseMeasure(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"1d", "3d..1d", "1d..1d", "#4000..x", "#-1..5", "..", "1d-3d", "#1.5..3"} {
		if _, err := ParseMeasure(bad); err == nil || !strings.Contains(err.Error(), "#4000..5000") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	f, _ := FieldByKey("until_done")
	if err := f.Set(new(Run), "true"); err == nil || !strings.Contains(err.Error(), "use drain") {
		t.Errorf("until_done: %v", err)
	}
	r := Run{Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", UntilDone: true, Measure: "x"}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "until_done: until_done is retired: use drain") || !strings.Contains(err.Error(), "measure: ") {
		t.Errorf("Validate: %v", err)
	}
}
