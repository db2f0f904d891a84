package energy

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/arena-sim/arena/sim"
)

// GPUPower is one GPU type's power model, watts and activity shares
// (0–1 of the span TDP − Idle above Idle).
type GPUPower struct {
	// TDP is the datasheet's maximum board power; Idle the measured (or
	// estimated) power of a GPU powered on with no work.
	TDP, Idle float64
	// Compute, Comm and Reconfig are the activity while the job
	// computes, while it waits on communication, and while it pays an
	// overhead (loading, restarting, restoring).
	Compute, Comm, Reconfig float64
}

// Watts is the power at activity a (0–1).
func (g GPUPower) Watts(a float64) float64 { return g.Idle + (g.TDP-g.Idle)*a }

// Price is one GPU type's rental price, $ per GPU-hour, by tier.
type Price struct {
	OnDemand, Reserved, Spot float64
}

// Tier returns the price of tier (on-demand, reserved, spot).
func (p Price) Tier(t string) float64 {
	switch t {
	case TierReserved:
		return p.Reserved
	case TierSpot:
		return p.Spot
	}
	return p.OnDemand
}

// The price tiers.
const (
	TierOnDemand = "on-demand"
	TierReserved = "reserved"
	TierSpot     = "spot"
)

// Tiers are the price tiers, in order.
var Tiers = []string{TierOnDemand, TierReserved, TierSpot}

// Model is every input of the accounting: power per GPU type, the
// server's other power and the facility's PUE, prices and the grid's
// carbon intensity. Default is the built-in one; an energy file
// (Load) overrides any part of it.
type Model struct {
	// Name is "default" or the energy file's name.
	Name string
	// GPUs is the power model per GPU type (estimator catalog names).
	GPUs map[string]GPUPower
	// ServerWattsPerGPU is each GPU's share of its server's other power
	// (CPUs, memory, NICs, fans), drawn whether the GPU works or not.
	ServerWattsPerGPU float64
	// PUE is the facility's power usage effectiveness (≥ 1): facility
	// energy ÷ IT energy.
	PUE float64
	// Prices per GPU type; Tier the one GPU costs are priced at.
	Prices map[string]Price
	Tier   string
	// USDPerKWh is the electricity price.
	USDPerKWh float64
	// Intensity is the grid's carbon intensity.
	Intensity Intensity
	// NoKernel is the share of a computing job's held GPU-time in which
	// its GPUs run no kernel (data loading, evaluation, checkpoints,
	// stalls), by the job's GPU count (NoKernelBuckets). Those GPUs hold
	// a CUDA context and draw the reconfiguring power.
	NoKernel NoKernelShares
	// NodePrices are the prices of spans of nodes' time (cluster node
	// index → spans in time order) that replace the type's price: spot
	// capacity priced by the run's events file (EventPrices), not by an
	// energy file.
	NodePrices map[int][]PriceSpan
	// SpotNodes are nodes of spot capacity a faults spec prices (node
	// index → $ per GPU-hour over the whole run; 0: the model's spot
	// price for the node's type): faults.Spec.SpotNodes. A node an event
	// prices (NodePrices) keeps the event's prices.
	SpotNodes map[int]float64
	// Outages are the spans nodes are out of service (cluster node index
	// → spans in time order), set from the run's cluster events
	// (EventOutages): their GPUs are powered off then.
	Outages map[int][]Outage
}

// NoKernelShares are shares of held GPU-time without a kernel for jobs of
// 1, 2–4, 5–8 and more than 8 GPUs (NoKernelBuckets).
type NoKernelShares [4]float64

// NoKernelBuckets name NoKernelShares' buckets by their largest job size
// (16 stands for every job of more than 8 GPUs), as an energy file's
// no_kernel mapping keys them.
var NoKernelBuckets = []string{"1", "4", "8", "16"}

// Of returns the share for a job of gpus GPUs.
func (s NoKernelShares) Of(gpus int) float64 {
	switch {
	case gpus <= 1:
		return s[0]
	case gpus <= 4:
		return s[1]
	case gpus <= 8:
		return s[2]
	}
	return s[3]
}

// PriceSpan is a node's price, $ per GPU-hour, from From to To (seconds,
// the trace's clock; To may be +Inf).
type PriceSpan struct {
	From, To, USD float64
}

// EventPrices returns the price spans cluster events set (nil when no
// event has a price): an event that brings a node up (add, up) with a
// price prices the node's GPUs from its time until the node's next such
// event, which sets the next price, or none (0: the type's price). events
// are in time order.
func EventPrices(events []sim.ClusterEvent) map[int][]PriceSpan {
	var out map[int][]PriceSpan
	open := map[int]int{} // node → index of its open span in out[node]
	for _, e := range events {
		if k := e.Kind.Info(); !k.Joins && !k.Up {
			continue
		}
		t := float64(e.Time)
		if i, ok := open[e.Node]; ok {
			out[e.Node][i].To = t
			delete(open, e.Node)
		}
		if e.Price != 0 {
			if out == nil {
				out = map[int][]PriceSpan{}
			}
			open[e.Node] = len(out[e.Node])
			out[e.Node] = append(out[e.Node], PriceSpan{From: t, To: math.Inf(1), USD: e.Price})
		}
	}
	return out
}

// spotSpans returns m with its SpotNodes as whole-run price spans of
// NodePrices on c (m itself when it has none).
func (m *Model) spotSpans(c *sim.Cluster) (*Model, error) {
	if len(m.SpotNodes) == 0 {
		return m, nil
	}
	out := m.Clone()
	if out.NodePrices == nil {
		out.NodePrices = map[int][]PriceSpan{}
	}
	for node, usd := range m.SpotNodes {
		if node < 0 || node >= len(c.Nodes) {
			return nil, fmt.Errorf("energy: spot node %d, the cluster has %d", node, len(c.Nodes))
		}
		if _, ok := out.NodePrices[node]; ok {
			continue
		}
		if usd == 0 {
			usd = m.Prices[c.Nodes[node].GPU].Spot
		}
		out.NodePrices[node] = []PriceSpan{{From: math.Inf(-1), To: math.Inf(1), USD: usd}}
	}
	return out, nil
}

// gpuCost is the cost of one GPU of type t on node from a to b (seconds):
// the type's price at the tier, or a span's where one holds.
func (m *Model) gpuCost(node int, t string, a, b float64) float64 {
	p := m.Price(t)
	usd := p * (b - a) / 3600
	for _, s := range m.NodePrices[node] {
		if lo, hi := max(a, s.From), min(b, s.To); hi > lo {
			usd += (s.USD - p) * (hi - lo) / 3600
		}
	}
	return usd
}

// Default returns the built-in model (a fresh copy: callers may change
// it). The constants and their sources are docs/energy.md's table; a [R]
// there marks a figure not re-checked against its source.
func Default() *Model {
	return &Model{
		Name:              "default",
		GPUs:              defaultPower(),
		ServerWattsPerGPU: 216,
		PUE:               1.1,
		Prices:            defaultPrices(),
		Tier:              TierOnDemand,
		USDPerKWh:         0.0806,
		Intensity:         Intensity{Constant: 385},
		NoKernel:          philly2017NoKernel,
	}
}

// Activity shares every built-in type uses: computing near the TDP (as
// Acme's busy A100s draw it: Kalos's 90th percentile is 404 W at 400 W
// TDP), communicating at 40 % (recalled), reconfiguring at 15 % (recalled;
// only for types without a measured CUDA-context power, gpuCtx).
const (
	activityCompute  = 0.95
	activityComm     = 0.40
	activityReconfig = 0.15
)

func gpu(tdp, idle float64) GPUPower {
	return GPUPower{TDP: tdp, Idle: idle, Compute: activityCompute, Comm: activityComm, Reconfig: activityReconfig}
}

// gpuCtx is gpu with the reconfiguring level at ctx watts: the measured
// power of a GPU that holds a CUDA context and runs no kernel (a job
// loading, restoring, or between kernels for a whole sample).
func gpuCtx(tdp, idle, ctx float64) GPUPower {
	g := gpu(tdp, idle)
	g.Reconfig = (ctx - idle) / (tdp - idle)
	return g
}

// hbmContextStep is the power a CUDA context adds to a bare-idle HBM GPU
// with no kernel: the middle of the 26–50 W Vadari measured on A100 and
// H100 ("The Model Parking Tax", arXiv:2605.23918, 2026), used for every
// HBM type (A100, V100, H100); the GDDR types' context power is read from
// public nvidia-smi readings instead (Vadari's one GDDR6 card, an L40S,
// is of none of them).
const hbmContextStep = (26.0 + 50.0) / 2

// philly2017NoKernel: the share of per-minute GPU-utilisation samples at
// 0 % of Philly's passed jobs of 1, 4, 8 and 16 GPUs (Jeon et al., ATC'19,
// Figure 5, as the authors' notebook msr-fiddle/philly-traces draws it
// from the trace's nvidia-smi samples), read off the figure's CDFs at 0 %
// (docs/energy.md, "A held GPU that runs no kernel").
var philly2017NoKernel = NoKernelShares{0.289, 0.275, 0.202, 0.261}

// defaultPower: datasheet TDP; bare idle measured (the A100's: Acme's
// low mode, 58–66 W; the others: the median of public nvidia-smi
// readings of idle GPUs, docs/energy.md); the reconfiguring level at the
// measured CUDA-context power where one is known (gpuCtx).
func defaultPower() map[string]GPUPower {
	return map[string]GPUPower{
		"a100":     gpuCtx(400, 60, 60+hbmContextStep),
		"a100-80g": gpuCtx(400, 60, 60+hbmContextStep),
		"v100":     gpuCtx(300, 47, 47+hbmContextStep),
		"a40":      gpuCtx(300, 24, 80),
		"a10":      gpu(150, 11.5),
		"h100":     gpuCtx(700, 75, 75+hbmContextStep),
		"h800":     gpuCtx(700, 75, 75+hbmContextStep),
		"l20":      gpuCtx(350, 29, 94),
		"l4":       gpu(72, 16),
		"t4":       gpuCtx(70, 9, 31),
	}
}

// defaultPrices: AWS us-east-1 list prices, $ per GPU-hour (docs/energy.md
// gives, for each, the instance, the source and its date): on-demand and
// 1-year reserved from instances.vantage.sh (2026-01-21), spot the median
// over us-east-1's zones in SkyPilot's catalog. a40, which AWS does not
// rent: RunPod's list prices in SkyPilot's catalogue (reserved derived);
// l20, rented by none of the catalogued providers, is recalled.
func defaultPrices() map[string]Price {
	return map[string]Price{
		"a100":     {OnDemand: 2.7447, Reserved: 1.7401, Spot: 0.8489},
		"a100-80g": {OnDemand: 3.4309, Reserved: 2.1752, Spot: 0.8529},
		"v100":     {OnDemand: 3.06, Reserved: 1.884, Spot: 0.484},
		"a40":      {OnDemand: 0.79, Reserved: 0.5009, Spot: 0.49},
		"a10":      {OnDemand: 1.006, Reserved: 0.6338, Spot: 0.4028},
		"h100":     {OnDemand: 6.88, Reserved: 4.362, Spot: 3.348},
		"h800":     {OnDemand: 6.88, Reserved: 4.362, Spot: 3.348},
		"l20":      {OnDemand: 0.90, Reserved: 0.60, Spot: 0.35},
		"l4":       {OnDemand: 0.8048, Reserved: 0.5239, Spot: 0.4129},
		"t4":       {OnDemand: 0.526, Reserved: 0.331, Spot: 0.1869},
	}
}

// Power returns type t's power model.
func (m *Model) Power(t string) (GPUPower, error) {
	g, ok := m.GPUs[t]
	if !ok {
		return GPUPower{}, fmt.Errorf("energy: no power model for GPU type %q (have %s; add it in an energy file, docs/energy.md)", t, strings.Join(m.types(), ", "))
	}
	return g, nil
}

// Price returns type t's $/GPU-hour at the model's tier (0 when the
// model has no price for t).
func (m *Model) Price(t string) float64 { return m.Prices[t].Tier(m.Tier) }

func (m *Model) types() []string {
	var ts []string
	for t := range m.GPUs {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

// Check reports a model whose figures cannot be right: a type whose idle
// power is above its TDP, an activity outside 0–1, a PUE below 1, a
// negative price.
func (m *Model) Check() error {
	for _, t := range m.types() {
		g := m.GPUs[t]
		if !(g.TDP > 0) || g.Idle < 0 || g.Idle > g.TDP {
			return fmt.Errorf("energy: GPU type %s: want 0 ≤ idle ≤ tdp and tdp > 0, got idle %g, tdp %g", t, g.Idle, g.TDP)
		}
		for _, a := range []float64{g.Compute, g.Comm, g.Reconfig} {
			if a < 0 || a > 1 {
				return fmt.Errorf("energy: GPU type %s: want activities in 0–1, got %g", t, a)
			}
		}
	}
	for _, x := range m.NoKernel {
		if x < 0 || x > 1 {
			return fmt.Errorf("energy: want no_kernel shares in 0–1, got %g", x)
		}
	}
	if m.PUE < 1 {
		return fmt.Errorf("energy: want pue ≥ 1, got %g", m.PUE)
	}
	if m.ServerWattsPerGPU < 0 || m.USDPerKWh < 0 {
		return fmt.Errorf("energy: want server watts and electricity price ≥ 0")
	}
	if !slices.Contains(Tiers, m.Tier) {
		return fmt.Errorf("energy: price tier %q: want one of %s", m.Tier, strings.Join(Tiers, ", "))
	}
	return nil
}

// Clone returns a copy of m whose maps the caller may change (the
// intensity's hourly series is shared: nothing changes it).
func (m *Model) Clone() *Model {
	c := *m
	c.GPUs = maps.Clone(m.GPUs)
	c.Prices = maps.Clone(m.Prices)
	c.NodePrices = maps.Clone(m.NodePrices)
	c.SpotNodes = maps.Clone(m.SpotNodes)
	c.Outages = maps.Clone(m.Outages)
	return &c
}
