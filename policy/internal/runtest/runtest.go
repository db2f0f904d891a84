// Package runtest holds what the policies' equivalence tests share: the
// built-in Philly run they replay, and the comparison of two runs that
// must decide alike (an optimised path against the plain one it replaces).
package runtest

import (
	"context"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/traces"
)

// Philly is the built-in Philly trace on paper-1280 in exact timing for
// rounds rounds, with the engine's invariant checks on.
type Philly struct {
	DB      *estimator.ProfileDB
	Cluster *sim.Cluster
	Config  sim.Config
	Jobs    []sim.JobSpec
}

// NewPhilly loads the run.
func NewPhilly(t *testing.T, rounds int) *Philly {
	t.Helper()
	tr, err := traces.Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := clusterspec.Load("paper-1280")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig(c, db.View(estimator.ViewOptimal))
	cfg.Timing, cfg.Rounds, cfg.IterationScale, cfg.Check = sim.Exact, rounds, tr.IterationScale, true
	return &Philly{DB: db, Cluster: c, Config: cfg, Jobs: tr.Jobs}
}

// Overloaded is the run with its jobs submitted copies times as densely:
// the jobs submitted within its rounds, tiled (traces.Tile: copies
// copies, overlap copies, seed 1) over the same span. Past one copy
// paper-1280 cannot keep up and the pending queue grows into the
// hundreds, where a policy's restart pass does most of its work.
func (r *Philly) Overloaded(t *testing.T, copies int) *Philly {
	t.Helper()
	tr, err := traces.Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	window := &traces.Trace{Name: tr.Name, IterationScale: tr.IterationScale}
	end := tr.Jobs[0].Submit.Add(sim.Duration(r.Config.Rounds) * r.Config.RoundLength)
	for _, j := range tr.Jobs {
		if j.Submit < end {
			j.ID = sim.JobID(len(window.Jobs))
			window.Jobs = append(window.Jobs, j)
		}
	}
	tiled, err := traces.Tile(window, traces.TileOptions{Copies: copies, Overlap: float64(copies), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := *r
	o.Jobs = tiled.Jobs
	return &o
}

// Run simulates p on the run.
func (r *Philly) Run(t *testing.T, p sim.Policy) *sim.Result {
	t.Helper()
	res, err := sim.Run(context.Background(), r.Config, p, r.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// SameDecisions fails t unless two runs have the same JCTs, queueing
// times and jobs running and pending in every round; it returns the most
// jobs pending in a round.
func SameDecisions(t *testing.T, name string, want, got *sim.Result) int {
	t.Helper()
	if !reflect.DeepEqual(want.JCTs, got.JCTs) || !reflect.DeepEqual(want.Queueing, got.Queueing) {
		t.Fatalf("%s: JCTs or queueing differ: %d vs %d finished", name, len(want.JCTs), len(got.JCTs))
	}
	most := 0
	for i := range want.Timeline {
		a, b := want.Timeline[i], got.Timeline[i]
		if a.Running != b.Running || a.Pending != b.Pending {
			t.Fatalf("%s round %d: running/pending %d/%d against %d/%d", name, i, a.Running, a.Pending, b.Running, b.Pending)
		}
		most = max(most, int(a.Pending))
	}
	return most
}
