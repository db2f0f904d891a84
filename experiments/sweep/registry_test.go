package sweep

import (
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/registry"
)

// testRegistry is the registry of every built-in policy the tests run.
func testRegistry() *registry.Registry { return policy.NewRegistry() }
