package policy

import (
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/policy/elasticflow"
	"github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/policy/fairshare"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/gavel"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/policy/sia"
	"github.com/arena-sim/arena/policy/srtf"
	"github.com/arena-sim/arena/policy/tiresias"
	"github.com/arena-sim/arena/sim"
)

// Builtin lists every built-in policy's entries. Each policy package owns
// its entries (name, options, doc line, overhead class, options → config);
// this list only says which packages are built in.
func Builtin() []Entry {
	var out []Entry
	for _, add := range [][]Entry{
		{fcfs.Entry()},
		arena.Entries(),       // arena and its ablations
		elasticflow.Entries(), // elasticflow-ls, elasticflow
		{tiresias.Entry(), srtf.Entry()},
		gavel.Entries(), // gavel, gavel-stored
		sia.Entries(),   // sia, sia-head, sia-stored, sia-glpk
		{exec.Entry()},
		fairshare.Entries(), // gavel-fair, ftf
		{quota.Entry()},
	} {
		out = append(out, add...)
	}
	return out
}

// NewRegistry returns the registry of every built-in policy; Register adds
// more (a custom command's, examples/custom-policy).
func NewRegistry() *Registry {
	r := registry.New()
	for _, e := range Builtin() {
		r.MustRegister(e)
	}
	return r
}

// The registry's types and functions, under the names the rest of arena
// and custom commands use (policy/registry defines them, so that a policy
// package declares its entry without importing this list).
type (
	Registry    = registry.Registry
	Entry       = registry.Entry
	Options     = registry.Options
	Option      = registry.Option
	OptionType  = registry.OptionType
	Values      = registry.Values
	Spec        = registry.Spec
	OptionError = registry.OptionError
)

// The option types (registry.Int, …).
const (
	Int      = registry.Int
	Float    = registry.Float
	Duration = registry.Duration
	String   = registry.String
	Enum     = registry.Enum
	Bool     = registry.Bool
)

// ExecName and ExecPrefix: "exec:COMMAND" is shorthand for
// exec(cmd='COMMAND') (policy/exec).
const (
	ExecName   = registry.ExecName
	ExecPrefix = registry.ExecPrefix
)

// ParseWith is registry.ParseWith: Parse with any lookup function.
func ParseWith(lookup func(string) (Entry, error), s string) (Spec, error) {
	return registry.ParseWith(lookup, s)
}

// SplitList is registry.SplitList: a comma-separated list of policy
// strings, commas inside parentheses or quotes not splitting.
func SplitList(s string) ([]string, error) { return registry.SplitList(s) }

// FullSearch is registry.FullSearch: the overhead class of a baseline with
// an unpruned search.
func FullSearch(names ...string) sim.OverheadClass { return registry.FullSearch(names...) }
