package runner

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/faults"
	"github.com/arena-sim/arena/sim/input"
)

// A run with faults records in its summary the node outages its events
// held and how many its preset gives its cluster over the window on
// average (faults.Spec.Expected), and warns when the count is 0 or the
// expectation below 1: llama3 on the 384-GPU h100-l20 over two days
// (0.40 expected) warns for every seed, gcp-maintenance there (a window
// per node every 14 days: 4.6 expected) for none.
func TestFaultsCountedExpectedAndWarned(t *testing.T) {
	reg := policy.NewRegistry()
	for _, tc := range []struct {
		preset string
		warn   bool
	}{{"llama3", true}, {"gcp-maintenance", false}} {
		for seed := int64(1); seed <= 5; seed++ {
			r := Run{Trace: "testbed", Cluster: "h100-l20", Estimator: "analytic", GPUMap: "a40=h100,a10=l20", Policy: "fcfs",
				Timing: sim.Exact, Rounds: 576, Faults: tc.preset, Seed: seed}
			s, err := Resolve(reg, r)
			if err != nil {
				t.Fatal(err)
			}
			o, err := s.Execute(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			spec, _, _ := faults.Preset(tc.preset)
			want := spec.Expected(o.Cluster, 576*300)
			f := o.Summary.Faults
			if f == nil || f.ExpectedOutages == nil || math.Abs(*f.ExpectedOutages-want) > 1e-9 {
				t.Fatalf("%s seed %d: faults summary %+v, want %v expected", tc.preset, seed, f, want)
			}
			if got := faults.Outages(s.Config.Events); f.Outages != got {
				t.Errorf("%s seed %d: %d outages recorded, the events hold %d", tc.preset, seed, f.Outages, got)
			}
			msg := o.FaultsWarning()
			if (msg != "") != tc.warn || tc.warn && !strings.Contains(msg, "expected on h100-l20 (384 GPUs) over 2d") {
				t.Errorf("%s seed %d (%d outages, %.2f expected): warning %q", tc.preset, seed, f.Outages, want, msg)
			}
		}
	}
}

// The warning's rule, case by case: no outage, or fewer than one
// expected, warns; an events file (no expectation) warns only with none.
func TestFaultsWarningRule(t *testing.T) {
	e := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		outages  int
		expected *float64
		warn     bool
		says     string
	}{
		{0, e(0.4), true, "a fault-free run's"},
		{0, e(5), true, "a fault-free run's"},
		{1, e(0.4), true, "fewer than one expected"},
		{3, e(1), false, ""},
		{0, nil, true, "events file"},
		{2, nil, false, ""},
	} {
		o := &Outcome{Run: Run{Faults: "llama3"}, Summary: sim.Summary{Cluster: "c", HorizonS: 86400, Faults: &sim.FaultSummary{Outages: tc.outages, ExpectedOutages: tc.expected}}}
		msg := o.FaultsWarning()
		if (msg != "") != tc.warn || !strings.Contains(msg, tc.says) || tc.warn && !strings.Contains(msg, "faults llama3") {
			t.Errorf("%d outages, %v expected: %q", tc.outages, tc.expected, msg)
		}
	}
	if (&Outcome{Summary: sim.Summary{Faults: &sim.FaultSummary{}}}).FaultsWarning() != "" {
		t.Error("a run without --faults warned")
	}
}

// An events file's events after the run's window are never applied: all
// of them (a file in milliseconds read as seconds) is refused, naming the
// file and the window, instead of a silently fault-free run; some of them
// are counted and warned about. Before, both ran without a word.
func TestEventsPastTheWindow(t *testing.T) {
	reg := policy.NewRegistry()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := Run{Trace: "testbed", Cluster: "testbed-64", Policy: "fcfs", Timing: sim.Exact, Rounds: 10}
	// 10 rounds of 300 s: the window ends 3000 s after the first submission.
	r := base
	r.Faults = write("ms.csv", "time,node,event\n3600000,0,down\n7200000,0,up\n")
	_, err := Resolve(reg, r)
	var ie *input.Error
	if !errors.As(err, &ie) || ie.Field != "faults" || !strings.Contains(err.Error(), "ms.csv") || !strings.Contains(err.Error(), "all 2 events") || !strings.Contains(err.Error(), "milliseconds") {
		t.Errorf("every event past the window: %v; want the faults field refused, naming the file", err)
	}
	r.Faults = write("some.csv", "time,node,event\n0,0,down\n3600000,0,up\n")
	s, err := Resolve(reg, r)
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if msg := o.FaultsWarning(); !strings.Contains(msg, "1 of the file's 2 events fall after the run's window") {
		t.Errorf("one event of two past the window: warning %q", msg)
	}
	r.Faults = write("in.csv", "time,node,event\n0,0,down\n100,0,up\n")
	if s, err = Resolve(reg, r); err != nil {
		t.Fatal(err)
	}
	if o, err = s.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if msg := o.FaultsWarning(); strings.Contains(msg, "fall after") {
		t.Errorf("every event in the window: warning %q", msg)
	}
}

// A drained run draws its events up to its drain cap but is expected the
// outages of the rounds it ran: the expectation over its span, not the
// cap's (the presets' rates are constant).
func TestDrainedRunExpectsOutagesOverItsSpan(t *testing.T) {
	reg := policy.NewRegistry()
	r := Run{Trace: "testbed", Cluster: "h100-l20", Estimator: "analytic", GPUMap: "a40=h100,a10=l20", Policy: "fcfs",
		Timing: sim.Exact, Rounds: 100, Drain: true, Faults: "llama3", Seed: 1}
	s, err := Resolve(reg, r)
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := faults.Preset("llama3")
	ran := o.Summary.Rounds
	want := spec.Expected(o.Cluster, sim.Duration(ran)*300)
	f := o.Summary.Faults
	if ran >= o.Summary.DrainCapRounds || f == nil || f.ExpectedOutages == nil || math.Abs(*f.ExpectedOutages-want) > 1e-9*want {
		t.Fatalf("ran %d of a cap of %d rounds; expected outages %v, want %v (over the rounds run)", ran, o.Summary.DrainCapRounds, f, want)
	}
}
