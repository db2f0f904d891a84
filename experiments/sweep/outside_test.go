package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/input"
)

// pathKeys are the spec keys whose values name files (resolvePath); the
// other string run keys name no file. policies names none itself: its
// options' paths are walked by TestPolicyOptionPathsResolvedNextToTheSpec.
var (
	pathKeys    = []string{"traces", "clusters", "overheads", "tenants", "faults", "energy"}
	notPathKeys = []string{"policies", "timing", "horizon", "measure", "estimators", "gpu_map", "type_slowdowns"}
)

// Every spec key naming a file (each string run key is classified, so a
// new one cannot slip by, and synth.from) refuses a file outside the
// spec's directory — absolute, ../, or a link leading out — naming the
// key, the path as typed and --allow-outside-paths, the user's way to
// consent. With the consent (AllowOutsidePaths) each is read: an absolute
// path as given, a relative one or a link against the spec's directory,
// whatever the working directory. Before, no consent existed: every case
// was refused, and the refusal named no flag.
func TestSpecKeyPathsOutsideNeedConsent(t *testing.T) {
	for _, f := range runner.Fields {
		if f.Type == "string" && !slices.Contains(pathKeys, f.SpecName()) && !slices.Contains(notPathKeys, f.SpecName()) {
			t.Errorf("spec key %s: a string key neither in pathKeys nor in notPathKeys; if it names a file, resolve it through Spec.resolvePath and list it", f.SpecName())
		}
	}
	reg := policy.NewRegistry()
	root := t.TempDir()
	specDir, data := filepath.Join(root, "specs"), filepath.Join(root, "data")
	for _, d := range []string{specDir, data} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyIn := func(from, name string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyIn("../../traces/data/testbed.csv", "trace.csv")
	copyIn("../../traces/importers/testdata/arena.csv", "src.csv")
	copyIn("../../sim/overheadprofile/data/testbed.yaml", "prof.yaml")
	copyIn("../../sim/tenants/testdata/example.yaml", "teams.yaml")
	copyIn("../../sim/faults/presets/aws-spot.yaml", "spot.yaml")
	if err := os.WriteFile(filepath.Join(data, "energy.yaml"), []byte("pue: 1.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "mine.yaml"), []byte("name: mine\npools:\n  - {gpu: a40, nodes: 16, gpus_per_node: 2}\n  - {gpu: a10, nodes: 16, gpus_per_node: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const base = "traces: [testbed]\nclusters: [testbed-64]\npolicies: [fcfs]\ntiming: exact\nrounds: 3\n"
	cases := []struct {
		key, file string
		spec      func(p string) string
		got       func(r runner.Run) string
	}{
		{"traces", "trace.csv", func(p string) string { return strings.Replace(base, "[testbed]", "['"+p+"']", 1) }, func(r runner.Run) string { return r.Trace }},
		{"clusters", "mine.yaml", func(p string) string { return strings.Replace(base, "[testbed-64]", "['"+p+"']", 1) }, func(r runner.Run) string { return r.Cluster }},
		{"overheads", "prof.yaml", func(p string) string { return base + "overheads: '" + p + "'\n" }, func(r runner.Run) string { return r.Overheads }},
		{"tenants", "teams.yaml", func(p string) string { return base + "tenants: '" + p + "'\n" }, func(r runner.Run) string { return r.Tenants }},
		{"faults", "spot.yaml", func(p string) string { return base + "faults: '" + p + "'\n" }, func(r runner.Run) string { return r.Faults }},
		{"energy", "energy.yaml", func(p string) string { return base + "energy: '" + p + "'\n" }, func(r runner.Run) string { return r.Energy }},
		{"synth.from", "src.csv", func(p string) string { return base + "synth: {from: '" + p + "', format: arena, sample: 2}\n" }, func(r runner.Run) string {
			if r.Synth == nil {
				return ""
			}
			return r.Synth.From
		}},
	}
	if len(cases)-1 != len(pathKeys) {
		t.Fatalf("%d cases, want one per path key (%v) and synth.from", len(cases), pathKeys)
	}
	file := filepath.Join(specDir, "s.yaml")
	load := func(text string, consent bool) (*Plan, error) {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSpec(file, AllowOutsidePaths(consent))
		if err != nil {
			return nil, err
		}
		return s.Expand(reg)
	}
	// Read from another working directory: a relative path resolved
	// against it would name nothing.
	t.Chdir(t.TempDir())
	for _, c := range cases {
		link := "link-" + c.file
		if err := os.Symlink(filepath.Join(data, c.file), filepath.Join(specDir, link)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		for _, form := range []struct{ typed, want string }{
			{"../data/" + c.file, filepath.Join(specDir, "../data", c.file)},
			{filepath.Join(data, c.file), filepath.Join(data, c.file)},
			{link, filepath.Join(specDir, link)},
		} {
			_, err := load(c.spec(form.typed), false)
			if err == nil {
				t.Errorf("%s %s without consent: accepted", c.key, form.typed)
			} else {
				for _, w := range []string{file, "key " + c.key, input.Clip(form.typed), "outside the spec's directory", "--allow-outside-paths"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s %s without consent: %q lacks %q", c.key, form.typed, err, w)
					}
				}
			}
			plan, err := load(c.spec(form.typed), true)
			if err != nil {
				t.Errorf("%s %s with consent: %v", c.key, form.typed, err)
				continue
			}
			found := false
			for _, pr := range plan.Runs {
				if c.got(pr.Run) != "" {
					found = true
					if got := c.got(pr.Run); got != form.want {
						t.Errorf("%s %s with consent: resolved to %q, want %q", c.key, form.typed, got, form.want)
					}
				}
			}
			if !found {
				t.Errorf("%s %s with consent: no run uses it", c.key, form.typed)
			}
		}
	}
}
