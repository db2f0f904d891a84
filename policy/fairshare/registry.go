package fairshare

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// Entries are the registry entries of the fairness baselines: gavel-fair
// (MaxMin) and ftf (FTF), with a tenants file and Themis' lease.
func Entries() []registry.Entry {
	opts := []registry.Option{
		{Name: "tenants", Type: registry.String, Path: true, PathBuiltins: tenants.BuiltinNames(), Help: "tenants file (weights); none makes each VC of the trace a tenant of weight 1"},
		{Name: "lease", Type: registry.Duration, Default: "300", Min: "0", Max: "3650d", Help: "a started job runs at least this long before it can be suspended (Themis' lease)"},
	}
	build := func(mode Mode) func(registry.Options) (sim.Policy, error) {
		return func(o registry.Options) (sim.Policy, error) {
			var ten *tenants.File
			if path := o.Values.String("tenants"); path != "" {
				var err error
				if ten, err = tenants.Load(path); err != nil {
					return nil, err
				}
			}
			return New(mode, o.Source.View(estimator.ViewDataParallel), ten, o.Values.Duration("lease")), nil
		}
	}
	return []registry.Entry{
		{Name: "gavel-fair", Doc: "Gavel's max-min fairness over tenants: weighted water-filling of GPUs, LAS within a tenant, fast GPU types to the jobs they speed up most; preemptive", Options: opts, Overhead: registry.FullSearch("gavel-fair"), New: build(MaxMin)},
		{Name: "ftf", Doc: "finish-time fairness after Themis without the auction: GPUs to the jobs with the worst estimated ρ first, on their request; preemptive", Options: opts, Overhead: registry.FullSearch("ftf"), New: build(FTF)},
	}
}
