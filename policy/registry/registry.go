package registry

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/overheadprofile"
)

// AdmissionOption chooses how fcfs and gavel admit an arriving job:
// "simulator" (the artifact simulator's force_opt check, no memory filter)
// or "dp-memory" (the artifact runtime's: a job whose pure data-parallel
// replica does not fit in GPU memory is dropped, never run).
var AdmissionOption = Option{Name: "admission", Type: Enum, Values: []string{AdmissionSimulator, AdmissionDPMemory}, Default: AdmissionSimulator,
	Help: "arrival check: simulator (the artifact simulator's, no memory filter) or dp-memory (the physical runtime's: never run a job whose DP replica does not fit in GPU memory)"}

// The values of AdmissionOption.
const (
	AdmissionSimulator = "simulator"
	AdmissionDPMemory  = "dp-memory"
)

// FullSearch is the class of a baseline with an unpruned search: its own
// names (most specific first), then "full-search". A policy pays the cost
// of the first class of its list that the run's overhead profile
// (sim.OverheadProfile, --overheads) defines: the artifact profile prices
// the generic classes (pruned, full-search, noprune); a measured profile
// may price a policy by its own name.
func FullSearch(names ...string) sim.OverheadClass {
	return append(sim.OverheadClass(names), "full-search")
}

// Options is what a policy constructor may use.
type Options struct {
	Cluster *sim.Cluster
	// Source provides the estimator views a policy decides with.
	Source estimator.Source
	Timing sim.Timing
	// Values are the policy's option values (Entry.Options), typed, with
	// the defaults filled in.
	Values Values
	// Overheads is the run's overhead profile, for a policy that
	// anticipates reconfiguration costs in its decisions (ElasticFlow's
	// deadline test); Overhead is the policy's own class resolved in it.
	Overheads *sim.OverheadProfile
	Overhead  sim.Overhead
	// Context is the run's: a policy holding a process or a solver stops
	// waiting on it when it is done (nil = never done).
	Context context.Context
	// Energy is the cluster spec's energy section (the built-in model
	// with the section's keys over it; docs/energy.md), the base a
	// policy's own energy option applies over; nil when the spec has none.
	Energy *energy.Model
}

// Resolve returns the overhead of class c in the options' profile (the
// artifact profile when none was given).
func (o Options) Resolve(c sim.OverheadClass) (sim.Overhead, error) {
	p := o.Overheads
	if p == nil {
		var err error
		if p, err = overheadprofile.Load(overheadprofile.Default); err != nil {
			return sim.Overhead{}, err
		}
	}
	return p.Resolve(c)
}

// Entry describes one registered policy.
type Entry struct {
	// Name is the canonical name: lower case, no spaces, commas,
	// parentheses or colons. Aliases are other accepted names.
	Name    string
	Aliases []string
	// Doc is a one-line description for 'arena policies'.
	Doc string
	// Options the policy accepts, as name(key=value,…).
	Options []Option
	// Overhead is the policy's overhead class, most specific first (e.g.
	// FullSearch("mypolicy")); the engine charges its resolution in the
	// run's overhead profile (--overheads) on every start and
	// reallocation. nil is sim.DefaultOverheadClass (full-search).
	Overhead sim.OverheadClass
	// Cost is the relative wall-clock cost of one of its decisions (1 = a
	// queue-based policy such as fcfs; 0 means 1). Sweeps start the most
	// expensive runs first; it never affects a result.
	Cost float64
	// New builds a policy for one run.
	New func(Options) (sim.Policy, error)
	// Wraps names the option holding the policy string of a wrapped policy
	// (quota(INNER,…)): it may be written first without its key, it is
	// parsed when the wrapper is, and the wrapper takes the inner policy's
	// overhead class and cost.
	Wraps string
}

// Registry maps names and aliases to entries.
type Registry struct {
	entries []Entry
	byName  map[string]int
}

// New returns an empty registry; policy.NewRegistry is the one holding
// every built-in policy.
func New() *Registry {
	return &Registry{byName: map[string]int{}}
}

// MustRegister registers a built-in entry; an error is a bug in the program.
func (r *Registry) MustRegister(e Entry) {
	if err := r.Register(e); err != nil {
		panic(err)
	}
}

// Register adds e to the registry, so that every command of a CLI built on
// it (cli.New) accepts e.Name. It fails on a name or alias already taken, a
// name that a policy string could not carry, an option declared twice or
// with a bad default, and a missing constructor; r is then unchanged.
func (r *Registry) Register(e Entry) error {
	if e.New == nil {
		return fmt.Errorf("policy %q: Entry.New is nil", e.Name)
	}
	names := append([]string{e.Name}, e.Aliases...)
	for _, n := range names {
		if n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, " \t,()=:'\"*?[]!") {
			return fmt.Errorf("policy %q: name %q: want lower case without spaces, commas, parentheses, colons, quotes or glob characters", e.Name, n)
		}
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("policy %q: name %q is already registered", e.Name, n)
		}
	}
	seen := map[string]bool{}
	for _, o := range e.Options {
		if o.Name == "" || o.Name != strings.ToLower(o.Name) || strings.ContainsAny(o.Name, " \t,()=:'\"") {
			return fmt.Errorf("policy %q: option name %q: want lower case without spaces or punctuation", e.Name, o.Name)
		}
		if seen[o.Name] {
			return fmt.Errorf("policy %q: option %q declared twice", e.Name, o.Name)
		}
		seen[o.Name] = true
		if o.Type == Duration && (o.Min == "" || o.Max == "") {
			// An unbounded span (grace=-1s, or 1e30 s converted to a
			// time.Duration) is nonsense a constructor would have to catch.
			return fmt.Errorf("policy %q: option %q: a duration option needs Min and Max", e.Name, o.Name)
		}
		if o.Type == Enum && len(o.Values) == 0 {
			return fmt.Errorf("policy %q: option %q: an enum needs Values", e.Name, o.Name)
		}
		for _, b := range []string{o.Min, o.Max} {
			if b == "" {
				continue
			}
			if _, err := parseType(Option{Type: o.Type}, b); err != nil || o.Type != Int && o.Type != Float && o.Type != Duration {
				return fmt.Errorf("policy %q: option %q: bound %q: want a number of the option's type", e.Name, o.Name, b)
			}
		}
		if _, err := parseValue(o, o.Default); err != nil && !o.Required {
			return fmt.Errorf("policy %q: option %q: bad default: %w", e.Name, o.Name, err)
		}
	}
	for _, n := range names {
		r.byName[n] = len(r.entries)
	}
	r.entries = append(r.entries, e)
	return nil
}

// Lookup finds a policy by name or alias.
func (r *Registry) Lookup(name string) (Entry, error) {
	i, ok := r.byName[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		hint := ""
		if strings.ContainsAny(name, "(:") {
			hint = "; a policy with options is written name(key=value,…), an external one exec:COMMAND"
		}
		return Entry{}, fmt.Errorf("policy %q: unknown (known: %s)%s", name, strings.Join(r.Names(), ", "), hint)
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
