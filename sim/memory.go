package sim

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// MemoryFloor is the heap the arena command lets a run reach at the
// GCPercent pace before PaceMemory holds it nearer the live heap.
const MemoryFloor = 1 << 30

// MemoryCeiling is the heap PaceMemory holds a run under while its live
// heap leaves a third of it free (about 1.07 GiB live): the 2 GB a
// simulation of a million jobs is meant to fit in, less the runtime's
// own memory beside the heap.
const MemoryCeiling = 1600 << 20

// PaceMemory bounds the memory of a process that runs at GCPercent: it
// sets the runtime's soft memory limit to memoryLimit of the live heap,
// updated every 50 ms until stop is called. A run whose heap is small
// keeps GCPercent's pace (few collections); a large one collects more
// often, so that a million jobs (about 1 GB live) peak under 2 GB rather
// than five times their live heap. Nothing a run computes depends on it.
// The arena command calls it unless GOMEMLIMIT is set.
func PaceMemory() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		debug.SetMemoryLimit(memoryLimit(int64(sample[0].Value.Uint64())))
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

// memoryLimit is the soft memory limit PaceMemory sets for a live heap of
// live bytes: MemoryFloor while twice the live heap is below it (GCPercent
// keeps its pace); then twice the live heap, as at the default pace
// (GOGC=100), but no more than MemoryCeiling; and once 1.5 times the live
// heap passes MemoryCeiling, 1.5 times the live heap. The limit never
// falls below 1.5 times the live heap, so the collector has a third of
// the heap to fill before it runs again and never runs back to back (a
// limit close to the live heap would spend the run collecting). The cost
// is more collections than at GOGC=100 between the two bounds, each a
// mark of the live heap: at a million jobs a few of them, against
// hundreds of seconds of simulation (docs/performance.md).
func memoryLimit(live int64) int64 {
	return max(MemoryFloor, min(2*live, max(live+live/2, MemoryCeiling)))
}
