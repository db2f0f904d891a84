package analytic

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestBestBoundedEqualsBest is the bounded search's anchor: on every
// catalog model the Kalos traces use (GPT, MoE, WideResNet, 6 to 16
// units) and several batches, on localities of 1 to 65,536 GPUs of three
// GPU types, BestBounded returns Best's grid, plan and result exactly
// (Best is the unbounded exhaustive search, the definition), and costs
// fewer plans on the large ones.
func TestBestBoundedEqualsBest(t *testing.T) {
	p, err := DefaultParams()
	if err != nil {
		t.Fatal(err)
	}
	pl := Planner{Params: p}
	models := []string{"gpt-760m", "gpt-6.7b", "gpt-39b", "moe-690m", "moe-27b", "moe-70b", "wresnet-500m", "wresnet-6.8b", "wresnet-13b"}
	configs := []estimator.Config{
		{GPU: "h100", Nodes: 1, PerNode: 1}, {GPU: "h100", Nodes: 1, PerNode: 8}, {GPU: "a100", Nodes: 2, PerNode: 4},
		{GPU: "v100", Nodes: 4, PerNode: 8}, {GPU: "h100", Nodes: 16, PerNode: 2}, {GPU: "h100", Nodes: 64, PerNode: 8},
		{GPU: "a100", Nodes: 256, PerNode: 4},
	}
	if !testing.Short() {
		configs = append(configs, estimator.Config{GPU: "h100", Nodes: 2048, PerNode: 8}, estimator.Config{GPU: "h100", Nodes: 8192, PerNode: 8})
	}
	var all, bounded int
	for _, name := range models {
		for _, batch := range []int{32, 256, 1024} {
			j := mustJob(t, name, batch)
			for _, c := range configs {
				if UsesSearch3D(j, c) {
					continue
				}
				want, got := pl.Best(j, c), pl.BestBounded(j, c)
				all += want.Evaluated
				bounded += got.Evaluated
				want.Evaluated, got.Evaluated = 0, 0
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s batch %d on %v: bounded %v %v %+v, exhaustive %v %v %+v", name, batch, c, got.Grid, got.Plan, got.Result, want.Grid, want.Plan, want.Result)
				}
			}
		}
	}
	t.Logf("plans costed: %d exhaustive, %d bounded", all, bounded)
	if bounded*4 > all {
		t.Errorf("bounded search costed %d of %d plans, want under a quarter", bounded, all)
	}
}
