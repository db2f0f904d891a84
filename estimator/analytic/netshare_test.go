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

// TestNetworkShareMemo: the memoised share equals the one computed from
// the plan (networkShare), asked twice, for several workloads and
// localities including one too wide for the memo's key.
func TestNetworkShareMemo(t *testing.T) {
	src, err := DefaultSource()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, name := range []string{"gpt-6.7b", "moe-10b", "wresnet-2b"} {
			m, _ := ParseModel(name)
			w := estimator.Workload{Model: m, Batch: 256}
			for _, c := range []estimator.Config{{GPU: "a100", Nodes: 2, PerNode: 4}, {GPU: "h100", Nodes: 4, PerNode: 8}, {GPU: "v100", Nodes: 8, PerNode: 1}, {GPU: "a100", Nodes: 2, PerNode: 64}} {
				if got, want := src.NetworkShare(w, c), src.networkShare(w, c); got != want {
					t.Fatalf("%v on %v: share %v, computed %v", w, c, got, want)
				}
			}
		}
	}
}
