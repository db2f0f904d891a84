package faults

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Hand-worked values (outside anchor: the formulas as published).
// δ = 50 s, M = 10,000 s: Young √(2·50·10,000) = √1,000,000 = 1,000 s.
// Daly: δ/2M = 0.0025, √ = 0.05; 1,000·(1 + 0.05/3 + 0.0025/9) − 50 =
// 1,000·1.0169444… − 50 = 966.9444… s.
// First order at τ = 1,000, R = 100: 50/1,000 + (500 + 100)/10,000 =
// 0.05 + 0.06 = 0.11.
// Daly's exact waste: e^(0.01) = 1.0100502, e^(0.105) − 1 = 0.1107106;
// 10,000·1.0100502·0.1107106 = 1,118.233; 1 − 1,000/1,118.233 = 0.105732.
// δ ≥ 2M: Daly's interval is M.
func TestCheckpointHandValues(t *testing.T) {
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.7g, want %.7g", what, got, want)
		}
	}
	near("Young", YoungInterval(50, 10000), 1000, 1e-9)
	near("Daly", DalyInterval(50, 10000), 966.94444, 1e-4)
	near("Daly δ ≥ 2M", DalyInterval(300, 100), 100, 0)
	near("first order", WasteFirstOrder(1000, 50, 100, 10000), 0.11, 1e-12)
	near("Daly waste", WasteDaly(1000, 50, 100, 10000), 0.105732, 1e-6)
	near("wall time", ExpectedWallTime(1e6, 1000, 50, 100, 10000), 1118233, 1)
	// δ = 60 s, M = 1 day: Young √10,368,000 = 3,219.94 s.
	near("Young 1 day", YoungInterval(60, 86400), 3219.9379, 1e-3)
}

// Young's interval minimises the first-order waste and Daly's the exact
// one (Daly's is an approximation: within 0.1 % of the numerical
// optimum here); τ/4 and 4τ waste more.
func TestCheckpointOptima(t *testing.T) {
	delta, restart, mtbf := 60.0, 300.0, 4*3600.0
	ty := YoungInterval(delta, mtbf)
	for _, f := range []float64{0.25, 0.5, 0.9, 1.1, 2, 4} {
		if WasteFirstOrder(ty*f, delta, restart, mtbf) <= WasteFirstOrder(ty, delta, restart, mtbf) {
			t.Errorf("first-order waste at %.2f·τ_Young is not above the optimum's", f)
		}
	}
	// Golden-section search of WasteDaly.
	lo, hi := 1.0, mtbf
	g := (math.Sqrt(5) - 1) / 2
	for i := 0; i < 200; i++ {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if WasteDaly(a, delta, restart, mtbf) < WasteDaly(b, delta, restart, mtbf) {
			hi = b
		} else {
			lo = a
		}
	}
	opt := (lo + hi) / 2
	if td := DalyInterval(delta, mtbf); math.Abs(td-opt)/opt > 1e-3 {
		t.Errorf("Daly's interval %.1f, numerical optimum %.1f", td, opt)
	}
	if WasteDaly(ty/4, delta, restart, mtbf) <= WasteDaly(ty, delta, restart, mtbf) || WasteDaly(4*ty, delta, restart, mtbf) <= WasteDaly(ty, delta, restart, mtbf) {
		t.Error("τ/4 or 4τ wastes no more than Young's τ")
	}
}

// Monte Carlo of Daly's model, written from its description, not from
// the formula: segments of τ work + δ checkpoint; Poisson failures with
// mean M at any moment (restarts included); a failure loses the segment
// and costs a restart R before the segment starts over. 20,000 segments
// per run, 20 runs: the mean wall time matches ExpectedWallTime within
// 1 % (the runs' own standard error is about 0.15 %).
func TestExpectedWallTimeMonteCarlo(t *testing.T) {
	tau, delta, restart, mtbf := 1000.0, 50.0, 100.0, 3000.0
	const segments, runs = 20000, 20
	r := rand.New(rand.NewPCG(1, 2))
	total := 0.0
	for run := 0; run < runs; run++ {
		wall := 0.0
		for s := 0; s < segments; s++ {
			for {
				f := mtbf * r.ExpFloat64()
				if f >= tau+delta {
					wall += tau + delta
					break
				}
				wall += f
				// restart, itself interruptible
				for {
					g := mtbf * r.ExpFloat64()
					if g >= restart {
						wall += restart
						break
					}
					wall += g
				}
			}
		}
		total += wall
	}
	got := total / runs
	want := ExpectedWallTime(segments*tau, tau, delta, restart, mtbf)
	if math.Abs(got-want)/want > 0.01 {
		t.Errorf("Monte Carlo wall time %.0f, formula %.0f", got, want)
	}
}
