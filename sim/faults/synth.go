package faults

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/arena-sim/arena/sim"
)

// MaxEvents bounds the events of one run (a file's rows, or what a spec
// synthesises in the window): 4M events is years of failures on the
// largest cluster sim accepts at published rates, and it keeps a typo
// ("rate: 1e6") from taking gigabytes.
const MaxEvents = 1 << 22

// process kinds, also the first part of a stream's key.
const (
	kindFailure = iota
	kindMaintenance
	kindSpot
)

// clock is one process on one node: when it next fires if the node stays
// up, and the node's own random stream for it.
type clock struct {
	kind   int
	f      *Failure
	m      *Maintenance
	s      *Spot
	rng    *rand.Rand
	scale  float64 // Weibull scale of the node's time to failure
	anchor float64 // periodic maintenance: the instant of window 0
	next   float64
}

// streamID keys a node's random stream by what identifies it
// independently of the rest of the cluster: the process (kind and
// position in its list), the node's GPU type and its ordinal among the
// nodes of that type. Adding a node of one type, or a pool of another,
// leaves every other node's stream, hence its events, unchanged.
func streamID(kind, index int, gpu string, ordinal int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%d|%s|%d", kind, index, gpu, ordinal)
	return h.Sum64()
}

// Synthesise draws the cluster events of spec on c in [start, end) with
// seed. The result is sorted by time, then node, and depends only on
// (spec, seed, start, end) and each node's GPU type and ordinal among the
// nodes of its type: no map order, no wall clock.
//
// Each node runs its processes as independent clocks while it is up. The
// earliest fires: a failure takes it down at once (NodeDown, a cause drawn
// by weight) until a repair time later (NodeUp); a maintenance window
// drains it (NodeDrain with the notice) and it is down for the window's
// duration after the notice; a spot reclaim (NodeReclaim with the notice)
// takes it until its return time after going down. While a node is out —
// draining, down, reclaimed — no process fires on it; when it is back
// every clock restarts from that instant (the node is as new; for
// exponential times this is the memoryless property, for Weibull the
// renewal assumption). An outage that outlasts end has no NodeUp.
func Synthesise(spec *Spec, c *sim.Cluster, seed int64, start, end sim.Time) ([]sim.ClusterEvent, error) {
	if math.IsNaN(float64(start)) || math.IsInf(float64(start), 0) || math.IsNaN(float64(end)) || math.IsInf(float64(end), 0) {
		return nil, fmt.Errorf("faults %s: the run's window [%v, %v) must be finite to synthesise events (set a horizon)", spec.Name, start, end)
	}
	var out []sim.ClusterEvent
	var clocks []clock
	expected := 0.0
	for _, gpu := range c.Types {
		g := float64(c.NodeCapacity(gpu))
		for ord, node := range c.NodesOfType(gpu) {
			gpus := float64(c.Nodes[node].Capacity)
			if gpus == 0 {
				gpus = g
			}
			clocks = clocks[:0]
			for i := range spec.Failures {
				f := &spec.Failures[i]
				if f.GPU != "" && f.GPU != gpu {
					continue
				}
				// Weibull(k, λ) has mean λ·Γ(1+1/k). The minimum of n
				// independent Weibull(k, λ) is Weibull(k, λ·n^(−1/k)):
				// a node fails when the first of its GPUs does.
				scale := f.MTBF / math.Gamma(1+1/f.Shape)
				if f.PerGPU {
					scale *= math.Pow(gpus, -1/f.Shape)
				}
				clocks = append(clocks, clock{kind: kindFailure, f: f, scale: scale,
					rng: rand.New(rand.NewPCG(uint64(seed), streamID(kindFailure, i, gpu, ord)))})
			}
			for i := range spec.Maintenance {
				m := &spec.Maintenance[i]
				if m.GPU != "" && m.GPU != gpu {
					continue
				}
				k := clock{kind: kindMaintenance, m: m, anchor: float64(start) + m.Phase, scale: m.Mean,
					rng: rand.New(rand.NewPCG(uint64(seed), streamID(kindMaintenance, i, gpu, ord)))}
				if m.PerGPU {
					k.scale /= gpus
				}
				if m.Every > 0 && m.RandomPhase {
					k.anchor = float64(start) + m.Every*k.rng.Float64()
				}
				clocks = append(clocks, k)
			}
			for i := range spec.Spot {
				s := &spec.Spot[i]
				if s.GPU != "" && s.GPU != gpu {
					continue
				}
				clocks = append(clocks, clock{kind: kindSpot, s: s,
					rng: rand.New(rand.NewPCG(uint64(seed), streamID(kindSpot, i, gpu, ord)))})
			}
			if len(clocks) == 0 {
				continue
			}
			// Refuse a spec whose rates would exceed MaxEvents before
			// drawing them (a typo such as "rate: 1e6" fails at once, not
			// after gigabytes): each clock fires about window/mean times
			// at most, each firing two events.
			for _, k := range clocks {
				mean := k.scale * math.Gamma(1+1/max(k.f.shapeOr1(), 0.1))
				switch k.kind {
				case kindMaintenance:
					mean = k.m.Every
					if mean == 0 {
						mean = k.scale
					}
				case kindSpot:
					mean = k.s.Mean
				}
				expected += 2 * float64(end-start) / mean
			}
			if expected > MaxEvents {
				return nil, fmt.Errorf("faults %s: the processes would give about %.3g events in the run's window, more than %d; lower the rates or shorten the window", spec.Name, expected, MaxEvents)
			}
			var err error
			out, err = runNode(out, clocks, node, float64(start), float64(end))
			if err != nil {
				return nil, fmt.Errorf("faults %s: %w", spec.Name, err)
			}
		}
	}
	sortEvents(out)
	return out, nil
}

// runNode appends one node's events in [start, end).
func runNode(out []sim.ClusterEvent, clocks []clock, node int, start, end float64) ([]sim.ClusterEvent, error) {
	up := start
	for {
		for i := range clocks {
			clocks[i].reset(up)
		}
		first := 0
		for i := range clocks {
			if clocks[i].next < clocks[first].next {
				first = i
			}
		}
		k := &clocks[first]
		t := k.next
		if !(t < end) {
			return out, nil
		}
		if len(out) >= MaxEvents {
			return nil, fmt.Errorf("more than %d events in the run's window; lower the rates or shorten the window", MaxEvents)
		}
		ev := sim.ClusterEvent{Time: sim.Time(t), Node: node}
		switch k.kind {
		case kindFailure:
			ev.Kind, ev.Cause = sim.NodeDown, k.f.cause(k.rng)
			up = t + k.f.Repair.sample(k.rng)
		case kindMaintenance:
			ev.Kind, ev.Notice, ev.Cause = sim.NodeDrain, sim.Duration(k.m.Notice), k.m.Cause
			up = t + k.m.Notice + k.m.Duration.sample(k.rng)
		case kindSpot:
			ev.Kind, ev.Notice, ev.Cause = sim.NodeReclaim, sim.Duration(k.s.Notice), k.s.Cause
			up = t + k.s.Notice + k.s.Returns.sample(k.rng)
		}
		out = append(out, ev)
		if !(up < end) {
			return out, nil
		}
		out = append(out, sim.ClusterEvent{Time: sim.Time(up), Node: node, Kind: sim.NodeUp})
	}
}

// reset sets the clock's next firing for a node (back) up at t.
func (k *clock) reset(t float64) {
	switch k.kind {
	case kindFailure:
		k.next = t + weibull(k.rng, k.f.Shape, k.scale)
	case kindMaintenance:
		m := k.m
		if m.Every == 0 {
			k.next = t + k.scale*k.rng.ExpFloat64()
			return
		}
		// The first window w = start + phase + j·every whose drain
		// (w − notice) is not before t. Windows are anchored at the
		// run's start, so they stay periodic across outages.
		j := math.Ceil((t + m.Notice - k.anchor) / m.Every)
		if j < 0 {
			j = 0
		}
		k.next = k.anchor + j*m.Every - m.Notice
		if k.next < t { // rounding
			k.next += m.Every
		}
	case kindSpot:
		k.next = t + k.s.Mean*k.rng.ExpFloat64()
	}
}

// shapeOr1 is a failure's Weibull shape; 1 for a clock without one.
func (f *Failure) shapeOr1() float64 {
	if f == nil {
		return 1
	}
	return f.Shape
}

// cause draws a failure cause by weight, in the spec's order.
func (f *Failure) cause(r *rand.Rand) string {
	if len(f.Causes) == 1 {
		return f.Causes[0].Name
	}
	total := 0.0
	for _, c := range f.Causes {
		total += c.Weight
	}
	x := r.Float64() * total
	for _, c := range f.Causes {
		if x < c.Weight {
			return c.Name
		}
		x -= c.Weight
	}
	return f.Causes[len(f.Causes)-1].Name
}

// sortEvents orders events by time, then node; a node's own events keep
// their order (stable), so an up and a drain at the same instant stay up
// first.
func sortEvents(ev []sim.ClusterEvent) {
	sort.SliceStable(ev, func(a, b int) bool {
		if ev[a].Time != ev[b].Time {
			return ev[a].Time < ev[b].Time
		}
		return ev[a].Node < ev[b].Node
	})
}
