package cost

import (
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// perType gives each GPU type a fixed per-GPU throughput.
type perType map[string]float64

func (perType) Name() string { return "per-type" }
func (p perType) Estimate(_ estimator.Workload, c estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: p[c.GPU] * float64(c.GPUs()), IterTime: 1}
}

// TestCandidatesByCostPerSample is hand-worked: a100 at $4/GPU-h and 40
// samples/s per GPU costs $4/3600/40 per sample; a10 at $1 and 5
// samples/s costs $1/3600/5 — twice as much per sample, though cheaper by
// the hour: the a100 comes first.
func TestCandidatesByCostPerSample(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a10", Nodes: 1, GPUsPerNode: 4}, {GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	price := map[string]float64{"a100": 4, "a10": 1}
	p := New(perType{"a100": 40, "a10": 5}, Config{Price: func(g string) float64 { return price[g] }})
	cs := p.candidates(c, &sim.Job{Spec: &sim.JobSpec{GPUs: 2}})
	if len(cs) != 2 || cs[0].cfg.GPU != "a100" || cs[1].cfg.GPU != "a10" {
		t.Fatalf("candidates %+v", cs)
	}
	if want := 4 * 2.0 / 3600 / 80; cs[0].cost != want {
		t.Errorf("a100 cost per sample %g, want %g", cs[0].cost, want)
	}
}
