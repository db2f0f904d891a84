package fcfs_test

// Tests of FCFS's slot table refilled from the slots the engine wrote
// (placement.Table.RefillView over View.Written). Self-checking, no
// golden: at every decision the table FCFS plans on is compared with the
// View's slot table itself (slot for slot, idle counts and the idle-slot
// index against a table built afresh), in runs where the engine does not
// do what FCFS planned — quota(fcfs) vetoes its starts, starts jobs and
// suspends borrowers itself — and with cluster faults (nodes down, jobs
// interrupted). Planting a refill that skips FCFS's own writes, or the
// engine's, fails them (checked by hand, see bench/scale-1m-tiresias-fcfs.md).

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// tableDiff says how tab differs from v's slot table ("" if it does not):
// every slot, every node's idle count and, per type and size, the nodes
// PlaceMostFree reads (the index), against a table built afresh from
// v.Occupant (no index: counted slot by slot).
func tableDiff(tab *placement.Table, v *sim.View) string {
	if !slices.Equal(tab.Occupant, v.Occupant) {
		for s := range v.Occupant {
			if tab.Occupant[s] != v.Occupant[s] {
				return fmt.Sprintf("round %d: slot %d is %d in FCFS's table, %d in the View's", v.Round, s, tab.Occupant[s], v.Occupant[s])
			}
		}
	}
	fresh := placement.NewTable(v.Cluster, v.Occupant)
	for n := range v.Cluster.Nodes {
		if got, want := tab.Free(n), fresh.Free(n); got != want {
			return fmt.Sprintf("round %d: node %d has %d idle slots in FCFS's index, %d in the slot table", v.Round, n, got, want)
		}
	}
	for _, ty := range v.Cluster.Types {
		for q := 1; q <= v.Cluster.NodeCapacity(ty); q++ {
			if got, want := tab.NodesByFree(ty, q), fresh.NodesByFree(ty, q); !slices.Equal(got, want) {
				return fmt.Sprintf("round %d: %s nodes with %d idle: index %v, slot table %v", v.Round, ty, q, got, want)
			}
		}
	}
	return ""
}

// checker counts the decisions it checked and those whose View let the
// table take the partial refill (numbered right after the previous one,
// not "all").
type checker struct {
	decisions, partial int
	prev               uint64
	errs               []string
}

func (c *checker) check(tab *placement.Table, v *sim.View) {
	c.decisions++
	seq, _, all := v.Written()
	if seq == c.prev+1 && c.prev != 0 && !all {
		c.partial++
	}
	c.prev = seq
	if d := tableDiff(tab, v); d != "" && len(c.errs) < 5 {
		c.errs = append(c.errs, d)
	}
}

func (c *checker) report(t testing.TB, what string, minPartial int) {
	t.Helper()
	for _, e := range c.errs {
		t.Errorf("%s: %s", what, e)
	}
	t.Logf("%s: %d decisions checked, %d could refill partially", what, c.decisions, c.partial)
	if c.partial < minPartial {
		t.Errorf("%s: only %d of %d decisions could take the partial refill; the test would prove little", what, c.partial, c.decisions)
	}
}

// TestRefillFromWrittenSlots: a tiled Philly run with a long queue and
// thousands of jobs ending, in both timings and with event-driven
// decisions; then built-in Philly with the llama3 faults, FCFS alone and
// under quota(fcfs) with the philly-vcs guarantees and a grace (the
// wrapper vetoes, starts and suspends).
func TestRefillFromWrittenSlots(t *testing.T) {
	est, big, c := tiledPhillyOnQuarter(t)
	for _, mode := range []struct {
		timing   sim.Timing
		onEvents bool
	}{{sim.Artifact, false}, {sim.Exact, false}, {sim.Exact, true}} {
		cfg := sim.DefaultConfig(c, est)
		cfg.IterationScale = big.IterationScale
		cfg.Timing, cfg.Rounds, cfg.Overhead, cfg.ScheduleOnEvents = mode.timing, 1500, sim.Overhead{PerGPU: 150, Cap: 600}, mode.onEvents
		cfg.Check = true
		f := fcfs.New(est)
		var ck checker
		fcfs.OnRefill(f, ck.check)
		if _, err := sim.Run(context.Background(), cfg, f, big.Jobs); err != nil {
			t.Fatal(err)
		}
		ck.report(t, fmt.Sprintf("%s on-events=%v", mode.timing, mode.onEvents), ck.decisions/2)
	}

	// quota(fcfs) on the tiled trace, its jobs dealt to three tenants
	// guaranteed a third of each type each, with borrowing, a grace and
	// nodes failing (one an hour, back two hours later).
	vcJobs := slices.Clone(big.Jobs)
	for i := range vcJobs {
		vcJobs[i].VirtualCluster = fmt.Sprintf("vc%d", i%3)
	}
	var ts []tenants.Tenant
	for i := range 3 {
		g := map[string]int{}
		for _, ty := range c.Types {
			g[ty] = c.TotalGPUs(ty) / 3
		}
		ts = append(ts, tenants.Tenant{Name: fmt.Sprintf("vc%d", i), Guaranteed: g})
	}
	ten, err := tenants.New("thirds", false, ts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, onEvents := range []bool{false, true} {
		cfg := sim.DefaultConfig(c, est)
		cfg.IterationScale = big.IterationScale
		cfg.Timing, cfg.Rounds, cfg.ScheduleOnEvents, cfg.Check = sim.Exact, 1500, onEvents, true
		for h := 1; h < 100; h++ {
			n := (h * 7) % len(c.Nodes)
			cfg.Events = append(cfg.Events, sim.ClusterEvent{Time: sim.Time(3600 * h), Node: n, Kind: sim.NodeDown, Cause: "gpu"})
		}
		for h := 1; h < 100; h++ {
			n := (h * 7) % len(c.Nodes)
			cfg.Events = append(cfg.Events, sim.ClusterEvent{Time: sim.Time(3600*h + 7200), Node: n, Kind: sim.NodeUp})
		}
		slices.SortStableFunc(cfg.Events, func(a, b sim.ClusterEvent) int { return int(a.Time - b.Time) })
		f := fcfs.New(est)
		var ck checker
		fcfs.OnRefill(f, ck.check)
		q, err := quota.New(f, c, est, quota.Config{Tenants: ten, Borrow: true, Grace: 600})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(context.Background(), cfg, q, vcJobs); err != nil {
			t.Fatal(err)
		}
		st := q.QuotaStats()
		ck.report(t, fmt.Sprintf("quota(fcfs) with faults on-events=%v (%d reclaims, %d vetoed, %d owner starts)", onEvents, st.Reclaims, st.Vetoed, st.OwnerStarts), ck.decisions/2)
		if st.Reclaims == 0 || st.Vetoed == 0 {
			t.Errorf("quota(fcfs) on-events=%v: the wrapper neither reclaimed nor vetoed; the test would prove little", onEvents)
		}
	}

	for _, pol := range []string{"fcfs-checked"} {
		reg := policy.NewRegistry()
		e := fcfs.Entry()
		var ck checker
		made := 0
		e.Name, e.New = "fcfs-checked", func(o registry.Options) (sim.Policy, error) {
			f := fcfs.New(o.Source.View(estimator.ViewOptimal))
			fcfs.OnRefill(f, ck.check)
			made++
			return f, nil
		}
		if err := reg.Register(e); err != nil {
			t.Fatal(err)
		}
		res, err := runner.Execute(context.Background(), reg, runner.Run{
			Trace: "philly", Cluster: "paper-1280", Policy: pol, Timing: sim.Exact, Faults: "llama3", Seed: 1, Check: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if made != 1 {
			t.Fatalf("%s: %d policies made", pol, made)
		}
		ck.report(t, pol+" with llama3 faults", ck.decisions/2)
		_ = res
	}
}

// TestRefillUnderQuotaRandom: random small runs of quota(fcfs) with
// tight guarantees, borrowing and a grace (so the wrapper vetoes FCFS's
// starts, reclaims and starts owners itself), with random node failures,
// drains and repairs: the table FCFS plans on is the View's slot table at
// every decision.
func TestRefillUnderQuotaRandom(t *testing.T) {
	db, _ := estimator.DefaultProfileDB()
	est := db.View(estimator.ViewOptimal)
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "prop", Pools: []sim.Pool{{GPU: "a40", Nodes: 3, GPUsPerNode: 2}, {GPU: "a10", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := estimator.ParseModel("moe__690M")
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]int{"a40": 6, "a10": 8}
	partial := 0
	rapid.Check(t, func(rt *rapid.T) {
		nt := rapid.IntRange(1, 3).Draw(rt, "tenants")
		var ts []tenants.Tenant
		left := map[string]int{"a40": 6, "a10": 8}
		for i := range nt {
			g := map[string]int{}
			for _, gpu := range []string{"a40", "a10"} {
				n := rapid.IntRange(0, left[gpu]).Draw(rt, fmt.Sprintf("g%d%s", i, gpu))
				g[gpu], left[gpu] = n, left[gpu]-n
			}
			ts = append(ts, tenants.Tenant{Name: fmt.Sprintf("vc%d", i), Guaranteed: g})
		}
		ten, err := tenants.New("prop", false, ts...)
		if err != nil {
			rt.Fatal(err)
		}
		nj := rapid.IntRange(1, 30).Draw(rt, "jobs")
		jobs := make([]sim.JobSpec, nj)
		for i := range jobs {
			gpu := rapid.SampledFrom([]string{"a40", "a10"}).Draw(rt, "gpu")
			jobs[i] = sim.JobSpec{Name: fmt.Sprint("j", i),
				Submit:     sim.Time(rapid.IntRange(0, 6000).Draw(rt, "submit")),
				Workload:   estimator.Workload{Model: m, Batch: 256},
				Iterations: int64(rapid.IntRange(10, 5000).Draw(rt, "iters")),
				GPU:        gpu, GPUs: rapid.SampledFrom([]int{1, 1, 2, 4}).Draw(rt, "gpus"),
				VirtualCluster: fmt.Sprintf("vc%d", rapid.IntRange(0, nt).Draw(rt, "vc")),
			}
			if i == 0 {
				jobs[i].VirtualCluster = "vc0" // some job is a listed tenant's
			}
			jobs[i].GPUs = min(jobs[i].GPUs, total[gpu]/2)
		}
		slices.SortStableFunc(jobs, func(a, b sim.JobSpec) int { return int(a.Submit - b.Submit) })
		for i := range jobs {
			jobs[i].ID = sim.JobID(i)
		}
		cfg := sim.DefaultConfig(c, est)
		cfg.Timing, cfg.Rounds, cfg.Check = sim.Exact, 40, true
		cfg.ScheduleOnEvents = rapid.Bool().Draw(rt, "onEvents")
		ne := rapid.IntRange(0, 6).Draw(rt, "events")
		at := 0
		for range ne {
			at += rapid.IntRange(1, 3000).Draw(rt, "gap")
			n := rapid.IntRange(0, len(c.Nodes)-1).Draw(rt, "node")
			if rapid.Bool().Draw(rt, "drain") {
				cfg.Events = append(cfg.Events, sim.ClusterEvent{Time: sim.Time(at), Node: n, Kind: sim.NodeDrain, Notice: 600})
			} else {
				cfg.Events = append(cfg.Events, sim.ClusterEvent{Time: sim.Time(at), Node: n, Kind: sim.NodeDown, Cause: "gpu"})
			}
			cfg.Events = append(cfg.Events, sim.ClusterEvent{Time: sim.Time(at + rapid.IntRange(600, 4000).Draw(rt, "down")), Node: n, Kind: sim.NodeUp})
		}
		slices.SortStableFunc(cfg.Events, func(a, b sim.ClusterEvent) int { return int(a.Time - b.Time) })
		f := fcfs.New(est)
		var ck checker
		fcfs.OnRefill(f, ck.check)
		grace := sim.Duration(rapid.SampledFrom([]int{0, 300, 900}).Draw(rt, "grace"))
		q, err := quota.New(f, c, est, quota.Config{Tenants: ten, Borrow: true, Grace: grace})
		if err != nil {
			rt.Fatal(err)
		}
		if _, err := sim.Run(context.Background(), cfg, q, jobs); err != nil {
			rt.Fatal(err)
		}
		for _, e := range ck.errs {
			rt.Error(e)
		}
		partial += ck.partial
	})
	if partial == 0 {
		t.Error("no decision could take the partial refill; the test would prove little")
	}
}
