package carbon_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
)

// TestConformance runs the conformance suite.
func TestConformance(t *testing.T) {
	policytest.Run(t, policy.NewRegistry(), "carbon-aware")
}
