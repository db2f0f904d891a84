package fcfs_test

import (
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
)

func TestConformance(t *testing.T) { policytest.Run(t, policy.NewRegistry(), "fcfs") }
