package faults

import (
	"math"
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
)

// Expected is the mean of what Synthesise draws: for every preset on two
// clusters, over a window long enough for a few dozen outages, the mean
// count over 200 seeds lies within 4 standard errors (and 10 %) of it.
// Expected scales with the window, and for the llama3 preset is its rates
// × GPUs × span, worked by hand.
func TestExpectedIsTheMeanDraw(t *testing.T) {
	for _, name := range PresetNames() {
		spec, _, _ := Preset(name)
		for _, cl := range []string{"testbed-64", "h100-l20"} {
			cs, err := clusterspec.Load(cl)
			if err != nil {
				t.Fatal(err)
			}
			c, err := sim.NewCluster(cs)
			if err != nil {
				t.Fatal(err)
			}
			perDay := spec.Expected(c, 86400)
			if !(perDay > 0) {
				t.Fatalf("%s on %s: %v outages a day", name, cl, perDay)
			}
			if got := spec.Expected(c, 10*86400); math.Abs(got-10*perDay) > 1e-9*got {
				t.Errorf("%s on %s: %v over 10 days, %v a day", name, cl, got, perDay)
			}
			days := math.Ceil(40 / perDay)
			span := sim.Duration(days * 86400)
			want := spec.Expected(c, span)
			var sum, sq float64
			const seeds = 200
			for seed := int64(1); seed <= seeds; seed++ {
				ev, err := Synthesise(spec, c, seed, 0, sim.Time(span))
				if err != nil {
					t.Fatal(err)
				}
				n := float64(Outages(ev))
				sum, sq = sum+n, sq+n*n
			}
			mean := sum / seeds
			se := math.Sqrt((sq/seeds - mean*mean) / seeds)
			if math.Abs(mean-want) > math.Max(4*se, 0.1*want) {
				t.Errorf("%s on %s over %v days: drew %.2f ± %.2f outages, expected %.2f", name, cl, days, mean, se, want)
			}
			t.Logf("%s on %s over %v days: drew %.2f ± %.2f, expected %.2f", name, cl, days, mean, se, want)
		}
	}
	if n := Outages([]sim.ClusterEvent{{Kind: sim.NodeDown}, {Kind: sim.NodeUp}, {Kind: sim.NodeDrain}, {Kind: sim.NodeReclaim}, {Kind: sim.NodeAdd}}); n != 3 {
		t.Errorf("Outages = %d, want 3 (down, drain, reclaim)", n)
	}
	spec, _, _ := Preset("llama3")
	c, _ := sim.NewCluster(sim.ClusterSpec{Name: "x", Pools: []sim.Pool{{GPU: "h100", Nodes: 48, GPUsPerNode: 8}}})
	// The preset's rates × 384 GPUs × 48 h, by hand.
	if got, want := spec.Expected(c, 2*86400), (1.973282e-5+2.213466e-6)*384*48; math.Abs(got-want) > 1e-9 {
		t.Errorf("llama3 on 384 H100s over 2 days: %v, want %v", got, want)
	}
}
