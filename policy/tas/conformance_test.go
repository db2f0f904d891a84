package tas_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
)

func TestConformance(t *testing.T) { policytest.Run(t, policy.NewRegistry(), "tas") }

func TestConformanceRequired(t *testing.T) {
	policytest.Run(t, policy.NewRegistry(), "tas(level=domain,required_max_gpus=8)")
}
