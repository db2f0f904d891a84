package fairness

import (
	"sort"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// Series is the GPUs each tenant held over a run, sampled at the
// timeline's rows (the per-tenant share-of-GPUs-over-time figure).
type Series struct {
	Times   []float64 `json:"times_s"`
	Tenants []string  `json:"tenants"`
	// GPUs[t][i] is tenant t's GPUs held at Times[i] (allocations with
	// start ≤ time < end).
	GPUs [][]float64 `json:"gpus"`
}

// ShareOverTime samples res's allocations per tenant (ten nil: the
// trace's VCs) at each timeline row, in one sweep over the allocations.
func ShareOverTime(res *sim.Result, jobs []sim.JobSpec, ten *tenants.File) (*Series, error) {
	if ten == nil {
		var err error
		if ten, err = fromTrace(jobs); err != nil {
			return nil, err
		}
	}
	vc := make(map[int32]string, len(jobs))
	for i := range jobs {
		vc[int32(jobs[i].ID)] = jobs[i].VirtualCluster
	}
	s := &Series{GPUs: make([][]float64, ten.Len())}
	for t := range ten.Len() {
		s.Tenants = append(s.Tenants, ten.Tenant(t).Name)
		s.GPUs[t] = make([]float64, len(res.Timeline))
	}
	for _, row := range res.Timeline {
		s.Times = append(s.Times, row.Time)
	}
	type ev struct {
		at   float64
		t, d int
	}
	evs := make([]ev, 0, 2*len(res.Allocations))
	for _, a := range res.Allocations {
		t := ten.Index(vc[a.Job])
		evs = append(evs, ev{a.Start, t, int(a.Slots)}, ev{a.End, t, -int(a.Slots)})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	held := make([]int, ten.Len())
	k := 0
	for i, at := range s.Times {
		for ; k < len(evs) && evs[k].at <= at; k++ {
			held[evs[k].t] += evs[k].d
		}
		for t, h := range held {
			s.GPUs[t][i] = float64(h)
		}
	}
	return s, nil
}
