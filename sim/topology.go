package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/arena-sim/arena/estimator"
)

// Topology is a cluster's network, from the GPU out (docs/topology.md):
//
//   - the fast domain: DomainNodes consecutive nodes whose GPUs talk over
//     NVLink (1: the node itself; 18 for a GB200 NVL72 rack of 4-GPU
//     nodes), at DomainGBs per GPU between nodes of the domain;
//   - the scale-out network: every GPU has NetworkGBs to its leaf switch
//     (a rail-optimised fabric gives each GPU its own NIC);
//   - switch tiers, innermost first (rack/leaf, pod, ...): Tiers[k] groups
//     Nodes consecutive nodes under one switch group whose uplink carries
//     (GPUs under it × NetworkGBs) / Oversubscription.
//
// Domains and groups never span pools: each pool starts a new one, and a
// pool's last one may be partial. A job whose GPUs lie in one fast domain
// never uses the network; a job spanning domains crosses tier k's uplinks
// when its GPUs lie in more than one group of tier k.
type Topology struct {
	DomainNodes int     `yaml:"domain_nodes" json:"domain_nodes"`
	DomainGBs   float64 `yaml:"domain_gbs,omitempty" json:"domain_gbs,omitempty"`
	NetworkGBs  float64 `yaml:"network_gbs,omitempty" json:"network_gbs,omitempty"`
	Tiers       []Tier  `yaml:"tiers,omitempty" json:"tiers,omitempty"`
}

// Tier is one switch tier of a Topology.
type Tier struct {
	// Name labels the tier in tables ("rack", "pod").
	Name string `yaml:"name" json:"name"`
	// Nodes under one switch group of the tier: a multiple of the fast
	// domain's and of the previous tier's.
	Nodes int `yaml:"nodes" json:"nodes"`
	// Oversubscription is the group's downlink ÷ uplink bandwidth, ≥ 1
	// (1: non-blocking).
	Oversubscription float64 `yaml:"oversubscription" json:"oversubscription"`
}

// Validate checks a topology's consistency; errors name the field.
func (t *Topology) Validate() error {
	if t.DomainNodes < 1 || t.DomainNodes > MaxNodes {
		return fmt.Errorf("domain_nodes: want a whole number in [1, %d], got %d", MaxNodes, t.DomainNodes)
	}
	if bad(t.DomainGBs) {
		return fmt.Errorf("domain_gbs: want a bandwidth ≥ 0 GB/s (0: the GPU's intra-node), got %v", t.DomainGBs)
	}
	if bad(t.NetworkGBs) {
		return fmt.Errorf("network_gbs: want a bandwidth ≥ 0 GB/s (0: the GPU's inter-node), got %v", t.NetworkGBs)
	}
	if len(t.Tiers) > 8 {
		return fmt.Errorf("tiers: at most 8, got %d", len(t.Tiers))
	}
	prev := t.DomainNodes
	seen := map[string]bool{}
	for i, tr := range t.Tiers {
		f := fmt.Sprintf("tiers[%d]", i)
		if tr.Name == "" || len(tr.Name) > 32 || strings.ContainsAny(tr.Name, " \t\n\r\"'") {
			return fmt.Errorf("%s.name: want a short name without spaces (rack, pod)", f)
		}
		if seen[tr.Name] {
			return fmt.Errorf("%s.name: %q given twice", f, tr.Name)
		}
		seen[tr.Name] = true
		if tr.Nodes < 1 || tr.Nodes > MaxNodes || tr.Nodes%prev != 0 {
			return fmt.Errorf("%s.nodes: want a multiple of %d (the %s's nodes), got %d", f, prev, t.levelName(i-1), tr.Nodes)
		}
		if math.IsNaN(tr.Oversubscription) || tr.Oversubscription < 1 || tr.Oversubscription > 1000 {
			return fmt.Errorf("%s.oversubscription: want a ratio in [1, 1000] (1: non-blocking), got %v", f, tr.Oversubscription)
		}
		prev = tr.Nodes
	}
	return nil
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > 1e6 }

// levelName is tier i's name, "domain" for −1.
func (t *Topology) levelName(i int) string {
	if i < 0 {
		return "fast domain"
	}
	return t.Tiers[i].Name
}

// netMap is a cluster's topology resolved onto its nodes.
type netMap struct {
	topo *Topology
	// domain[n] is node n's fast domain; group[k][n] its group of tier k.
	domain []int32
	group  [][]int32
	// linkBase[k] is the link id of tier k's group 0: the uplink of group
	// g of tier k is link linkBase[k]+g. capacity[l] in GB/s, tierOf[l].
	linkBase []int
	capacity []float64
	tierOf   []int8
	// gpusPerNode of each node's pool type and the per-GPU bandwidths of
	// each GPU type (after defaults).
	netGBs, domGBs map[string]float64
}

func newNetMap(c *Cluster, pools []Pool, t *Topology) (*netMap, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("cluster %s: topology: %w", c.Name, err)
	}
	m := &netMap{topo: t, domain: make([]int32, len(c.Nodes)), group: make([][]int32, len(t.Tiers)),
		netGBs: map[string]float64{}, domGBs: map[string]float64{}}
	// Domains and groups restart at each pool: consecutive nodes of one
	// type, counted from the pool's first node.
	poolStart, pool, poolEnd := 0, 0, 0
	dom, grp := int32(-1), make([]int32, len(t.Tiers))
	for k := range grp {
		grp[k] = -1
		m.group[k] = make([]int32, len(c.Nodes))
	}
	gpusIn := make([][]int, len(t.Tiers))
	for i, n := range c.Nodes {
		for i == poolEnd {
			poolStart, poolEnd = i, i+pools[pool].Nodes
			pool++
		}
		off := i - poolStart
		if off%t.DomainNodes == 0 {
			dom++
		}
		m.domain[i] = dom
		for k, tr := range t.Tiers {
			if off%tr.Nodes == 0 {
				grp[k]++
				gpusIn[k] = append(gpusIn[k], 0)
			}
			m.group[k][i] = grp[k]
			gpusIn[k][grp[k]] += n.Capacity
		}
		if _, ok := m.netGBs[n.GPU]; !ok {
			g, err := estimator.LookupGPU(n.GPU)
			if err != nil {
				return nil, err
			}
			m.netGBs[n.GPU], m.domGBs[n.GPU] = g.InterNodeGBs, g.IntraNodeGBs
			if t.NetworkGBs > 0 {
				m.netGBs[n.GPU] = t.NetworkGBs
			}
			if t.DomainGBs > 0 {
				m.domGBs[n.GPU] = t.DomainGBs
			}
		}
	}
	for k, tr := range t.Tiers {
		m.linkBase = append(m.linkBase, len(m.capacity))
		first := 0
		for g, gpus := range gpusIn[k] {
			// The group's GPUs are of one type (groups never span pools).
			for first < len(c.Nodes) && m.group[k][first] != int32(g) {
				first++
			}
			m.capacity = append(m.capacity, float64(gpus)*m.netGBs[c.Nodes[first].GPU]/tr.Oversubscription)
			m.tierOf = append(m.tierOf, int8(k))
		}
	}
	return m, nil
}

// Topology returns the cluster's topology, or nil when its spec gave none
// (then no job's traffic is priced by tier and nothing contends).
func (c *Cluster) Topology() *Topology {
	if c.net == nil {
		return nil
	}
	return c.net.topo
}

// DomainOf returns node n's fast domain (consecutive nodes sharing NVLink;
// every node its own without a topology).
func (c *Cluster) DomainOf(node int) int {
	if c.net == nil {
		return node
	}
	return int(c.net.domain[node])
}

// GroupOf returns node n's switch group in tier k (0 ≤ k < len(Tiers)).
func (c *Cluster) GroupOf(k, node int) int { return int(c.net.group[k][node]) }

// TierLinks is the number of uplinks (switch groups) of tier k.
func (c *Cluster) TierLinks(k int) int {
	if k+1 < len(c.net.linkBase) {
		return c.net.linkBase[k+1] - c.net.linkBase[k]
	}
	return len(c.net.capacity) - c.net.linkBase[k]
}

// Crossing is where a set of GPUs' traffic goes in a cluster's topology:
// how many fast domains it spans and, per switch tier, how many groups
// (a tier is crossed when the count is over 1).
type Crossing struct {
	GPUs, Nodes, Domains int
	// Groups[k] is the number of tier-k groups the GPUs lie in.
	Groups []int
}

// Crosses reports whether the traffic leaves the fast domain.
func (x Crossing) Crosses() bool { return x.Domains > 1 }

// String is "2 nodes, 1 fast domain, rack ×2, pod ×1" style.
func (x Crossing) string(t *Topology) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d GPUs on %d nodes in %d fast domain(s)", x.GPUs, x.Nodes, x.Domains)
	for k, g := range x.Groups {
		fmt.Fprintf(&b, ", %d %s(s)", g, t.Tiers[k].Name)
	}
	return b.String()
}

// Describe is Crossing's one-line description under the cluster's topology.
func (c *Cluster) Describe(x Crossing) string {
	if c.net == nil {
		return fmt.Sprintf("%d GPUs on %d nodes", x.GPUs, x.Nodes)
	}
	return x.string(c.net.topo)
}

// CrossingOf returns where the traffic of a job holding slots goes. It
// costs O(s + n log n) for s slots on n nodes: the nodes are sorted once
// (not at all when the slots list their nodes in ascending order, as
// policies usually give them), and since fast domains and switch groups
// are runs of consecutive nodes, each level's count is the number of
// changes along them.
func (c *Cluster) CrossingOf(slots []int) Crossing {
	x, _ := c.crossing(slots, make([]int, 0, 8), nil)
	return x
}

// crossing is CrossingOf with the caller's buffers: nodes (empty) for the
// slots' nodes, returned for reuse, and groups (empty) for the Groups.
func (c *Cluster) crossing(slots, nodes, groups []int) (Crossing, []int) {
	x := Crossing{GPUs: len(slots)}
	sorted := true // the slots' nodes ascending (a policy's usual order)
	for _, s := range slots {
		n := c.NodeOf(s)
		if k := len(nodes); k == 0 || nodes[k-1] != n {
			sorted = sorted && (k == 0 || nodes[k-1] < n)
			nodes = append(nodes, n)
		}
	}
	if !sorted { // else already distinct: strictly ascending
		slices.Sort(nodes)
		nodes = slices.Compact(nodes)
	}
	x.Nodes, x.Domains = len(nodes), len(nodes)
	if c.net == nil {
		return x, nodes
	}
	m := c.net
	runs := func(of []int32) int {
		k := 0
		for i, n := range nodes {
			if i == 0 || of[n] != of[nodes[i-1]] {
				k++
			}
		}
		return k
	}
	x.Domains = runs(m.domain)
	x.Groups = groups
	for k := range m.topo.Tiers {
		x.Groups = append(x.Groups, runs(m.group[k]))
	}
	return x, nodes
}

// CrossingOfNodes is CrossingOf for whole nodes in a node-level layout:
// nodes listed once each, gpus per node.
func (c *Cluster) CrossingOfNodes(nodes []int, perNode int) Crossing {
	slots := make([]int, 0, len(nodes)*perNode)
	for _, n := range nodes {
		for i := 0; i < perNode; i++ {
			slots = append(slots, c.Nodes[n].FirstSlot+i)
		}
	}
	return c.CrossingOf(slots)
}

// TierLoad is a set of GPUs' traffic on one switch tier when they run
// alone on the fabric: the groups they lie in and, when more than one,
// the offered load and capacity of their most loaded uplink (GB/s).
type TierLoad struct {
	Tier                    string
	Groups                  int
	OfferedGBs, CapacityGBs float64
}

// Rate is the share of its offered load the uplink carries alone:
// min(1, capacity / offered); 1 when the tier is not crossed.
func (l TierLoad) Rate() float64 {
	if l.Groups <= 1 || l.OfferedGBs <= l.CapacityGBs {
		return 1
	}
	return l.CapacityGBs / l.OfferedGBs
}

// TierLoads returns the traffic of a job holding slots on each switch
// tier (nil without a topology, or when the slots lie in one fast domain:
// no network traffic). Each GPU offers the per-GPU network bandwidth on
// the uplinks of its groups, as the contention model has it.
func (c *Cluster) TierLoads(slots []int) []TierLoad {
	if c.net == nil || len(slots) == 0 {
		return nil
	}
	x := c.CrossingOf(slots)
	if !x.Crosses() {
		return nil
	}
	m := c.net
	bw := m.netGBs[c.Nodes[c.NodeOf(slots[0])].GPU]
	var out []TierLoad
	for k, t := range m.topo.Tiers {
		l := TierLoad{Tier: t.Name, Groups: x.Groups[k]}
		if l.Groups > 1 {
			per := map[int32]float64{}
			var groups []int32
			for _, s := range slots {
				g := m.group[k][c.NodeOf(s)]
				if _, ok := per[g]; !ok {
					groups = append(groups, g)
				}
				per[g] += bw
			}
			for _, g := range groups { // first-seen order: deterministic ties
				d := per[g]
				link := m.linkBase[k] + int(g)
				if d/m.capacity[link] > l.OfferedGBs/max(l.CapacityGBs, 1e-300) || l.CapacityGBs == 0 {
					l.OfferedGBs, l.CapacityGBs = d, m.capacity[link]
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// NetworkGBs and DomainGBs are the per-GPU bandwidths of a GPU type under
// the topology (its own or the catalog's); 0 without a topology.
func (c *Cluster) NetworkGBs(gpu string) float64 {
	if c.net == nil {
		return 0
	}
	return c.net.netGBs[gpu]
}

// DomainGBs: see NetworkGBs.
func (c *Cluster) DomainGBs(gpu string) float64 {
	if c.net == nil {
		return 0
	}
	return c.net.domGBs[gpu]
}

// PackedFactor is the factor on the iteration time of a job on shape cfg
// placed packed (the fewest fast domains and switch groups) on a loaded
// cluster, whose cross-node collectives take share of its estimator time:
// 1 − share + share·κ/r, κ the estimator's inter-node bandwidth over the
// tier's, and r = 1 / the largest oversubscription among the tiers it must
// cross: every GPU gets its per-GPU share of the uplinks it crosses when
// all the GPUs under them communicate (network_gbs / oversubscription, the
// tier's bandwidth per GPU). Inside one multi-node fast domain, κ is the
// domain's. 1 without a topology, on one node, or for a type the cluster
// lacks. Policies price grids with it (placement.TopologyPriced).
func (c *Cluster) PackedFactor(cfg estimator.Config, share float64) float64 {
	if c.net == nil || cfg.Nodes <= 1 || share <= 0 {
		return 1
	}
	m := c.net
	dom, ok := m.domGBs[cfg.GPU]
	if !ok {
		return 1
	}
	g, err := estimator.LookupGPU(cfg.GPU)
	if err != nil {
		return 1
	}
	share = min(share, 1)
	if cfg.Nodes <= m.topo.DomainNodes {
		return 1 - share + share*g.InterNodeGBs/dom
	}
	r := 1.0
	for _, t := range m.topo.Tiers {
		if cfg.Nodes > t.Nodes {
			r = min(r, 1/t.Oversubscription)
		}
	}
	return 1 - share + share*g.InterNodeGBs/m.netGBs[cfg.GPU]/r
}
