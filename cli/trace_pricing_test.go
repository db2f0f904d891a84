package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/traces"
)

// trace inspect prices a runnable trace as a run with the same
// --estimator and --gpu-map would: for every built-in cluster and every
// estimator, with and without a map onto the cluster's types, it refuses
// (as simulate does) a cluster with types the estimator cannot price,
// naming them and the fix, and otherwise prints the offered load computed
// with that estimator on the remapped jobs, naming both.
func TestInspectPricesAsARun(t *testing.T) {
	refused, priced := 0, 0
	for _, cluster := range clusterspec.BuiltinNames() {
		spec, err := clusterspec.Load(cluster)
		if err != nil {
			t.Fatal(err)
		}
		gpus := 0
		for _, p := range spec.Pools {
			gpus += p.Nodes * p.GPUsPerNode
		}
		// No map, and one onto the cluster's own types.
		philly, err := traces.Load("philly")
		if err != nil {
			t.Fatal(err)
		}
		onto := runner.SuggestGPUMap(runner.MissingTypes(philly.Jobs, runner.ClusterTypes(spec)), runner.ClusterTypes(spec))
		if onto == "" {
			onto = "v100=a100"
		}
		for _, est := range runner.EstimatorNames() {
			for _, gm := range []string{"", onto} {
				args := []string{"trace", "inspect", "philly", "--cluster", cluster, "--estimator", est}
				if gm != "" {
					args = append(args, "--gpu-map", gm)
				}
				out, err := runCLI(t, args...)
				src, serr := runner.SourceFor(est)
				if serr != nil {
					t.Fatal(serr)
				}
				if bad := estimator.Unpriced(src, runner.ClusterTypes(spec)); len(bad) > 0 {
					refused++
					if err == nil || !strings.Contains(err.Error(), "cannot price: "+strings.Join(bad, ", ")) || !strings.Contains(err.Error(), "--estimator analytic") {
						t.Errorf("%v: %v, want a refusal naming %v", args, err, bad)
					}
					continue
				}
				if err != nil {
					t.Errorf("%v: %v", args, err)
					continue
				}
				priced++
				// The load a run would offer, computed here from the
				// trace, the map and the estimator directly.
				tr, err := traces.Load("philly")
				if err != nil {
					t.Fatal(err)
				}
				m, _ := traces.ParseGPUMap(gm)
				traces.RemapGPUs(tr, m)
				stats := traces.InspectTable(traces.TableOf(tr, src.View(estimator.ViewOptimal)))
				load := stats.OfferedLoad(gpus)
				want := fmt.Sprintf("offered load on %s (%d GPUs): %.2f", spec.Name, gpus, load)
				named := "run times priced by estimator " + est + ", no GPU map"
				if gm != "" {
					named = "run times priced by estimator " + est + ", GPU types rewritten by GPU map " + traces.FormatGPUMap(m)
				}
				if !strings.Contains(out, want) || !strings.Contains(out, named) {
					t.Errorf("%v: output lacks %q or %q:\n%s", args, want, named, out)
				}
				if missing := runner.MissingTypes(tr.Jobs, runner.ClusterTypes(spec)); strings.Contains(out, "jobs request GPU types "+spec.Name+" lacks") != (len(missing) > 0) {
					t.Errorf("%v: a warning about the types %s lacks iff jobs request them (%v):\n%s", args, spec.Name, missing, out)
				}
			}
		}
	}
	if refused == 0 || priced == 0 {
		t.Fatalf("%d refused, %d priced: the test checks one side only", refused, priced)
	}
}

// The flags are simulate's own: the same usage, and a bad value is the
// same error under the same flag name.
func TestInspectSharesSimulateModelFlags(t *testing.T) {
	root := New(policy.NewRegistry())
	sim, _, err := root.Find([]string{"simulate"})
	if err != nil {
		t.Fatal(err)
	}
	ins, _, err := root.Find([]string{"trace", "inspect"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"estimator", "gpu-map"} {
		a, b := sim.Flags().Lookup(name), ins.Flags().Lookup(name)
		if a == nil || b == nil || a.Usage != b.Usage || a.DefValue != b.DefValue {
			t.Errorf("--%s: simulate %+v, inspect %+v", name, a, b)
		}
	}
	for _, bad := range [][]string{{"--gpu-map", "a100"}, {"--estimator", "oracle"}} {
		_, e1 := runCLI(t, append([]string{"simulate", "--rounds", "1"}, bad...)...)
		_, e2 := runCLI(t, append([]string{"trace", "inspect", "philly"}, bad...)...)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("%v: simulate %v, inspect %v: want one error", bad, e1, e2)
		}
	}
}
