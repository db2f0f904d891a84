package arena

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestNodeSwapAssertionCountedOnce: the node-swap fix-up meets a job whose
// previous node is partly idle (the artifact asserts it is full, and would
// stop there); arena skips it and counts the false assertion once, however
// many of the job's new nodes look at that node. Hand-worked (outside
// anchor: the artifact's loop, ARENA.md §5 node-swap rules).
//
// Four a100 nodes of 4 GPUs. Job 0 (8 GPUs) ran on nodes 0 and 1 and now
// runs on nodes 2 and 3; job 1 (4 GPUs) took node 1, nobody took node 0.
// The fix-up walks the job's new nodes: for node 2 it finds node 0 idle
// (the false assertion), then swaps node 1 with job 1; for node 3 it finds
// node 0 idle again (the same assertion, not a second one) and node 1
// already switched. Before the count was per check it was 2.
func TestNodeSwapAssertionCountedOnce(t *testing.T) {
	r := newTestRound(t, a100x4(t), uniformRates("gpt-1.3b"), []testJob{
		{"gpt-1.3b", "a100", 8, seq(8, 15)},
		{"gpt-1.3b", "a100", 4, seq(4, 7)},
	})
	r.v.Timing = sim.Artifact
	prevOcc := make([]sim.JobID, 16)
	for s := range prevOcc {
		prevOcc[s] = sim.NoJob
	}
	for s := 0; s < 8; s++ {
		prevOcc[s] = 0
	}
	r.nodeSwapFixup(newTable(r.p.tp, prevOcc))
	if n := r.p.ArtifactAssertionsFailed(); n != 1 {
		t.Errorf("artifact_assertions_failed = %d, want 1 (one idle node of one job)", n)
	}
	for id, want := range map[sim.JobID][]int{0: append(seq(4, 7), seq(12, 15)...), 1: seq(8, 11)} {
		if got := slotsOf(r.real, id); !reflect.DeepEqual(got, want) {
			t.Errorf("job %d on %v, want %v", id, got, want)
		}
	}
}
