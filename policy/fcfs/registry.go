package fcfs

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Entry is fcfs's registry entry: its name, its admission option and the
// full-search overhead class.
func Entry() registry.Entry {
	return registry.Entry{
		Name: "fcfs", Doc: "first-come-first-served on the requested GPUs, head-of-line blocking per type, no preemption",
		Overhead: registry.FullSearch("fcfs"),
		Options:  []registry.Option{registry.AdmissionOption},
		New: func(o registry.Options) (sim.Policy, error) {
			f := New(o.Source.View(estimator.ViewOptimal))
			if o.Values.String("admission") == registry.AdmissionDPMemory {
				f.WithAdmission(estimator.DPMemoryAdmission{Est: o.Source.View(estimator.ViewOptimal), DP: o.Source.View(estimator.ViewDataParallel)})
			}
			return f, nil
		},
	}
}
