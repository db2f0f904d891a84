package sim

import (
	"cmp"
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/arena-sim/arena/estimator"
)

// greedy starts pending jobs on the first free best-locality slots of their
// requested type; it exercises the engine without policy cost.
type greedy struct{}

func (greedy) Name() string { return "greedy" }
func (greedy) Schedule(v *View) ([]Action, error) {
	used := map[int]bool{}
	var acts []Action
	for _, j := range append(append([]*Job(nil), v.Pending...), v.Arrivals...) {
		var slots []int
		for _, n := range v.Cluster.NodesOfType(j.Spec.GPU) {
			node := v.Cluster.Nodes[n]
			if node.Capacity < j.Spec.GPUs {
				break
			}
			slots = slots[:0]
			for s := node.FirstSlot; s < node.FirstSlot+node.Capacity && len(slots) < j.Spec.GPUs; s++ {
				if v.Occupant[s] == NoJob && !used[s] {
					slots = append(slots, s)
				}
			}
			if len(slots) == j.Spec.GPUs {
				break
			}
		}
		if len(slots) == j.Spec.GPUs {
			for _, s := range slots {
				used[s] = true
			}
			acts = append(acts, Action{Kind: Start, Job: j.Spec.ID, GPUs: append([]int(nil), slots...)})
		}
	}
	return acts, nil
}

// BenchmarkEngine reports events per second of both timing modes on a
// synthetic stream of short single-node jobs (one arrival every 30 s).
func BenchmarkEngine(b *testing.B) {
	db, _ := estimator.DefaultProfileDB()
	m, _ := estimator.ParseModel("gpt-760m")
	c, _ := NewCluster(ClusterSpec{Name: "bench", Pools: []Pool{{GPU: "a40", Nodes: 256, GPUsPerNode: 2}}})
	specs := make([]JobSpec, 20000)
	for i := range specs {
		specs[i] = JobSpec{ID: JobID(i), Submit: Time(30 * i), Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(500 + i%7*300), GPU: "a40", GPUs: 1 + i%2}
	}
	for _, timing := range []Timing{Exact, Artifact} {
		b.Run(fmt.Sprint(timing), func(b *testing.B) {
			cfg := DefaultConfig(c, db.View(estimator.ViewOptimal))
			cfg.IterationScale = 5 // the artifact simulation traces' ÷5
			cfg.Timing, cfg.Rounds, cfg.Overhead = timing, 2000, Overhead{PerGPU: 10, Cap: 40}
			events := 0
			for b.Loop() {
				res, err := Run(context.Background(), cfg, greedy{}, specs)
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// noop never acts: the engine's own cost per event (arrivals, rounds).
type noop struct{ quiet bool }

func (noop) Name() string                     { return "noop" }
func (noop) Schedule(*View) ([]Action, error) { return nil, nil }
func (n noop) IdleWhenQuiet() bool            { return n.quiet }
func (noop) ReadsViewOnly() bool              { return true }

// BenchmarkEngineNoop reports the events per second of the engine alone: a
// policy that never acts, 20,000 arrivals over 2000 rounds on 1,280 GPUs,
// with the policy called every round (plain) or only when jobs arrive
// (quiet: sim.QuietRounds). events/cpu-s divides by the process's CPU
// time (steadier than wall time on a shared machine). It measures at the
// collector pace the arena command runs at (GCPercent; GOGC in the
// environment wins), since most of a no-op run is allocating its jobs and
// results. loop-events/s divides by the event loop's own time
// (Result.Wall), leaving out setting the jobs up and building their
// records: the per-event cost apart from the per-job one.
func BenchmarkEngineNoop(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	}
	db, _ := estimator.DefaultProfileDB()
	m, _ := estimator.ParseModel("gpt-760m")
	// paper-1280 (sim/clusterspec's built-in; this internal test cannot
	// import it).
	c, _ := NewCluster(ClusterSpec{Name: "paper-1280", Pools: []Pool{
		{GPU: "a100", Nodes: 80, GPUsPerNode: 4}, {GPU: "v100", Nodes: 20, GPUsPerNode: 16},
		{GPU: "a40", Nodes: 160, GPUsPerNode: 2}, {GPU: "a10", Nodes: 160, GPUsPerNode: 2}}})
	specs := make([]JobSpec, 20000)
	for i := range specs {
		specs[i] = JobSpec{ID: JobID(i), Submit: Time(30 * i), Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: 1000, GPU: "a40", GPUs: 1}
	}
	for _, timing := range []Timing{Exact, Artifact} {
		for _, quiet := range []bool{false, true} {
			name := fmt.Sprintf("%s/plain", timing)
			if quiet {
				name = fmt.Sprintf("%s/quiet", timing)
			}
			b.Run(name, func(b *testing.B) {
				cfg := DefaultConfig(c, db.View(estimator.ViewOptimal))
				cfg.Timing, cfg.Rounds = timing, 2000
				events, loop, c0 := 0, time.Duration(0), cpuSeconds()
				for b.Loop() {
					res, err := Run(context.Background(), cfg, noop{quiet}, specs)
					if err != nil {
						b.Fatal(err)
					}
					events, loop = events+res.Events, loop+res.Wall
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(events)/(cpuSeconds()-c0), "events/cpu-s")
				// The event loop alone (Result.Wall): without setting
				// the jobs up and building their result records.
				b.ReportMetric(float64(events)/loop.Seconds(), "loop-events/s")
			})
		}
	}
}

// BenchmarkEngineFaults is BenchmarkEngine's exact run without and with
// faults: each of its 256 nodes fails every 2 days on average
// (exponential, seeded), down for an hour; checkpoints every 30 min
// (cost 60 s, restore 120 s). About 900 failures in the 7-day window.
// events/cpu-s as in BenchmarkEngineNoop; the fault run's own cluster
// events count as events.
func BenchmarkEngineFaults(b *testing.B) {
	db, _ := estimator.DefaultProfileDB()
	m, _ := estimator.ParseModel("gpt-760m")
	c, _ := NewCluster(ClusterSpec{Name: "bench", Pools: []Pool{{GPU: "a40", Nodes: 256, GPUsPerNode: 2}}})
	specs := make([]JobSpec, 20000)
	for i := range specs {
		specs[i] = JobSpec{ID: JobID(i), Submit: Time(30 * i), Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(500 + i%7*300), GPU: "a40", GPUs: 1 + i%2}
	}
	rng := rand.New(rand.NewSource(1))
	var evs []ClusterEvent
	for n := range c.Nodes {
		for t := rng.ExpFloat64() * 2 * 86400; t < 600000; t += 3600 + rng.ExpFloat64()*2*86400 {
			evs = append(evs, ClusterEvent{Time: Time(t), Node: n, Kind: NodeDown, Cause: "gpu"}, ClusterEvent{Time: Time(t + 3600), Node: n, Kind: NodeUp})
		}
	}
	slices.SortStableFunc(evs, func(a, b ClusterEvent) int { return cmp.Compare(a.Time, b.Time) })
	for _, faulty := range []bool{false, true} {
		b.Run(map[bool]string{false: "none", true: "faults"}[faulty], func(b *testing.B) {
			cfg := DefaultConfig(c, db.View(estimator.ViewOptimal))
			cfg.IterationScale = 5
			cfg.Rounds, cfg.Overhead = 2000, Overhead{PerGPU: 10, Cap: 40}
			if faulty {
				cfg.Events, cfg.Checkpoint = evs, Checkpoint{Interval: 1800, Cost: 60, Restore: 120}
			}
			events, c0 := 0, cpuSeconds()
			for b.Loop() {
				res, err := Run(context.Background(), cfg, greedy{}, specs)
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
			}
			b.ReportMetric(float64(events)/(cpuSeconds()-c0), "events/cpu-s")
			b.ReportMetric(float64(len(evs)), "cluster-events")
		})
	}
}
