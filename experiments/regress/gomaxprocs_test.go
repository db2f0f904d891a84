package regress

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"

	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// TestDeterministicAcrossGOMAXPROCS runs every registered policy in both
// timings under GOMAXPROCS 1, 2 and 8 and requires byte-identical results
// (jobs and timeline Parquet, the per-round digest, the summary without
// its wall-clock section): nothing may depend on scheduling of goroutines
// or the machine. PAI, 120 rounds: short, but every policy decides with
// jobs arriving, running and finishing.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every policy six times")
	}
	reg := testRegistry()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, name := range reg.Names() {
		e, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(e.Options, func(o registry.Option) bool { return o.Required }) {
			continue // exec needs a command: not a policy by itself
		}
		for _, timing := range []sim.Timing{sim.Exact, sim.Artifact} {
			var ref []byte
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				out, err := runner.Execute(context.Background(), reg, runner.Run{Trace: "pai", Cluster: "paper-1280", Policy: name, Timing: timing, Rounds: 120})
				if err != nil {
					if strings.Contains(err.Error(), "cvxopt") || strings.Contains(err.Error(), "python") {
						t.Logf("%s: skipped, needs python3-cvxopt: %v", name, err)
						break
					}
					t.Fatalf("%s %s GOMAXPROCS=%d: %v", name, timing, procs, err)
				}
				got := resultBytes(t, out)
				if ref == nil {
					ref = got
				} else if !bytes.Equal(ref, got) {
					t.Errorf("%s, %s timing: results under GOMAXPROCS=%d differ from GOMAXPROCS=1", name, timing, procs)
				}
			}
		}
	}
}

func resultBytes(t *testing.T, o *runner.Outcome) []byte {
	t.Helper()
	jobs, err := resultsdir.JobsParquet(o.Result, sim.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := resultsdir.TimelineParquet(o.Result, sim.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	s := o.Summary
	s.Wallclock = sim.Wallclock{}
	sum, _ := json.Marshal(s)
	return bytes.Join([][]byte{jobs, tl, o.Result.DigestCSV(), sum}, []byte{0})
}
