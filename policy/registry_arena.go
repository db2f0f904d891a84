package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/sim"
)

// arenaEntries registers Arena and its ablations (policy/arena,
// docs/arena.md).
func arenaEntries() []Entry {
	variants := []struct {
		name     string
		aliases  []string
		view     estimator.View // the view the policy decides with
		overhead sim.OverheadClass
		doc      string
	}{
		{"arena", []string{"crius"}, estimator.ViewOptimal, ArenaOverhead,
			"Arena: grid scheduling with adaptive-parallelism throughput; migration, shrink, GPU-type change, growth and opportunistic backfill"},
		{"arena-ns", nil, estimator.ViewOptimal, ArenaOverhead, "Arena without scaling (no shrink, no growth)"},
		{"arena-nh", nil, estimator.ViewOptimal, ArenaOverhead, "Arena without hardware (GPU type) changes"},
		{"arena-no", nil, estimator.ViewOptimal, ArenaOverhead,
			"Arena without opportunistic execution: a job waits while a job of its GPU type is pending"},
		{"arena-dp", nil, estimator.ViewDataParallel, ArenaOverhead,
			"Arena deciding with data-parallel data (DP memory filter, unscaled fallbacks)"},
		{"arena-ddl", nil, estimator.ViewOptimal, ArenaOverhead,
			"deadline-aware Arena: a config is feasible only if the job still meets its deadline; timed-out pending jobs are never restarted"},
		{"arena-noprune", nil, estimator.ViewOptimal, NoPruneOverhead,
			"Arena paying an unpruned adaptive-parallelism search on every reallocation (artifact: 300 s/GPU, at most 1200 s)"},
	}
	var out []Entry
	for _, v := range variants {
		out = append(out, Entry{
			Name: v.name, Aliases: v.aliases, Doc: v.doc, Overhead: append(sim.OverheadClass{v.name}, v.overhead...), Cost: 30,
			New: func(o Options) (sim.Policy, error) {
				return arena.New(arena.Variants[v.name], o.Cluster, o.Source.View(v.view), o.Source.View(estimator.ViewOptimal)).Engine(), nil
			},
		})
	}
	return out
}
