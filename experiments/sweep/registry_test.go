package sweep

import "github.com/arena-sim/arena/policy"

// testRegistry is the registry of every built-in policy the tests run.
func testRegistry() *policy.Registry { return policy.NewRegistry() }
