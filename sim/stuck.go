package sim

import (
	"math"

	"github.com/arena-sim/arena/estimator"
)

// What the engine keeps so the summary can charge unfinished jobs and tell
// stuck work (docs/statistics.md, "The charge of an unfinished job"):
//
//   - each job's class: its workload and request, and whether the cluster
//     could have run a job of the class after a decision (watch);
//   - a workload's best iteration time over every grid the cluster offers
//     (bestIterTime), the rate its remaining work is charged at.
//
// Apart from the stop rule and the loops: the loops call watch once per
// round after the decision, arrive and commitBatch keep the counts.

// stuckWatch tracks, per class of job (workload, requested GPU type and
// count), the jobs pending that never started and the last decision after
// which idle GPUs could have held one of the class.
type stuckWatch struct {
	classOf map[classKey]int32
	// class[id] is job id's class (set on arrival).
	class   []int32
	classes []stuckClass
	// waiting is the jobs pending and never started, over all classes.
	waiting int
	// hist[t][p] is the available nodes of Cluster.Types[t] with at least
	// p idle GPUs, after the current decision (watch's scratch), as of the
	// slot table's generation histGen (engine.occGen): a round that
	// changed no slot reuses it. nodeType[i] is node i's type index.
	hist     [][]int32
	histGen  uint64
	nodeType []int32
	// nodeFree[i] is node i's idle GPUs as counted into hist; dirty lists
	// the nodes whose slots were written since (engine.touch; dirtyAll:
	// too many, count every node), marked[i] whether node i is listed.
	nodeFree []int32
	dirty    []int32
	marked   []bool
	dirtyAll bool
}

type classKey struct {
	w    estimator.Workload
	gpu  string
	gpus int
}

type stuckClass struct {
	key classKey
	// waiting: jobs of the class pending and never started.
	waiting int32
	// lastFit is the last decision after which idle GPUs could hold a
	// grid of the class (fits); −Inf never.
	lastFit Time
	// fits are the grids watch looks for, nil until first needed
	// (fitsOf): a grid fits when enough nodes have that many idle GPUs.
	fits  []grid
	ready bool
}

// grid is n nodes × p GPUs of Cluster.Types[t].
type grid struct{ t, n, p int32 }

// eachGrid calls f with every power-of-two grid cluster c offers: per
// type, p GPUs per node on n of the nodes with at least p GPUs, p and n
// powers of two (p up to the type's largest node, n up to its nodes that
// large, in increasing order). Powers of two are the grids the profile
// database prices and the policies ask for; the others cost the analytic
// planner an exhaustive search each (a 10 × 15 grid takes seconds). f
// returns false to skip the larger n of the same (type, p).
func (c *Cluster) eachGrid(f func(t int, cfg estimator.Config) bool) {
	for t, gpu := range c.Types {
		nodes := c.NodesOfType(gpu)
		for p := 1; p <= c.NodeCapacity(gpu); p *= 2 {
			max := 0
			for _, i := range nodes {
				if c.Nodes[i].Capacity >= p {
					max++
				}
			}
			for n := 1; n <= max; n *= 2 {
				if !f(t, estimator.Config{GPU: gpu, Nodes: n, PerNode: p}) {
					break
				}
			}
		}
	}
}

// arriveWatch files an arriving job under its class and counts it waiting.
func (e *engine) arriveWatch(j *Job) {
	w := &e.watch
	if w.class == nil {
		w.class = make([]int32, len(e.jobs))
		w.classOf = map[classKey]int32{}
	}
	k := classKey{j.Spec.Workload, j.Spec.GPU, j.Spec.GPUs}
	c, ok := w.classOf[k]
	if !ok {
		c = int32(len(w.classes))
		w.classOf[k] = c
		w.classes = append(w.classes, stuckClass{key: k, lastFit: Time(math.Inf(-1))})
	}
	w.class[j.Spec.ID] = c
	w.classes[c].waiting++
	w.waiting++
}

// startedWatch notes that a job pending since its arrival left the queue
// (its first start, or a drop before any).
func (e *engine) startedWatch(j *Job) {
	if e.watch.class == nil {
		return
	}
	e.watch.classes[e.watch.class[j.Spec.ID]].waiting--
	e.watch.waiting--
}

// watchTouch notes that a slot of node n was written (watchRound's
// recount list), once the watch has counted the nodes.
func (w *stuckWatch) watchTouch(n int) {
	if w.nodeFree == nil || w.dirtyAll || w.marked[n] {
		return
	}
	if len(w.dirty) >= len(w.marked)/4 {
		w.dirtyAll = true
		return
	}
	w.marked[n] = true
	w.dirty = append(w.dirty, int32(n))
}

// watch runs after a round's decision: for every class with a job pending
// since its arrival, it notes the decision's time if the idle GPUs (free,
// on available nodes) could hold one of the class's grids. Its cost is one
// pass over the slots and a few comparisons per class, only while some job
// waits unstarted.
func (e *engine) watchRound() {
	w := &e.watch
	if w.waiting == 0 {
		return
	}
	c := e.cfg.Cluster
	if w.hist == nil {
		w.hist = make([][]int32, len(c.Types))
		for t, gpu := range c.Types {
			w.hist[t] = make([]int32, c.NodeCapacity(gpu)+1)
		}
		w.nodeType = make([]int32, len(c.Nodes))
		for i := range c.Nodes {
			w.nodeType[i] = int32(c.TypeIndex(c.Nodes[i].GPU))
		}
		w.histGen = e.occGen - 1 // not computed yet
	}
	if w.histGen != e.occGen {
		w.histGen = e.occGen
		// Recount the nodes written since the last count (all of them
		// the first time, or after many writes): a round costs the slots
		// it changed, not a pass over a 100,000-GPU table.
		count := func(i int, sign int32) {
			h := w.hist[w.nodeType[i]]
			for p := int32(1); p <= w.nodeFree[i]; p++ {
				h[p] += sign
			}
		}
		recount := func(i int) {
			n := &c.Nodes[i]
			free := int32(0)
			for s := n.FirstSlot; s < n.FirstSlot+n.Capacity; s++ {
				if e.occupant[s] == NoJob {
					free++
				}
			}
			w.nodeFree[i] = free
		}
		if w.nodeFree == nil || w.dirtyAll {
			w.nodeFree = make([]int32, len(c.Nodes))
			w.marked = make([]bool, len(c.Nodes))
			for t := range w.hist {
				clear(w.hist[t])
			}
			for i := range c.Nodes {
				recount(i)
				count(i, 1)
			}
		} else {
			for _, i := range w.dirty {
				count(int(i), -1)
				recount(int(i))
				count(int(i), 1)
				w.marked[i] = false
			}
		}
		w.dirty, w.dirtyAll = w.dirty[:0], false
	}
	for i := range w.classes {
		k := &w.classes[i]
		if k.waiting == 0 {
			continue
		}
		if !k.ready {
			k.fits, k.ready = e.fitsOf(k.key), true
		}
		for _, g := range k.fits {
			if w.hist[g.t][g.p] >= g.n {
				k.lastFit = e.now
				break
			}
		}
	}
}

// fitsOf returns the grids watch looks for in class k (stuckClass.fits):
// the request at the best locality (its GPU type and count on as few
// nodes as possible, the shape the baselines insist on: a policy is not
// blamed for not spreading a job), or, when the cluster cannot run the
// request so, every feasible grid (the fewest nodes for each type and
// GPUs per node).
func (e *engine) fitsOf(k classKey) []grid {
	c := e.cfg.Cluster
	if t := c.TypeIndex(k.gpu); t >= 0 && k.gpus > 0 {
		cfg := estimator.BestLocality(k.gpu, k.gpus, c.NodeCapacity(k.gpu))
		if cfg.Nodes > 0 && cfg.Nodes <= len(c.NodesOfType(k.gpu)) && e.cfg.Exec.Estimate(k.w, cfg).Feasible() {
			return []grid{{int32(t), int32(cfg.Nodes), int32(cfg.PerNode)}}
		}
	}
	var out []grid
	c.eachGrid(func(t int, cfg estimator.Config) bool {
		if e.cfg.Exec.Estimate(k.w, cfg).Feasible() {
			out = append(out, grid{int32(t), int32(cfg.Nodes), int32(cfg.PerNode)})
			return false // the fewest nodes of this (type, p) is the one to look for
		}
		return true
	})
	return out
}

// stuck reports whether j ends the run stuck: pending, never started,
// although after some decision since its arrival idle GPUs could have
// held it (watchRound).
func (e *engine) stuck(j *Job) bool {
	if j.Status != Pending || j.FirstStart >= 0 || e.watch.class == nil {
		return false
	}
	return e.watch.classes[e.watch.class[j.Spec.ID]].lastFit >= j.SubmitTime
}

// bestIterTime is the shortest iteration time of w over every grid of the
// cluster under the run's ground truth (Config.Exec), 0 when no grid can
// run it; memoised per workload.
func (e *engine) bestIterTime(w estimator.Workload) float64 {
	if v, ok := e.best[w]; ok {
		return v
	}
	best := 0.0
	e.cfg.Cluster.eachGrid(func(_ int, cfg estimator.Config) bool {
		if est := e.cfg.Exec.Estimate(w, cfg); est.Feasible() && (best == 0 || est.IterTime < best) {
			best = est.IterTime
		}
		return true
	})
	if e.best == nil {
		e.best = map[estimator.Workload]float64{}
	}
	e.best[w] = best
	return best
}

// requestedIterTime is j's iteration time on its request at the best
// locality (its type and GPU count, as few nodes as possible), or, when
// that cannot run, its best over the cluster (bestIterTime); 0 when
// nothing can.
// Memoised per request (workload, GPU type and count): a trace's million
// jobs ask a few thousand distinct ones, and the answer is a function of
// the request alone for the run (the cluster and Config.Exec are fixed).
func (e *engine) requestedIterTime(s *JobSpec) float64 {
	k := requestKey{s.Workload, s.GPU, s.GPUs}
	if v, ok := e.requested[k]; ok {
		return v
	}
	v := e.requestedIterTimeOf(s)
	if e.requested == nil {
		e.requested = map[requestKey]float64{}
	}
	e.requested[k] = v
	return v
}

// requestKey is what requestedIterTime's answer depends on.
type requestKey struct {
	w    estimator.Workload
	gpu  string
	gpus int
}

// requestedIterTimeOf is requestedIterTime, not memoised.
func (e *engine) requestedIterTimeOf(s *JobSpec) float64 {
	c := e.cfg.Cluster
	cfg := estimator.BestLocality(s.GPU, s.GPUs, c.NodeCapacity(s.GPU))
	if cfg.Nodes > 0 && cfg.Nodes <= len(c.NodesOfType(s.GPU)) {
		if est := e.cfg.Exec.Estimate(s.Workload, cfg); est.Feasible() {
			return est.IterTime
		}
	}
	return e.bestIterTime(s.Workload)
}

// remainingAtHorizon is the iterations j has left at the horizon: the
// engine's count, brought to the horizon for a job running in artifact
// timing (the progress update of the round after the last, which the run
// does not make: one more round of execution unless the job is in time
// debt, floored as the artifact floors it). Exact timing integrates
// running jobs up to the horizon (closeWindow) already.
func (e *engine) remainingAtHorizon(j *Job) float64 {
	if e.cfg.Timing == Exact {
		return math.Max(0, j.remainingF)
	}
	if j.Status == Running && j.TimeDebt == 0 && j.iterTime > 0 {
		exec := j.ExecTime + float64(e.cfg.RoundLength)
		return math.Max(0, float64(j.IterNum-int64(math.Floor(exec/j.iterTime))))
	}
	return math.Max(0, float64(j.Remaining))
}
