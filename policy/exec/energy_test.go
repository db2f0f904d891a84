package exec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	if prices["a40"] != 0.79 || prices["a10"] != 1.006 || len(hours) != 168 || e["model"] != "de-2020-06" || e["price_tier"] != "on-demand" {
		t.Errorf("energy object %v", e)
	}
	if a10, _ := watts["a10"].(map[string]any); a10["tdp"] != 150.0 || a10["idle"] != 11.5 {
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

// TestHelloSeesTheClusterEnergySection: through a run, an exec policy's
// energy option applies over the cluster spec's energy section as
// --energy does (docs/energy.md): default is the section itself, a series
// the section with that intensity, an energy file the section with the
// file's keys over it; a cluster without a section gives the built-in
// model. A Python policy records the hello's energy object. Hand-derived
// from the section's keys, no golden.
func TestHelloSeesTheClusterEnergySection(t *testing.T) {
	python3(t)
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples/python")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "energy.json")
	script := filepath.Join(dir, "rec.py")
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(script, fmt.Sprintf(`import json, sys
sys.path.insert(0, %q)
import arena_policy as ap

class Rec(ap.Policy):
    def hello(self, cluster, info):
        with open(%q, "w") as f:
            json.dump(info.get("energy"), f)

ap.run(Rec())
`, examples, out))
	pools := "pools:\n  - {gpu: a40, nodes: 2, gpus_per_node: 2}\n  - {gpu: a10, nodes: 2, gpus_per_node: 2}\n"
	plain := filepath.Join(dir, "plain.yaml")
	site := filepath.Join(dir, "site.yaml")
	file := filepath.Join(dir, "e.yaml")
	write(plain, "name: c\n"+pools)
	write(site, "name: c\n"+pools+"energy:\n  pue: 1.3\n  usd_per_kwh: 0.06\n  gpus:\n    a10: {idle: 25}\n  prices:\n    a40: {on_demand: 1.5}\n")
	write(file, "pue: 1.4\n")
	hello := func(cluster, model string) map[string]any {
		t.Helper()
		r := runner.Run{Trace: "testbed", Cluster: cluster, Policy: fmt.Sprintf("exec(cmd='python3 %s',energy=%s)", script, model), Timing: sim.Exact, Rounds: 3}
		if _, err := runner.Execute(context.Background(), policy.NewRegistry(), r); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]any
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	field := func(e map[string]any, path ...string) any {
		var x any = e
		for _, k := range path {
			m, _ := x.(map[string]any)
			x = m[k]
		}
		return x
	}
	for _, c := range []struct {
		cluster, model     string
		pue, usd, a40, a10 float64
		hourly             bool
	}{
		{plain, "default", 1.1, 0.0806, 0.79, 11.5, false},
		{site, "default", 1.3, 0.06, 1.5, 25, false},
		{site, "de-2020-06", 1.3, 0.06, 1.5, 25, true},
		{site, file, 1.4, 0.06, 1.5, 25, false},
	} {
		e := hello(c.cluster, c.model)
		hours, _ := e["carbon_g_per_kwh_hourly"].([]any)
		if e["pue"] != c.pue || e["usd_per_kwh"] != c.usd || field(e, "usd_per_gpu_hour", "a40") != c.a40 ||
			field(e, "watts", "a10", "idle") != c.a10 || (len(hours) == 168) != c.hourly {
			t.Errorf("%s, energy=%s: hello's energy %v, want pue %g, $/kWh %g, a40 $%g, a10 idle %g W, hourly %v",
				filepath.Base(c.cluster), filepath.Base(c.model), e, c.pue, c.usd, c.a40, c.a10, c.hourly)
		}
	}
}
