package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// failing is a policy that errs at its fourth decision.
type failing struct{ calls int }

func (p *failing) Name() string { return "failing" }
func (p *failing) Schedule(*sim.View) ([]sim.Action, error) {
	if p.calls++; p.calls == 4 {
		return nil, errors.New("planted failure")
	}
	return nil, nil
}

// TestOneFailingPolicyKeepsTheOthers: when one of several policies fails,
// the others' results are still printed and written, the output names
// the failed policy and its reason, and the command exits with an error.
func TestOneFailingPolicyKeepsTheOthers(t *testing.T) {
	reg := policy.NewRegistry()
	if err := reg.Register(registry.Entry{Name: "failing", Doc: "fails at its fourth decision",
		New: func(registry.Options) (sim.Policy, error) { return &failing{}, nil }}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	root := New(reg)
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"simulate", "--trace", "pai", "--policy", "fcfs,failing,arena", "--rounds", "50", "--out", dir, "--quiet"})
	err := root.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "1 of 3 policies failed") || !strings.Contains(err.Error(), "planted failure") {
		t.Fatalf("err = %v, want one of three failed, naming the reason", err)
	}
	for _, want := range []string{"jobs finished", "⚠ 1 of 3 policies failed", "failing"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, p := range []string{"fcfs", "arena"} {
		if _, err := os.Stat(filepath.Join(dir, p, resultsdir.SummaryFile)); err != nil {
			t.Errorf("%s's results were not written: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "failing")); err == nil {
		t.Error("the failed policy left a results directory")
	}
}

// TestPolicyDirCollisionRefused: two policy strings whose results
// directories coincide would overwrite each other; refused before running.
func TestPolicyDirCollisionRefused(t *testing.T) {
	out, err := runCLI(t, "simulate", "--trace", "pai", "--policy", "exec:python3 a b.py,exec:python3 a_b.py", "--rounds", "5", "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "would both write") {
		t.Fatalf("err = %v\n%s", err, out)
	}
}

// TestSimulateFairness: --fairness prints each policy's finish-time
// fairness and writes fairness.json beside its results; a bad tenants
// file is refused naming its file, line and key.
func TestSimulateFairness(t *testing.T) {
	dir := t.TempDir()
	out, err := runCLI(t, "simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs,arena", "--rounds", "40", "--fairness", "--out", dir, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Count(out, "finish-time fairness:") != 2 || !strings.Contains(out, "Jain's index") {
		t.Errorf("no fairness block per policy:\n%s", out)
	}
	for _, p := range []string{"fcfs", "arena"} {
		data, err := os.ReadFile(filepath.Join(dir, p, FairnessFile))
		if err != nil || !strings.Contains(string(data), `"max_rho"`) {
			t.Errorf("%s: fairness.json: %v %.200s", p, err, data)
		}
	}
	bad := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(bad, []byte("tenants:\n  a:\n    weight: -1\n"), 0o644)
	_, err = runCLI(t, "simulate", "--trace", "testbed", "--cluster", "testbed-64", "--policy", "fcfs", "--rounds", "5", "--tenants", bad, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "t.yaml:3") || !strings.Contains(err.Error(), "weight") {
		t.Errorf("bad tenants file: err = %v", err)
	}
}
