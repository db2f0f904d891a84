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
	"github.com/arena-sim/arena/sim"
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
	if err := reg.Register(policy.Entry{Name: "failing", Doc: "fails at its fourth decision",
		New: func(policy.Options) (sim.Policy, error) { return &failing{}, nil }}); err != nil {
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
		if _, err := os.Stat(filepath.Join(dir, p, sim.SummaryFile)); err != nil {
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
