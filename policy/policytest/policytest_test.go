package policytest

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Planted faults: each broken policy must violate exactly the rule built
// to catch it (and fcfs, the reference, none). This anchors the suite: a
// rule that cannot fail would pass these policies.

type idle struct{}

func (idle) Name() string                             { return "idle" }
func (idle) Schedule(*sim.View) ([]sim.Action, error) { return nil, nil }

// mutator is fcfs that scribbles on a new job's spec (shared with the
// engine) afterwards.
type mutator struct{ sim.Policy }

func (m mutator) Schedule(v *sim.View) ([]sim.Action, error) {
	a, err := m.Policy.Schedule(v)
	if len(v.Arrivals) > 0 {
		v.Arrivals[0].Spec.Deadline += 1
	}
	return a, err
}

// flaky is fcfs on even instances and idle on odd ones: state shared
// across instances, the usual source of non-determinism in a test run.
var instances atomic.Int64

// nodeZero assumes the cluster has a node.
type nodeZero struct{ sim.Policy }

func (n nodeZero) Schedule(v *sim.View) ([]sim.Action, error) {
	_ = v.Cluster.Nodes[0]
	return n.Policy.Schedule(v)
}

// powersOnly is FCFS that never starts a job whose GPU count is no power
// of two (the old size rule).
type powersOnly struct{ sim.Policy }

func (p powersOnly) Schedule(v *sim.View) ([]sim.Action, error) {
	acts, err := p.Policy.Schedule(v)
	out := acts[:0]
	for _, a := range acts {
		if n := len(a.GPUs); a.Kind != sim.Start || n&(n-1) == 0 {
			out = append(out, a)
		}
	}
	return out, err
}

func violations(t *testing.T, newPolicy func(registry.Options) (sim.Policy, error)) map[string]bool {
	t.Helper()
	src, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	overhead, err := registry.Options{}.Resolve(registry.FullSearch("fcfs"))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{name: "planted", overhead: overhead, newPolicy: newPolicy, src: src}
	out := map[string]bool{}
	for _, c := range cases {
		if errs := c.Check(h, sim.Exact); len(errs) > 0 {
			out[c.Name] = true
			t.Logf("%s: %v", c.Name, errs[0])
		}
	}
	return out
}

func TestPlantedFaults(t *testing.T) {
	fcfsOf := func(o registry.Options) sim.Policy { return fcfs.New(o.Source.View(estimator.ViewOptimal)) }
	for _, c := range []struct {
		name string
		new  func(registry.Options) (sim.Policy, error)
		want []string
	}{
		{"reference fcfs", func(o registry.Options) (sim.Policy, error) { return fcfsOf(o), nil }, nil},
		{"never starts a job", func(registry.Options) (sim.Policy, error) { return idle{}, nil },
			[]string{"minimum workload finishes under the checker", "gangs of any size (hybrid estimator)", "nodes failing under running jobs", "jobs failing on their own", "drain with notice"}},
		{"starts powers of two only", func(o registry.Options) (sim.Policy, error) { return powersOnly{fcfsOf(o)}, nil },
			[]string{"gangs of any size (hybrid estimator)"}},
		{"blind to faults", func(o registry.Options) (sim.Policy, error) { return blind{fcfsOf(o)}, nil },
			[]string{"nodes failing under running jobs", "drain with notice"}},
		{"modifies the view", func(o registry.Options) (sim.Policy, error) { return mutator{fcfsOf(o)}, nil }, []string{"does not modify the view"}},
		{"state shared across instances", func(o registry.Options) (sim.Policy, error) {
			if instances.Add(1)%2 == 0 {
				return idle{}, nil
			}
			return fcfsOf(o), nil
		}, []string{"deterministic"}},
		{"assumes a node exists", func(o registry.Options) (sim.Policy, error) { return nodeZero{fcfsOf(o)}, nil }, []string{"empty cluster"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			instances.Store(0)
			got := violations(t, c.new)
			for _, w := range c.want {
				if !got[w] {
					t.Errorf("rule %q did not catch it", w)
				}
				delete(got, w)
			}
			// "state shared" may trip other rules too, depending on which
			// instance a rule gets, and the engine's own checker (on in
			// every rule) stops a view modifier everywhere; the others
			// must be caught alone.
			if len(got) > 0 && !strings.HasPrefix(c.name, "state shared") && c.name != "modifies the view" {
				t.Errorf("unexpected violations %v", got)
			}
		})
	}
}

// blind is FCFS that cannot see faults: its View shows every slot no job
// holds as idle, so it places jobs on nodes that are down or draining.
type blind struct{ inner sim.Policy }

func (b blind) Name() string { return "blind" }
func (b blind) Schedule(v *sim.View) ([]sim.Action, error) {
	w := *v
	w.Occupant = append([]sim.JobID(nil), v.Occupant...)
	for s, o := range w.Occupant {
		if o == sim.Unavailable {
			w.Occupant[s] = sim.NoJob
		}
	}
	w.Nodes = nil
	return b.inner.Schedule(&w)
}
