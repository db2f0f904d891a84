package sia_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
)

// TestConformance runs the conformance suite on every registered variant.
func TestConformance(t *testing.T) {
	reg := policy.NewRegistry()
	for _, p := range []string{"sia", "sia-head"} {
		t.Run(p, func(t *testing.T) { policytest.Run(t, reg, p) })
	}
}
