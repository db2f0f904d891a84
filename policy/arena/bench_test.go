package arena_test

import "testing"

// BenchmarkPhillyArena is the full Philly run of Arena in artifact timing
// (2000 rounds on paper-1280); ns/op is its wall time. Per-decision
// latency is in the run's Summary.Wallclock (reported as p50/p99/max).
func BenchmarkPhillyArena(b *testing.B) {
	for b.Loop() {
		out := runPhilly(b, "arena")
		w := out.Summary.Wallclock
		b.ReportMetric(w.DecisionP50*1e3, "p50-ms/decision")
		b.ReportMetric(w.DecisionP99*1e3, "p99-ms/decision")
		b.ReportMetric(w.DecisionMax*1e3, "max-ms/decision")
	}
}
