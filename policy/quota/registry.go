package quota

import (
	"errors"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// Entry is the quota wrapper's registry entry. Its policy option holds the
// wrapped policy string, written first (registry.Entry.Wraps); the parser
// resolves it in the registry that parses the wrapper, so a policy a
// custom registry added can be wrapped too, and the constructor builds it
// from the parsed values (registry.Values.Wrapped) without a registry.
func Entry() registry.Entry {
	return registry.Entry{
		Name:  "quota",
		Doc:   "quotas around any policy: quota(INNER,tenants=FILE) admits each VC's jobs within its guarantee, lends idle guarantee, reclaims it by suspending borrowers (docs/tenants.md)",
		Wraps: "policy",
		Options: []registry.Option{
			{Name: "policy", Type: registry.String, Default: "fcfs", Help: "the wrapped policy string, written first: quota(arena), quota(tiresias(queues=3),tenants=t.yaml), quota(exec:python3 p.py)"},
			{Name: "tenants", Type: registry.String, Path: true, PathBuiltins: tenants.BuiltinNames(), Help: "tenants file (YAML; docs/tenants.md); none puts every job in one tenant without guarantee"},
			{Name: "borrow", Type: registry.Bool, Default: "true", Help: "let a tenant run beyond its guarantee on idle GPUs (reclaimed when an owner needs them)"},
			{Name: "grace", Type: registry.Duration, Default: "0", Min: "0", Max: "3650d", Help: "how long an eligible owner waits before borrowed GPUs are reclaimed for it"},
			{Name: "oversubscribe", Type: registry.Bool, Default: "false", Help: "allow guarantees summing to more than the cluster (as the file's oversubscribe: true)"},
		},
		New: newFromOptions,
	}
}

// newFromOptions builds the wrapped policy with the same options (its own
// values), then the wrapper around it.
func newFromOptions(o registry.Options) (sim.Policy, error) {
	spec, ok := o.Values.Wrapped()
	if !ok {
		return nil, registry.NewOptionError("quota", "policy", errors.New("the wrapped policy was not parsed: build quota's values with Registry.Parse"))
	}
	io := o
	io.Values = spec.Values
	inner, err := spec.Entry.New(io)
	if err != nil {
		return nil, err
	}
	var ten *tenants.File
	if path := o.Values.String("tenants"); path != "" {
		if ten, err = tenants.Load(path); err != nil {
			return nil, closeWith(inner, err)
		}
		ten.Oversubscribe = ten.Oversubscribe || o.Values.Bool("oversubscribe")
	}
	p, err := New(inner, o.Cluster, o.Source.View(estimator.ViewOptimal), Config{
		Tenants: ten, Borrow: o.Values.Bool("borrow"), Grace: o.Values.Duration("grace"),
	})
	if err != nil {
		return nil, closeWith(inner, err)
	}
	return p, nil
}

// closeWith closes a policy holding a process before returning err.
func closeWith(p sim.Policy, err error) error {
	if c, ok := p.(interface{ Close() error }); ok {
		_ = c.Close()
	}
	return err
}
