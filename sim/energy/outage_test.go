package energy

import (
	"math"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestEventOutages: each node's outages under the engine's rules,
// worked by hand from the events (sim/faultstate.go): a notice delays the
// outage to its end, notice 0 does not; an up during a notice cancels it;
// a down during a notice takes the node out at once; a notice on a node
// that is out changes nothing; an earlier notice stands against a later
// one; a node first added is out (unbilled) from the start; a reclaim's
// outage is unbilled, a failure's and a drain's billed.
func TestEventOutages(t *testing.T) {
	inf := math.Inf(1)
	ev := func(at float64, node int, k sim.ClusterEventKind, notice float64) sim.ClusterEvent {
		return sim.ClusterEvent{Time: sim.Time(at), Node: node, Kind: k, Notice: sim.Duration(notice)}
	}
	events := []sim.ClusterEvent{
		ev(10, 0, sim.NodeDrain, 30),  // node 0 out at 40 …
		ev(20, 1, sim.NodeReclaim, 0), // node 1 out at once, unbilled …
		ev(20, 2, sim.NodeDrain, 100), // node 2: an up at 50 cancels the notice
		ev(30, 3, sim.NodeReclaim, 50),
		ev(35, 3, sim.NodeDown, 0),  // … node 3's failure during the notice: out at 35, billed
		ev(40, 4, sim.NodeAdd, 0),   // node 4 absent until 40
		ev(45, 1, sim.NodeDrain, 5), // node 1 is out: nothing changes
		ev(50, 2, sim.NodeUp, 0),
		ev(60, 5, sim.NodeDrain, 20),  // node 5: its notice ends at 80 …
		ev(70, 5, sim.NodeDrain, 100), // … and stands against this one's 170
		ev(90, 0, sim.NodeUp, 0),
		ev(100, 1, sim.NodeUp, 0),
		ev(120, 3, sim.NodeUp, 0),
	}
	got := EventOutages(events)
	want := map[int][]Outage{
		0: {{From: 40, To: 90, Billed: true}},
		1: {{From: 20, To: 100, Billed: false}},
		3: {{From: 35, To: 120, Billed: true}},
		4: {{From: math.Inf(-1), To: 40, Billed: false}},
		5: {{From: 80, To: inf, Billed: true}},
	}
	if len(got) != len(want) {
		t.Fatalf("outages %+v, want %+v", got, want)
	}
	for n, w := range want {
		g := got[n]
		if len(g) != len(w) {
			t.Errorf("node %d: %+v, want %+v", n, g, w)
			continue
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("node %d outage %d: %+v, want %+v", n, i, g[i], w[i])
			}
		}
	}
	if EventOutages(events[7:8]) != nil || EventOutages(nil) != nil { // an up alone
		t.Error("outages without any node going out")
	}
}

// TestOutagePoweredOffHandWorked is an anchor worked by hand: the rule for
// GPUs on a node that is out (docs/energy.md) — powered off, server share
// included; spot capacity unbilled while reclaimed. One node of two A100s
// (idle 60 W, reconfiguring 111 W, computing 383 W), server share 100 W
// per GPU, PUE 1.5, 100 g/kWh, a 200-s window. A job holds GPU 0 over
// [0, 50] s, reconfiguring until 10 s. The node is reclaimed at 50 s with
// a 20-s notice (out over [70, 150)) and comes back at 150 s at
// $1.00/GPU-hour.
//
//	all powered idle: 2 × 160 W × 200 s × 1.5          =  96,000 J
//	the outage:      −2 × 160 W × 80 s × 1.5            = −38,400 J
//	the job:   (51 W × 10 s + 323 W × 40 s) × 1.5        =  20,145 J
//	total 77,745 J; the job's (211×10 + 483×40) × 1.5    =  32,145 J
//	idle: 190 GPU-s (GPU 0: 70, GPU 1: 120) × 160 W × 1.5 = 45,600 J
//
// Power over the 240 powered GPU-seconds: 60 W for 190, 111 W for 10,
// 383 W for 40 (near the TDP: 1/6). Cluster cost: 2 GPUs × (200 s at
// $2.7447 − 80 s reclaimed at $2.7447 − 50 s at $2.7447 − $1.00) =
// $484.258/3600. Without the events: everything powered, 2 × 200 s at
// $2.7447.
func TestOutagePoweredOffHandWorked(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	m := handModel()
	m.ServerWattsPerGPU, m.PUE, m.Intensity = 100, 1.5, Intensity{Constant: 100}
	events := []sim.ClusterEvent{
		{Time: 50, Node: 0, Kind: sim.NodeReclaim, Notice: 20, Cause: "spot"},
		{Time: 150, Node: 0, Kind: sim.NodeUp, Price: 1},
	}
	res := &sim.Result{Rounds: 2, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 1, Start: 0, End: 50, Ready: 10}}}
	jobs := []sim.JobSpec{{ID: 1}}
	r, err := Compute(res, jobs, c, flat{}, m.WithEvents(events))
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	near("kwh", r.KWh, 77745/3.6e6)
	near("jobs_kwh", r.JobsKWh, 32145/3.6e6)
	near("idle_kwh", r.IdleKWh, 45600/3.6e6)
	near("kg_co2", r.KgCO2, 77745/3.6e6*100/1e3)
	near("gpu kwh", r.GPUKWh, (60*190+111*10+383*40)/3.6e6)
	near("mean watts", r.MeanGPUWatts, (60*190+111*10+383*40)/240.0)
	near("near_tdp_share", r.NearTDPShare, 40.0/240)
	near("cluster cost", r.ClusterCostUSD, 484.258/3600)
	near("gpu cost", r.GPUCostUSD, 50.0/3600*2.7447)
	var powered float64
	for _, l := range r.Power {
		powered += l.GPUSeconds
	}
	near("powered GPU-seconds", powered, 240)
	plain, err := Compute(res, jobs, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	near("kwh without the events", plain.KWh, (96000+20145)/3.6e6)
	near("cluster cost without the events", plain.ClusterCostUSD, 2*200.0/3600*2.7447)
}

// TestSpotNodesHandWorked is an anchor worked by hand: a node a faults
// spec prices as spot capacity (SpotNodes; faults.Spec.SpotNodes) costs
// its price over the whole run — 0 standing for the model's spot price
// of its type, $0.8489 for an a100 — and nothing while reclaimed. One
// node of two A100s, a 200-s window, a job on GPU 0 over [0, 100] s:
// the job pays 100 s × $0.8489, the cluster 2 × 200 s × $0.8489; with a
// reclaim at 100 s (no notice) until 150 s, 2 × 150 s. An explicit $1.20
// replaces the spot price; a node an event prices keeps the event's
// price. Energy never changes with the price.
func TestSpotNodesHandWorked(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	res := &sim.Result{Rounds: 2, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 1, Start: 0, End: 100, Ready: 20}}}
	jobs := []sim.JobSpec{{ID: 1}}
	run := func(spot map[int]float64, events []sim.ClusterEvent) *Report {
		t.Helper()
		m := Default().WithEvents(events).Clone()
		m.SpotNodes = spot
		r, err := Compute(res, jobs, c, flat{}, m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	plain := run(nil, nil)
	r := run(map[int]float64{0: 0}, nil)
	near("gpu cost at the spot tier", r.GPUCostUSD, 100*0.8489/3600)
	near("cluster cost at the spot tier", r.ClusterCostUSD, 2*200*0.8489/3600)
	near("kwh", r.KWh, plain.KWh)
	reclaim := []sim.ClusterEvent{{Time: 100, Node: 0, Kind: sim.NodeReclaim}, {Time: 150, Node: 0, Kind: sim.NodeUp}}
	r = run(map[int]float64{0: 0}, reclaim)
	near("cluster cost, reclaimed 50 s", r.ClusterCostUSD, 2*150*0.8489/3600)
	r = run(map[int]float64{0: 1.2}, nil)
	near("gpu cost at $1.20", r.GPUCostUSD, 100*1.2/3600)
	r = run(map[int]float64{0: 1.2}, []sim.ClusterEvent{{Time: 0, Node: 0, Kind: sim.NodeUp, Price: 2}})
	near("gpu cost at the event's $2", r.GPUCostUSD, 100*2.0/3600)
}
