package policy

import (
	"github.com/arena-sim/arena/policy/arena"
	"github.com/arena-sim/arena/policy/carbon"
	"github.com/arena-sim/arena/policy/cost"
	"github.com/arena-sim/arena/policy/elasticflow"
	"github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/policy/fairshare"
	"github.com/arena-sim/arena/policy/fcfs"
	"github.com/arena-sim/arena/policy/gavel"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/policy/sia"
	"github.com/arena-sim/arena/policy/srtf"
	"github.com/arena-sim/arena/policy/tas"
	"github.com/arena-sim/arena/policy/tiresias"
)

// Builtin lists every built-in policy's entries. Each policy package owns
// its entries (name, options, doc line, overhead class, options → config);
// this list only says which packages are built in.
func Builtin() []registry.Entry {
	var out []registry.Entry
	for _, add := range [][]registry.Entry{
		{fcfs.Entry()},
		arena.Entries(),       // arena and its ablations
		elasticflow.Entries(), // elasticflow-ls, elasticflow
		{tiresias.Entry(), srtf.Entry()},
		gavel.Entries(), // gavel, gavel-stored
		sia.Entries(),   // sia, sia-head, sia-stored, sia-glpk
		{exec.Entry()},
		fairshare.Entries(), // gavel-fair, ftf
		{quota.Entry()},
		{carbon.Entry(), cost.Entry()}, // carbon-aware, cost-aware (docs/energy.md)
		{tas.Entry()},                  // topology-aware FIFO (Kueue TAS)
	} {
		out = append(out, add...)
	}
	return out
}

// NewRegistry returns the registry of every built-in policy; Register adds
// more (a custom command's, examples/custom-policy).
func NewRegistry() *registry.Registry {
	r := registry.New()
	for _, e := range Builtin() {
		r.MustRegister(e)
	}
	return r
}
