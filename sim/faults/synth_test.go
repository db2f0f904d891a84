package faults

import (
	"math"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

func cluster(t testing.TB, pools ...sim.Pool) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "c", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const day = 86400.0

// Statistical anchor (outside the code: the Llama 3 paper's count). The
// llama3-failures preset on the paper's 16,384 H100 GPUs (2,048 nodes of
// 8) over 54 days yields 419 failures in expectation (a little fewer:
// a node under repair cannot fail, 0.13 % of node-time). Over 10 seeds
// the mean count has a standard deviation of √(419/10) ≈ 6.5; the
// tolerance is ±4σ = ±26. A rate converted per node instead of per GPU
// (52 per run) or per job (1) fails. The cause mix follows Table 5:
// "gpu" is 148/419 = 0.353 of failures, σ ≈ 0.0074 over 4,190.
func TestLlama3Rate(t *testing.T) {
	c := cluster(t, sim.Pool{GPU: "h100", Nodes: 2048, GPUsPerNode: 8})
	downs, gpu := 0, 0
	const seeds = 10
	for seed := int64(1); seed <= seeds; seed++ {
		ev, err := Load("llama3-failures", c, seed, 0, 54*day)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ev {
			if e.Kind == sim.NodeDown {
				downs++
				if e.Cause == "gpu" {
					gpu++
				}
			}
		}
	}
	mean := float64(downs) / seeds
	if math.Abs(mean-419) > 26 {
		t.Errorf("%.1f failures per 54 days on 16,384 GPUs, want 419 ± 26", mean)
	}
	if f := float64(gpu) / float64(downs); math.Abs(f-148.0/419) > 0.03 {
		t.Errorf("cause gpu is %.3f of failures, want 0.353 ± 0.03", f)
	}
}

// The planned interruptions of the llama3 preset: 47 in 54 days on
// 16,384 GPUs, σ = √(47/10) ≈ 2.2 for the mean of 10 seeds; ±4σ ≈ ±9.
func TestLlama3Planned(t *testing.T) {
	c := cluster(t, sim.Pool{GPU: "h100", Nodes: 2048, GPUsPerNode: 8})
	drains := 0
	for seed := int64(1); seed <= 10; seed++ {
		ev, _ := Load("llama3", c, seed, 0, 54*day)
		for _, e := range ev {
			if e.Kind == sim.NodeDrain {
				drains++
				if e.Notice != 3600 || e.Cause != "maintenance" {
					t.Fatalf("%+v", e)
				}
			}
		}
	}
	if mean := float64(drains) / 10; math.Abs(mean-47) > 9 {
		t.Errorf("%.1f planned interruptions, want 47 ± 9", mean)
	}
}

// Weibull per GPU: a node of G GPUs fails as the first of them, a
// Weibull of the same shape and scale·G^(−1/k) (hand-derived: P(no GPU
// failed by t) = exp(−G·(t/λ)^k) = exp(−(t/(λG^(−1/k)))^k)). With shape
// 0.7, per-GPU mean 1,000 h and G = 4 the node's mean time to failure is
// 1000·4^(−1/0.7) = 138.1 h; with a 1-second repair, 100 nodes over
// 10 years see 87,600·100/138.1 ≈ 63,430 failures (renewal theorem);
// Weibull(0.7)'s coefficient of variation is 1.46, so σ ≈ √(63,430·2.13)
// ≈ 368; tolerance 4σ. Leaving out the G^(−1/k) (a mean of 250 h) fails.
func TestWeibullPerGPU(t *testing.T) {
	spec := &Spec{Name: "w", Failures: []Failure{{PerGPU: true, MTBF: 1000 * 3600, Shape: 0.7,
		Repair: dist{kind: distConstant, mean: 1}, Causes: []Cause{{"failure", 1}}}}}
	c := cluster(t, sim.Pool{GPU: "a100", Nodes: 100, GPUsPerNode: 4})
	ev, err := Synthesise(spec, c, 5, 0, 3650*day)
	if err != nil {
		t.Fatal(err)
	}
	downs := 0
	for _, e := range ev {
		if e.Kind == sim.NodeDown {
			downs++
		}
	}
	mu := 1000 * math.Pow(4, -1/0.7) // hours
	want := 87600 * 100 / (mu + 1.0/3600)
	if math.Abs(float64(downs)-want) > 4*368 {
		t.Errorf("%d failures, want %.0f ± %d", downs, want, 4*368)
	}
}

// Periodic maintenance (hand-worked): every 14 days, notice 1 h, window
// 1 h. Each node's drains are exactly 14 days apart, each followed by its
// up 2 h later (notice + window), and 140 days hold exactly 10 of them:
// windows fall at phase + j·14 d with phase in [0, 14 d); the drains
// before 140 d are j = 0…9 when the phase is at least the 1-hour notice,
// j = 1…10 when it is less (window 0's drain would precede the start).
func TestPeriodicMaintenance(t *testing.T) {
	c := cluster(t, sim.Pool{GPU: "a40", Nodes: 50, GPUsPerNode: 2})
	ev, err := Load("gcp-maintenance", c, 11, 0, 140*day)
	if err != nil {
		t.Fatal(err)
	}
	last := map[int]float64{}
	count := map[int]int{}
	drainAt := map[int]float64{}
	for _, e := range ev {
		switch e.Kind {
		case sim.NodeDrain:
			if prev, ok := last[e.Node]; ok && math.Abs(float64(e.Time)-prev-14*day) > 1e-6 {
				t.Fatalf("node %d: drains at %v and %v, not 14 days apart", e.Node, prev, e.Time)
			}
			last[e.Node] = float64(e.Time)
			drainAt[e.Node] = float64(e.Time)
			count[e.Node]++
		case sim.NodeUp:
			if d := float64(e.Time) - drainAt[e.Node]; math.Abs(d-7200) > 1e-6 {
				t.Fatalf("node %d up %v s after its drain, want 7200", e.Node, d)
			}
		default:
			t.Fatalf("unexpected %+v", e)
		}
	}
	for n := 0; n < 50; n++ {
		if count[n] != 10 {
			t.Errorf("node %d: %d windows in 140 days, want 10", n, count[n])
		}
	}
}

// Spot: 0.01 reclaims per node-hour with a 1-second return, 200 nodes
// over 1,000 days: 48,000 reclaims expected (Poisson, the returns
// negligible), σ ≈ 219; tolerance 4σ.
func TestSpotRate(t *testing.T) {
	spec := &Spec{Name: "s", Spot: []Spot{{Mean: 100 * 3600, Notice: 120, Returns: dist{mean: 1}, Cause: "spot"}}}
	c := cluster(t, sim.Pool{GPU: "a10", Nodes: 200, GPUsPerNode: 2})
	ev, err := Synthesise(spec, c, 9, 0, 1000*day)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ev {
		if e.Kind == sim.NodeReclaim {
			n++
			if e.Notice != 120 {
				t.Fatalf("%+v", e)
			}
		}
	}
	if math.Abs(float64(n)-48000) > 4*219 {
		t.Errorf("%d reclaims, want 48,000 ± 876", n)
	}
}

// Same inputs, same events; another seed, other events. The events are a
// valid file: what Synthesise produces passes the file validation.
func TestDeterministicAndValid(t *testing.T) {
	c := testCluster(t)
	a, _ := Load("llama3", c, 42, 0, 20*365*day)
	b, _ := Load("llama3", c, 42, 0, 20*365*day)
	d, _ := Load("llama3", c, 43, 0, 20*365*day)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d events", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("event %d differs between two runs with one seed", i)
		}
	}
	if len(a) == len(d) && a[0] == d[0] {
		t.Error("seeds 42 and 43 gave the same events")
	}
	for _, name := range PresetNames() {
		ev, err := Load(name, c, 42, 0, 20*365*day)
		if err != nil || len(ev) == 0 {
			t.Fatalf("%s: %d events, %v", name, len(ev), err)
		}
		if err := Check(ev, c); err != nil {
			t.Errorf("%s: synthesised events are not a valid sequence: %v", name, err)
		}
	}
}

// Each node's events depend only on its GPU type and its ordinal among
// the nodes of that type: a cluster with one more a100 node and an extra
// h100 pool in front gives the a100 and v100 nodes of testCluster the
// same events. A stream keyed by node index fails this.
func TestStreamsIndependentOfOtherNodes(t *testing.T) {
	small := testCluster(t)
	big := cluster(t, sim.Pool{GPU: "h100", Nodes: 2, GPUsPerNode: 8}, sim.Pool{GPU: "a100", Nodes: 4, GPUsPerNode: 4}, sim.Pool{GPU: "v100", Nodes: 2, GPUsPerNode: 16})
	key := func(c *sim.Cluster, n int) [2]any {
		gpu := c.Nodes[n].GPU
		for ord, m := range c.NodesOfType(gpu) {
			if m == n {
				return [2]any{gpu, ord}
			}
		}
		return [2]any{}
	}
	byKey := func(c *sim.Cluster, ev []sim.ClusterEvent) map[[2]any][]sim.ClusterEvent {
		out := map[[2]any][]sim.ClusterEvent{}
		for _, e := range ev {
			k := key(c, e.Node)
			e.Node = 0
			out[k] = append(out[k], e)
		}
		return out
	}
	a, _ := Load("llama3", small, 1, 0, 30*365*day)
	b, _ := Load("llama3", big, 1, 0, 30*365*day)
	ka, kb := byKey(small, a), byKey(big, b)
	for k, evs := range ka {
		if len(kb[k]) != len(evs) {
			t.Fatalf("node %v: %d events in the small cluster, %d in the big one", k, len(evs), len(kb[k]))
		}
		for i := range evs {
			if evs[i] != kb[k][i] {
				t.Fatalf("node %v event %d: %+v vs %+v", k, i, evs[i], kb[k][i])
			}
		}
	}
}

// A year of llama3 on 10,240 GPUs (1,280 nodes of 8): the issue asks for
// "well under a second".
func BenchmarkSynthesiseYear(b *testing.B) {
	c := cluster(b, sim.Pool{GPU: "h100", Nodes: 1280, GPUsPerNode: 8})
	n := 0
	for i := 0; i < b.N; i++ {
		ev, err := Load("llama3", c, int64(i), 0, 365*day)
		if err != nil {
			b.Fatal(err)
		}
		n = len(ev)
	}
	b.ReportMetric(float64(n), "events")
}

// A typo'd rate is refused before any event is drawn (the estimate of
// the count exceeds MaxEvents), not after gigabytes.
func TestHugeRateRefused(t *testing.T) {
	s, err := ParseSpec("f.yaml", []byte("failures:\n  - {rate: 1e6, repair: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Synthesise(s, testCluster(t), 1, 0, 365*day); err == nil || !strings.Contains(err.Error(), "lower the rates") {
		t.Errorf("%v", err)
	}
}
