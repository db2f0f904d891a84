package placement

import (
	"math/bits"
	"slices"
)

// groupIndex keeps, for a Table on a cluster with a topology, how many
// nodes of every fast domain and switch group have at least q idle slots
// (q = 1 … the largest node), and per GPU type, level, q and count c a
// bitset of the groups holding exactly c such nodes. PlaceWithin then
// finds the best-fitting group of a level by reading the lowest set bit
// of the buckets need, need+1, … instead of counting the candidates of
// every node per group: a placement visits the words of the buckets up to
// the first group with room and the nodes of that one group, not every
// node of the cluster (bench/scale-1m-topology.md). It is built on the
// first PlaceWithin and kept current by freeIndex.add. A group is one run
// of consecutive nodes of one type (sim's topology restarts at each pool).
type groupIndex struct {
	levels []int       // LevelDomain, then the tiers, innermost first
	size   []int       // per level: the most nodes a group holds
	start  [][]int32   // per level: first node of group g (len groups+1)
	group  [][]int32   // per level: each node's group
	cnt    [][][]int32 // per level, per q: nodes with ≥ q idle slots per group
	// sets[ty][lv][q][c]: bitset over the level's groups of type ty with
	// exactly c nodes of ≥ q idle slots.
	sets [][][][][]uint64
	// visits counts the words and nodes a search read (tests: the work of
	// a placement, not its time).
	visits int
}

// groups returns ix's group index, building it if needed.
func (ix *freeIndex) groups() *groupIndex {
	if ix.grp != nil {
		return ix.grp
	}
	s := ix.shape
	c := s.cluster
	top := c.Topology()
	maxCap := 0
	for _, m := range s.cap {
		maxCap = max(maxCap, m)
	}
	gi := &groupIndex{levels: []int{LevelDomain}, size: []int{top.DomainNodes}}
	for k, tr := range top.Tiers {
		gi.levels = append(gi.levels, k)
		gi.size = append(gi.size, tr.Nodes)
	}
	gi.sets = make([][][][][]uint64, len(s.nodes))
	for ty := range gi.sets {
		gi.sets[ty] = make([][][][]uint64, len(gi.levels))
	}
	for lv, k := range gi.levels {
		ng := groupsAt(c, k)
		grp := make([]int32, len(c.Nodes))
		start := make([]int32, ng+1)
		for n := len(c.Nodes) - 1; n >= 0; n-- {
			g := groupAt(c, k, n)
			grp[n] = int32(g)
			start[g] = int32(n)
		}
		start[ng] = int32(len(c.Nodes))
		gi.group = append(gi.group, grp)
		gi.start = append(gi.start, start)
		cnt := make([][]int32, maxCap+1)
		for q := range cnt {
			cnt[q] = make([]int32, ng)
		}
		for n, f := range ix.free {
			for q := 1; q <= int(f); q++ {
				cnt[q][grp[n]]++
			}
		}
		gi.cnt = append(gi.cnt, cnt)
		words := (ng + 63) / 64
		for ty := range gi.sets {
			gi.sets[ty][lv] = make([][][]uint64, maxCap+1)
			for q := 1; q <= maxCap; q++ {
				gi.sets[ty][lv][q] = make([][]uint64, gi.size[lv]+1)
				for m := range gi.sets[ty][lv][q] {
					gi.sets[ty][lv][q][m] = make([]uint64, words)
				}
			}
		}
		for g := 0; g < ng; g++ {
			ty := s.typeOf[start[g]]
			for q := 1; q <= maxCap; q++ {
				gi.sets[ty][lv][q][cnt[q][g]][g>>6] |= 1 << (g & 63)
			}
		}
	}
	ix.grp = gi
	return gi
}

// moved records node n (of type ty) going from f to to idle slots.
func (gi *groupIndex) moved(ty int32, n int, f, to int32) {
	d, lo, hi := int32(1), f+1, to
	if to < f {
		d, lo, hi = -1, to+1, f
	}
	for lv := range gi.levels {
		g := gi.group[lv][n]
		for q := lo; q <= hi; q++ {
			m := gi.cnt[lv][q][g]
			sets := gi.sets[ty][lv][q]
			sets[m][g>>6] &^= 1 << (g & 63)
			sets[m+d][g>>6] |= 1 << (g & 63)
			gi.cnt[lv][q][g] = m + d
		}
	}
}

// bestGroup returns, at level lv, the group of type ty with the fewest
// nodes of ≥ q idle slots among those with at least need (ties: the
// lowest group), or -1: bestFit's choice, read off the buckets.
func (gi *groupIndex) bestGroup(ty, lv, q, need int) int {
	sets := gi.sets[ty][lv][q]
	for m := need; m < len(sets); m++ {
		for w, word := range sets[m] {
			gi.visits++
			if word != 0 {
				return w<<6 | bits.TrailingZeros64(word)
			}
		}
	}
	return -1
}

// pick returns the need nodes of group g of level lv with ≥ q idle slots
// that byFree lists first: most idle first, node order among equals.
func (gi *groupIndex) pick(ix *freeIndex, lv, g, q, need int) []int {
	var nodes []int
	for n := gi.start[lv][g]; n < gi.start[lv][g+1]; n++ {
		gi.visits++
		if int(ix.free[n]) >= q {
			nodes = append(nodes, int(n))
		}
	}
	slices.SortStableFunc(nodes, func(a, b int) int { return int(ix.free[b]) - int(ix.free[a]) })
	return nodes[:need]
}

// spread returns the need nodes with ≥ q idle slots that PackNodes's
// spread takes from byFree's list: the groups of level lv of type ty with
// the most such nodes first (the lowest group among equals), inside a
// group most idle first (node order among equals), until need nodes. It
// reads the buckets from the fullest down and the nodes of the groups it
// takes. The caller has checked that the type has need such nodes.
func (gi *groupIndex) spread(ix *freeIndex, lv, ty, q, need int) []int {
	sets := gi.sets[ty][lv][q]
	out := make([]int, 0, need)
	for m := len(sets) - 1; m >= 1 && len(out) < need; m-- {
		for w, word := range sets[m] {
			gi.visits++
			for word != 0 && len(out) < need {
				g := w<<6 | bits.TrailingZeros64(word)
				word &= word - 1
				out = append(out, gi.pick(ix, lv, g, q, min(m, need-len(out)))...)
			}
			if len(out) == need {
				break
			}
		}
	}
	return out
}
