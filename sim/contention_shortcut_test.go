package sim

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
)

// recordingPolicy hands on another policy's decisions and keeps them.
type recordingPolicy struct {
	inner   Policy
	batches [][]Action
}

func (p *recordingPolicy) Name() string { return p.inner.Name() }
func (p *recordingPolicy) Schedule(v *View) ([]Action, error) {
	b, err := p.inner.Schedule(v)
	kept := make([]Action, len(b))
	for i, a := range b {
		kept[i] = a
		kept[i].GPUs = slices.Clone(a.GPUs)
	}
	p.batches = append(p.batches, kept)
	return b, err
}

// replayPolicy returns recorded decisions in order.
type replayPolicy struct {
	name    string
	batches [][]Action
	k       int
}

func (p *replayPolicy) Name() string { return p.name }
func (p *replayPolicy) Schedule(*View) ([]Action, error) {
	if p.k >= len(p.batches) {
		return nil, fmt.Errorf("decision %d: only %d recorded", p.k, len(p.batches))
	}
	p.k++
	return p.batches[p.k-1], nil
}

// netFingerprint is every figure of the jobs' network state and the run's
// that the results are made of.
func netFingerprint(e *engine, res *Result) string {
	nw := *res.Network
	nw.Tier1Utilisation, nw.Tier2Utilisation, nw.Tier3Utilisation = nil, nil, nil // in Tiers
	s := fmt.Sprintf("events %d jcts %v queue %v net %+v tiers %v", res.Events, res.JCTs, res.Queueing, nw, e.net.tierInt)
	for _, j := range e.jobs {
		s += fmt.Sprintf("\n%d %v %v %v %v %v", j.Spec.ID, j.Status, j.Finish, j.remainingF, j.iterTime, j.Reconfigs)
		if n := j.net; n != nil {
			s += fmt.Sprintf(" net %v %v %v %v %v %v %v %v %v %v %v %v", n.links, n.demand, n.used, n.base, n.frac, n.kappa, n.rate, n.alone, n.crosses, n.on, n.slowInt, n.heldInt)
		}
	}
	return s
}

// TestOneNodeAttachIsTheGeneralPath: the attachment of a job on one node
// that was on no link (netAttach's shortcut, which skips reading where its
// slots lie), and a move of a job on one node to other GPUs of the same
// shape from such an attachment (setAlloc's netLocal path, which skips the
// attachment), leave the run exactly as the general path does: random
// starts, moves and suspensions on a two-tier topology (the property
// test's policy), replayed with every attachment on the general path, give
// the same jobs, network state, per-tier integrals and summary, bit for
// bit. Self-generated comparison (the general path is the definition).
func TestOneNodeAttachIsTheGeneralPath(t *testing.T) {
	short := 0
	rapid.Check(t, func(rt *rapid.T) {
		c, err := NewCluster(ClusterSpec{Name: "topo-short", Pools: []Pool{{GPU: "a100", Nodes: 8, GPUsPerNode: 4}, {GPU: "a40", Nodes: 4, GPUsPerNode: 2}},
			Topology: &Topology{DomainNodes: rapid.IntRange(1, 2).Draw(rt, "domain"), Tiers: []Tier{{Name: "rack", Nodes: 2, Oversubscription: 4}, {Name: "pod", Nodes: 4, Oversubscription: 3}}}})
		if err != nil {
			rt.Fatal(err)
		}
		cfg := DefaultConfig(c, optimal(t))
		cfg.IterationScale = 5
		cfg.Rounds = 120
		cfg.Overhead = Overhead{PerGPU: 10, Cap: 40}
		share := rapid.Float64Range(0, 0.9).Draw(rt, "share")
		cfg.NetworkShare = func(w estimator.Workload, _ estimator.Config) float64 {
			return share * float64(len(w.Model.Size)%3+1) / 3
		}
		m, err := estimator.ParseModel("gpt-1.3b")
		if err != nil {
			rt.Fatal(err)
		}
		var specs []JobSpec
		for i := range rapid.IntRange(4, 14).Draw(rt, "jobs") {
			specs = append(specs, JobSpec{ID: JobID(i), Name: fmt.Sprintf("r%d", i), Submit: Time(rapid.IntRange(0, 3000).Draw(rt, "submit")),
				Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(rapid.IntRange(50, 20000).Draw(rt, "iters")), GPU: "a100", GPUs: 2})
		}
		inner := &randomPolicy{rt: rt, exec: cfg.Exec, spread: rapid.Bool().Draw(rt, "spread")}
		rec := &recordingPolicy{inner: inner}
		e1, err := newEngine(cfg, rec, specs)
		if err != nil {
			rt.Fatal(err)
		}
		inner.probe = func(batch []Action, arrivals []*Job) error { _, err := e1.apply(batch, arrivals); return err }
		inner.state = func() string { return fmt.Sprint(e1.occupant, len(e1.runq.jobs), len(e1.pendq.jobs)) }
		sw := 0
		e1.net.probe = func(JobID, int) { sw++ }
		res1, err := e1.run(context.Background())
		if err != nil {
			rt.Fatal(err)
		}
		e2, err := newEngine(cfg, &replayPolicy{name: "random", batches: rec.batches}, specs)
		if err != nil {
			rt.Fatal(err)
		}
		e2.net.general = true
		res2, err := e2.run(context.Background())
		if err != nil {
			rt.Fatal(err)
		}
		res1.Wall, res2.Wall = 0, 0
		if a, b := netFingerprint(e1, res1), netFingerprint(e2, res2); a != b {
			rt.Fatalf("with the shortcut:\n%s\nthe general path:\n%s", a, b)
		}
		if !reflect.DeepEqual(res1.Network, res2.Network) {
			rt.Fatalf("network summaries differ: %+v, %+v", res1.Network, res2.Network)
		}
		short += sw
	})
	if short == 0 {
		t.Error("no attachment at all: the test exercises nothing")
	}
}
