package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/arena-sim/arena/estimator"
)

// Contention between jobs on shared links (docs/topology.md).
//
// A running job whose GPUs span more than one fast domain sends its
// cross-node collectives over the scale-out network. On each switch tier
// where its GPUs lie in several groups it crosses those groups' uplinks;
// on the uplink of a group where it holds g GPUs it offers d = g × the
// per-GPU network bandwidth (every GPU's NIC sends: one flow per GPU).
// An uplink of capacity c carrying total offered load D > c gives every
// flow the same share, c/D of what it offers (per-flow fairness, the
// equilibrium of the fabric's per-flow congestion control; so a job's
// share is proportional to its GPUs there). A job communicates at the rate
// of its most congested link, r = min(1, min_l c_l/D_l), and its
// iteration time is
//
//	T = T₀·(1 − f) + T₀·f·κ / r
//
// where T₀ is the estimator's iteration time, f the share of it spent in
// cross-node collectives (Config.NetworkShare, from the analytic model's
// breakdown of the best plan), and κ the estimator's per-GPU inter-node
// bandwidth over the tier's (the fast domain's for a job inside one
// multi-node domain, the network's otherwise). The job's rate alone on
// the fabric, r₀ = min(1, min_l c_l/d_l), gives its time alone T_alone;
// its contention slowdown is T / T_alone ≥ 1 (1 when nobody shares its
// links; a job inside one fast domain never slows).
//
// The rule is local: bandwidth a job cannot use on one link because it is
// held back on another is not handed to the others (max-min's water
// filling would), so a change touches exactly the jobs on the links whose
// set of jobs changed, and the jobs among them are re-timed at once (their
// progress integrated to now, their completion rescheduled).
type netState struct {
	m     *netMap
	share func(estimator.Workload, estimator.Config) float64
	links []netLink
	// tierInt[k]: ∫ bandwidth used on tier k's uplinks dt, GB.
	tierInt []float64
	// A finished job's jobNet is retired (netRetire, contention_retire.go): the summary keeps
	// only its two integrals (retired, in completion order), and the
	// jobNet, its slices' capacity kept, waits in free for the next job
	// to attach. The jobNets alive are then about the jobs running at
	// once, not every job that ever ran (160 bytes a job: 156 MB at 1M).
	// made counts the jobNets allocated (TestFinishedJobsGiveBackNet).
	retired []retiredNet
	free    []*jobNet
	made    int
	// scratch: jobs to re-time in one update.
	affected []JobID
	mark     []uint32
	gen      uint32
	// slowdowns of jobs that left the network, for the summary.
	changes int
	// retimed counts jobs re-timed by an update (their rate changed).
	retimed int
	// at[l] is link l's index in the links of the job being attached,
	// valid while atGen[l] == gen (netAttach's scratch: no search).
	at    []int32
	atGen []uint32
	// work counts the steps of updates: each link of a job visited, each
	// job listed on a link scanned, each slot of the attached job read.
	// An update's count depends on the jobs on the links it changes and
	// on their links, never on the cluster's size (TestContentionWork).
	work int
	// probe, when set (tests), is called after each update with the job
	// that joined or left and the update's steps.
	probe func(j JobID, steps int)
	// xNodes, xGroups: netAttach's scratch for the crossing of the
	// job's slots (Cluster.crossing).
	xNodes, xGroups []int
	// perType[t]: GPU type t's bandwidth figures (Cluster.Types index),
	// set once asked.
	perType []typeNet
	// general (tests): every attachment takes the general path, not the
	// one-node shortcut (TestOneNodeAttachIsTheGeneralPath).
	general bool
}

// typeNet is what netAttach reads of a GPU type, looked up once per run
// instead of per attachment: the per-GPU network bandwidth and κ inside a
// fast domain and across the network.
type typeNet struct {
	set                    bool
	bw, kappaDom, kappaNet float64
}

type netLink struct {
	demand float64 // Σ offered load of its jobs, GB/s
	used   float64 // Σ average bandwidth its jobs use, GB/s
	since  Time    // used holds since
	jobs   []JobID
}

// jobNet is one job's place in the network under its current allocation.
type jobNet struct {
	links  []int32
	demand []float64 // offered load on each link, GB/s
	used   []float64 // its share of each link's used
	base   float64   // T₀
	frac   float64   // f
	// fracOf is share's answer for the job's config, clamped, when
	// fracSet (the share is a function of the job's workload, fixed, and
	// the config: setAlloc clears fracSet when the config changes, so a
	// move that keeps the shape does not ask again).
	fracOf  float64
	fracSet bool
	kappa   float64 // κ
	rate    float64 // r
	alone   float64 // r₀
	// crosses: the job spans fast domains (its time depends on the network).
	crosses bool
	on      bool // attached to links
	// ∫ slowdown dt and ∫ dt over the time it held a crossing allocation.
	slowInt, heldInt float64
	since            Time
	ever             bool
}

func (n *jobNet) iterTime() float64 {
	return n.base*(1-n.frac) + n.base*n.frac*n.kappa/n.rate
}

func (n *jobNet) aloneTime() float64 {
	return n.base*(1-n.frac) + n.base*n.frac*n.kappa/n.alone
}

// slowdown is the job's current contention slowdown T / T_alone.
func (n *jobNet) slowdown() float64 {
	if !n.crosses || n.base <= 0 {
		return 1
	}
	return n.iterTime() / n.aloneTime()
}

func newNetState(cfg *Config, jobs int) *netState {
	m := cfg.Cluster.net
	return &netState{m: m, share: cfg.NetworkShare, links: make([]netLink, len(m.capacity)),
		tierInt: make([]float64, len(m.topo.Tiers)), mark: make([]uint32, jobs),
		at: make([]int32, len(m.capacity)), atGen: make([]uint32, len(m.capacity))}
}

// netAttach places j's traffic on the network for its new allocation
// (j.GPUs, j.Config; est its estimator time) and returns its iteration
// time there. Every other job whose links j joins is re-timed.
func (e *engine) netAttach(j *Job, base float64) float64 {
	ns := e.net
	n := j.net
	if n == nil {
		if k := len(ns.free) - 1; k >= 0 {
			n, ns.free = ns.free[k], ns.free[:k]
		} else {
			n = &jobNet{}
			ns.made++
		}
		j.net = n
	}
	j.netLocal = false
	if j.Config.Nodes <= 1 && !n.on && !ns.general {
		// On one node (j.Config is the shape of j.GPUs), on no link before
		// and none after: what the general path below does then, without
		// reading where the slots lie (most of a re-placing policy's moves).
		e.netBegin()
		w0 := ns.work
		e.netAccount(n)
		ns.work += len(j.GPUs)
		n.links, n.demand, n.used = n.links[:0], n.demand[:0], n.used[:0]
		n.base, n.frac, n.kappa, n.rate, n.alone, n.crosses = base, 0, 1, 1, 1, false
		j.netLocal = true
		e.netProbe(j.id, w0)
		return base
	}
	e.netBegin()
	w0 := ns.work
	e.netOff(j)
	c := e.cfg.Cluster
	m := ns.m
	var x Crossing
	x, ns.xNodes = c.crossing(j.GPUs, ns.xNodes[:0], ns.xGroups[:0])
	ns.xGroups = x.Groups
	ns.work += len(j.GPUs)
	n.links, n.demand, n.used = n.links[:0], n.demand[:0], n.used[:0]
	n.base, n.frac, n.kappa, n.rate, n.alone = base, 0, 1, 1, 1
	n.crosses = x.Domains > 1
	if x.Nodes <= 1 || base <= 0 || math.IsInf(base, 0) {
		n.crosses = false
		// The state the shortcut above leaves.
		j.netLocal = true
		e.netRetime() // the jobs on the links it left
		e.netProbe(j.id, w0)
		return base
	}
	tn := e.typeNet(j)
	if ns.share != nil {
		if !n.fracSet {
			n.fracOf, n.fracSet = min(max(ns.share(j.Spec.Workload, j.Config), 0), 1), true
		}
		n.frac = n.fracOf
	}
	if !n.crosses {
		// Inside one multi-node fast domain: NVLink, no network.
		n.kappa = tn.kappaDom
		e.netRetime() // the jobs on the links it left
		e.netProbe(j.id, w0)
		return n.iterTime()
	}
	n.kappa = tn.kappaNet
	// GPUs per tier group: the job's links in the order its slots first
	// reach them, found through ns.at (marked with this update's gen).
	bw := tn.bw
	for k := range m.topo.Tiers {
		if x.Groups[k] <= 1 {
			continue
		}
		ns.work += len(j.GPUs)
		last, li := int32(-1), 0
		for _, s := range j.GPUs {
			l := int32(m.linkBase[k]) + m.group[k][c.NodeOf(s)]
			if l != last {
				if ns.atGen[l] == ns.gen {
					li = int(ns.at[l])
				} else {
					ns.atGen[l], ns.at[l] = ns.gen, int32(len(n.links))
					li = len(n.links)
					n.links = append(n.links, l)
					n.demand = append(n.demand, 0)
					n.used = append(n.used, 0)
				}
				last = l
			}
			n.demand[li] += bw
		}
	}
	for i, l := range n.links {
		n.alone = min(n.alone, m.capacity[l]/n.demand[i])
	}
	n.on, n.ever, n.since = true, true, e.now
	ns.changes++
	for i, l := range n.links {
		lk := &ns.links[l]
		lk.demand += n.demand[i]
		lk.jobs = append(lk.jobs, j.id)
		e.netAffect(lk, j.id)
	}
	n.rate = e.netRate(n)
	e.netUse(j.id, n)
	e.netRetime()
	e.netProbe(j.id, w0)
	return n.iterTime()
}

// typeNet is the bandwidth figures of j's GPU type (j.Config.GPU, whose
// Cluster.Types index setAlloc keeps in j.typ), computed on first use.
func (e *engine) typeNet(j *Job) *typeNet {
	ns := e.net
	gpu := j.Config.GPU
	compute := func(t *typeNet) {
		g, _ := estimator.LookupGPU(gpu)
		t.set, t.bw = true, ns.m.netGBs[gpu]
		t.kappaDom, t.kappaNet = g.InterNodeGBs/ns.m.domGBs[gpu], g.InterNodeGBs/ns.m.netGBs[gpu]
	}
	k := int(j.typ)
	if k < 0 || k >= len(e.cfg.Cluster.Types) || e.cfg.Cluster.Types[k] != gpu {
		var t typeNet // not a type of the cluster's list: asked each time
		compute(&t)
		return &t
	}
	if len(ns.perType) != len(e.cfg.Cluster.Types) {
		ns.perType = make([]typeNet, len(e.cfg.Cluster.Types))
	}
	t := &ns.perType[k]
	if !t.set {
		compute(t)
	}
	return t
}

// netDetach takes j off its links (it ended, was suspended or
// interrupted) and re-times the jobs left on them.
func (e *engine) netDetach(j *Job) {
	if j.net == nil {
		return
	}
	j.netLocal = false
	e.netBegin()
	w0 := e.net.work
	e.netOff(j)
	e.netRetime()
	e.netProbe(j.Spec.ID, w0)
}

// netProbe reports an update's steps (since w0) to the test probe.
func (e *engine) netProbe(id JobID, w0 int) {
	if p := e.net.probe; p != nil {
		p(id, e.net.work-w0)
	}
}

// netBegin starts an update: no job marked for re-timing yet.
func (e *engine) netBegin() {
	e.net.gen++
	if e.net.gen == 0 { // wrapped: forget every old mark
		clear(e.net.mark)
		clear(e.net.atGen)
		e.net.gen = 1
	}
	e.net.affected = e.net.affected[:0]
}

// netOff takes j off its links, marking the jobs left on them.
func (e *engine) netOff(j *Job) {
	ns := e.net
	n := j.net
	e.netAccount(n)
	n.crosses = false
	if !n.on {
		return
	}
	n.on = false
	ns.changes++
	ns.work += len(n.links)
	for i, l := range n.links {
		lk := &ns.links[l]
		e.netFlush(l)
		lk.used -= n.used[i]
		n.used[i] = 0
		lk.demand -= n.demand[i]
		ns.work += len(lk.jobs) // the search and the shift below
		if k := slices.Index(lk.jobs, j.id); k >= 0 {
			lk.jobs = slices.Delete(lk.jobs, k, k+1)
		}
		if len(lk.jobs) == 0 {
			lk.demand, lk.used = 0, 0 // no drift from float sums
		}
		e.netAffect(lk, j.id)
	}
}

// netAffect marks the jobs on lk other than self for re-timing.
func (e *engine) netAffect(lk *netLink, self JobID) {
	ns := e.net
	ns.work += len(lk.jobs)
	for _, id := range lk.jobs {
		if id != self && ns.mark[id] != ns.gen {
			ns.mark[id] = ns.gen
			ns.affected = append(ns.affected, id)
		}
	}
}

// netRate is a job's rate under the current loads.
func (e *engine) netRate(n *jobNet) float64 {
	r := 1.0
	e.net.work += len(n.links)
	for _, l := range n.links {
		if d := e.net.links[l].demand; d > e.net.m.capacity[l] {
			r = min(r, e.net.m.capacity[l]/d)
		}
	}
	return r
}

// netRetime gives every affected job its new rate: progress integrated to
// now at the old time, then the new time and completion.
func (e *engine) netRetime() {
	ns := e.net
	for _, id := range ns.affected {
		k := e.jobs[id]
		n := k.net
		r := e.netRate(n)
		if r == n.rate {
			continue
		}
		ns.retimed++
		e.advance(k, e.now)
		e.netAccount(n)
		n.rate = r
		e.netUse(id, n)
		k.iterTime = n.iterTime()
		if k.Status == Running {
			e.scheduleCompletion(k)
		}
	}
}

// netUse sets the job's average bandwidth on each of its links: its rate
// times its offered load, for the share of its time it communicates.
func (e *engine) netUse(id JobID, n *jobNet) {
	ns := e.net
	T := n.iterTime()
	phi := 0.0
	if T > 0 {
		phi = n.base * n.frac * n.kappa / n.rate / T
	}
	ns.work += len(n.links)
	for i, l := range n.links {
		e.netFlush(l)
		u := phi * n.rate * n.demand[i]
		ns.links[l].used += u - n.used[i]
		n.used[i] = u
	}
}

// netFlush adds link l's usage since its last change to its tier's total.
func (e *engine) netFlush(l int32) {
	ns := e.net
	lk := &ns.links[l]
	if e.now > lk.since {
		ns.tierInt[ns.m.tierOf[l]] += lk.used * float64(e.now-lk.since)
	}
	lk.since = e.now
}

// netAccount adds the job's slowdown since its last change.
func (e *engine) netAccount(n *jobNet) {
	if n.crosses && e.now > n.since {
		dt := float64(e.now - n.since)
		n.slowInt += dt * n.slowdown()
		n.heldInt += dt
	}
	n.since = e.now
}

// NetworkSummary is the summary's network section (runs on a cluster
// with a topology, exact timing).
type NetworkSummary struct {
	// JobsCrossing counts jobs that ran across fast domains at some time.
	JobsCrossing int `json:"jobs_crossing"`
	// JobsSlowed counts those whose mean contention slowdown is over 1.
	JobsSlowed int `json:"jobs_slowed"`
	// Mean, P99 and Max of the jobs' time-weighted mean contention
	// slowdown (iteration time over the time alone on the fabric), over
	// JobsCrossing; 1 when none.
	MeanSlowdown float64 `json:"mean_contention_slowdown"`
	P99Slowdown  float64 `json:"p99_contention_slowdown"`
	MaxSlowdown  float64 `json:"max_contention_slowdown"`
	// Tiers: each switch tier's mean uplink utilisation over the window;
	// the first three tiers' also apart (the metric catalogue's rows).
	Tiers            []TierUse `json:"tiers"`
	Tier1Utilisation *float64  `json:"tier1_utilisation,omitempty"`
	Tier2Utilisation *float64  `json:"tier2_utilisation,omitempty"`
	Tier3Utilisation *float64  `json:"tier3_utilisation,omitempty"`
	// Updates counts contention updates (a job joining or leaving links).
	Updates int `json:"updates"`
	// Retimed counts the running jobs those updates re-timed (their rate
	// changed); not written to results (BenchmarkScalingTopology reports it).
	Retimed int `json:"-"`
	// Jobs are the per-job figures (network.parquet; not in summary.json).
	Jobs []JobNetRecord `json:"-"`
}

// JobNetRecord is one job's contention figures (network.parquet, a row per
// job that ran across fast domains, in trace order).
type JobNetRecord struct {
	Job int32 `parquet:"job_id"`
	// Slowdown is the job's contention slowdown, time-weighted over the
	// time it held an allocation across fast domains (AcrossS seconds).
	Slowdown float64 `parquet:"contention_slowdown"`
	AcrossS  float64 `parquet:"across_domains_s"`
}

// TierUse is one tier's mean uplink utilisation: bandwidth used over the
// window ÷ (its uplinks' capacity × the window).
type TierUse struct {
	Tier        string  `json:"tier"`
	Uplinks     int     `json:"uplinks"`
	Utilisation float64 `json:"utilisation"`
}

// netSummary closes the accounting at the end of the run.
func (e *engine) netSummary(start Time) *NetworkSummary {
	ns := e.net
	s := &NetworkSummary{Updates: ns.changes, Retimed: ns.retimed, MeanSlowdown: 1, P99Slowdown: 1, MaxSlowdown: 1}
	var per []float64
	// The retired jobs' figures in job order, met as the walk passes them.
	slices.SortFunc(ns.retired, func(a, b retiredNet) int { return cmp.Compare(a.id, b.id) })
	next := 0
	for _, j := range e.jobs {
		n := j.net
		var slowInt, heldInt float64
		switch {
		case n == nil && next < len(ns.retired) && ns.retired[next].id == j.Spec.ID:
			slowInt, heldInt = ns.retired[next].slowInt, ns.retired[next].heldInt
			next++
		case n == nil || !n.ever:
			continue
		default:
			e.netAccount(n)
			slowInt, heldInt = n.slowInt, n.heldInt
		}
		if heldInt <= 0 {
			continue
		}
		v := slowInt / heldInt
		per = append(per, v)
		s.Jobs = append(s.Jobs, JobNetRecord{Job: int32(j.Spec.ID), Slowdown: v, AcrossS: heldInt})
		if v > 1+1e-9 {
			s.JobsSlowed++
		}
	}
	s.JobsCrossing = len(per)
	if len(per) > 0 {
		sum := 0.0
		for _, v := range per {
			sum += v
		}
		slices.Sort(per)
		s.MeanSlowdown = sum / float64(len(per))
		s.P99Slowdown = per[int(math.Ceil(0.99*float64(len(per))))-1]
		s.MaxSlowdown = per[len(per)-1]
	}
	for l := range ns.links {
		e.netFlush(int32(l))
	}
	span := float64(e.now - start)
	m := ns.m
	for k, t := range m.topo.Tiers {
		c := 0.0
		n := e.cfg.Cluster.TierLinks(k)
		for l := m.linkBase[k]; l < m.linkBase[k]+n; l++ {
			c += m.capacity[l]
		}
		u := 0.0
		if c > 0 && span > 0 {
			u = ns.tierInt[k] / (c * span)
		}
		s.Tiers = append(s.Tiers, TierUse{Tier: t.Name, Uplinks: n, Utilisation: u})
		switch k {
		case 0:
			s.Tier1Utilisation = &u
		case 1:
			s.Tier2Utilisation = &u
		case 2:
			s.Tier3Utilisation = &u
		}
	}
	return s
}

// ContentionSlowdown is the job's current contention slowdown: its
// iteration time over its time alone on the fabric (1 when it runs inside
// one fast domain, shares no link, or the cluster has no topology). Policies
// read it in their View.
func (v *View) ContentionSlowdown(j *Job) float64 {
	if j.net == nil || !j.net.on {
		return 1
	}
	return j.net.slowdown()
}

// checkNetwork (Check mode) asserts the contention model's state agrees
// with the running jobs: every running job across fast domains is on its
// links and no other job is, each link's offered load is the sum of its
// jobs', and every job runs at the rate and iteration time its links give.
func (e *engine) checkNetwork() error {
	ns := e.net
	sum := make([]float64, len(ns.links))
	for _, j := range e.runq.jobs {
		n := j.net
		if n == nil || !n.on {
			if n != nil && n.crosses {
				return e.invariantf("job %s crosses fast domains but is on no link", j.Spec.Alias())
			}
			continue
		}
		for i, l := range n.links {
			sum[l] += n.demand[i]
			if !slices.Contains(ns.links[l].jobs, j.Spec.ID) {
				return e.invariantf("job %s: link %d does not list it", j.Spec.Alias(), l)
			}
		}
	}
	for l := range ns.links {
		lk := &ns.links[l]
		if math.Abs(lk.demand-sum[l]) > 1e-6*(1+sum[l]) {
			return e.invariantf("link %d: offered load %v, its jobs offer %v", l, lk.demand, sum[l])
		}
		for _, id := range lk.jobs {
			if j := e.jobs[id]; j.Status != Running || j.net == nil || !j.net.on {
				return e.invariantf("link %d lists job %s, which is %s and not on the network", l, j.Spec.Alias(), j.Status)
			}
		}
	}
	for _, j := range e.runq.jobs {
		if n := j.net; n != nil && n.on {
			if r := e.netRate(n); r != n.rate {
				return e.invariantf("job %s runs at rate %v, its links give %v", j.Spec.Alias(), n.rate, r)
			}
			if j.iterTime != n.iterTime() {
				return e.invariantf("job %s: iteration time %v, its rate gives %v", j.Spec.Alias(), j.iterTime, n.iterTime())
			}
			// The memoized figures are the ones asked afresh.
			if ns.share != nil && n.frac != min(max(ns.share(j.Spec.Workload, j.Config), 0), 1) {
				return e.invariantf("job %s on %v: network share %v, its config's is %v", j.Spec.Alias(), j.Config, n.frac, ns.share(j.Spec.Workload, j.Config))
			}
			if g, _ := estimator.LookupGPU(j.Config.GPU); n.crosses && n.kappa != g.InterNodeGBs/ns.m.netGBs[j.Config.GPU] {
				return e.invariantf("job %s on %v: κ %v, its type's is %v", j.Spec.Alias(), j.Config, n.kappa, g.InterNodeGBs/ns.m.netGBs[j.Config.GPU])
			}
		}
	}
	return nil
}
