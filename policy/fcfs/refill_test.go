package fcfs_test

import (
	"context"
	"slices"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces"
)

// sameTable fails t unless tab is v's slot table: every slot, every
// node's idle count and, per type and size, the nodes PlaceMostFree reads
// (the index), each against a table built afresh from v.Occupant (no
// index: counted slot by slot).
func sameTable(t *testing.T, tab *placement.Table, v *sim.View) {
	t.Helper()
	if !slices.Equal(tab.Occupant, v.Occupant) {
		t.Fatalf("round %d: FCFS's table differs from the View's slot table", v.Round)
	}
	fresh := placement.NewTable(v.Cluster, v.Occupant)
	for n := range v.Cluster.Nodes {
		if got, want := tab.Free(n), fresh.Free(n); got != want {
			t.Fatalf("round %d: node %d has %d idle slots in FCFS's index, %d in the slot table", v.Round, n, got, want)
		}
	}
	for _, ty := range v.Cluster.Types {
		for q := 1; q <= v.Cluster.NodeCapacity(ty); q++ {
			if got, want := tab.NodesByFree(ty, q), fresh.NodesByFree(ty, q); !slices.Equal(got, want) {
				t.Fatalf("round %d: %s nodes with %d idle: index %v, slot table %v", v.Round, ty, q, got, want)
			}
		}
	}
}

// TestIncrementalRefillIsTheSlotTable: FCFS rewrites only the ended jobs'
// slots of its table between decisions (RefillSlots) instead of comparing
// the whole slot table (Refill). At every decision of a tiled Philly run
// that keeps a long queue and thousands of jobs ending, in both timings and
// with event-driven decisions, the table it plans on is the View's slot
// table, slot for slot and in its idle-slot index; and with the llama3
// faults (nodes down, jobs interrupted) it falls back to Refill and is
// still. Self-checking (no golden): it fails if an ended job's slots are
// missed, if the index is not moved with them, or if the fallback is not
// taken under faults.
func TestIncrementalRefillIsTheSlotTable(t *testing.T) {
	db, _ := estimator.DefaultProfileDB()
	est := db.View(estimator.ViewOptimal)
	tr, err := traces.Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	big, err := traces.Tile(tr, traces.TileOptions{Copies: 2, Overlap: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "quarter", Pools: []sim.Pool{
		{GPU: "a100", Nodes: 20, GPUsPerNode: 4}, {GPU: "v100", Nodes: 5, GPUsPerNode: 16},
		{GPU: "a40", Nodes: 40, GPUsPerNode: 2}, {GPU: "a10", Nodes: 40, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		timing   sim.Timing
		onEvents bool
	}{{sim.Artifact, false}, {sim.Exact, false}, {sim.Exact, true}} {
		cfg := sim.DefaultConfig(c, est)
		cfg.IterationScale = big.IterationScale
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.ScheduleOnEvents = mode.timing, 1500, sim.Overhead{PerGPU: 150, Cap: 600}, mode.onEvents
		cfg.Check = true
		f := fcfs.New(est)
		decisions := 0
		fcfs.OnRefill(f, func(tab *placement.Table, v *sim.View) { decisions++; sameTable(t, tab, v) })
		if _, err := sim.Run(context.Background(), cfg, f, big.Jobs); err != nil {
			t.Fatal(err)
		}
		partial := fcfs.PartialRefills(f)
		t.Logf("%s on-events=%v: %d decisions, %d refilled by the ended jobs' slots", mode.timing, mode.onEvents, decisions, partial)
		if partial < decisions/2 {
			t.Errorf("%s on-events=%v: only %d of %d decisions took the partial refill; the test would prove little", mode.timing, mode.onEvents, partial, decisions)
		}
	}

	// Faults: every decision refills the whole table.
	reg := policy.NewRegistry()
	e := fcfs.Entry()
	var made []*fcfs.FCFS
	checks := 0
	e.Name, e.New = "fcfs-checked", func(o registry.Options) (sim.Policy, error) {
		f := fcfs.New(o.Source.View(estimator.ViewOptimal))
		fcfs.OnRefill(f, func(tab *placement.Table, v *sim.View) { checks++; sameTable(t, tab, v) })
		made = append(made, f)
		return f, nil
	}
	if err := reg.Register(e); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Execute(context.Background(), reg, runner.Run{
		Trace: "philly", Cluster: "paper-1280", Policy: "fcfs-checked", Timing: sim.Exact, Faults: "llama3", Seed: 1, Check: true,
	}); err != nil {
		t.Fatal(err)
	}
	if len(made) != 1 || checks == 0 {
		t.Fatalf("faults run: %d policies made, %d decisions checked", len(made), checks)
	}
	if p := fcfs.PartialRefills(made[0]); p != 0 {
		t.Errorf("faults run: %d decisions took the partial refill, want none (nodes change under faults)", p)
	}
	t.Logf("faults run: %d decisions, every one refilled whole", checks)
}
