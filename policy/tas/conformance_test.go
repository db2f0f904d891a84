package tas_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
)

func TestConformance(t *testing.T) { policytest.Run(t, policy.NewRegistry(), "tas") }

// TestConformanceRequired runs the suite with the fast domain required
// for every job that fits one: the suite's clusters have no topology, so a
// domain is one node of at most 4 GPUs, and required_max_gpus=4 keeps the
// requirement satisfiable (a job that requires a level larger than any of
// its groups is dropped on arrival, as Kueue marks it inadmissible:
// TestTASPacksWhereFCFSSpreads checks that, and the suite's rule that
// every job of an idle cluster finishes would rightly fail on it).
func TestConformanceRequired(t *testing.T) {
	policytest.Run(t, policy.NewRegistry(), "tas(level=domain,required_max_gpus=4)")
}
