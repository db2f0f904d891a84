package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/sim"
)

// arenaEntries registers Arena and its ablations (policy/arena).
func arenaEntries() []Entry {
	mk := func(name string, view estimator.View) func(Options) (sim.Policy, error) {
		return func(o Options) (sim.Policy, error) {
			return arena.New(arena.Variants[name], o.Cluster, o.Source.View(view), o.Source.View(estimator.ViewOptimal)), nil
		}
	}
	return []Entry{
		{Name: "arena", Aliases: []string{"crius"}, Overhead: ArenaOverhead, New: mk("arena", estimator.ViewOptimal),
			Doc: "Arena: grid scheduling with adaptive-parallelism throughput; migration, shrink, GPU-type change, growth and opportunistic backfill"},
		{Name: "arena-ns", Overhead: ArenaOverhead, New: mk("arena-ns", estimator.ViewOptimal),
			Doc: "Arena without scaling (no shrink, no growth)"},
		{Name: "arena-nh", Overhead: ArenaOverhead, New: mk("arena-nh", estimator.ViewOptimal),
			Doc: "Arena without hardware (GPU type) changes"},
		{Name: "arena-no", Overhead: ArenaOverhead, New: mk("arena-no", estimator.ViewOptimal),
			Doc: "Arena without opportunistic execution: a job waits while a job of its GPU type is pending"},
		{Name: "arena-dp", Overhead: ArenaOverhead, New: mk("arena-dp", estimator.ViewDataParallel),
			Doc: "Arena deciding with data-parallel data (DP memory filter, unscaled fallbacks)"},
		{Name: "arena-ddl", Overhead: ArenaOverhead, New: mk("arena-ddl", estimator.ViewOptimal),
			Doc: "deadline-aware Arena: a config is feasible only if the job still meets its deadline; timed-out pending jobs are never restarted"},
		{Name: "arena-noprune", Overhead: NoPruneOverhead, New: mk("arena-noprune", estimator.ViewOptimal),
			Doc: "Arena paying an unpruned adaptive-parallelism search on every reallocation (300 s/GPU, at most 1200 s)"},
	}
}
