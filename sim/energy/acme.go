package energy

// PowerShape summarises a distribution of per-GPU power over GPU-time.
type PowerShape struct {
	Name string
	// Quartiles and mean, watts.
	P25, P50, P75, Mean float64
	// IdleShare is the share of GPU-time at or below 100 W; NearTDPShare
	// at or above NearTDP × 400 W (360 W, the A100's TDP).
	IdleShare, NearTDPShare float64
}

// Acme is the per-GPU power of the two A100 LLM-development clusters of
// the Acme trace (Hu et al., "Characterization of Large Language Model
// Development in the Datacenter", NSDI'24; InternLM/AcmeTrace commit
// 6d6ac9cd, data/utilization/util_pkl/gpu_power_{seren,kalos}.pkl: DCGM
// POWER_USAGE samples as 1,000 quantiles), summarised here from those
// quantiles (docs/energy.md).
var Acme = []PowerShape{
	{Name: "Seren", P25: 66.2, P50: 96.5, P75: 291.1, Mean: 168.6, IdleShare: 0.535, NearTDPShare: 0.169},
	{Name: "Kalos", P25: 66.4, P50: 101.5, P75: 372.2, Mean: 191.6, IdleShare: 0.489, NearTDPShare: 0.268},
}

// AcmeLikeNodes is the size, in 8-A100 nodes, of the Acme-like cluster
// SimulatedAcme is measured on: the load at which the simulated GPU-time
// at or below 100 W is Acme's (0.535 Seren, 0.489 Kalos), in steps of 10
// nodes (docs/energy.md). The load is the run's, not a power constant.
const AcmeLikeNodes = 80

// SimulatedAcme is the built-in model's shape on an Acme-like cluster
// (FCFS on AcmeLikeNodes nodes of 8 A100s, the built-in Philly trace
// mapped to A100, 2,000 rounds): a self-generated golden that
// experiments/runner's TestAcmePowerShape recomputes and compares with
// Acme, and that REPORT.md's energy section and docs/energy.md quote.
var SimulatedAcme = PowerShape{Name: "simulated", P25: 60, P50: 98, P75: 361.0, Mean: 205.5, IdleShare: 0.532, NearTDPShare: 0.284}

// Shape summarises a run's power levels (Report.Power) as Acme's are.
func Shape(name string, levels []Level) PowerShape {
	var total, idle, near, sum float64
	for _, l := range levels {
		total += l.GPUSeconds
		sum += l.Watts * l.GPUSeconds
		if l.Watts <= 100 {
			idle += l.GPUSeconds
		}
		if l.Watts >= NearTDP*400 {
			near += l.GPUSeconds
		}
	}
	if total == 0 {
		return PowerShape{Name: name}
	}
	return PowerShape{Name: name, P25: WeightedQuantile(levels, 0.25), P50: WeightedQuantile(levels, 0.5), P75: WeightedQuantile(levels, 0.75),
		Mean: sum / total, IdleShare: idle / total, NearTDPShare: near / total}
}
