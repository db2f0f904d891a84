package replay

import (
	"fmt"
	"math"
	"sort"

	"github.com/arena-sim/arena/sim"
)

// Segment is one holding of a simulated schedule: a job on a set of
// nodes, the same number of GPUs of one type on each, over [Start, End)
// of simulated time. A job's first segment is its start; each later one
// is a restart after a suspension, a resize or a migration, which the
// replay turns into a new srun once the earlier one has ended.
type Segment struct {
	Job     sim.JobID
	Index   int // the job's segment number, from 0
	GPU     string
	Nodes   []int // node indices, ascending
	PerNode int
	// Start and End are simulated instants (sim.Result's time base).
	Start, End float64
}

// Segments turns a run's allocation records into the segments of its
// schedule, ordered by start (then job): the records of one holding
// (one per run of consecutive slots) are merged into one segment.
func Segments(res *sim.Result, c *sim.Cluster) ([]Segment, error) {
	type key struct {
		job        int32
		start, end float64
	}
	slots := map[key][]int{}
	gpu := map[key]string{}
	var keys []key
	for _, a := range res.Allocations {
		k := key{a.Job, a.Start, a.End}
		if _, ok := slots[k]; !ok {
			keys = append(keys, k)
		}
		gpu[k] = a.GPU
		for s := a.FirstSlot; s < a.FirstSlot+a.Slots; s++ {
			slots[k] = append(slots[k], int(s))
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].start != keys[j].start {
			return keys[i].start < keys[j].start
		}
		return keys[i].job < keys[j].job
	})
	segs := make([]Segment, 0, len(keys))
	count := map[int32]int{}
	for _, k := range keys {
		per := map[int]int{}
		for _, s := range slots[k] {
			per[c.NodeOf(s)]++
		}
		seg := Segment{Job: sim.JobID(k.job), Index: count[k.job], GPU: gpu[k], Start: k.start, End: k.end}
		for n, g := range per {
			seg.Nodes = append(seg.Nodes, n)
			if seg.PerNode != 0 && g != seg.PerNode {
				return nil, fmt.Errorf("replay: job %d at %.0f s holds a non-uniform set of GPUs (%v)", k.job, k.start, per)
			}
			seg.PerNode = g
		}
		sort.Ints(seg.Nodes)
		count[k.job]++
		segs = append(segs, seg)
	}
	// A job's segments in time order (the sort above keeps it).
	return segs, nil
}

// Shape is how a job of n GPUs asks Slurm for them in native mode: the
// fewest nodes of capacity per that hold it, the same count on each
// (n = nodes × perNode); ok is false when no such split exists.
func Shape(n, capacity int) (nodes, perNode int, ok bool) {
	if n <= 0 || capacity <= 0 {
		return 0, 0, false
	}
	for nodes = (n + capacity - 1) / capacity; nodes <= n; nodes++ {
		if n%nodes == 0 && n/nodes <= capacity {
			return nodes, n / nodes, true
		}
	}
	return 0, 0, false
}

// OrderAgreement compares two orders of the same jobs: over every pair
// whose a-values differ, the share whose b-values are ordered the same
// way (b ties count as disagreement). It returns the share and the number
// of pairs compared (share 1 with no pair). NaN entries are left out.
func OrderAgreement(a, b []float64) (share float64, pairs int) {
	agree := 0
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			continue
		}
		for j := i + 1; j < len(a); j++ {
			if math.IsNaN(a[j]) || math.IsNaN(b[j]) || a[i] == a[j] {
				continue
			}
			pairs++
			if (a[i] < a[j]) == (b[i] < b[j]) && b[i] != b[j] {
				agree++
			}
		}
	}
	if pairs == 0 {
		return 1, 0
	}
	return float64(agree) / float64(pairs), pairs
}

// RelErr is real / model − 1: positive when the real run took longer
// than the simulator said. NaN when model is 0.
func RelErr(real, model float64) float64 {
	if model == 0 {
		return math.NaN()
	}
	return real/model - 1
}

// AddFixed adds d seconds to every start and reallocation an overhead
// prices (its default formula and every per-change override): the
// measured hand-off of a replay, fed back to the simulator.
func AddFixed(o sim.Overhead, d sim.Duration) sim.Overhead {
	out := o
	out.Fixed += d
	if o.Actions != nil {
		out.Actions = map[sim.Change]sim.Overhead{}
		for k, v := range o.Actions {
			v.Fixed += d
			out.Actions[k] = v
		}
	}
	return out
}

// mean of xs (NaN entries left out); NaN when none.
func mean(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// quantile is the q-quantile of xs (nearest rank; NaN entries left out).
func quantile(xs []float64, q float64) float64 {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[min(max(i, 0), len(v)-1)]
}
