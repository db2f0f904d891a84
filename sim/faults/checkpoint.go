package faults

import "math"

// Checkpoint mathematics for one synchronous job that checkpoints every
// tau seconds of work, each checkpoint costing delta seconds, loses the
// work since its last checkpoint at a failure, pays restart seconds to
// come back, and fails as a Poisson process of mean time between
// failures mtbf seconds (the job's MTBF: for a job on G GPUs each of
// per-GPU MTBF m, mtbf = m / G).
//
// References: J. W. Young, "A first order approximation to the optimum
// checkpoint interval", CACM 17(9), 1974; J. T. Daly, "A higher order
// estimate of the optimum checkpoint interval for restart dumps", Future
// Generation Computer Systems 22(3), 2006.

// YoungInterval is Young's optimum checkpoint interval √(2·δ·M), the
// minimum of the first-order waste WasteFirstOrder.
func YoungInterval(delta, mtbf float64) float64 {
	return math.Sqrt(2 * delta * mtbf)
}

// DalyInterval is Daly's higher-order optimum (2006):
//
//	τ = √(2δM)·[1 + ⅓·√(δ/2M) + ⅑·(δ/2M)] − δ   for δ < 2M,
//	τ = M                                          for δ ≥ 2M.
func DalyInterval(delta, mtbf float64) float64 {
	if delta >= 2*mtbf {
		return mtbf
	}
	x := delta / (2 * mtbf)
	return math.Sqrt(2*delta*mtbf)*(1+math.Sqrt(x)/3+x/9) - delta
}

// WasteFirstOrder is the first-order expected fraction of time lost with
// interval tau: δ/τ for taking checkpoints, plus, per failure (1/M of
// the time), half an interval of work redone and the restart:
//
//	W₁ = δ/τ + (τ/2 + R)/M.
//
// It is the leading term of WasteDaly in δ/τ, τ/M and R/M, and its
// minimum over τ is at YoungInterval.
func WasteFirstOrder(tau, delta, restart, mtbf float64) float64 {
	return delta/tau + (tau/2+restart)/mtbf
}

// ExpectedWallTime is Daly's (2006) expected wall-clock time to
// complete work seconds of computation with interval tau, under Poisson
// failures that may strike at any moment, during checkpoints and
// restarts included (each failure costs the restart R, then the segment
// of τ+δ begins again from the last checkpoint):
//
//	T = M·e^(R/M)·(e^((τ+δ)/M) − 1)·work/τ.
//
// work is taken as a whole number of intervals (the formula's
// assumption; for work ≫ τ the difference vanishes).
func ExpectedWallTime(work, tau, delta, restart, mtbf float64) float64 {
	return mtbf * math.Exp(restart/mtbf) * math.Expm1((tau+delta)/mtbf) * work / tau
}

// WasteDaly is the exact expected fraction of wall-clock time lost under
// ExpectedWallTime's model: 1 − work/T = 1 − τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)).
func WasteDaly(tau, delta, restart, mtbf float64) float64 {
	return 1 - tau/(mtbf*math.Exp(restart/mtbf)*math.Expm1((tau+delta)/mtbf))
}
