package estimator

// DPMemoryAdmission is est with the runtime's admission rule added: a
// configuration whose pure data-parallel replica does not fit in GPU memory
// (the data-parallel view dp answers OutOfMemory: the artifact's dp_mem.json
// rule, 1.2 × need > 0.8 × GPU memory) is infeasible. The artifact's
// runtime applies it when FCFS and Gavel admit a new job (its simulator
// passes force_opt and does not; arena-data/testbed/README.md).
type DPMemoryAdmission struct {
	Est, DP Estimator
}

// Name implements Estimator.
func (a DPMemoryAdmission) Name() string { return a.Est.Name() + "+dp-memory" }

// Estimate implements Estimator.
func (a DPMemoryAdmission) Estimate(w Workload, c Config) Estimate {
	if a.DP.Estimate(w, c).Reason == OutOfMemory {
		return infeasible(OutOfMemory)
	}
	return a.Est.Estimate(w, c)
}
