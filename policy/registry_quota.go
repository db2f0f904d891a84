package policy

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/fairshare"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// quotaEntries registers the quota wrapper (policy/quota). Its inner policy
// is resolved in r when a run is built, so a policy registered later
// (a custom registry's) can be wrapped too.
func quotaEntries(r *Registry) []Entry {
	return append(fairEntries(), Entry{
		Name:  "quota",
		Doc:   "quotas around any policy: quota(INNER,tenants=FILE) admits each VC's jobs within its guarantee, lends idle guarantee, reclaims it by suspending borrowers (docs/tenants.md)",
		Wraps: "policy",
		Options: []Option{
			{Name: "policy", Type: String, Default: "fcfs", Help: "the wrapped policy string, written first: quota(arena), quota(tiresias(queues=3),tenants=t.yaml), quota(exec:python3 p.py)"},
			{Name: "tenants", Type: String, Help: "tenants file (YAML; docs/tenants.md); none puts every job in one tenant without guarantee"},
			{Name: "borrow", Type: Bool, Default: "true", Help: "let a tenant run beyond its guarantee on idle GPUs (reclaimed when an owner needs them)"},
			{Name: "grace", Type: Duration, Default: "0", Help: "how long an eligible owner waits before borrowed GPUs are reclaimed for it"},
			{Name: "oversubscribe", Type: Bool, Default: "false", Help: "allow guarantees summing to more than the cluster (as the file's oversubscribe: true)"},
		},
		New: func(o Options) (sim.Policy, error) {
			spec, err := r.Parse(o.Values.String("policy"))
			if err != nil {
				return nil, optionError("quota", "policy", err)
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
	})
}

// fairEntries registers the fairness baselines (policy/fairshare).
func fairEntries() []Entry {
	opts := []Option{
		{Name: "tenants", Type: String, Help: "tenants file (weights); none makes each VC of the trace a tenant of weight 1"},
		{Name: "lease", Type: Duration, Default: "300", Help: "a started job runs at least this long before it can be suspended (Themis' lease)"},
	}
	build := func(mode fairshare.Mode) func(Options) (sim.Policy, error) {
		return func(o Options) (sim.Policy, error) {
			var ten *tenants.File
			if path := o.Values.String("tenants"); path != "" {
				var err error
				if ten, err = tenants.Load(path); err != nil {
					return nil, err
				}
			}
			return fairshare.New(mode, o.Source.View(estimator.ViewDataParallel), ten, o.Values.Duration("lease")), nil
		}
	}
	return []Entry{
		{Name: "gavel-fair", Doc: "Gavel's max-min fairness over tenants: weighted water-filling of GPUs, LAS within a tenant, fast GPU types to the jobs they speed up most; preemptive", Options: opts, Overhead: FullSearch("gavel-fair"), New: build(fairshare.MaxMin)},
		{Name: "ftf", Doc: "finish-time fairness after Themis without the auction: GPUs to the jobs with the worst estimated ρ first, on their request; preemptive", Options: opts, Overhead: FullSearch("ftf"), New: build(fairshare.FTF)},
	}
}

// closeWith closes a policy holding a process before returning err.
func closeWith(p sim.Policy, err error) error {
	if c, ok := p.(interface{ Close() error }); ok {
		_ = c.Close()
	}
	return err
}
