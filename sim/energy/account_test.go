package energy

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// flat is an estimator giving every grid 10 samples/s per GPU: every
// job's scaling efficiency is 1.
type flat struct{}

func (flat) Name() string { return "flat" }
func (flat) Estimate(_ estimator.Workload, c estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: 10 * float64(c.GPUs()), IterTime: 1}
}

// handModel is the built-in model as the hand-worked tests below price
// it: the A100 reconfiguring at activity 0.15 (111 W) and no share of
// computing time without a kernel, so that each figure stays one line of
// arithmetic (TestNoKernelHandWorked prices that share).
func handModel() *Model {
	m := Default()
	g := m.GPUs["a100"]
	g.Reconfig = 0.15
	m.GPUs["a100"] = g
	m.NoKernel = NoKernelShares{}
	return m
}

// TestComputeHandWorked is an anchor worked by hand: one node of two
// A100s (TDP 400 W, idle 60 W; compute 0.95 → 383 W, reconfigure 0.15 →
// 111 W), no server share, PUE 1, 100 g/kWh, a 200-s window. One job holds
// GPU 0 over [0, 100] s, reconfiguring until 20 s. Energy: 111×20 +
// 383×80 + 60×100 (GPU 0 idle after) + 60×200 (GPU 1) = 50,860 J =
// 0.0141278 kWh; the job's 32,860 J; 800 samples → 63.575 J/sample.
// Power over GPU-time: 60 W for 300 of 400 GPU-s (the quartiles are
// 60 W), 383 W for 80 (near the TDP: 20 %).
func TestComputeHandWorked(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	m := handModel()
	m.ServerWattsPerGPU, m.PUE, m.Intensity = 0, 1, Intensity{Constant: 100}
	res := &sim.Result{Rounds: 2, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 1, Start: 0, End: 100, Ready: 20}}}
	jobs := []sim.JobSpec{{ID: 1, VirtualCluster: "vc1"}}
	r, err := Compute(res, jobs, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	near("kwh", r.KWh, 50860/3.6e6)
	near("jobs_kwh", r.JobsKWh, 32860/3.6e6)
	near("idle_kwh", r.IdleKWh, 18000/3.6e6)
	near("reconfig_kwh", r.ReconfigKWh, 2220/3.6e6)
	near("kg_co2", r.KgCO2, 50860/3.6e6*100/1e3)
	near("jobs_kg_co2", r.JobsKgCO2, 32860/3.6e6*100/1e3)
	near("joules_per_sample", r.JoulesPerSample, 50860.0/800)
	near("mg_co2_per_sample", r.MgCO2PerSample, 50860/3.6e6*100*1e3/800)
	near("p50", r.P50GPUWatts, 60)
	near("near_tdp_share", r.NearTDPShare, 0.2)
	near("mean watts", r.MeanGPUWatts, 50860.0/400)
	near("gpu cost", r.GPUCostUSD, 100.0/3600*2.7447)
	near("cluster cost", r.ClusterCostUSD, 2*200.0/3600*2.7447)
	if len(r.Tenants) != 1 || r.Tenants[0].Name != "vc1" {
		t.Fatalf("tenants %+v", r.Tenants)
	}
	near("tenant kwh", r.Tenants[0].KWh, 32860/3.6e6)
}

// TestIntensitySeries: an hourly series repeats, and its integral over
// a span crossing an hour is the two hours' shares (hand-worked).
func TestIntensitySeries(t *testing.T) {
	in := Intensity{Hourly: []float64{100, 300}}
	if in.At(3599) != 100 || in.At(3600) != 300 || in.At(7200) != 100 {
		t.Errorf("At: %g %g %g", in.At(3599), in.At(3600), in.At(7200))
	}
	if got := in.Integral(1800, 5400); got != 100*1800+300*1800 {
		t.Errorf("Integral = %g", got)
	}
}

// TestReadSeriesErrors: a bad series names the file, the line and the field.
func TestReadSeriesErrors(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"no header":            {"0,12\n", "s.csv:1: want the header hour,g_co2_per_kwh"},
		"hours out of order":   {"hour,g_co2_per_kwh\n0,1\n2,3\n", "s.csv:3: hour: want 1"},
		"negative intensity":   {"# c\nhour,g_co2_per_kwh\n0,-4\n", "s.csv:3: g_co2_per_kwh: want a number ≥ 0"},
		"three fields":         {"hour,g_co2_per_kwh\n0,1,2\n", "s.csv:2: want 2 fields"},
		"no rows after header": {"hour,g_co2_per_kwh\n", "s.csv: no hours"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := readSeries("s.csv", strings.NewReader(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestExampleSeries reads the shipped example (examples/energy).
func TestExampleSeries(t *testing.T) {
	in, err := ReadSeries(filepath.Join("..", "..", "examples", "energy", "carbon-de-2020-06.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Hourly) != 168 {
		t.Errorf("%d hours, want 168", len(in.Hourly))
	}
}

// TestLoad: an energy file overrides the fields it names; errors name
// the file, line and key.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("grid.csv", "hour,g_co2_per_kwh\n0,50\n1,150\n")
	m, err := Load(write("e.yaml", "pue: 1.2\nprice_tier: spot\ncarbon_series: grid.csv\ngpus:\n  a100: {idle: 50}\nprices:\n  a100: {spot: 1.0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.PUE != 1.2 || m.Tier != TierSpot || len(m.Intensity.Hourly) != 2 || m.GPUs["a100"].Idle != 50 || m.GPUs["a100"].TDP != 400 || m.Price("a100") != 1.0 {
		t.Errorf("loaded %+v", m)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"pue below 1":   {"pue: 0.9\n", "bad.yaml:1: key pue: want a number in [1, 10]"},
		"unknown key":   {"pue: 1.1\nwatts: 3\n", "bad.yaml:2: key watts: unknown key"},
		"bad gpu field": {"gpus:\n  a100: {tpd: 300}\n", "bad.yaml:2: key gpus.a100.tpd: unknown key"},
		"both carbons":  {"carbon: 5\ncarbon_series: grid.csv\n", "give carbon (a constant) or carbon_series, not both"},
		"idle over tdp": {"gpus:\n  a10: {idle: 400}\n", "want 0 ≤ idle ≤ tdp"},
		"no_kernel > 1": {"no_kernel: 1.5\n", "bad.yaml:1: key no_kernel: want a number in [0, 1]"},
		"no_kernel key": {"no_kernel: {2: 0.1}\n", "bad.yaml:1: key no_kernel.2: unknown key"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(write("bad.yaml", tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestBuiltinSeriesIsTheExample: the embedded series is the shipped
// example, byte for byte.
func TestBuiltinSeriesIsTheExample(t *testing.T) {
	a, err := os.ReadFile(filepath.Join("..", "..", "examples", "energy", "carbon-de-2020-06.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := data.ReadFile("data/carbon-de-2020-06.csv")
	if err != nil || string(a) != string(b) {
		t.Errorf("sim/energy/data/carbon-de-2020-06.csv differs from examples/energy/'s (%v)", err)
	}
	m, err := Load("de-2020-06")
	if err != nil || len(m.Intensity.Hourly) != 168 {
		t.Errorf("Load(de-2020-06): %v", err)
	}
}

// FuzzParse: any energy file either parses into a model that passes its
// own check or fails with an error naming the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("pue: 1.2\nprice_tier: spot\ncarbon: 57\ngpus:\n  a100: {idle: 50}\nprices:\n  a100: {spot: 1.0}\n"))
	f.Add([]byte("carbon_series: de-2020-06\n"))
	f.Add([]byte("gpus: {b200: {tdp: 1000, idle: 140}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse("fuzz.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("accepted a model that fails its check: %v", err)
		}
	})
}

// FuzzReadSeries: any series either reads into hours ≥ 0 or fails with
// an error naming the file.
func FuzzReadSeries(f *testing.F) {
	f.Add([]byte("# c\nhour,g_co2_per_kwh\n0,100\n1,200.5\n"))
	f.Add([]byte("hour,g_co2_per_kwh\n0,\"1\n2\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := readSeries("fuzz.csv", bytes.NewReader(b))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, v := range in.Hourly {
			if !(v >= 0) {
				t.Fatalf("accepted intensity %v", v)
			}
		}
	})
}

// TestComputeFailures extends the hand-worked case with a fault model's
// figures: 36 GPU-s of work redone at the run's computing power (383 W)
// and 10 GPU-s of restart at its reconfiguring power (111 W) are energy
// lost to failures, 13,788 + 1,110 J, the restart leaving the
// reconfiguration energy (2,220 − 1,110 J); a goodput of 3 samples/s
// over the 200-s window makes 600 useful samples.
func TestComputeFailures(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	m := handModel()
	m.ServerWattsPerGPU, m.PUE, m.Intensity = 0, 1, Intensity{Constant: 100}
	res := &sim.Result{Rounds: 2, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", Slots: 1, Start: 0, End: 100, Ready: 20}},
		Faults: &sim.FaultResult{Summary: sim.FaultSummary{LostWorkGPUHours: 36.0 / 3600, RecoveryGPUHours: 10.0 / 3600, Goodput: 3}}}
	r, err := Compute(res, []sim.JobSpec{{ID: 1}}, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"failure_kwh", r.FailureKWh, (36*383 + 10*111) / 3.6e6},
		{"reconfig_kwh", r.ReconfigKWh, (2220 - 1110) / 3.6e6},
		{"joules_per_sample", r.JoulesPerSample, 50860.0 / 600},
	} {
		if math.Abs(x.got-x.want) > 1e-9*x.want {
			t.Errorf("%s = %.10g, want %.10g", x.name, x.got, x.want)
		}
	}
}

// halving: two GPUs of a type give the throughput of one (efficiency
// 0.5); one GPU gives 10 samples/s.
type halving struct{}

func (halving) Name() string { return "halving" }
func (halving) Estimate(_ estimator.Workload, c estimator.Config) estimator.Estimate {
	return estimator.Estimate{Throughput: 10, IterTime: 1}
}

// TestNearTDPPerType is hand-worked on a mixed cluster: a job on both
// A100s at efficiency 0.5 draws 60 + 340 × (0.95 × 0.5 + 0.4 × 0.5) =
// 289.5 W, below 90 % of the A100's 400 W; a job on the A10 at efficiency
// 1 draws 11.5 + 138.5 × 0.95 = 143.075 W, above 90 % of its 150 W. Near the
// TDP: the A10's 100 GPU-s of 300, one third (each GPU against its own
// type's TDP, not the cluster's smallest).
func TestNearTDPPerType(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}, {GPU: "a10", Nodes: 1, GPUsPerNode: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	res := &sim.Result{Rounds: 1, RoundLength: 100, Allocations: []sim.AllocRecord{
		{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 0, End: 100},
		{Job: 2, GPU: "a10", FirstSlot: 2, Slots: 1, Start: 0, End: 100},
	}}
	r, err := Compute(res, []sim.JobSpec{{ID: 1}, {ID: 2}}, c, halving{}, handModel())
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.NearTDPShare-1.0/3) > 1e-12 {
		t.Errorf("near_tdp_share = %g, want 1/3", r.NearTDPShare)
	}
	if r.P75GPUWatts != 289.5 {
		t.Errorf("p75 = %g W, want 289.5", r.P75GPUWatts)
	}
}

// TestSpotPriceHandWorked is an anchor worked by hand: TestComputeHandWorked's
// run (one job on GPU 0 of a 2-A100 node over [0, 100] s of a 200-s
// window, on-demand $2.7447/GPU-hour) with the node's capacity priced at
// $1.00/GPU-hour by an add event at 50 s until an up event without a
// price at 150 s. The job pays 50 s at 2.7447 and 50 s at 1.00:
// $187.235/3600; the cluster 2 GPUs × (200 s × 2.7447 − 100 s × 1.7447):
// $748.94/3600.
// Energy and carbon do not change.
func TestSpotPriceHandWorked(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	events := []sim.ClusterEvent{{Time: 50, Node: 0, Kind: sim.NodeAdd, Price: 1}, {Time: 150, Node: 0, Kind: sim.NodeUp}}
	prices := EventPrices(events)
	if len(prices[0]) != 1 || prices[0][0] != (PriceSpan{From: 50, To: 150, USD: 1}) {
		t.Fatalf("spans %+v", prices)
	}
	if EventPrices(events[1:]) != nil {
		t.Error("spans from events without a price")
	}
	res := &sim.Result{Rounds: 2, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 1, Start: 0, End: 100, Ready: 20}}}
	jobs := []sim.JobSpec{{ID: 1, VirtualCluster: "vc1"}}
	m := Default()
	m.ServerWattsPerGPU, m.PUE, m.Intensity = 0, 1, Intensity{Constant: 100}
	plain, err := Compute(res, jobs, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	m.NodePrices = prices
	r, err := Compute(res, jobs, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"gpu cost", r.GPUCostUSD, 187.235 / 3600},
		{"job cost", r.Jobs[0].CostUSD, 187.235 / 3600},
		{"cluster cost", r.ClusterCostUSD, 748.94 / 3600},
		{"kwh", r.KWh, plain.KWh},
		{"kg co2", r.KgCO2, plain.KgCO2},
	} {
		if math.Abs(x.got-x.want) > 1e-12 {
			t.Errorf("%s = %.10g, want %.10g", x.name, x.got, x.want)
		}
	}
}

// TestNoKernelHandWorked is an anchor worked by hand: one A100 (TDP 400 W,
// idle 60 W) held by a 1-GPU job computing over the whole 100-s window at
// efficiency 1, no server share, PUE 1. The built-in share of a 1-GPU
// job's time without a kernel is 0.289, at the A100's CUDA-context power
// 60 + 38 = 98 W; the rest at 60 + 340 × 0.95 = 383 W. Energy: (0.289 ×
// 98 + 0.711 × 383) × 100 = 30,063.5 J; power over GPU-time: 98 W for
// 28.9 GPU-s, 383 W for 71.1 (p25 98 W, p50 383 W, near the TDP 0.711).
// An energy file's no_kernel: 0 gives 38,300 J.
func TestNoKernelHandWorked(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	m := Default()
	m.ServerWattsPerGPU, m.PUE, m.Intensity = 0, 1, Intensity{Constant: 100}
	res := &sim.Result{Rounds: 1, RoundLength: 100, Allocations: []sim.AllocRecord{{Job: 1, GPU: "a100", Slots: 1, Start: 0, End: 100}}}
	r, err := Compute(res, []sim.JobSpec{{ID: 1}}, c, flat{}, m)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	near("kwh", r.KWh, 30063.5/3.6e6)
	near("p25", r.P25GPUWatts, 98)
	near("p50", r.P50GPUWatts, 383)
	near("near_tdp_share", r.NearTDPShare, 0.711)
	off, err := Parse("off.yaml", []byte("no_kernel: 0\nserver_watts_per_gpu: 0\npue: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err = Compute(res, []sim.JobSpec{{ID: 1}}, c, flat{}, off)
	if err != nil {
		t.Fatal(err)
	}
	near("kwh without no_kernel", r.KWh, 38300/3.6e6)
	by, err := Parse("by.yaml", []byte("no_kernel: {1: 0.5, 16: 0.1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if by.NoKernel != (NoKernelShares{0.5, 0.275, 0.202, 0.1}) || by.NoKernel.Of(32) != 0.1 || by.NoKernel.Of(3) != 0.275 {
		t.Errorf("no_kernel by size: %v", by.NoKernel)
	}
}
