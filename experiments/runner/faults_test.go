package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// The fault fields reach the engine's configuration, and their bad values
// are errors naming the field.
func TestFaultFields(t *testing.T) {
	reg := policy.NewRegistry()
	base := Run{Trace: "testbed", Cluster: "testbed-64", Policy: "fcfs", Timing: sim.Exact, Rounds: 10}

	r := base
	for flag, v := range map[string]string{"checkpoint-interval": "30m", "checkpoint-cost": "60", "checkpoint-restore": "0.5h"} {
		f, ok := FieldByFlag(flag)
		if !ok {
			t.Fatalf("no --%s", flag)
		}
		if err := f.Set(&r, v); err != nil {
			t.Fatalf("--%s %s: %v", flag, v, err)
		}
	}
	s, err := Resolve(reg, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := (sim.Checkpoint{Interval: 1800, Cost: 60, Restore: 1800}); s.Config.Checkpoint != want {
		t.Errorf("checkpoint %+v, want %+v", s.Config.Checkpoint, want)
	}
	if s.Config.FaultModel || len(s.Config.Events) > 0 {
		t.Errorf("a run without --faults has the fault model on or events")
	}
	plain, err := Resolve(reg, base)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Config.Checkpoint != (sim.Checkpoint{}) {
		t.Errorf("a run without checkpoint fields has %+v", plain.Config.Checkpoint)
	}

	for _, tc := range []struct {
		run  func(*Run)
		path string
	}{
		{func(r *Run) { r.Faults = "no-such-preset-or-file" }, "faults"},
		{func(r *Run) { r.CheckpointCost = 60 }, "checkpoint_cost"},
		{func(r *Run) { r.CheckpointInterval = -1 }, "checkpoint_interval"},
		{func(r *Run) { r.Timing, r.CheckpointInterval = sim.Artifact, 600 }, "faults"},
	} {
		r := base
		tc.run(&r)
		_, err := Resolve(reg, r)
		var fe *input.Error
		var fes FieldErrors
		switch {
		case errors.As(err, &fe) && fe.Field == tc.path:
		case errors.As(err, &fes) && len(fes) > 0 && fes[0].Field == tc.path:
		default:
			t.Errorf("%+v: error %v, want one at %s", r, err, tc.path)
		}
	}
	for in, want := range map[string]float64{"600": 600, "30m": 1800, "1.5h": 5400, "1d": 86400, "0": 0} {
		if got, err := ParseSpan(in); err != nil || got != want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "soon", "NaN", "-5m"} {
		if _, err := ParseSpan(in); err == nil || !strings.Contains(err.Error(), "duration") {
			t.Errorf("ParseSpan(%q): %v, want an error", in, err)
		}
	}
}

// A fault-free run's input hash does not change with the fault fields'
// existence; a checkpoint model changes it.
func TestFaultHash(t *testing.T) {
	r := Run{Trace: "testbed", Cluster: "testbed-64", Policy: "fcfs", Timing: sim.Exact, Rounds: 10}
	cfg := sim.DefaultConfig(nil, nil)
	a := InputHash(r, "fcfs", sim.ClusterSpec{}, cfg, nil)
	cfg.Checkpoint.Interval = 600
	if b := InputHash(r, "fcfs", sim.ClusterSpec{}, cfg, nil); a == b {
		t.Error("a checkpoint model does not change the input hash")
	}
}
