package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/sim"
)

// Reconfiguration overheads of the artifact (ARENA.md §4, §9).
var (
	// ArenaOverhead: Arena's pruned adaptive-parallelism search.
	ArenaOverhead = sim.Overhead{PerGPU: 10, Cap: 40}
	// FullSearchOverhead: the baselines' unpruned search.
	FullSearchOverhead = sim.Overhead{PerGPU: 150, Cap: 600}
	// NoPruneOverhead: the arena-noprune ablation.
	NoPruneOverhead = sim.Overhead{PerGPU: 300, Cap: 1200}
)

// Options is what a policy constructor may use.
type Options struct {
	Cluster *sim.Cluster
	// Source provides the estimator views a policy decides with.
	Source estimator.Source
	Timing sim.Timing
}

// Entry describes one registered policy.
type Entry struct {
	Name     string
	Aliases  []string
	Doc      string
	Overhead sim.Overhead
	New      func(Options) (sim.Policy, error)
}

// Registry maps names and aliases to entries.
type Registry struct {
	entries []Entry
	byName  map[string]int
}

// NewRegistry returns the registry of every built-in policy.
func NewRegistry() *Registry {
	r := &Registry{byName: map[string]int{}}
	r.Add(Entry{
		Name: "fcfs", Doc: "first-come-first-served on the requested GPUs, head-of-line blocking per type, no preemption",
		Overhead: FullSearchOverhead,
		New: func(o Options) (sim.Policy, error) {
			return fcfs.New(o.Source.View(estimator.ViewOptimal)), nil
		},
	})
	// Each family of policies registers itself from its own file.
	for _, add := range [][]Entry{arenaEntries(), baselineEntries(), ilpEntries()} {
		for _, e := range add {
			r.Add(e)
		}
	}
	return r
}

// Add registers e; it panics on a duplicate name (a programming error).
func (r *Registry) Add(e Entry) {
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		if _, dup := r.byName[n]; dup {
			panic("policy: duplicate name " + n)
		}
		r.byName[n] = len(r.entries)
	}
	r.entries = append(r.entries, e)
}

// Lookup finds a policy by name or alias.
func (r *Registry) Lookup(name string) (Entry, error) {
	i, ok := r.byName[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Entry{}, fmt.Errorf("policy %q: unknown (known: %s)", name, strings.Join(r.Names(), ", "))
	}
	return r.entries[i], nil
}

// Names lists the canonical names, sorted.
func (r *Registry) Names() []string {
	var out []string
	for _, e := range r.entries {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// Entries lists every entry, sorted by name.
func (r *Registry) Entries() []Entry {
	out := append([]Entry(nil), r.entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
