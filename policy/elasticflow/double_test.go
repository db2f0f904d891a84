package elasticflow

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
)

// doubleRescan is the greedy doubling as the artifact runs it (ARENA.md §7,
// the doc of double): before every doubling, rescan every job; among those
// whose share fits the free GPUs and is below its maximum, the strictly
// largest gain wins (the first on ties); stop when none is left or the best
// gain is InfeasibleThroughput. It is the definition double must match
// (an independent oracle: no heap, no early exit).
func doubleRescan(p *plan, list []*jobState, share []int, free int) {
	for free > 0 {
		best, bestGain := -1, 0.0
		for i, x := range list {
			if share[i] > free || share[i] >= x.max {
				continue
			}
			if g := p.gain(x, share[i]); best < 0 || g > bestGain {
				best, bestGain = i, g
			}
		}
		if best < 0 || !(bestGain > estimator.InfeasibleThroughput) {
			return
		}
		free -= share[best]
		share[best] *= 2
	}
}

// TestDoubleIsTheRescan: double (the heap, with jobs leaving it as soon as
// they can double no more) chooses the same doublings as the artifact's
// rescan, share for share, on random jobs whose estimates tie, are
// infeasible or fall with more GPUs (a negative gain still wins), maxima
// reached mid-way and free GPUs running out. Self-generated comparison
// against the rescan oracle above; the anchor of the policy's choices stays
// TestPhillyParity.
func TestDoubleIsTheRescan(t *testing.T) {
	thrs := []float64{0, 1, 2, 2, 3, 5, 8, 8}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(rt, "jobs")
		p := &plan{ef: &ElasticFlow{variant: LongSlack}}
		list := make([]*jobState, n)
		share := make([]int, n)
		for i := range list {
			x := &jobState{max: 1 << rapid.IntRange(0, 6).Draw(rt, "maxlog")}
			for k := range estCache {
				x.est[k] = dpFigures{thr: rapid.SampledFrom(thrs).Draw(rt, "thr"), it: 1}
			}
			x.have = 1<<estCache - 1
			list[i] = x
			share[i] = 1 << rapid.IntRange(0, 6).Draw(rt, "sharelog")
			share[i] = min(share[i], x.max)
		}
		free := rapid.IntRange(-1, 200).Draw(rt, "free")
		want := slices.Clone(share)
		doubleRescan(p, list, want, free)
		p.double(list, share, free)
		if !slices.Equal(share, want) {
			rt.Fatalf("free %d: double gives shares %v, the rescan %v", free, share, want)
		}
	})
}
