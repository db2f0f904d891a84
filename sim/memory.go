package sim

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// MemoryFloor is the heap the arena command lets a run reach at the
// GCPercent pace before PaceMemory holds it to twice the live heap.
const MemoryFloor = 1 << 30

// PaceMemory bounds the memory of a process that runs at GCPercent: it
// sets the runtime's soft memory limit to the larger of MemoryFloor and
// twice the live heap, updated every 50 ms until stop is called. A run
// whose heap is small keeps GCPercent's pace (few collections); a large
// one collects as at the default pace (GOGC=100), so that a million jobs
// (about 1 GB live) peak near 2 GB rather than five times their live
// heap. Nothing a run computes depends on it. The arena command calls it
// unless GOMEMLIMIT is set.
func PaceMemory() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		debug.SetMemoryLimit(max(MemoryFloor, 2*int64(sample[0].Value.Uint64())))
	}
	set()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				set()
			}
		}
	}()
	return func() { close(done) }
}
