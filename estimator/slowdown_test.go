package estimator

import "testing"

// constEst answers 100 samples/s for every shape.
type constEst struct{}

func (constEst) Name() string { return "const" }
func (constEst) Estimate(w Workload, c Config) Estimate {
	return Estimate{Throughput: 100, IterTime: PyRound(float64(w.Batch)/100, 3)}
}

// TestSlowdown: hand-worked — batch 128 at 100 samples/s is 1.28 s; ×1.05
// is 1.344 s; a relaxed 2×2 shape of 4 GPUs on 4-GPU nodes ×1.3 instead:
// 1.664 s; 2×2 on 2-GPU nodes is best locality (not relaxed).
func TestSlowdown(t *testing.T) {
	w := Workload{Batch: 128}
	s := Slowdown{Base: constEst{}, Global: 1.05, Relaxed: 1.3, NodeCap: func(gpu string) int {
		return map[string]int{"a100": 4, "a40": 2}[gpu]
	}}
	for _, c := range []struct {
		name string
		cfg  Config
		want float64
	}{
		{"single node", Config{"a100", 1, 4}, 1.344},
		{"relaxed multi-node", Config{"a100", 2, 2}, 1.664},
		{"multi-node at best locality", Config{"a40", 2, 2}, 1.344},
	} {
		if got := s.Estimate(w, c.cfg).IterTime; got != c.want {
			t.Errorf("%s: iteration time %v, want %v", c.name, got, c.want)
		}
	}
	if got := (Slowdown{Base: constEst{}}).Estimate(w, Config{"a100", 2, 2}); got.IterTime != 1.28 || got.Throughput != 100 {
		t.Errorf("factors 0 must change nothing: %+v", got)
	}
}

// TestSlowdownPerType: hand-worked — the per-type factor multiplies the
// one that applies: an h100 placement at ×1.05 and h100 ×1.2 runs 1.28 s
// × 1.26 = 1.6128 s → 1.613 s (re-rounded to the millisecond); a relaxed
// a100 shape takes ×1.3·0.8 = 1.04: 1.3312 → 1.331 s; a type it does not
// name (a40) keeps ×1.05: 1.344 s.
func TestSlowdownPerType(t *testing.T) {
	w := Workload{Batch: 128}
	s := Slowdown{Base: constEst{}, Global: 1.05, Relaxed: 1.3, PerType: map[string]float64{"h100": 1.2, "a100": 0.8},
		NodeCap: func(string) int { return 4 }}
	for _, c := range []struct {
		name string
		cfg  Config
		want float64
	}{
		{"h100, its own factor", Config{"h100", 1, 4}, 1.613},
		{"a100 relaxed, both", Config{"a100", 2, 2}, 1.331},
		{"a40 unnamed", Config{"a40", 1, 4}, 1.344},
	} {
		if got := s.Estimate(w, c.cfg).IterTime; got != c.want {
			t.Errorf("%s: iteration time %v, want %v", c.name, got, c.want)
		}
	}
	if n := s.Name(); n != "const×1.05(relaxed ×1.3)(a100 ×0.8)(h100 ×1.2)" {
		t.Errorf("name %q", n)
	}
}
