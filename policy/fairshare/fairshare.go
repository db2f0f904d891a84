package fairshare

import (
	"cmp"
	"math"
	"slices"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// Mode chooses the policy.
type Mode int

const (
	// MaxMin is gavel-fair.
	MaxMin Mode = iota
	// FTF is ftf.
	FTF
)

// Policy is either fairness baseline. Create it with New.
type Policy struct {
	mode  Mode
	est   estimator.Estimator
	ten   *tenants.File
	lease sim.Duration

	startedAt map[sim.JobID]sim.Time // current run's start, for the lease
	service   map[sim.JobID]float64  // GPU-seconds attained (LAS)
	lastNow   sim.Time
	// static per job (depends on its spec and the cluster only)
	feas map[sim.JobID]feasible
}

type feasible struct {
	types    []int
	speedup  float64
	iterTime float64 // on the request at best locality; 0 if infeasible
}

// New returns the policy deciding with est; ten may be nil (tenants are
// then the jobs' VCs, weight 1).
func New(mode Mode, est estimator.Estimator, ten *tenants.File, lease sim.Duration) *Policy {
	return &Policy{mode: mode, est: est, ten: ten, lease: lease, startedAt: map[sim.JobID]sim.Time{}, service: map[sim.JobID]float64{}, feas: map[sim.JobID]feasible{}}
}

// Name implements sim.Policy.
func (p *Policy) Name() string {
	if p.mode == FTF {
		return "ftf"
	}
	return "gavel-fair"
}

// cand is an active job as one decision sees it.
type cand struct {
	j       *sim.Job
	t       int     // tenant index
	running bool    // running now
	locked  bool    // within its lease: must keep running
	key     float64 // order within the decision (lower first)
	types   []int   // feasible GPU types (Cluster.Types index), fastest first
	speedup float64 // fastest / slowest feasible throughput
	want    int     // GPU type chosen (−1 none)
}

// Schedule implements sim.Policy.
func (p *Policy) Schedule(v *sim.View) ([]sim.Action, error) {
	dt := float64(v.Now - p.lastNow)
	p.lastNow = v.Now
	for _, j := range v.Running {
		p.service[j.Spec.ID] += dt * float64(len(j.GPUs))
	}
	for _, j := range v.Ended {
		delete(p.service, j.Spec.ID)
		delete(p.startedAt, j.Spec.ID)
		delete(p.feas, j.Spec.ID)
	}
	cs, acts := p.candidates(v)
	if len(cs) == 0 {
		return acts, nil
	}
	var chosen []*cand
	if p.mode == FTF {
		chosen = p.chooseFTF(v, cs)
	} else {
		chosen = p.chooseMaxMin(v, cs)
	}
	return p.placeChosen(v, cs, chosen, acts), nil
}

// candidates returns a candidate for every running, pending and arriving
// job (in that order), each with its tenant, its feasible GPU types and
// (running) whether its lease still holds it, and a Drop for every
// waiting job feasible on no GPU type. Separate because it is what the two
// modes' choices share.
func (p *Policy) candidates(v *sim.View) (cs []*cand, acts []sim.Action) {
	c := v.Cluster
	tenantIdx := map[string]int{}
	tenant := func(vc string) int {
		if p.ten != nil {
			return p.ten.Index(vc)
		}
		i, ok := tenantIdx[vc]
		if !ok {
			i = len(tenantIdx)
			tenantIdx[vc] = i
		}
		return i
	}
	add := func(j *sim.Job, running bool) {
		x := &cand{j: j, t: tenant(j.Spec.VirtualCluster), running: running, want: -1}
		if running {
			x.types = []int{c.TypeIndex(j.Config.GPU)}
			x.locked = v.Now < p.startedAt[j.Spec.ID]+sim.Time(p.lease)
		} else {
			f := p.static(c, j)
			x.types, x.speedup = f.types, f.speedup
			if len(x.types) == 0 {
				acts = append(acts, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "infeasible on its request count on every GPU type"})
				delete(p.feas, j.Spec.ID)
				return
			}
		}
		cs = append(cs, x)
	}
	for _, j := range v.Running {
		add(j, true)
	}
	for _, q := range [][]*sim.Job{v.Pending, v.Arrivals} {
		for _, j := range q {
			add(j, false)
		}
	}
	return cs, acts
}

// placeChosen turns the chosen candidates into actions, appended to acts:
// running jobs not chosen are suspended; chosen running jobs keep their
// GPU type; the other chosen jobs (in MaxMin by decreasing speedup) each
// start on the fastest of their types with room, if a grid fits. Separate
// because it is the placement, shared by the two modes' choices.
func (p *Policy) placeChosen(v *sim.View, cs, chosen []*cand, acts []sim.Action) []sim.Action {
	c := v.Cluster
	// Types: running jobs keep theirs; the others by decreasing speedup,
	// each the fastest type with room.
	room := make([]int, len(c.Types))
	for k, g := range c.Types {
		room[k] = v.UsableGPUs(g) // without faults, TotalGPUs
	}
	keep := map[sim.JobID]bool{}
	for _, x := range chosen {
		if x.running {
			x.want = x.types[0]
			room[x.want] -= len(x.j.GPUs)
			keep[x.j.Spec.ID] = true
		}
	}
	newbies := slices.DeleteFunc(slices.Clone(chosen), func(x *cand) bool { return x.running })
	if p.mode == MaxMin {
		slices.SortStableFunc(newbies, func(a, b *cand) int { return cmp.Compare(b.speedup, a.speedup) })
	}
	for _, x := range running(cs) {
		if !keep[x.j.Spec.ID] {
			acts = append(acts, sim.Action{Kind: sim.Suspend, Job: x.j.Spec.ID, Reason: p.Name() + ": over its fair share"})
			delete(p.startedAt, x.j.Spec.ID)
		}
	}
	table := placement.FromView(v)
	for _, a := range acts {
		if a.Kind == sim.Suspend {
			table.Clear(a.Job)
		}
	}
	for _, x := range newbies {
		for _, k := range x.types {
			if room[k] < x.j.Spec.GPUs {
				continue
			}
			grid := placement.Best(c, c.Types[k], x.j.Spec.GPUs)
			slots, ok := table.PlaceMostFree(x.j.Spec.ID, grid)
			if !ok {
				continue
			}
			room[k] -= x.j.Spec.GPUs
			acts = append(acts, sim.Action{Kind: sim.Start, Job: x.j.Spec.ID, GPUs: slots})
			p.startedAt[x.j.Spec.ID] = v.Now
			break
		}
	}
	return acts
}

func running(cs []*cand) []*cand {
	var out []*cand
	for _, x := range cs {
		if x.running {
			out = append(out, x)
		}
	}
	return out
}

// static returns the job's feasible types and iteration time, computed once.
func (p *Policy) static(c *sim.Cluster, j *sim.Job) feasible {
	if f, ok := p.feas[j.Spec.ID]; ok {
		return f
	}
	var f feasible
	f.types, f.speedup = p.feasibleTypes(c, j)
	if e := p.est.Estimate(j.Spec.Workload, placement.Best(c, j.Spec.GPU, j.Spec.GPUs)); e.Feasible() {
		f.iterTime = e.IterTime
	}
	p.feas[j.Spec.ID] = f
	return f
}

// feasibleTypes lists the types a pending job can run on at its requested
// count (best locality), fastest first, and the fastest-over-slowest
// throughput ratio. ftf keeps the requested type only.
func (p *Policy) feasibleTypes(c *sim.Cluster, j *sim.Job) ([]int, float64) {
	type opt struct {
		k  int
		tp float64
	}
	var opts []opt
	for k, g := range c.Types {
		if p.mode == FTF && g != j.Spec.GPU {
			continue
		}
		if c.TotalGPUs(g) < j.Spec.GPUs {
			continue
		}
		grid := placement.Best(c, g, j.Spec.GPUs)
		if grid.Nodes == 0 {
			continue
		}
		if e := p.est.Estimate(j.Spec.Workload, grid); e.Feasible() {
			opts = append(opts, opt{k, e.Throughput})
		}
	}
	slices.SortStableFunc(opts, func(a, b opt) int { return cmp.Compare(b.tp, a.tp) })
	ks := make([]int, len(opts))
	for i, o := range opts {
		ks[i] = o.k
	}
	if len(opts) == 0 {
		return nil, 0
	}
	return ks, opts[0].tp / opts[len(opts)-1].tp
}

// gpusOf is what a candidate holds or asks for.
func gpusOf(x *cand) int {
	if x.running {
		return len(x.j.GPUs)
	}
	return x.j.Spec.GPUs
}

// chooseMaxMin picks the jobs to run: tenants' shares by weighted
// water-filling, then within each tenant least attained service first.
func (p *Policy) chooseMaxMin(v *sim.View, cs []*cand) []*cand {
	total := 0
	for _, g := range v.Cluster.Types {
		total += v.Cluster.TotalGPUs(g)
	}
	T := 0
	for _, x := range cs {
		T = max(T, x.t+1)
	}
	demand := make([]float64, T)
	weight := make([]float64, T)
	for t := range weight {
		weight[t] = 1
		if p.ten != nil {
			weight[t] = p.ten.Tenant(t).Weight
		}
	}
	for _, x := range cs {
		demand[x.t] += float64(gpusOf(x))
	}
	share := WaterFill(float64(total), demand, weight)
	for _, x := range cs {
		x.key = p.service[x.j.Spec.ID]
		if x.locked {
			x.key = math.Inf(-1)
		}
	}
	slices.SortStableFunc(cs, func(a, b *cand) int { return cmp.Compare(a.key, b.key) })
	used := make([]float64, T)
	taken := map[*cand]bool{}
	var out []*cand
	left := total
	for _, x := range cs { // locked jobs and each tenant's jobs within its share
		n := gpusOf(x)
		if n <= left && (x.locked || used[x.t]+float64(n) <= share[x.t]+1e-9) {
			used[x.t] += float64(n)
			left -= n
			taken[x] = true
			out = append(out, x)
		}
	}
	// Rounding leftovers: the tenant with the least allocation per weight
	// first, its least-served job that fits.
	for left > 0 {
		var best *cand
		for _, x := range cs {
			if taken[x] || gpusOf(x) > left {
				continue
			}
			if best == nil || used[x.t]/weight[x.t] < used[best.t]/weight[best.t] {
				best = x
			}
		}
		if best == nil {
			break
		}
		taken[best] = true
		used[best.t] += float64(gpusOf(best))
		left -= gpusOf(best)
		out = append(out, best)
	}
	return out
}

// WaterFill is the weighted max-min fair division of capacity among
// demands: each gets min(demand, λ·weight) with λ the largest level whose
// total is within capacity (progressive filling).
func WaterFill(capacity float64, demand, weight []float64) []float64 {
	share := make([]float64, len(demand))
	active := make([]bool, len(demand))
	n := 0
	for i, d := range demand {
		if d > 0 {
			active[i] = true
			n++
		}
	}
	left := capacity
	for n > 0 && left > 1e-12 {
		wsum := 0.0
		for i, a := range active {
			if a {
				wsum += weight[i]
			}
		}
		level := left / wsum // GPUs per unit of weight this pass
		// The tenants whose remaining demand is below the level are filled.
		filled := false
		for i, a := range active {
			if a && demand[i]-share[i] <= level*weight[i] {
				left -= demand[i] - share[i]
				share[i] = demand[i]
				active[i] = false
				n--
				filled = true
			}
		}
		if !filled {
			for i, a := range active {
				if a {
					share[i] += level * weight[i]
				}
			}
			left = 0
		}
	}
	return share
}

// chooseFTF picks the jobs to run in decreasing estimated ρ.
func (p *Policy) chooseFTF(v *sim.View, cs []*cand) []*cand {
	n := float64(len(cs))
	for _, x := range cs {
		j := x.j
		it := p.static(v.Cluster, j).iterTime
		rho := 0.0
		if it > 0 && j.Iterations > 0 {
			alone := float64(j.Iterations) * it
			ideal := alone * max(1, float64(j.Spec.GPUs)*n/float64(max(1, v.Cluster.TotalGPUs(j.Spec.GPU))))
			rho = (float64(v.Now-j.SubmitTime) + float64(j.Remaining)*it) / ideal
		}
		x.key = -rho
		if x.locked {
			x.key = math.Inf(-1)
		}
	}
	slices.SortStableFunc(cs, func(a, b *cand) int { return cmp.Compare(a.key, b.key) })
	room := map[string]int{}
	for _, g := range v.Cluster.Types {
		room[g] = v.UsableGPUs(g) // without faults, TotalGPUs
	}
	var out []*cand
	for _, x := range cs {
		g := x.j.Spec.GPU
		if x.running {
			g = x.j.Config.GPU
		}
		if n := gpusOf(x); n <= room[g] {
			room[g] -= n
			out = append(out, x)
		}
	}
	return out
}
