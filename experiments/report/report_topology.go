package report

import (
	"fmt"
	"slices"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim"
)

// TopologySection is the reproduce section of the topology study (not
// part of "all"): FCFS, the topology-aware tas and Arena on clusters with
// a topology, their jobs' contention on shared uplinks and what it costs
// (data/specs/topology.yaml; docs/topology.md).
const TopologySection = "topology"

// TopologyLLMSection is the topology study's LLM-development workload
// (not part of "all"): Acme-Kalos jobs of any size on the 24,576-GPU
// h100-24k, whose jobs span racks and pods and contend on the pods'
// uplinks (data/specs/topology-llm.yaml; docs/topology.md). Its report
// has the topology section's form.
const TopologyLLMSection = "topology-llm"

// topologySection writes, per cluster, a table of the policies' network
// figures and JCT, each the mean over seeds with its Student-t interval.
func (w *reportWriter) topologySection(s section) error {
	rs := w.runsOf(s.plan, func(sweep.PlannedRun) bool { return true })
	spec := "topology.yaml"
	if s.name == TopologyLLMSection {
		spec = "topology-llm.yaml"
		w.p("## Topology: LLM-development jobs of any size\n\n")
	} else {
		w.p("## Topology: contention on shared uplinks\n\n")
	}
	if len(rs) == 0 {
		w.p("No registered policy.\n\n")
		return nil
	}
	w.p("Spec `experiments/data/specs/%s`, docs/topology.md. ", spec)
	w.p("A job across fast domains sends its cross-node collectives over the network; ")
	w.p("jobs sharing an oversubscribed uplink split it by flows, and each one's cross-node share of its iteration (the analytic model's breakdown) stretches. ")
	w.p("*Across domains*: jobs that ran across fast domains. *Slowdown*: each such job's iteration time over its time alone on the fabric, ")
	w.p("time-weighted, then the mean (max) over jobs. *Uplink use*: bandwidth used on a tier's uplinks over their capacity, over the window. ")
	w.p("*Mean JCT* is over every submitted job (unfinished ones at their charge; docs/statistics.md). ")
	// A table per cluster and density (load), a row per policy, a cell
	// over the seeds.
	type cellKey struct {
		cluster string
		density float64
	}
	var tables []cellKey
	var policies []string
	seeds := map[string]int{}
	for _, r := range rs {
		k := cellKey{r.Summary.Cluster, r.Summary.Density}
		if !slices.Contains(tables, k) {
			tables = append(tables, k)
		}
		if !slices.Contains(policies, r.Summary.Policy) {
			policies = append(policies, r.Summary.Policy)
		}
		seeds[fmt.Sprint(k, r.Summary.Policy)]++
	}
	n := 0
	for _, k := range seeds {
		n = max(n, k)
	}
	w.p("Each cell: the mean [%s].\n\n", ci.Describe(ci.T, n, "seed"))
	net := func(f func(*sim.NetworkSummary) float64) func(*sweep.Results) (float64, bool) {
		return func(r *sweep.Results) (float64, bool) {
			if r.Summary.Network == nil {
				return 0, false
			}
			return f(r.Summary.Network), true
		}
	}
	tier := func(k int) func(*sweep.Results) (float64, bool) {
		return func(r *sweep.Results) (float64, bool) {
			if r.Summary.Network == nil || k >= len(r.Summary.Network.Tiers) {
				return 0, false
			}
			return 100 * r.Summary.Network.Tiers[k].Utilisation, true
		}
	}
	for _, tk := range tables {
		c := tk.cluster
		var tiers []string
		for _, r := range rs {
			if r.Summary.Cluster == c && r.Summary.Network != nil {
				for _, t := range r.Summary.Network.Tiers {
					tiers = append(tiers, t.Tier)
				}
				break
			}
		}
		w.p("### %s, density %g\n\n| policy | jobs finished | mean JCT, all submitted (h) | across domains | slowdown mean | slowdown max |", c, tk.density)
		for _, t := range tiers {
			w.p(" %s uplink use (%%) |", t)
		}
		w.p("\n|---|--:|--:|--:|--:|--:|%s\n", repeat("--:|", len(tiers)))
		for _, p := range policies {
			var cell []*sweep.Results
			for _, r := range rs {
				if r.Summary.Cluster == c && r.Summary.Density == tk.density && r.Summary.Policy == p {
					cell = append(cell, r)
				}
			}
			if len(cell) == 0 {
				continue
			}
			// Every figure here is ≥ 0 and a slowdown ≥ 1: an interval
			// is clipped there, as the faults section's counts are.
			iv := func(get func(*sweep.Results) (float64, bool), digits int, floor ...float64) string {
				var xs []float64
				for _, r := range cell {
					if x, ok := get(r); ok {
						xs = append(xs, x)
					}
				}
				if len(xs) == 0 {
					return "–"
				}
				x := nonNegative(ci.TInterval(xs))
				if len(floor) > 0 {
					x.Lo = max(x.Lo, floor[0])
				}
				return ci.Format(x, digits, "")
			}
			w.p("| %s | %s | %s | %s | %s | %s |", p,
				iv(func(r *sweep.Results) (float64, bool) { return float64(r.Summary.Finished), true }, 0),
				iv(func(r *sweep.Results) (float64, bool) { return r.Summary.SubmittedMeanJCT / 3600, true }, 2),
				iv(net(func(n *sim.NetworkSummary) float64 { return float64(n.JobsCrossing) }), 0),
				iv(net(func(n *sim.NetworkSummary) float64 { return n.MeanSlowdown }), 3, 1),
				iv(net(func(n *sim.NetworkSummary) float64 { return n.MaxSlowdown }), 3, 1))
			for k := range tiers {
				w.p(" %s |", iv(tier(k), 2))
			}
			w.p("\n")
		}
		w.p("\n")
	}
	return nil
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
