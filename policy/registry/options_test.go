package registry_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// Hand-worked cases of the policy-string grammar.
func TestSplitList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"arena,fcfs", []string{"arena", "fcfs"}},
		{"tiresias(queues=3,threshold=16h), fcfs", []string{"tiresias(queues=3,threshold=16h)", "fcfs"}},
		{"fcfs,exec:python3 p.py", []string{"fcfs", "exec:python3 p.py"}},
		{"x(a='1,2'),y", []string{"x(a='1,2')", "y"}},
		{`x(a="(,)"),y`, []string{`x(a="(,)")`, "y"}},
	} {
		got, err := registry.SplitList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitList(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a,,b", "x(a=1", "x)a(", "x(a='1)", ""} {
		if _, err := registry.SplitList(bad); err == nil {
			t.Errorf("SplitList(%q): no error", bad)
		}
	}
}

func TestParseOptions(t *testing.T) {
	reg := policy.NewRegistry()
	s, err := reg.Parse("tiresias(queues=3, threshold=4h)")
	if err != nil {
		t.Fatal(err)
	}
	if s.Values.Int("queues") != 3 || s.Values.Duration("threshold") != 4*3600 || s.Values.Float("growth") != 2 {
		t.Errorf("values %+v", s.Values)
	}
	if !s.Values.Given("queues") || s.Values.Given("growth") {
		t.Error("Given wrong")
	}
	// The canonical string lists non-default options in declaration order
	// and parses back to itself.
	if got := s.String(); got != "tiresias(queues=3,threshold=4h)" {
		t.Errorf("String = %q", got)
	}
	for _, in := range []string{"tiresias", "tiresias()", "TIRESIAS(queues=2)", "tiresias(threshold=57600)"} {
		s, err := reg.Parse(in)
		if err != nil || s.String() != "tiresias" {
			t.Errorf("Parse(%q).String() = %q, %v; want tiresias (defaults are not spelled out)", in, s.String(), err)
		}
	}
	s, _ = reg.Parse("crius")
	if s.String() != "arena" {
		t.Errorf("alias renders as %q", s.String())
	}
}

// A bad option is an error naming the policy and the key.
func TestParseOptionErrors(t *testing.T) {
	reg := policy.NewRegistry()
	for _, c := range []struct{ in, key, want string }{
		{"tiresias(queus=3)", "queus", "unknown option (known: queues, threshold, growth, promote"},
		{"tiresias(queues=three)", "queues", `"three": want a whole number`},
		{"tiresias(threshold=soon)", "threshold", "want a duration"},
		{"tiresias(queues=3,queues=4)", "queues", "given twice"},
		{"tiresias(queues)", "queues", "want key=value"},
		{"srtf(x=1)", "x", "it takes none"},
	} {
		_, err := reg.Parse(c.in)
		var oe *input.Error
		if !errors.As(err, &oe) || oe.Field != c.key || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "policy ") {
			t.Errorf("Parse(%q) = %v; want an input.Error for key %q containing %q", c.in, err, c.key, c.want)
		}
	}
	if _, err := reg.Parse("nosuch(a=1)"); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("unknown policy: %v", err)
	}
}

func TestRegister(t *testing.T) {
	reg := policy.NewRegistry()
	mk := func(n string, opts ...registry.Option) registry.Entry {
		return registry.Entry{Name: n, Options: opts, New: func(registry.Options) (sim.Policy, error) { return nil, nil }}
	}
	if err := reg.Register(mk("mine", registry.Option{Name: "k", Type: registry.Enum, Values: []string{"a", "b"}, Default: "a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Parse("mine(k=b)"); err != nil {
		t.Error(err)
	}
	for _, bad := range []registry.Entry{
		mk("mine"), mk("fcfs"), mk("My Policy"), mk("a(b)"), {Name: "nonew"},
		mk("x1", registry.Option{Name: "k", Type: registry.Int, Default: "z"}),
		mk("x2", registry.Option{Name: "k", Type: registry.Int, Default: "1"}, registry.Option{Name: "k", Type: registry.Int, Default: "1"}),
		mk("x3", registry.Option{Name: "k", Type: registry.Enum, Default: "a"}),
		// A duration option declares its range: grace=-1s and a grace
		// echoed as "--8s" were accepted.
		mk("x4", registry.Option{Name: "k", Type: registry.Duration, Default: "1h"}),
		mk("x5", registry.Option{Name: "k", Type: registry.Duration, Default: "1h", Min: "0"}),
	} {
		if err := reg.Register(bad); err == nil {
			t.Errorf("Register(%q) accepted", bad.Name)
		}
	}
	if _, err := reg.Lookup("x1"); err == nil {
		t.Error("a rejected entry was registered")
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]sim.Duration{"600": 600, "16h": 57600, "1h30m": 5400, "7d": 604800, "1.5d": 129600} {
		if got, err := registry.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "h", "NaN", "Infd", "3 days"} {
		if _, err := registry.ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
}

// FuzzParse: the parser never panics, and a parsed string's canonical form
// parses back to the same canonical form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"tiresias(queues=3,threshold=16h)", "exec:python3 p.py", "fcfs", "x(a='(,)')", "tiresias(promote=\"1\")"} {
		f.Add(s)
	}
	reg := policy.NewRegistry()
	f.Fuzz(func(t *testing.T, s string) {
		p, err := reg.Parse(s)
		if err != nil {
			return
		}
		q, err := reg.Parse(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("%q → %q → %q, %v", s, p.String(), q.String(), err)
		}
	})
}

// A wrapper's values carry its wrapped policy, parsed in the registry that
// parsed the wrapper, so quota's constructor builds a policy only a custom
// registry knows; values Parse did not build carry none, and the wrapper
// refuses them with an error naming its option. (Hand-worked cases.)
func TestWrapped(t *testing.T) {
	reg := policy.NewRegistry()
	built := 0
	if err := reg.Register(registry.Entry{Name: "mine", Options: []registry.Option{{Name: "k", Type: registry.Int, Default: "1"}},
		New: func(o registry.Options) (sim.Policy, error) {
			built = o.Values.Int("k")
			return nil, errors.New("mine: not a policy")
		}}); err != nil {
		t.Fatal(err)
	}
	s, err := reg.Parse("quota(tiresias(queues=3),grace=5m)")
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := s.Values.Wrapped(); !ok || in.String() != "tiresias(queues=3)" || in.Values.Int("queues") != 3 {
		t.Errorf("Wrapped() = %v, %v; want tiresias(queues=3)", in, ok)
	}
	s, err = reg.Parse("quota(mine(k=7))")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Entry.New(registry.Options{Values: s.Values}); err == nil || built != 7 {
		t.Errorf("quota(mine(k=7)) built mine with k=%d (error %v); want 7 and mine's error", built, err)
	}
	q, _ := reg.Lookup("quota")
	if _, ok := q.DefaultValues().Wrapped(); ok {
		t.Error("DefaultValues carry a wrapped policy")
	}
	if _, err := q.New(registry.Options{Values: q.DefaultValues()}); err == nil || !strings.HasPrefix(err.Error(), "policy quota: option policy") {
		t.Errorf("quota from default values: %v; want an error naming option policy", err)
	}
}

// Whatever arena prints as a duration (sim.Duration.String: "6d22h40m",
// "1h30m", "45s") reads back as the same span, so a header's horizon can
// be pasted into --horizon or --measure; and the forms a user writes keep
// their meaning.
func TestDurationsReadBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := sim.Duration(rapid.Int64Range(0, 400*86400).Draw(t, "seconds"))
		got, err := registry.ParseDuration(d.String())
		if err != nil || got != d {
			t.Fatalf("%v printed %q reads back as %v, %v", float64(d), d.String(), got, err)
		}
	})
	for in, want := range map[string]sim.Duration{"600": 600, "16h": 57600, "1h30m": 5400, "7d": 604800, "1.5d": 129600, "6d22h40m": 600000, "2d12h": 216000, "-1d": -86400} {
		if got, err := registry.ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "1d-2h", "1d+2h", "xd1h", "1dd", "7 d", "1d2", "NaNd"} {
		if got, err := registry.ParseDuration(bad); err == nil {
			t.Errorf("%q: accepted as %v", bad, got)
		}
	}
}
