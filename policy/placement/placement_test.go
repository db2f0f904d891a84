package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

const (
	free = sim.NoJob
	x    = sim.JobID(90) // a job already running
	y    = sim.JobID(91)
)

// smallCluster: three A100 nodes of 4 GPUs (slots 0–3, 4–7, 8–11), then
// two A40 nodes of 2 (slots 12–13, 14–15).
func smallCluster(t testing.TB) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "small", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 3, GPUsPerNode: 4},
		{GPU: "a40", Nodes: 2, GPUsPerNode: 2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func table(t *testing.T, occ ...sim.JobID) *placement.Table {
	t.Helper()
	c := smallCluster(t)
	if len(occ) != c.NumSlots() {
		t.Fatalf("%d occupants for %d slots", len(occ), c.NumSlots())
	}
	return placement.NewTable(c, occ)
}

func a100(nodes, perNode int) estimator.Config {
	return estimator.Config{GPU: "a100", Nodes: nodes, PerNode: perNode}
}

// Hand-worked: node 0 has 2 idle GPUs (slots 2, 3), node 1 all 4, node 2
// three (slot 8 busy). Most free first: 1 (4), 2 (3), 0 (2).
func TestPlaceMostFreeTakesTheMostIdleNodesFirst(t *testing.T) {
	occ := []sim.JobID{x, x, free, free /**/, free, free, free, free /**/, y, free, free, free /**/, free, free, free, free}
	tb := table(t, occ...)
	if got := tb.NodesByFree("a100", 1); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("NodesByFree(a100, 1) = %v, want [1 2 0]", got)
	}
	if got := tb.NodesByFree("a100", 3); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("NodesByFree(a100, 3) = %v, want [1 2] (node 0 has only 2 idle)", got)
	}
	// One node of 2: node 1, its first idle slots.
	if slots, ok := tb.Clone().PlaceMostFree(1, a100(1, 2)); !ok || !slices.Equal(slots, []int{4, 5}) {
		t.Errorf("1×2: %v, %v; want [4 5] on node 1", slots, ok)
	}
	// Two nodes of 2: nodes 1 and 2; on node 2 the first idle slots are
	// 9 and 10 (8 is busy).
	if slots, ok := tb.Clone().PlaceMostFree(1, a100(2, 2)); !ok || !slices.Equal(slots, []int{4, 5, 9, 10}) {
		t.Errorf("2×2: %v, %v; want [4 5 9 10]", slots, ok)
	}
	// Three nodes of 2: every A100 node; node 0 last (fewest idle).
	if slots, ok := tb.Clone().PlaceMostFree(1, a100(3, 2)); !ok || !slices.Equal(slots, []int{4, 5, 9, 10, 2, 3}) {
		t.Errorf("3×2: %v, %v; want [4 5 9 10 2 3]", slots, ok)
	}
}

// Hand-worked packing on an idle cluster: equal idle GPUs are broken by
// node order, so jobs fill node 0, then the tie between nodes 1 and 2
// (4 idle each) goes to node 1; a 2-GPU job on node 1 then leaves node 2
// the most idle for the next one.
func TestPlaceMostFreeTiesGoToNodeOrder(t *testing.T) {
	tb := placement.NewTable(smallCluster(t), slices.Repeat([]sim.JobID{free}, 16))
	if got := tb.NodesByFree("a100", 1); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("idle cluster: NodesByFree = %v, want node order [0 1 2]", got)
	}
	steps := []struct {
		job  sim.JobID
		c    estimator.Config
		want []int
	}{
		{1, a100(1, 4), []int{0, 1, 2, 3}}, // all tied at 4: node 0
		{2, a100(1, 2), []int{4, 5}},       // nodes 1, 2 tied at 4: node 1
		{3, a100(1, 2), []int{8, 9}},       // node 2 (4) before node 1 (2)
		{4, a100(1, 2), []int{6, 7}},       // nodes 1, 2 tied at 2: node 1
		{5, a100(1, 2), []int{10, 11}},     // node 2 the only one left
		{6, estimator.Config{GPU: "a40", Nodes: 2, PerNode: 1}, []int{12, 14}},
	}
	for _, s := range steps {
		slots, ok := tb.PlaceMostFree(s.job, s.c)
		if !ok || !slices.Equal(slots, s.want) {
			t.Fatalf("job %d (%+v): %v, %v; want %v", s.job, s.c, slots, ok, s.want)
		}
	}
	if n := tb.FreeOfType("a100"); n != 0 {
		t.Errorf("%d A100s idle after filling all 12", n)
	}
	if got := tb.SlotsOf(2); !slices.Equal(got, []int{4, 5}) {
		t.Errorf("SlotsOf(2) = %v", got)
	}
}

// Refusals: 6 A100s are idle but spread 2 per node, so a 4-GPU node or
// four nodes cannot be had; the table is left as it was. A type the
// cluster lacks is refused too.
func TestPlaceMostFreeRefusesWhenCapacityIsShort(t *testing.T) {
	occ := []sim.JobID{x, x, free, free /**/, free, y, y, free /**/, free, free, x, x /**/, free, free, free, free}
	for _, c := range []estimator.Config{a100(1, 4), a100(1, 3), a100(4, 1), a100(2, 3), {GPU: "a40", Nodes: 3, PerNode: 1}, {GPU: "v100", Nodes: 1, PerNode: 1}} {
		tb := table(t, occ...)
		if slots, ok := tb.PlaceMostFree(1, c); ok {
			t.Errorf("%+v placed on %v, want a refusal (A100 idle per node: %d %d %d)", c, slots, tb.Free(0), tb.Free(1), tb.Free(2))
		}
		if !slices.Equal(tb.Occupant, occ) {
			t.Errorf("%+v: a refusal changed the table: %v", c, tb.Occupant)
		}
	}
	// What does fit: three nodes of 2, each node's idle pair.
	tb := table(t, occ...)
	if slots, ok := tb.PlaceMostFree(1, a100(3, 2)); !ok || !slices.Equal(slots, []int{2, 3, 4, 7, 8, 9}) {
		t.Errorf("3×2: %v, %v; want [2 3 4 7 8 9]", slots, ok)
	}
}

// Take: the first q slots of the node that are idle or already the job's;
// too few leaves the table unchanged. Clear releases them all.
func TestTakeAndClear(t *testing.T) {
	occ := []sim.JobID{x, 1, free, x /**/, free, free, free, free /**/, free, free, free, free /**/, free, free, free, free}
	tb := table(t, occ...)
	if got, ok := tb.Take(1, 0, 2); !ok || !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Take(1, node 0, 2) = %v, %v; want its own slot 1 and idle slot 2", got, ok)
	}
	before := slices.Clone(tb.Occupant)
	if got, ok := tb.Take(2, 0, 1); ok {
		t.Errorf("Take(2, node 0, 1) = %v on a full node", got)
	}
	if !slices.Equal(tb.Occupant, before) {
		t.Error("a failed Take changed the table")
	}
	tb.Clear(1)
	if got := tb.SlotsOf(1); len(got) != 0 || tb.Free(0) != 2 {
		t.Errorf("after Clear(1): slots %v, node 0 idle %d; want none, 2", got, tb.Free(0))
	}
	// Clone is independent.
	c := tb.Clone()
	c.Take(3, 1, 4)
	if tb.Free(1) != 4 {
		t.Error("Clone shares the slot table")
	}
}

// feasibleUpTo is an estimator that finds a shape feasible while it has at
// least minPerNode GPUs per node.
type feasibleUpTo struct{ minPerNode int }

func (feasibleUpTo) Name() string { return "test" }
func (f feasibleUpTo) Estimate(w estimator.Workload, c estimator.Config) estimator.Estimate {
	if c.PerNode >= f.minPerNode {
		return estimator.Estimate{Throughput: 1, IterTime: 1}
	}
	return estimator.Estimate{}
}

// PlaceRelaxed halves the GPUs per node while the shape stays feasible:
// with 2 idle A100s on each node a 4-GPU job goes 1×4 (no node) → 2×2
// (nodes 0, 1); if 2 per node is infeasible it stops there; 1×1 cannot
// be relaxed further.
func TestPlaceRelaxed(t *testing.T) {
	occ := []sim.JobID{x, x, free, free /**/, free, free, y, y /**/, free, free, x, x /**/, x, x, x, x}
	var w estimator.Workload
	tb := table(t, occ...)
	slots, c, ok := tb.PlaceRelaxed(1, w, a100(1, 4), feasibleUpTo{1})
	if !ok || c != a100(2, 2) || !slices.Equal(slots, []int{2, 3, 4, 5}) {
		t.Errorf("relaxed: %v %+v %v; want [2 3 4 5] as 2×2", slots, c, ok)
	}
	tb = table(t, occ...)
	if slots, c, ok := tb.PlaceRelaxed(1, w, a100(1, 4), feasibleUpTo{4}); ok || c != a100(2, 2) || !slices.Equal(tb.Occupant, occ) {
		t.Errorf("2×2 infeasible: %v %+v %v; want a refusal at 2×2, table unchanged", slots, c, ok)
	}
	tb = table(t, occ...)
	if _, c, ok := tb.PlaceRelaxed(1, w, estimator.Config{GPU: "a40", Nodes: 1, PerNode: 1}, feasibleUpTo{1}); ok || c.PerNode != 1 {
		t.Errorf("no idle A40: %+v %v; want a refusal at 1 per node", c, ok)
	}
}

func TestBest(t *testing.T) {
	c := smallCluster(t)
	for _, tc := range []struct {
		gpu  string
		n    int
		want estimator.Config
	}{
		{"a100", 3, a100(1, 3)}, {"a100", 4, a100(1, 4)}, {"a100", 8, a100(2, 4)}, {"a40", 4, estimator.Config{GPU: "a40", Nodes: 2, PerNode: 2}},
	} {
		if got := placement.Best(c, tc.gpu, tc.n); got != tc.want {
			t.Errorf("Best(%s, %d) = %+v, want %+v", tc.gpu, tc.n, got, tc.want)
		}
	}
}

// randomTable draws a cluster (1–3 pools of A100 or A40 nodes, pools of a
// type may differ in size) and an occupancy (each slot idle or one of
// three running jobs).
func randomTable(t *rapid.T) *placement.Table {
	var pools []sim.Pool
	for i := range rapid.IntRange(1, 3).Draw(t, "pools") {
		pools = append(pools, sim.Pool{
			GPU:         rapid.SampledFrom([]string{"a100", "a40"}).Draw(t, fmt.Sprintf("gpu%d", i)),
			Nodes:       rapid.IntRange(1, 5).Draw(t, fmt.Sprintf("nodes%d", i)),
			GPUsPerNode: rapid.IntRange(1, 8).Draw(t, fmt.Sprintf("perNode%d", i)),
		})
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "random", Pools: pools})
	if err != nil {
		t.Fatal(err)
	}
	occ := make([]sim.JobID, c.NumSlots())
	for s := range occ {
		occ[s] = rapid.SampledFrom([]sim.JobID{free, free, x, y, 92}).Draw(t, "occupant")
	}
	return placement.NewTable(c, occ)
}

func randomShape(t *rapid.T) estimator.Config {
	return estimator.Config{
		GPU:     rapid.SampledFrom([]string{"a100", "a40"}).Draw(t, "gpu"),
		Nodes:   rapid.IntRange(1, 4).Draw(t, "shapeNodes"),
		PerNode: rapid.IntRange(1, 8).Draw(t, "shapePerNode"),
	}
}

// PlaceMostFree on any table and shape: it places exactly when enough
// nodes of the type have PerNode idle GPUs; a placement takes PerNode
// previously idle slots on each of Nodes distinct nodes of the type (the
// first idle ones of each node), no slot twice, on the nodes with the
// most idle GPUs (ties to the lower node index), and changes nothing
// else; a refusal changes nothing.
func TestPlaceMostFreeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tb := randomTable(t)
		c := randomShape(t)
		cl := tb.Cluster
		before := slices.Clone(tb.Occupant)
		freeBefore := make([]int, len(cl.Nodes))
		enough := 0
		for n := range cl.Nodes {
			freeBefore[n] = tb.Free(n)
			if cl.Nodes[n].GPU == c.GPU && freeBefore[n] >= c.PerNode {
				enough++
			}
		}
		const job = sim.JobID(1)
		slots, ok := tb.PlaceMostFree(job, c)
		if ok != (enough >= c.Nodes) {
			t.Fatalf("ok = %v with %d nodes of %s having ≥ %d idle, shape needs %d", ok, enough, c.GPU, c.PerNode, c.Nodes)
		}
		if !ok {
			if !slices.Equal(tb.Occupant, before) {
				t.Fatal("a refusal changed the table")
			}
			return
		}
		if len(slots) != c.Nodes*c.PerNode {
			t.Fatalf("%d slots for %+v", len(slots), c)
		}
		perNode := map[int][]int{}
		var order []int
		seen := map[int]bool{}
		for _, s := range slots {
			if seen[s] {
				t.Fatalf("slot %d given twice: %v", s, slots)
			}
			seen[s] = true
			if before[s] != free {
				t.Fatalf("slot %d was held by job %d", s, before[s])
			}
			n := cl.NodeOf(s)
			if cl.Nodes[n].GPU != c.GPU {
				t.Fatalf("slot %d is on a %s node, want %s", s, cl.Nodes[n].GPU, c.GPU)
			}
			if _, ok := perNode[n]; !ok {
				order = append(order, n)
			}
			perNode[n] = append(perNode[n], s)
		}
		if len(perNode) != c.Nodes {
			t.Fatalf("slots on %d nodes, want %d", len(perNode), c.Nodes)
		}
		for n, ss := range perNode {
			var firstIdle []int
			for s := cl.Nodes[n].FirstSlot; s < cl.Nodes[n].FirstSlot+cl.Nodes[n].Capacity && len(firstIdle) < c.PerNode; s++ {
				if before[s] == free {
					firstIdle = append(firstIdle, s)
				}
			}
			if !slices.Equal(ss, firstIdle) {
				t.Fatalf("node %d: slots %v, want its first idle %v", n, ss, firstIdle)
			}
		}
		// Most idle first, ties by node order: the chosen nodes, in the
		// order taken, are a prefix of the eligible nodes so sorted.
		var eligible []int
		for _, n := range cl.NodesOfType(c.GPU) {
			if freeBefore[n] >= c.PerNode {
				eligible = append(eligible, n)
			}
		}
		slices.SortStableFunc(eligible, func(a, b int) int {
			if freeBefore[a] != freeBefore[b] {
				return freeBefore[b] - freeBefore[a]
			}
			return a - b
		})
		if !slices.Equal(order, eligible[:c.Nodes]) {
			t.Fatalf("nodes taken %v, want the most idle %v (idle per node %v)", order, eligible[:c.Nodes], freeBefore)
		}
		for s := range tb.Occupant {
			want := before[s]
			if seen[s] {
				want = job
			}
			if tb.Occupant[s] != want {
				t.Fatalf("slot %d: %d, want %d", s, tb.Occupant[s], want)
			}
		}
	})
}

// A sequence of new jobs placed one after another never shares a GPU, and
// each job holds exactly the slots it was given; the idle count falls by
// what was placed.
func TestPlacementsNeverShareAGPU(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tb := randomTable(t)
		given := map[sim.JobID][]int{}
		owner := map[int]sim.JobID{}
		for j := range rapid.IntRange(1, 8).Draw(t, "jobs") {
			job := sim.JobID(j + 1)
			c := randomShape(t)
			idle := tb.FreeOfType(c.GPU)
			slots, ok := tb.PlaceMostFree(job, c)
			if !ok {
				if tb.FreeOfType(c.GPU) != idle {
					t.Fatal("a refusal changed the idle count")
				}
				continue
			}
			if got := tb.FreeOfType(c.GPU); got != idle-len(slots) {
				t.Fatalf("idle %s: %d → %d after placing %d", c.GPU, idle, got, len(slots))
			}
			for _, s := range slots {
				if o, dup := owner[s]; dup {
					t.Fatalf("slot %d given to job %d and job %d", s, o, job)
				}
				owner[s] = job
			}
			given[job] = slots
		}
		for job, slots := range given {
			got := tb.SlotsOf(job)
			want := slices.Sorted(slices.Values(slots))
			if !slices.Equal(got, want) {
				t.Fatalf("job %d holds %v, was given %v", job, got, want)
			}
		}
	})
}

// NodesByFree on any table: exactly the nodes of the type with at least q
// idle GPUs, most idle first, ties in node order.
func TestNodesByFreeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tb := randomTable(t)
		gpu := rapid.SampledFrom([]string{"a100", "a40"}).Draw(t, "gpu")
		q := rapid.IntRange(0, 9).Draw(t, "q")
		got := tb.NodesByFree(gpu, q)
		var want []int
		for n, node := range tb.Cluster.Nodes {
			if node.GPU == gpu && tb.Free(n) >= q {
				want = append(want, n)
			}
		}
		slices.SortFunc(want, func(a, b int) int {
			if fa, fb := tb.Free(a), tb.Free(b); fa != fb {
				return fb - fa
			}
			return a - b
		})
		if !slices.Equal(got, want) {
			t.Fatalf("NodesByFree(%s, %d) = %v, want %v", gpu, q, got, want)
		}
	})
}

// Hand-worked: the relaxed-locality walk halves a power-of-two job's GPUs
// per node (the artifact's) and keeps any other job on uniform grids.
func TestRelaxAnySize(t *testing.T) {
	walk := func(c estimator.Config) []string {
		out := []string{c.String()}
		for c.PerNode > 1 {
			c = placement.Relax(c)
			out = append(out, c.String())
		}
		return out
	}
	for _, c := range []struct {
		start estimator.Config
		want  string
	}{
		{estimator.Config{GPU: "a100", Nodes: 2, PerNode: 4}, "[a100:2x4 a100:4x2 a100:8x1]"},
		{estimator.Config{GPU: "v100", Nodes: 2, PerNode: 12}, "[v100:2x12 v100:4x6 v100:8x3 v100:24x1]"},
		{estimator.Config{GPU: "a40", Nodes: 1, PerNode: 6}, "[a40:1x6 a40:2x3 a40:6x1]"},
		{estimator.Config{GPU: "a40", Nodes: 1, PerNode: 7}, "[a40:1x7 a40:7x1]"},
	} {
		if got := fmt.Sprint(walk(c.start)); got != c.want {
			t.Errorf("walk from %s = %s, want %s", c.start, got, c.want)
		}
	}
}

// TestPlaceMostFreeAllocatesOnlyItsResult: the slots of a 2 × 2 placement
// on the hand-worked table above (nodes 1 and 2, the most idle; node 2's
// first idle slots are 9 and 10, slot 8 busy) are built in one allocation,
// the returned slice itself, with no room past its slots (so that a later
// append by whoever keeps it cannot write into another job's), and the
// table's index follows. Fails if Take's per-node slices come back.
func TestPlaceMostFreeAllocatesOnlyItsResult(t *testing.T) {
	occ := []sim.JobID{x, x, free, free /**/, free, free, free, free /**/, y, free, free, free /**/, free, free, free, free}
	tb := table(t, occ...)
	tb.NodesByFree("a100", 1) // builds the index
	slots, ok := tb.PlaceMostFree(1, a100(2, 2))
	if !ok || !slices.Equal(slots, []int{4, 5, 9, 10}) || cap(slots) != len(slots) {
		t.Fatalf("PlaceMostFree(2 × 2) = %v (cap %d), %v; want [4 5 9 10], cap 4", slots, cap(slots), ok)
	}
	if got := tb.NodesByFree("a100", 2); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("after it, NodesByFree(a100, 2) = %v, want [0 1] (2 idle each; node 2 has 1)", got)
	}
	tb.Begin()
	allocs := testing.AllocsPerRun(100, func() {
		tb.Undo()
		tb.Begin()
		if _, ok := tb.PlaceMostFree(2, a100(2, 2)); !ok {
			t.Fatal("placement failed")
		}
	})
	if allocs != 1 {
		t.Errorf("PlaceMostFree allocates %v times per placement, want 1 (its result)", allocs)
	}
}
