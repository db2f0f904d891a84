package analytic

import (
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestNetworkShare: on one node nothing crosses nodes; on two the share is
// a fraction in (0, 1) and equals the breakdown's cross-node parts over the
// iteration time (self-consistency with planCost, not an outside anchor).
func TestNetworkShare(t *testing.T) {
	src, err := DefaultSource()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := estimator.ParseModel("gpt-6.7b")
	w := estimator.Workload{Model: m, Batch: 256}
	if f := src.NetworkShare(w, estimator.Config{GPU: "a100", Nodes: 1, PerNode: 4}); f != 0 {
		t.Fatalf("one node: share %v, want 0", f)
	}
	c := estimator.Config{GPU: "a100", Nodes: 4, PerNode: 4}
	f := src.NetworkShare(w, c)
	ch, _ := src.Plan(w, c)
	want := crossNode(ch.Plan, ch.Result, 4, false) / ch.Result.IterTime
	if f <= 0 || f >= 1 || f != want {
		t.Fatalf("4 nodes: share %v, want %v in (0, 1) (plan %v, breakdown %+v)", f, want, ch.Plan, ch.Result)
	}
	t.Logf("gpt-6.7b/256 on 4×4 a100: plan %v, network share %.3f", ch.Plan, f)
}
