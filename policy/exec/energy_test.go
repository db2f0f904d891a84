package exec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	pexec "github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/energy"
)

// helloOf starts a fake policy that copies arena's hello to its stderr,
// and returns that hello.
func helloOf(t *testing.T, m *energy.Model) map[string]any {
	t.Helper()
	spec, _ := clusterspec.Load("testbed-64")
	c, _ := sim.NewCluster(spec)
	src, err := runner.SourceFor("")
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	argv, _ := pexec.SplitCommand(`sh -c 'read l; echo "$l" >&2; echo "{\"type\":\"hello\",\"protocol\":1}"; read l'`)
	p, err := pexec.Start(c, src, sim.Exact, pexec.Config{Command: argv, Stderr: &stderr, Energy: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	var hello map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(stderr.Bytes()), &hello); err != nil {
		t.Fatalf("hello %q: %v", stderr.String(), err)
	}
	return hello
}

// The hello carries the energy object (prices of the cluster's types,
// their TDP and idle watts, the hourly intensity) only when the entry's
// energy option names a model: a hello without it is unchanged.
func TestHelloCarriesEnergy(t *testing.T) {
	if _, ok := helloOf(t, nil)["energy"]; ok {
		t.Error("a hello without an energy model has an energy key")
	}
	m, err := energy.Load("de-2020-06")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := helloOf(t, m)["energy"].(map[string]any)
	if !ok {
		t.Fatal("no energy object in the hello")
	}
	prices, _ := e["usd_per_gpu_hour"].(map[string]any)
	watts, _ := e["watts"].(map[string]any)
	hours, _ := e["carbon_g_per_kwh_hourly"].([]any)
	if prices["a40"] != 1.28 || prices["a10"] != 1.006 || len(hours) != 168 || e["model"] != "de-2020-06" || e["price_tier"] != "on-demand" {
		t.Errorf("energy object %v", e)
	}
	if a10, _ := watts["a10"].(map[string]any); a10["tdp"] != 150.0 || a10["idle"] != 20.0 {
		t.Errorf("a10 watts %v", watts["a10"])
	}
}

// The carbon-aware Python example reads the hello's intensity and runs
// clean under the checker.
func TestPythonCarbonWaitRuns(t *testing.T) {
	python3(t)
	o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: "testbed", Cluster: "testbed-64", Policy: "exec(cmd='python3 ../../examples/python/carbon_wait.py',energy=de-2020-06)", Timing: sim.Exact, Check: true, Energy: "de-2020-06",
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Summary.Finished == 0 || o.Summary.Energy == nil {
		t.Errorf("finished %d, energy %v", o.Summary.Finished, o.Summary.Energy)
	}
}
