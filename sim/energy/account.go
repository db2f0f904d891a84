package energy

import (
	"fmt"
	"slices"
	"sort"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// Job is one job's energy, carbon and cost over the window.
type Job struct {
	ID      int32   `json:"id"`
	Tenant  string  `json:"tenant,omitempty"`
	GPUH    float64 `json:"gpu_hours"`
	KWh     float64 `json:"kwh"`
	KgCO2   float64 `json:"kg_co2"`
	CostUSD float64 `json:"cost_usd"`
}

// Report is a run's accounting: the figures summary.json carries and
// each job's.
type Report struct {
	sim.Energy
	Jobs []Job `json:"-"`
	// Power is the distribution of per-GPU power (GPU only, no server
	// share) over GPU-time: watts and the GPU-seconds at them, sorted by
	// watts.
	Power []Level `json:"-"`
}

// Level is a power level and the GPU-seconds spent at it.
type Level struct {
	Watts, GPUSeconds float64
}

// Compute prices run res (jobs are the trace's specs; c the run's cluster;
// exec the estimator the engine executed with) under model m.
func Compute(res *sim.Result, jobs []sim.JobSpec, c *sim.Cluster, exec estimator.Estimator, m *Model) (*Report, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	m, err := m.spotSpans(c)
	if err != nil {
		return nil, err
	}
	t0 := float64(res.Start)
	window := float64(res.Rounds) * float64(res.RoundLength)
	byID := make(map[int32]*sim.JobSpec, len(jobs))
	for i := range jobs {
		byID[int32(jobs[i].ID)] = &jobs[i]
	}
	a := accountant{m: m, c: c, exec: exec, t0: t0, eff: map[effKey]eff{}, levels: map[float64]float64{}, byJob: map[int32]*Job{}}
	// Every GPU of the cluster idles over the whole window; a holding adds
	// what its GPUs draw above that.
	var idleW, gpuIdleW float64
	for _, t := range c.Types {
		g, err := m.Power(t)
		if err != nil {
			return nil, err
		}
		n := float64(c.TotalGPUs(t))
		idleW += n * (g.Idle + m.ServerWattsPerGPU)
		gpuIdleW += n * g.Idle
		a.rep.ClusterCostUSD += n * window / 3600 * m.Price(t)
		for _, node := range c.NodesOfType(t) {
			for _, sp := range m.NodePrices[node] { // spot capacity priced by events
				if lo, hi := max(t0, sp.From), min(t0+window, sp.To); hi > lo {
					a.rep.ClusterCostUSD += float64(c.Nodes[node].Capacity) * (hi - lo) / 3600 * (sp.USD - m.Price(t))
				}
			}
		}
		if g.Idle >= NearTDP*g.TDP { // an energy file may say so
			a.nearSec += n * window
		}
		a.levels[g.Idle] += n * window
	}
	a.totalJ = idleW * m.PUE * window
	a.gpuJ = gpuIdleW * window
	a.carbonG = idleW * m.PUE * m.Intensity.Integral(0, window) / 3.6e6
	if err := a.outages(window); err != nil {
		return nil, err
	}
	// The holdings: records of one Hold are consecutive (same job, start
	// and end); their slots together are the job's grid.
	allocs := res.Allocations
	for i := 0; i < len(allocs); {
		k := i + 1
		for k < len(allocs) && allocs[k].Job == allocs[i].Job && allocs[k].Start == allocs[i].Start && allocs[k].End == allocs[i].End {
			k++
		}
		if err := a.holding(allocs[i:k], byID); err != nil {
			return nil, err
		}
		i = k
	}
	return a.finish(res, window), nil
}

type effKey struct {
	w   string
	cfg estimator.Config
}

type eff struct{ e, throughput float64 }

type accountant struct {
	m       *Model
	c       *sim.Cluster
	exec    estimator.Estimator
	t0      float64
	eff     map[effKey]eff
	levels  map[float64]float64 // GPU watts → GPU-seconds (idle levels added in full, holdings moved off them)
	nearSec float64             // GPU-seconds at or above NearTDP of their own type's TDP
	byJob   map[int32]*Job
	order   []int32

	totalJ, gpuJ, carbonG, jobsG  float64
	jobsJ, reconfJ, computeGPUs   float64
	computeJ, samples, heldGPUSec float64
	rep                           sim.Energy
}

// outages takes the nodes' outages (Model.Outages) off the idle baseline:
// their GPUs and server shares are powered off, their GPU-time leaves the
// power distribution, and an unbilled outage leaves the cluster's cost.
// Jobs hold no GPU of a node that is out, so no holding overlaps one.
func (a *accountant) outages(window float64) error {
	m := a.m
	nodes := make([]int, 0, len(m.Outages))
	for n := range m.Outages {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, node := range nodes {
		if node < 0 || node >= len(a.c.Nodes) {
			return fmt.Errorf("energy: outage of node %d, the cluster has %d", node, len(a.c.Nodes))
		}
		t := a.c.Nodes[node].GPU
		g, err := m.Power(t)
		if err != nil {
			return err
		}
		n := float64(a.c.Nodes[node].Capacity)
		for _, o := range m.Outages[node] {
			lo, hi := max(a.t0, o.From), min(a.t0+window, o.To)
			if !(hi > lo) {
				continue
			}
			d := hi - lo
			w := n * (g.Idle + m.ServerWattsPerGPU) * m.PUE
			a.totalJ -= w * d
			a.gpuJ -= n * g.Idle * d
			a.carbonG -= w * m.Intensity.Integral(lo-a.t0, hi-a.t0) / 3.6e6
			a.levels[g.Idle] -= n * d
			if g.Idle >= NearTDP*g.TDP {
				a.nearSec -= n * d
			}
			if !o.Billed {
				a.rep.ClusterCostUSD -= n * m.gpuCost(node, t, lo, hi)
			}
		}
	}
	return nil
}

// holding prices one holding (its allocation records).
func (a *accountant) holding(recs []sim.AllocRecord, byID map[int32]*sim.JobSpec) error {
	r := recs[0]
	spec, ok := byID[r.Job]
	if !ok {
		return fmt.Errorf("energy: job %d of the results is not in the trace", r.Job)
	}
	var slots []int
	for _, x := range recs {
		for s := range x.Slots {
			slots = append(slots, int(x.FirstSlot+s))
		}
	}
	n := float64(len(slots))
	g, err := a.m.Power(r.GPU)
	if err != nil {
		return err
	}
	cfg, _ := a.c.ShapeOf(slots)
	ef := a.efficiency(spec.Workload, cfg)
	S, pue := a.m.ServerWattsPerGPU, a.m.PUE
	reconfW := g.Watts(g.Reconfig)
	kernelW := g.Watts(g.Compute*ef.e + g.Comm*(1-ef.e))
	// The computing span's share h without a kernel draws the
	// reconfiguring (CUDA-context) power; power is affine in time, so the
	// span's energy is at the mean of the two levels.
	h := a.m.NoKernel.Of(len(slots))
	computeW := (1-h)*kernelW + h*reconfW
	ready := min(max(r.Ready, r.Start), r.End)
	d1, d2 := ready-r.Start, r.End-ready
	in := a.m.Intensity
	j1 := n * (reconfW + S) * pue * d1
	j2 := n * (computeW + S) * pue * d2
	g1 := n * (reconfW + S) * pue * in.Integral(r.Start-a.t0, ready-a.t0) / 3.6e6
	g2 := n * (computeW + S) * pue * in.Integral(ready-a.t0, r.End-a.t0) / 3.6e6
	idle := n * (g.Idle + S) * pue
	a.totalJ += j1 + j2 - idle*(d1+d2)
	a.gpuJ += n * ((reconfW-g.Idle)*d1 + (computeW-g.Idle)*d2)
	a.carbonG += g1 + g2 - idle*in.Integral(r.Start-a.t0, r.End-a.t0)/3.6e6
	a.jobsJ += j1 + j2
	a.jobsG += g1 + g2
	a.reconfJ += j1
	a.computeJ += j2
	a.computeGPUs += n * d2
	a.heldGPUSec += n * (d1 + d2)
	a.samples += ef.throughput * d2
	a.levels[g.Idle] -= n * (d1 + d2)
	if g.Idle >= NearTDP*g.TDP {
		a.nearSec -= n * (d1 + d2)
	}
	a.levels[reconfW] += n * (d1 + h*d2)
	a.levels[kernelW] += n * (1 - h) * d2
	if kernelW >= NearTDP*g.TDP {
		a.nearSec += n * (1 - h) * d2
	}
	if reconfW >= NearTDP*g.TDP {
		a.nearSec += n * (d1 + h*d2)
	}
	j := a.byJob[r.Job]
	if j == nil {
		j = &Job{ID: r.Job, Tenant: spec.VirtualCluster}
		a.byJob[r.Job] = j
		a.order = append(a.order, r.Job)
	}
	gpuh := n * (d1 + d2) / 3600
	j.GPUH += gpuh
	j.KWh += (j1 + j2) / 3.6e6
	j.KgCO2 += (g1 + g2) / 1e3
	if len(a.m.NodePrices) == 0 {
		j.CostUSD += gpuh * a.m.Price(r.GPU)
	} else {
		for _, s := range slots {
			j.CostUSD += a.m.gpuCost(a.c.NodeOf(s), r.GPU, r.Start, r.End)
		}
	}
	return nil
}

// efficiency is the job's scaling efficiency on cfg (see the package
// doc) and its throughput there, memoised per workload and grid.
func (a *accountant) efficiency(w estimator.Workload, cfg estimator.Config) eff {
	k := effKey{w.String(), cfg}
	if e, ok := a.eff[k]; ok {
		return e
	}
	est := a.exec.Estimate(w, cfg)
	e := eff{e: 1}
	if est.Feasible() && cfg.GPUs() > 0 {
		e.throughput = est.Throughput
		best := est.Throughput / float64(cfg.GPUs())
		for per := 1; per <= a.c.NodeCapacity(cfg.GPU); per *= 2 {
			if x := a.exec.Estimate(w, estimator.Config{GPU: cfg.GPU, Nodes: 1, PerNode: per}); x.Feasible() {
				best = max(best, x.Throughput/float64(per))
			}
		}
		e.e = min(1, est.Throughput/float64(cfg.GPUs())/best)
	}
	a.eff[k] = e
	return e
}

// finish fills the figures.
func (a *accountant) finish(res *sim.Result, window float64) *Report {
	m := a.m
	e := &a.rep
	e.Model, e.PriceTier = m.Name, m.Tier
	e.KWh = a.totalJ / 3.6e6
	e.GPUKWh = a.gpuJ / 3.6e6
	e.JobsKWh = a.jobsJ / 3.6e6
	e.IdleKWh = e.KWh - e.JobsKWh
	e.KgCO2 = a.carbonG / 1e3
	e.JobsKgCO2 = a.jobsG / 1e3
	e.ElectricityUSD = e.KWh * m.USDPerKWh
	// Useful samples: those processed, or with the fault model those of
	// kept progress (its goodput over the window): lost work is no use.
	useful := a.samples
	if f := res.Faults; f != nil && f.Summary.Goodput > 0 {
		useful = f.Summary.Goodput * window
	}
	if useful > 0 {
		e.JoulesPerSample = a.totalJ / useful
		e.MgCO2PerSample = a.carbonG * 1e3 / useful
	}
	// Failures: the work redone at the run's mean computing power per
	// GPU, restart and restore at the reconfiguring power (both facility).
	reconfKWh := a.reconfJ / 3.6e6
	if f := res.Faults; f != nil {
		var computeW, reconfW float64
		if a.computeGPUs > 0 {
			computeW = a.computeJ / a.computeGPUs
		}
		if held := a.heldGPUSec - a.computeGPUs; held > 0 {
			reconfW = a.reconfJ / held
		}
		lost := f.Summary.LostWorkGPUHours * 3600 * computeW / 3.6e6
		rec := min(reconfKWh, f.Summary.RecoveryGPUHours*3600*reconfW/3.6e6)
		e.FailureKWh = lost + rec
		reconfKWh -= rec
	}
	e.ReconfigKWh = reconfKWh
	rep := &Report{}
	tenants := map[string]*sim.EnergyTenant{}
	var names []string
	for _, id := range a.order {
		j := a.byJob[id]
		e.GPUCostUSD += j.CostUSD
		rep.Jobs = append(rep.Jobs, *j)
		if j.Tenant == "" {
			continue
		}
		t := tenants[j.Tenant]
		if t == nil {
			t = &sim.EnergyTenant{Name: j.Tenant}
			tenants[j.Tenant] = t
			names = append(names, j.Tenant)
		}
		t.KWh += j.KWh
		t.KgCO2 += j.KgCO2
		t.CostUSD += j.CostUSD
	}
	slices.Sort(names)
	for _, n := range names {
		e.Tenants = append(e.Tenants, *tenants[n])
	}
	sort.Slice(rep.Jobs, func(i, k int) bool { return rep.Jobs[i].ID < rep.Jobs[k].ID })
	// The power distribution over GPU-time.
	for w, s := range a.levels {
		if s > 1e-9 {
			rep.Power = append(rep.Power, Level{w, s})
		}
	}
	sort.Slice(rep.Power, func(i, k int) bool { return rep.Power[i].Watts < rep.Power[k].Watts })
	var total float64 // summed in watts order: the same bytes every run
	for _, l := range rep.Power {
		total += l.GPUSeconds
	}
	if total > 0 {
		e.MeanGPUWatts = a.gpuJ / total
		e.P25GPUWatts = WeightedQuantile(rep.Power, 0.25)
		e.P50GPUWatts = WeightedQuantile(rep.Power, 0.50)
		e.P75GPUWatts = WeightedQuantile(rep.Power, 0.75)
		e.NearTDPShare = a.nearSec / total
	}
	rep.Energy = *e
	return rep
}

// NearTDP is the share of its type's TDP at or above which a GPU's power
// counts as near its TDP (near_tdp_share).
const NearTDP = 0.9

// WeightedQuantile is the q-quantile of levels (sorted by watts) weighted
// by their GPU-seconds: the smallest level whose cumulative weight reaches
// q of the total.
func WeightedQuantile(levels []Level, q float64) float64 {
	var total float64
	for _, l := range levels {
		total += l.GPUSeconds
	}
	var cum float64
	for _, l := range levels {
		cum += l.GPUSeconds
		if cum >= q*total {
			return l.Watts
		}
	}
	if len(levels) == 0 {
		return 0
	}
	return levels[len(levels)-1].Watts
}
