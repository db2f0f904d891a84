package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/registry"
)

// Every path a policy's options name (each registered option marked
// Path, found by walking the built-in registry, not listed here) is read
// next to the spec and confined to its directory, as the spec's own keys
// are — alone or wrapped in quota. A path outside is refused, shown as
// typed (quoted, escaped), with --allow-outside-paths as the way to
// consent. With the consent (AllowOutsidePaths) each is accepted: an
// absolute path as given, a relative one against the spec's directory
// from any working directory. Before, such paths were taken as written
// and resolved against the working directory: the same spec read
// different files depending on where it ran, and could read any file;
// then they were refused with no way to consent.
func TestPolicyOptionPathsResolvedNextToTheSpec(t *testing.T) {
	reg := policy.NewRegistry()
	dir := t.TempDir()
	t.Chdir(t.TempDir()) // not the spec's directory
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range reg.Entries() {
		for _, o := range e.Options {
			if !o.Path {
				continue
			}
			found++
			target := "t.yaml"
			if e.Name == registry.ExecName {
				target = "sub" // a working directory
			}
			pol := func(v string) string {
				opts := []string{o.Name + "='" + v + "'"}
				for _, r := range e.Options {
					if r.Required && r.Name != o.Name {
						opts = append(opts, r.Name+"='true'")
					}
				}
				return e.Name + "(" + strings.Join(opts, ",") + ")"
			}
			for _, wrap := range []bool{false, true} {
				w := func(p string) string {
					if wrap && e.Name != "quota" {
						return "quota(" + p + ")"
					}
					return p
				}
				expandWith := func(v string, consent bool) (*Plan, error) {
					spec := "traces: [testbed]\nclusters: [testbed-64]\nrounds: 3\npolicies:\n  - \"" + strings.ReplaceAll(w(pol(v)), `"`, `\"`) + "\"\n"
					s, err := ParseSpec(filepath.Join(dir, "s.yaml"), dir, []byte(spec), AllowOutsidePaths(consent))
					if err != nil {
						return nil, err
					}
					return s.Expand(reg)
				}
				expand := func(v string) (*Plan, error) { return expandWith(v, false) }
				plan, err := expand(target)
				if err != nil {
					t.Errorf("%s.%s (wrapped %v): %v", e.Name, o.Name, wrap, err)
					continue
				}
				want := o.Name + "=" + filepath.Join(dir, target)
				if got := plan.Runs[0].Run.Policy; !strings.Contains(got, want) {
					t.Errorf("%s.%s (wrapped %v): planned policy %q, want %s", e.Name, o.Name, wrap, got, want)
				}
				for _, bad := range []string{"../outside.yaml", "/etc/passwd", "sub/../../x\u202ey"} {
					_, err := expand(bad)
					if err == nil || !strings.Contains(err.Error(), "outside the spec's directory") || !strings.Contains(err.Error(), o.Name) || !strings.Contains(err.Error(), "--allow-outside-paths") {
						t.Errorf("%s.%s=%q (wrapped %v): %v, want it refused naming the option and --allow-outside-paths", e.Name, o.Name, bad, wrap, err)
					} else if strings.ContainsRune(err.Error(), 0x202e) || !strings.Contains(err.Error(), strings.ReplaceAll(bad, "\u202e", `\u202e`)) {
						t.Errorf("%s.%s=%q: the refusal does not show the path as typed, escaped: %v", e.Name, o.Name, bad, err)
					}
				}
				// With the user's consent the same paths are accepted.
				for _, ok := range []struct{ typed, want string }{
					{"../outside.yaml", filepath.Join(filepath.Dir(dir), "outside.yaml")},
					{"/etc/passwd", "/etc/passwd"},
				} {
					plan, err := expandWith(ok.typed, true)
					if err != nil {
						t.Errorf("%s.%s=%q (wrapped %v) with consent: %v", e.Name, o.Name, ok.typed, wrap, err)
					} else if got := plan.Runs[0].Run.Policy; !strings.Contains(got, o.Name+"="+ok.want) {
						t.Errorf("%s.%s=%q (wrapped %v) with consent: planned policy %q, want %s=%s", e.Name, o.Name, ok.typed, wrap, got, o.Name, ok.want)
					}
				}
			}
			// Built-in names are not paths.
			for _, b := range o.PathBuiltins {
				if plan, err := expand1(t, reg, dir, pol(b)); err != nil || !strings.Contains(plan.Runs[0].Run.Policy, b) || strings.Contains(plan.Runs[0].Run.Policy, dir) {
					t.Errorf("%s.%s=%s (built in): %v", e.Name, o.Name, b, err)
				}
			}
		}
	}
	if found < 3 {
		t.Fatalf("%d path options found in the registry; quota and fairshare tenants and exec dir at least", found)
	}
}

func expand1(t *testing.T, reg *registry.Registry, dir, pol string) (*Plan, error) {
	t.Helper()
	s, err := ParseSpec(filepath.Join(dir, "s.yaml"), dir, []byte("traces: [testbed]\nclusters: [testbed-64]\nrounds: 3\npolicies: [\""+pol+"\"]\n"))
	if err != nil {
		return nil, err
	}
	return s.Expand(reg)
}
