package tenants

import (
	"os"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
)

func testbed(t *testing.T) *sim.Cluster {
	t.Helper()
	spec, err := clusterspec.Load("testbed-64")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseExample(t *testing.T) {
	f, err := Load("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tenants) != 3 {
		t.Fatalf("%d tenants, want 3", len(f.Tenants))
	}
	v := f.Tenants[0]
	if v.Name != "vision" || v.Guaranteed["a40"] != 16 || v.Guaranteed["a10"] != 8 || v.Cap != 48 || v.Weight != 2 || v.Priority != 1 || v.Line != 3 {
		t.Errorf("vision = %+v", v)
	}
	if n := f.Tenants[1]; n.Weight != 1 || n.Cap != 0 || n.Priority != 0 {
		t.Errorf("nlp defaults = %+v, want weight 1, no cap, priority 0", n)
	}
	if i := f.Index("unlisted"); f.Tenant(i).Name != Default || f.Tenant(i).Weight != 0.5 {
		t.Errorf("an unlisted VC maps to %+v, want the listed (default) with weight 0.5", f.Tenant(i))
	}
	if err := f.CheckCluster(testbed(t)); err != nil {
		t.Error(err)
	}
	jobs := []sim.JobSpec{{VirtualCluster: "vision"}, {VirtualCluster: "nlp"}}
	if err := f.CheckJobs(jobs); err != nil {
		t.Error(err)
	}
}

// Every bad input names file, line and key.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown top key", "tenant:\n  a: {}\n", "x.yaml:1: key tenant: unknown key (want tenants, oversubscribe)"},
		{"duplicate VC", "tenants:\n  a: {}\n  a: {}\n", "x.yaml:3: key a: given twice (first on line 2)"},
		{"duplicate key", "tenants:\n  a:\n    cap: 2\n    cap: 3\n", "x.yaml:4: key cap: given twice (first on line 3)"},
		{"unknown tenant key", "tenants:\n  a:\n    quota: 2\n", "x.yaml:3: tenant \"a\": key quota: unknown key"},
		{"negative weight", "tenants:\n  a:\n    weight: -1\n", "x.yaml:3: tenant \"a\": key weight: want a number > 0, got -1"},
		{"zero weight", "tenants:\n  a:\n    weight: 0\n", "x.yaml:3: tenant \"a\": key weight"},
		{"bad GPU", "tenants:\n  a:\n    guaranteed: {b200: 4}\n", "x.yaml:3: tenant \"a\": key guaranteed.b200: unknown GPU type"},
		{"fractional count", "tenants:\n  a:\n    guaranteed: {a40: 2.5}\n", "x.yaml:3: tenant \"a\": key guaranteed.a40: want a whole number ≥ 0, got \"2.5\""},
		{"negative cap", "tenants:\n  a:\n    cap: -4\n", "x.yaml:3: tenant \"a\": key cap: want a whole number ≥ 0"},
		{"cap below guarantee", "tenants:\n  a:\n    guaranteed: {a40: 8}\n    cap: 4\n", "x.yaml:2: tenant \"a\": key cap: 4 is below the tenant's guarantee of 8"},
		{"bad priority", "tenants:\n  a:\n    priority: high\n", "x.yaml:3: tenant \"a\": key priority: want a whole number"},
		{"no tenants", "oversubscribe: true\n", "x.yaml: key tenants: required"},
		// An empty section was accepted and quota then did nothing.
		{"empty tenants", "tenants: {}\n", "x.yaml:1: key tenants: an empty mapping"},
		{"empty tenants, block form", "oversubscribe: true\ntenants:\n  {}\n", "x.yaml:3: key tenants: an empty mapping"},
		{"null tenants", "tenants:\n", "x.yaml:1: key tenants: want a mapping"},
		{"two documents", "tenants: {}\n---\ntenants: {}\n", "x.yaml:2: a second YAML document"},
		{"not a mapping", "- a\n", "x.yaml: want a mapping"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestCheckCluster(t *testing.T) {
	c := testbed(t) // 32 A40 + 32 A10
	over := "tenants:\n  a:\n    guaranteed: {a40: 20}\n  b:\n    guaranteed: {a40: 20}\n"
	f, err := Parse("x.yaml", []byte(over))
	if err != nil {
		t.Fatal(err)
	}
	err = f.CheckCluster(c)
	if want := "x.yaml:4: tenant \"b\": key guaranteed.a40: guarantees of a40 sum to 40 GPUs, over the cluster's 32 (set oversubscribe: true to allow it)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	f, err = Parse("x.yaml", []byte("oversubscribe: true\n"+over))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckCluster(c); err != nil {
		t.Errorf("oversubscribe: true still refused: %v", err)
	}
	f, err = Parse("x.yaml", []byte("tenants:\n  a:\n    guaranteed: {v100: 4}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckCluster(c); err == nil || !strings.Contains(err.Error(), "x.yaml:2: tenant \"a\": key guaranteed.v100: cluster testbed-64 has no v100 GPU") {
		t.Errorf("error %v, want the missing type named", err)
	}
}

func TestCheckJobs(t *testing.T) {
	f, err := Parse("x.yaml", []byte("tenants:\n  a: {}\n  typo: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.CheckJobs([]sim.JobSpec{{VirtualCluster: "a"}, {VirtualCluster: "b"}})
	if want := "x.yaml:3: tenant \"typo\": no job of the trace has this VC (the trace's VCs: a, b)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("tenants:\n  a:\n    guaranteed: {a40: 2}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse("fuzz.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, tt := range file.Tenants {
			if tt.Weight <= 0 || tt.Cap < 0 {
				t.Fatalf("accepted %+v", tt)
			}
		}
	})
}

// The built-in philly-vcs parses and fits paper-1280 (guarantees of 256
// of each type's 320 GPUs): the study's tenants from a clean checkout.
func TestBuiltinPhillyVCs(t *testing.T) {
	f, err := Load("philly-vcs")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tenants) != 15 {
		t.Errorf("%d tenants, want Philly's 15 VCs", len(f.Tenants))
	}
	spec, err := clusterspec.Load("paper-1280")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckCluster(c); err != nil {
		t.Errorf("philly-vcs on paper-1280: %v", err)
	}
}
