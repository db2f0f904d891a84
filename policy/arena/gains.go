package arena

import (
	"math"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

// inst is a job instance as the artifact passes it around: the job, with
// a quota that a search may have changed (a plan's copy of the target job,
// a trial copy with another GPU type or count). Only the GPU count of the
// instance matters beyond the job itself: arena-ddl charges a new job
// min(10·count, 40) s of overhead.
type inst struct {
	id     sim.JobID
	t, num int
}

func (r *round) registered(id sim.JobID) inst {
	q := r.js(id).quota
	return inst{id: id, t: q.t, num: q.num}
}

type thrKey struct {
	wi, t, nodes, per int32
}

// thr is the decision throughput of job id on (type t, locality l): the
// artifact's query_db in the policy's view; −1e9 when infeasible.
func (r *round) thr(id sim.JobID, t int, l loc) float64 {
	v := r.lookup(r.p.thrCache, r.p.decide, id, t, l, func(e estimator.Estimate) float64 {
		if !e.Feasible() {
			return infeasibleThr
		}
		return e.Throughput
	})
	// With faults (capacity lost) arena-dp shrank jobs onto grids its DP
	// data admits but the engine cannot execute; such a grid is
	// infeasible then. (Fault-free runs keep the artifact's choices.)
	if v > infeasibleThr && r.v.Nodes != nil && r.optIterTime(id, t, l) >= estimator.InfeasibleIterTime {
		return infeasibleThr
	}
	return v
}

// optIterTime is the execution view's iteration time (1e9 when infeasible).
func (r *round) optIterTime(id sim.JobID, t int, l loc) float64 {
	return r.lookup(r.p.optCache, r.p.opt, id, t, l, func(e estimator.Estimate) float64 {
		if !e.Feasible() {
			return estimator.InfeasibleIterTime
		}
		return e.IterTime
	})
}

// lookup memoises one number derived from an estimate of (job's workload,
// t, l): the searches ask the same questions many thousands of times.
func (r *round) lookup(cache memo, est estimator.Estimator, id sim.JobID, t int, l loc, value func(estimator.Estimate) float64) float64 {
	js := r.p.jobs[id]
	slot := cache.slot(js.wi, t, l, len(r.p.tp.types))
	if slot != nil && slot.ok {
		return slot.v
	}
	k := thrKey{int32(js.wi), int32(t), int32(l.nodes), int32(l.per)}
	if slot == nil {
		if v, ok := cache.sparse[k]; ok {
			return v
		}
	}
	v := value(est.Estimate(r.p.workloads[js.wi], estimator.Config{GPU: r.p.tp.types[t], Nodes: l.nodes, PerNode: l.per}))
	if slot != nil {
		*slot = memoEntry{v, true}
	} else {
		cache.sparse[k] = v
	}
	return v
}

// memo is lookup's cache: per workload a dense array over (type, nodes,
// GPUs per node) for the usual small configs, a map for the others (a
// map lookup hashes the key, which the searches felt).
type memo struct {
	dense  *[][]memoEntry // by workload index
	sparse map[thrKey]float64
}

type memoEntry struct {
	v  float64
	ok bool
}

// Bounds of the dense part of a memo.
const memoNodes, memoPer = 33, 17

func newMemo() memo { return memo{dense: new([][]memoEntry), sparse: map[thrKey]float64{}} }

// slot returns the dense entry of (wi, t, l), nil when it has none.
// types is the number of GPU types known now; a workload's array covers
// those known at its first lookup.
func (m memo) slot(wi, t int, l loc, types int) *memoEntry {
	if l.nodes < 0 || l.nodes >= memoNodes || l.per < 0 || l.per >= memoPer {
		return nil
	}
	d := *m.dense
	for len(d) <= wi {
		d = append(d, nil)
	}
	*m.dense = d
	if d[wi] == nil {
		d[wi] = make([]memoEntry, types*memoNodes*memoPer)
	}
	i := (t*memoNodes+l.nodes)*memoPer + l.per
	if i >= len(d[wi]) {
		return nil
	}
	return &d[wi][i]
}

// deadlineMet is _is_crius_ddl_satisfied (arena-ddl only): the job still
// finishes by its deadline on (t, l), counting the overhead it would pay
// (min(10·count, 40) s for a job submitted within the last round, else its
// outstanding time debt) and one scheduling interval.
func (r *round) deadlineMet(in inst, t int, l loc) bool {
	if !r.p.variant.Deadline {
		return true
	}
	it := r.optIterTime(in.id, t, l)
	if it == estimator.InfeasibleIterTime {
		return false
	}
	j := r.v.Job(in.id)
	now := float64(r.v.Now)
	interval := float64(r.v.RoundLength)
	var overhead float64
	if now-float64(j.SubmitTime) <= interval {
		overhead = math.Min(10*float64(in.num), 40)
	} else {
		overhead = float64(j.TimeDebt)
	}
	work := math.Trunc(float64(j.Remaining) * it)
	return now+overhead+interval+work <= float64(j.Deadline)
}

// feasible is _is_alloc_feasible.
func (r *round) feasible(in inst, t int, l loc) bool {
	if !r.deadlineMet(in, t, l) {
		return false
	}
	return r.thr(in.id, t, l) > 0
}

// gainNew is _get_delta_thr without a previous config: the throughput of
// the new config, or −1e9.
func (r *round) gainNew(in inst, t int, l loc) float64 {
	if !r.deadlineMet(in, t, l) {
		return infeasibleThr
	}
	v := r.thr(in.id, t, l)
	if v <= 0 {
		return infeasibleThr
	}
	return v
}

// gain is _get_delta_thr with a previous config: thr(new) − thr(prev);
// −1e9 if the new config is infeasible; thr(new) + 1e9 if only the
// previous one is.
func (r *round) gain(in inst, t int, l loc, pt int, pl loc) float64 {
	if !r.deadlineMet(in, t, l) {
		return infeasibleThr
	}
	v := r.thr(in.id, t, l)
	if v <= 0 {
		return infeasibleThr
	}
	pv := r.thr(in.id, pt, pl)
	if pv <= 0 {
		return v - infeasibleThr
	}
	return v - pv
}
