package policy_test

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
	"github.com/arena-sim/arena/policy/sia"
)

// TestEveryBuiltinConforms runs the conformance suite once on every
// built-in entry with its default options, so an entry whose package runs
// the suite only on some of its variants, or not at all, is still held to
// it. The policies that run outside arena get a command or a named skip.
func TestEveryBuiltinConforms(t *testing.T) {
	reg := policy.NewRegistry()
	for _, e := range policy.Builtin() {
		t.Run(e.Name, func(t *testing.T) {
			p := e.Name
			switch e.Name {
			case "exec":
				// exec has no default command: the Python FIFO example
				// through the adapter is the cheapest one.
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("exec runs an external command; this one (examples/python/fifo.py) needs python3")
				}
				p = "exec:python3 ../examples/python/fifo.py"
			case "sia-glpk":
				// Each run starts its own solver process.
				g, err := sia.StartGLPK()
				if errors.Is(err, sia.ErrNoGLPK) {
					t.Skipf("sia-glpk solves in an external GLPK process: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				g.Close()
			}
			policytest.Run(t, reg, p)
		})
	}
}
