package traces

import (
	"sort"

	"github.com/arena-sim/arena/sim"
)

// Stats summarises a trace for `arena trace inspect`.
type Stats struct {
	Jobs             int
	First, Last      sim.Time
	ByGPUs           map[int]int
	ByType           map[string]int
	ByFamily         map[string]int
	ByModel          map[string]int
	WithDeadline     int
	MinIter, MaxIter int64
	MedianIter       int64
	InWindow         int // jobs submitted within the first Rounds rounds (artifact chunking)
	Rounds           int
}

// Inspect computes the trace's statistics; rounds (> 0) sets the window
// counted in InWindow with the artifact's chunking rule.
func Inspect(t *Trace, rounds int) Stats {
	s := Stats{Jobs: len(t.Jobs), ByGPUs: map[int]int{}, ByType: map[string]int{}, ByFamily: map[string]int{}, ByModel: map[string]int{}, Rounds: rounds}
	if len(t.Jobs) == 0 {
		return s
	}
	t0 := t.Jobs[0].Submit
	s.First, s.Last = t0, t0
	iters := make([]int64, 0, len(t.Jobs))
	for _, j := range t.Jobs {
		s.First = min(s.First, j.Submit)
		s.Last = max(s.Last, j.Submit)
		s.ByGPUs[j.GPUs]++
		s.ByType[j.GPU]++
		s.ByFamily[j.Workload.Model.Family.String()]++
		s.ByModel[j.Workload.Model.Name()]++
		if j.Deadline > 0 {
			s.WithDeadline++
		}
		iters = append(iters, j.Iterations)
		// Artifact chunk: max(0, ceil((s − T0)/300) − 1) < rounds.
		k := int((float64(j.Submit-t0)+299.999999)/300) - 1
		if k < rounds {
			s.InWindow++
		}
	}
	sort.Slice(iters, func(a, b int) bool { return iters[a] < iters[b] })
	s.MinIter, s.MaxIter, s.MedianIter = iters[0], iters[len(iters)-1], iters[len(iters)/2]
	return s
}
