package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy/tiresias"
	"github.com/arena-sim/arena/sim"
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
		got, err := SplitList(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitList(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a,,b", "x(a=1", "x)a(", "x(a='1)", ""} {
		if _, err := SplitList(bad); err == nil {
			t.Errorf("SplitList(%q): no error", bad)
		}
	}
}

func TestParseOptions(t *testing.T) {
	reg := NewRegistry()
	s, err := reg.Parse("tiresias(queues=3, threshold=4h)")
	if err != nil {
		t.Fatal(err)
	}
	if s.Values.Int("queues") != 3 || s.Values.Duration("threshold") != 4*3600 || s.Values.Float("growth") != 2 {
		t.Errorf("values %v", s.Values.vals)
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
	reg := NewRegistry()
	for _, c := range []struct{ in, key, want string }{
		{"tiresias(queus=3)", "queus", "unknown option (known: queues, threshold, growth, promote"},
		{"tiresias(queues=three)", "queues", `"three": want a whole number`},
		{"tiresias(threshold=soon)", "threshold", "want a duration"},
		{"tiresias(queues=3,queues=4)", "queues", "given twice"},
		{"tiresias(queues)", "queues", "want key=value"},
		{"srtf(x=1)", "x", "it takes none"},
	} {
		_, err := reg.Parse(c.in)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Field != c.key || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "policy ") {
			t.Errorf("Parse(%q) = %v; want an OptionError for key %q containing %q", c.in, err, c.key, c.want)
		}
	}
	if _, err := reg.Parse("nosuch(a=1)"); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("unknown policy: %v", err)
	}
}

// The default options give exactly tiresias.DefaultConfig (so the
// registered policy did not change), and queues/threshold/growth build the
// geometric limits documented in the option help.
func TestTiresiasOptions(t *testing.T) {
	reg := NewRegistry()
	e, _ := reg.Lookup("tiresias")
	cfg, err := tiresiasConfig(e.DefaultValues())
	if err != nil || !reflect.DeepEqual(cfg, tiresias.DefaultConfig()) {
		t.Errorf("defaults give %+v, %v; want %+v", cfg, err, tiresias.DefaultConfig())
	}
	s, _ := reg.Parse("tiresias(queues=4,threshold=1h,growth=10)")
	cfg, _ = tiresiasConfig(s.Values)
	if want := []float64{3600, 36000, 360000}; !reflect.DeepEqual(cfg.Thresholds, want) {
		t.Errorf("thresholds %v, want %v", cfg.Thresholds, want)
	}
	if _, err := reg.Parse("tiresias(queues=0)"); err == nil || !strings.Contains(err.Error(), "policy tiresias: option queues") {
		t.Errorf("queues=0: %v", err)
	}
}

// TestOptionRanges is the class "counts and values a user names": every
// nonsense or oversized option value is refused when the policy string
// is parsed, before a constructor allocates anything (before: queues=1e9
// took > 3 GB in 10 s; growth ≤ 0 and gap −1 were accepted).
func TestOptionRanges(t *testing.T) {
	reg := NewRegistry()
	for _, c := range []struct{ policy, want string }{
		{"tiresias(queues=1000000000)", "want at most 64"},
		{"tiresias(queues=-3)", "want at least 1"},
		{"tiresias(queues=0)", "want at least 1"},
		{"tiresias(growth=0)", "want more than 1"},
		{"tiresias(growth=-2)", "want more than 1"},
		{"tiresias(growth=NaN)", "want a number"},
		{"tiresias(promote=-1)", "want at least 0"},
		{"gavel(gap=-1)", "want at least 0"},
		{"gavel(gap=2)", "want at most 1"},
		{"tiresias(queues=" + strings.Repeat("9", 5000) + ")", "… (5000 bytes)"},
	} {
		_, err := reg.Parse(c.policy)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: %v, want an error with %q", c.policy, err, c.want)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%.60s: a %d-byte message", c.policy, len(err.Error()))
		}
	}
	for _, ok := range []string{"tiresias(queues=64,growth=1.5)", "gavel(gap=0.01)"} {
		if _, err := reg.Parse(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestRegister(t *testing.T) {
	reg := NewRegistry()
	mk := func(n string, opts ...Option) Entry {
		return Entry{Name: n, Options: opts, New: func(Options) (sim.Policy, error) { return nil, nil }}
	}
	if err := reg.Register(mk("mine", Option{Name: "k", Type: Enum, Values: []string{"a", "b"}, Default: "a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Parse("mine(k=b)"); err != nil {
		t.Error(err)
	}
	for _, bad := range []Entry{
		mk("mine"), mk("fcfs"), mk("My Policy"), mk("a(b)"), {Name: "nonew"},
		mk("x1", Option{Name: "k", Type: Int, Default: "z"}),
		mk("x2", Option{Name: "k", Type: Int, Default: "1"}, Option{Name: "k", Type: Int, Default: "1"}),
		mk("x3", Option{Name: "k", Type: Enum, Default: "a"}),
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
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "h", "NaN", "Infd", "3 days"} {
		if _, err := ParseDuration(bad); err == nil {
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
	reg := NewRegistry()
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
