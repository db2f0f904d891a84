package faults

import (
	"math"

	"github.com/arena-sim/arena/sim"
)

// Expected is how many node outages (failures, maintenance windows, spot
// reclaims: the NodeDown, NodeDrain and NodeReclaim events Synthesise
// draws) the spec's processes give cluster c over span seconds on
// average, counting every node as up throughout:
//
//	Σ over processes, over the nodes of its GPU type, of span / the node's mean time between them
//
// A failure process's node mean is MTBF for per-node failures and
// MTBF·g^(−1/shape) for per-GPU failures on a node of g GPUs (the first
// of g Weibull clocks; shape 1: the GPU rate × g); a periodic maintenance
// window's, its period; Poisson maintenance's, its mean (÷ g per GPU); a
// spot reclaim's, its mean. For the exponential presets this is rate ×
// GPUs (or nodes) × span. Outages keep a node down for a while, during
// which no process fires on it (Synthesise), so the draws average
// slightly fewer; with 1 or less expected, a window often has none.
func (s *Spec) Expected(c *sim.Cluster, span sim.Duration) float64 {
	if !(span > 0) {
		return 0
	}
	t := float64(span)
	total := 0.0
	for _, gpu := range c.Types {
		g0 := float64(c.NodeCapacity(gpu))
		for _, node := range c.NodesOfType(gpu) {
			g := float64(c.Nodes[node].Capacity)
			if g == 0 {
				g = g0
			}
			for i := range s.Failures {
				f := &s.Failures[i]
				if f.GPU != "" && f.GPU != gpu {
					continue
				}
				mean := f.MTBF
				if f.PerGPU {
					mean *= math.Pow(g, -1/f.shapeOr1())
				}
				total += t / mean
			}
			for i := range s.Maintenance {
				m := &s.Maintenance[i]
				if m.GPU != "" && m.GPU != gpu {
					continue
				}
				mean := m.Every
				if mean == 0 {
					mean = m.Mean
					if m.PerGPU {
						mean /= g
					}
				}
				total += t / mean
			}
			for i := range s.Spot {
				if sp := &s.Spot[i]; sp.GPU == "" || sp.GPU == gpu {
					total += t / sp.Mean
				}
			}
		}
	}
	return total
}

// Outages counts the node outages among events: NodeDown, NodeDrain and
// NodeReclaim (an outage's NodeUp and capacity added are not outages).
func Outages(events []sim.ClusterEvent) int {
	n := 0
	for _, e := range events {
		switch e.Kind {
		case sim.NodeDown, sim.NodeDrain, sim.NodeReclaim:
			n++
		}
	}
	return n
}
