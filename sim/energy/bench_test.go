package energy

import (
	"testing"

	"github.com/arena-sim/arena/sim"
)

// BenchmarkCompute prices 100,000 holdings of 4 GPUs on paper-1280's
// 320 A100s (80 nodes of 4) under an hourly series: the accounting's cost
// per holding, which is all it adds to a run that asks for it.
func BenchmarkCompute(b *testing.B) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "b", Pools: []sim.Pool{{GPU: "a100", Nodes: 80, GPUsPerNode: 4}}})
	if err != nil {
		b.Fatal(err)
	}
	const n = 100000
	res := &sim.Result{Rounds: 20000, RoundLength: 300}
	jobs := make([]sim.JobSpec, n)
	for i := range n {
		jobs[i].ID = sim.JobID(i)
		start := float64(i * 60)
		res.Allocations = append(res.Allocations, sim.AllocRecord{Job: int32(i), GPU: "a100", FirstSlot: int32(4 * (i % 80)), Slots: 4, Start: start, Ready: start + 40, End: start + 7200})
	}
	m := Default()
	if m.Intensity, err = Series("de-2020-06"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Compute(res, jobs, c, flat{}, m); err != nil {
			b.Fatal(err)
		}
	}
}
