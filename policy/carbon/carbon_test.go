package carbon

import (
	"testing"

	"github.com/arena-sim/arena/sim/energy"
)

// TestWaits is hand-worked: intensity 300, 100, 200 g/kWh over hours 0,
// 1, 2 (repeating). At 0:30 with 1 h of slack left the 1:00 hour (100) is
// reachable: wait; with 20 min left it is not: start. At 1:10 the hour is
// the lowest: start. At 2:30 with 1 h left the next hour is 300 (the
// series repeats), above 200: start. A 100 % tolerance starts at 0:30
// only if 300 ≤ 2 × 100: no, so it still waits.
func TestWaits(t *testing.T) {
	p := New(nil, Config{Intensity: energy.Intensity{Hourly: []float64{300, 100, 200}}})
	for _, c := range []struct {
		name      string
		now, left float64
		tol       float64
		want      bool
	}{
		{"a lower hour within the slack: wait", 1800, 3600, 0, true},
		{"the lower hour past the slack: start", 1800, 1200, 0, false},
		{"the lowest hour now: start", 4200, 7200, 0, false},
		{"the next hour higher (the series repeats): start", 9000, 3600, 0, false},
		{"within tolerance only at ≥ 200 %: still wait", 1800, 3600, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.cfg.Tolerance = c.tol
			if got := p.waits(c.now, c.left); got != c.want {
				t.Errorf("waits(%g, %g) = %t, want %t", c.now, c.left, got, c.want)
			}
		})
	}
}
