package arena

import (
	"github.com/arena-sim/arena/sim"
)

// jobStat is what a table says about one job: its GPU type, slot count
// (any status), nodes in node order and the slot count on its first node.
type jobStat struct {
	t, num     int
	nodes      []int
	firstCount int
	usedSeen   bool
}

// statSet holds the stats of every real job of one table, indexed by job
// ID (a generation stamp marks the entries of the current scan), and the
// order in which jobs first appear on a USED slot (the artifact's
// candidate order, _get_run_job_ids).
type statSet struct {
	gen   int
	stamp []int
	byID  []jobStat
	order []sim.JobID
}

func (s *statSet) get(id sim.JobID) *jobStat {
	if id < 0 || int(id) >= len(s.stamp) || s.stamp[id] != s.gen {
		return nil
	}
	return &s.byID[id]
}

// stats scans a table once into dst.
func (r *round) stats(tb *table, dst *statSet) *statSet {
	n := len(r.p.jobs)
	if len(dst.stamp) < n {
		dst.stamp = append(dst.stamp, make([]int, n-len(dst.stamp))...)
		dst.byID = append(dst.byID, make([]jobStat, n-len(dst.byID))...)
	}
	dst.gen++
	dst.order = dst.order[:0]
	tp := tb.tp
	for s, o := range tb.occ {
		if o < 0 {
			continue
		}
		nd := tp.slotNode[s]
		js := &dst.byID[o]
		if dst.stamp[o] != dst.gen {
			dst.stamp[o] = dst.gen
			*js = jobStat{t: tp.nodeType[nd], nodes: js.nodes[:0], usedSeen: false}
		}
		if tb.used[s] && !js.usedSeen {
			js.usedSeen = true
			dst.order = append(dst.order, o)
		}
		js.num++
		if len(js.nodes) == 0 || js.nodes[len(js.nodes)-1] != nd {
			js.nodes = append(js.nodes, nd)
		}
		if js.nodes[0] == nd {
			js.firstCount++
		}
	}
	return dst
}

// rtStat is _get_job_rt_stat: a job's type, GPU count and locality read
// from the table when it holds slots there (any status), else from the
// fallback quota (the overwrite job or the registered job). The locality
// is [num/nodes]·nodes, nodes = its node count or max(1, num/cap).
func (r *round) rtStat(tb *table, id sim.JobID, fbType, fbNum int) (int, int, loc, []int) {
	tp := tb.tp
	ty, num := -1, 0
	var nodes []int
	for _, s := range tb.slotsOf(id) {
		n := tp.slotNode[s]
		if ty < 0 {
			ty = tp.nodeType[n]
		}
		num++
		if len(nodes) == 0 || nodes[len(nodes)-1] != n {
			nodes = append(nodes, n)
		}
	}
	if ty < 0 {
		ty = fbType
	}
	if num == 0 {
		num = fbNum
	}
	if ty < 0 {
		return ty, num, loc{}, nodes
	}
	return ty, num, r.localityOf(ty, num, len(nodes)), nodes
}

// localityOf is the artifact's [num // k]·k with k = nodeCount, or
// max(1, num // cap) when the job holds no slot.
func (r *round) localityOf(ty, num, nodeCount int) loc {
	k := nodeCount
	if k == 0 {
		k = max(1, num/r.p.tp.typeCap[ty])
	}
	return loc{k, num / k}
}

// statOf is rtStat from a precomputed statSet.
func (r *round) statOf(st *statSet, id sim.JobID, fbType, fbNum int) (int, int, loc, []int) {
	if js := st.get(id); js != nil && js.num > 0 {
		return js.t, js.num, r.localityOf(js.t, js.num, len(js.nodes)), js.nodes
	}
	return fbType, fbNum, r.localityOf(fbType, fbNum, 0), nil
}
