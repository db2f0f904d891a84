package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces/table"
)

// describeTopology is one line: the cluster's fast domain, bandwidths and
// tiers (docs/topology.md).
func describeTopology(c *sim.Cluster) string {
	t := c.Topology()
	var b strings.Builder
	fmt.Fprintf(&b, "fast domain %d node(s)", t.DomainNodes)
	for _, tr := range t.Tiers {
		fmt.Fprintf(&b, "; %s %d nodes, uplink %g:1", tr.Name, tr.Nodes, tr.Oversubscription)
	}
	return b.String()
}

// packedOnEmpty places n GPUs of type gpu at best locality, packed, on the
// empty cluster: the layout a topology-aware placement gives a job alone.
func packedOnEmpty(c *sim.Cluster, gpu string, n int) ([]int, estimator.Config, bool) {
	best := placement.Best(c, gpu, n)
	if best.PerNode == 0 || best.Nodes > len(c.NodesOfType(gpu)) {
		return nil, best, false
	}
	occ := make([]sim.JobID, c.NumSlots())
	for i := range occ {
		occ[i] = sim.NoJob
	}
	slots, ok := placement.NewTable(c, occ).PlacePacked(0, best)
	return slots, best, ok
}

// printTraffic prints where a job of n GPUs of type gpu, packed on the
// empty cluster, sends its traffic: the fast domain, or the network and
// each switch tier's uplink (offered load against capacity). share is the
// estimator's share of its iteration time in cross-node collectives
// (negative: unknown).
func printTraffic(w io.Writer, c *sim.Cluster, gpu string, n int, share float64, indent string) {
	slots, best, ok := packedOnEmpty(c, gpu, n)
	if !ok {
		fmt.Fprintf(w, "%s%d %s GPUs do not fit on %s\n", indent, n, gpu, c.Name)
		return
	}
	x := c.CrossingOf(slots)
	fmt.Fprintf(w, "%s%d GPUs as %s, packed: %s\n", indent, n, best, c.Describe(x))
	switch {
	case x.Nodes <= 1:
		fmt.Fprintf(w, "%s  inside one node: no traffic leaves it\n", indent)
		return
	case !x.Crosses():
		fmt.Fprintf(w, "%s  inside one fast domain: cross-node collectives over NVLink at %g GB/s per GPU (the estimator prices %g)\n",
			indent, c.DomainGBs(gpu), mustGPU(gpu).InterNodeGBs)
	default:
		fmt.Fprintf(w, "%s  across %d fast domains: cross-node collectives on the network at %g GB/s per GPU\n", indent, x.Domains, c.NetworkGBs(gpu))
		for _, l := range c.TierLoads(slots) {
			if l.Groups <= 1 {
				fmt.Fprintf(w, "%s  %s: inside one, no uplink crossed\n", indent, l.Tier)
				continue
			}
			fmt.Fprintf(w, "%s  %s: %d of them; busiest uplink %.0f GB/s offered of %.0f GB/s (alone: %.0f%% of its bandwidth)\n",
				indent, l.Tier, l.Groups, l.OfferedGBs, l.CapacityGBs, 100*l.Rate())
		}
	}
	if share >= 0 {
		fmt.Fprintf(w, "%s  cross-node collectives: %.2f%% of the iteration time (the share contention stretches)\n", indent, 100*share)
	}
}

func mustGPU(name string) estimator.GPUType {
	g, _ := estimator.LookupGPU(name)
	return g
}

// printTraceTopology tallies the trace's jobs by the innermost level that
// holds each, packed alone on the empty cluster.
func printTraceTopology(w io.Writer, c *sim.Cluster, jobs []table.Job) {
	t := c.Topology()
	levels := []string{"within one node", "within one fast domain"}
	for _, tr := range t.Tiers {
		levels = append(levels, "within one "+tr.Name)
	}
	top := "fast domains"
	if len(t.Tiers) > 0 {
		top = t.Tiers[len(t.Tiers)-1].Name + "s"
	}
	levels = append(levels, "across "+top, "too large for the cluster")
	count := make([]int, len(levels))
	type key struct {
		gpu string
		n   int
	}
	memo := map[key]int{}
	for _, j := range jobs {
		k := key{j.GPUType, int(j.GPUs)}
		if k.n < 1 {
			continue
		}
		lvl, ok := memo[k]
		if !ok {
			lvl = len(levels) - 1
			gpu := k.gpu
			if c.TotalGPUs(gpu) == 0 && len(c.Types) > 0 {
				gpu = c.Types[0] // a type the cluster lacks: as if mapped to its first
			}
			if slots, _, fit := packedOnEmpty(c, gpu, k.n); fit {
				x := c.CrossingOf(slots)
				switch {
				case x.Nodes <= 1:
					lvl = 0
				case !x.Crosses():
					lvl = 1
				default:
					lvl = len(levels) - 2
					for i, g := range x.Groups {
						if g <= 1 {
							lvl = 2 + i
							break
						}
					}
				}
			}
			memo[k] = lvl
		}
		count[lvl]++
	}
	var parts []string
	for i, n := range count {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, levels[i]))
		}
	}
	fmt.Fprintf(w, "  topology of %s: %s\n", c.Name, describeTopology(c))
	fmt.Fprintf(w, "  jobs packed alone on it: %s\n", strings.Join(parts, ", "))
}
