package registry_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// errBuilt stops a build at its leaf: the test needs to know what the
// build would start, not a policy.
var errBuilt = errors.New("leaf built")

// trustRegistry holds the real quota wrapper and two leaves: an exec whose
// constructor records the command it would start instead of starting it
// (declared like policy/exec's, cmd a Command option), and a policy that
// starts nothing.
func trustRegistry(started *[]string) *registry.Registry {
	r := registry.New()
	r.MustRegister(quota.Entry())
	r.MustRegister(registry.Entry{Name: registry.ExecName, Options: []registry.Option{
		{Name: "cmd", Type: registry.String, Required: true, Command: true},
		{Name: "timeout", Type: registry.Duration, Default: "10m", Min: "0", Max: "30d"},
	}, New: func(o registry.Options) (sim.Policy, error) {
		*started = append(*started, o.Values.String("cmd"))
		return nil, errBuilt
	}})
	r.MustRegister(registry.Entry{Name: "calm", New: func(registry.Options) (sim.Policy, error) { return nil, errBuilt }})
	return r
}

// Whatever the parser accepts, Spec.Commands names exactly the commands
// building the policy would start: the trust check is derived from the
// parsed value, at every nesting the parser allows. Policy strings are
// generated as trees (quota around quota … around a leaf, in the forms
// users write) and also as token soup, which mostly fails to parse; every
// accepted string is built and compared.
func TestCommandsAreWhatTheBuildStarts(t *testing.T) {
	leaf := rapid.SampledFrom([]string{"calm", "exec:sh -c 'touch x'", "exec:python3 p.py", "exec(cmd='sh -c id')", "exec(cmd=\"a b\",timeout=1m)", "exec: ./p"})
	tree := rapid.Custom(func(t *rapid.T) string {
		s := leaf.Draw(t, "leaf")
		for range rapid.IntRange(0, registry.MaxNesting+2).Draw(t, "depth") {
			switch rapid.IntRange(0, 2).Draw(t, "form") {
			case 0:
				s = "quota(" + s + ")"
			case 1:
				s = "quota(" + s + ",borrow=false)"
			default:
				s = " quota( " + s + " , grace=1h )"
			}
		}
		return s
	})
	soup := rapid.Custom(func(t *rapid.T) string {
		toks := rapid.SliceOfN(rapid.SampledFrom([]string{"quota(", "exec:", "exec(cmd=", "calm", ")", ",", "'", "\"", "borrow=false", " ", "sh -c id", "policy="}), 1, 12).Draw(t, "tokens")
		return strings.Join(toks, "")
	})
	accepted, withCmd := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(tree, soup).Draw(t, "policy")
		var started []string
		reg := trustRegistry(&started)
		ps, err := reg.Parse(s)
		if err != nil {
			return
		}
		if depth := strings.Count(s, "quota("); depth > registry.MaxNesting {
			t.Fatalf("%q: %d wrappers accepted, the limit is %d", s, depth, registry.MaxNesting)
		}
		cmds := ps.Commands()
		_, err = ps.Entry.New(registry.Options{Values: ps.Values})
		if !errors.Is(err, errBuilt) {
			t.Fatalf("%q: the build did not reach its leaf: %v", s, err)
		}
		if strings.Join(cmds, "\x00") != strings.Join(started, "\x00") {
			t.Fatalf("%q: Commands() = %q, the build starts %q", s, cmds, started)
		}
		accepted++
		if len(cmds) > 0 {
			withCmd++
		}
	})
	// The property must have been exercised, not vacuously true.
	if accepted < 10 || withCmd < 5 {
		t.Errorf("only %d accepted policy strings, %d with a command", accepted, withCmd)
	}
}

// The parser's nesting limit is exact: MaxNesting wrappers parse, one
// more is refused with the limit named.
func TestNestingLimit(t *testing.T) {
	var started []string
	reg := trustRegistry(&started)
	nest := func(n int) string { return strings.Repeat("quota(", n) + "exec:sh -c id" + strings.Repeat(")", n) }
	ps, err := reg.Parse(nest(registry.MaxNesting))
	if err != nil {
		t.Fatalf("%d wrappers: %v", registry.MaxNesting, err)
	}
	if c := ps.Commands(); len(c) != 1 || c[0] != "sh -c id" {
		t.Errorf("%d wrappers: Commands() = %q", registry.MaxNesting, c)
	}
	if _, err := reg.Parse(nest(registry.MaxNesting + 1)); err == nil || !strings.Contains(err.Error(), "nests more than 8") {
		t.Errorf("%d wrappers: %v, want the nesting limit", registry.MaxNesting+1, err)
	}
}
