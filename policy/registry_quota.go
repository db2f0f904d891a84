package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// quotaEntries registers the quota wrapper (policy/quota). Its inner policy
// is resolved in r when a run is built, so a policy registered later
// (a custom registry's) can be wrapped too.
func quotaEntries(r *Registry) []Entry {
	return []Entry{{
		Name:  "quota",
		Doc:   "quotas around any policy: quota(INNER,tenants=FILE) admits each VC's jobs within its guarantee, lends idle guarantee, reclaims it by suspending borrowers (docs/tenants.md)",
		Wraps: "policy",
		Options: []Option{
			{Name: "policy", Type: String, Required: true, Help: "the wrapped policy string, written first: quota(fcfs), quota(tiresias(queues=3),tenants=t.yaml), quota(exec:python3 p.py)"},
			{Name: "tenants", Type: String, Help: "tenants file (YAML; docs/tenants.md); none puts every job in one tenant without guarantee"},
			{Name: "borrow", Type: Bool, Default: "true", Help: "let a tenant run beyond its guarantee on idle GPUs (reclaimed when an owner needs them)"},
			{Name: "grace", Type: Duration, Default: "0", Help: "how long an eligible owner waits before borrowed GPUs are reclaimed for it"},
			{Name: "oversubscribe", Type: Bool, Default: "false", Help: "allow guarantees summing to more than the cluster (as the file's oversubscribe: true)"},
		},
		New: func(o Options) (sim.Policy, error) {
			spec, err := r.Parse(o.Values.String("policy"))
			if err != nil {
				return nil, &OptionError{Policy: "quota", Key: "policy", Err: err}
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
			p, err := quota.New(inner, o.Cluster, o.Source.View(estimator.ViewOptimal), quota.Config{
				Tenants: ten, Borrow: o.Values.Bool("borrow"), Grace: o.Values.Duration("grace"),
			})
			if err != nil {
				return nil, closeWith(inner, err)
			}
			return p, nil
		},
	}}
}

// closeWith closes a policy holding a process before returning err.
func closeWith(p sim.Policy, err error) error {
	if c, ok := p.(interface{ Close() error }); ok {
		_ = c.Close()
	}
	return err
}
