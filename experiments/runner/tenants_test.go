package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// oneDay is one day of Philly's VCs (the Pollux copy), 100 rounds.
func oneDay(p string) Run {
	return Run{Trace: "philly-1d", Synth: &SynthTrace{Name: "philly-1d", From: "philly-pollux",
		Keys: [][2]string{{"recipe", "arena"}, {"since", "60d"}, {"until", "61d"}}}, Seed: 1,
		Cluster: "paper-1280", Policy: p, Rounds: 100}
}

// A run with tenants carries its fairness figures in the summary, with
// the quota wrapper's counts when its policy is the wrapper and none
// otherwise; a run without tenants carries none (guard: summaries of runs
// without tenants keep their form). A tenants file naming a VC no job has
// is refused before the run, naming the field and the VC.
func TestRunTenants(t *testing.T) {
	reg := policy.NewRegistry()
	plain, err := Execute(context.Background(), reg, oneDay("fcfs"))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Summary.Fairness != nil || plain.Fairness != nil {
		t.Errorf("a run without tenants has fairness figures")
	}
	r := oneDay("quota(fcfs,tenants=philly-vcs)")
	r.Tenants = TenantsVCs
	o, err := Execute(context.Background(), reg, r)
	if err != nil {
		t.Fatal(err)
	}
	f := o.Summary.Fairness
	if f == nil || f.TenantsFrom != "vcs" || f.Quota == nil || f.Rated == 0 || len(f.Tenants) == 0 {
		t.Fatalf("fairness %+v: want the VCs' figures with the wrapper's counts", f)
	}
	r = oneDay("fcfs")
	r.Tenants = TenantsVCs
	o2, err := Execute(context.Background(), reg, r)
	if err != nil {
		t.Fatal(err)
	}
	if o2.Summary.Fairness.Quota != nil {
		t.Errorf("fcfs has quota counts %+v", o2.Summary.Fairness.Quota)
	}
	if o2.Summary.InputHash != plain.Summary.InputHash {
		t.Errorf("tenants changed the input hash: they change no decision")
	}
	// philly-vcs lists VCs with no job on this day.
	r.Tenants = "philly-vcs"
	_, err = Execute(context.Background(), reg, r)
	if err == nil || !strings.HasPrefix(err.Error(), "tenants: ") || !strings.Contains(err.Error(), "no job") {
		t.Errorf("tenants naming absent VCs: err %v, want a tenants: error naming them", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("tenants:\n  a:\n    weight: -1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r.Tenants = bad
	if _, err := Execute(context.Background(), reg, r); err == nil || !strings.Contains(err.Error(), "bad.yaml:3") {
		t.Errorf("a negative weight: err %v, want file:line", err)
	}
}
