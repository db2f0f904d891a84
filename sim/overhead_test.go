package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// TestArtifactProfileIsTheArtifactsConstants: the artifact profile gives,
// per class, the constants of the artifact's simulator (ARENA.md §6 step
// 7: min(per_gpu·g, cap) with (10, 40), (150, 600), (300, 1200); the
// values below are worked by hand from those formulas).
func TestArtifactProfileIsTheArtifactsConstants(t *testing.T) {
	p, err := LoadOverheads("artifact")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][5]Duration{ // 1, 2, 4, 8, 16 GPUs
		"pruned":            {10, 20, 40, 40, 40},
		"full-search":       {150, 300, 600, 600, 600},
		"noprune":           {300, 600, 1200, 1200, 1200},
		"elasticflow-check": {10, 20, 40, 40, 40},
	}
	for class, w := range want {
		o, err := p.Resolve(OverheadClass{"not-defined", class})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range []int{1, 2, 4, 8, 16} {
			for c := FirstStart; c <= Migration; c++ {
				if got := o.Cost(c, g); got != w[i] {
					t.Errorf("%s %s on %d GPUs = %v, want %v", class, c, g, got, w[i])
				}
			}
		}
	}
}

// TestTestbedProfileIsTheMeasuredTable: the testbed profile is 55 s plus
// the mean compilation times of arena-data/testbed/README.md (numbers
// copied from that table, not from the YAML).
func TestTestbedProfileIsTheMeasuredTable(t *testing.T) {
	p, err := LoadOverheads("testbed")
	if err != nil {
		t.Fatal(err)
	}
	readme := map[string][5]Duration{ // compilation by 1, 2, 4, 8, 16 GPUs; -1: not measured
		"arena":       {32, 69, 88, 54, 42},
		"fcfs":        {27, 283, 518, 237, 37},
		"gavel":       {24, 244, 422, 229, 32},
		"elasticflow": {51, 263, 416, 239, -1},
	}
	for class, w := range readme {
		o, err := p.Resolve(OverheadClass{class})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range []int{1, 2, 4, 8, 16} {
			want := 55 + w[i]
			if w[i] < 0 {
				want = 55 + w[i-1] // documented: the largest measured count
			}
			for c := FirstStart; c <= Migration; c++ {
				if got := o.Cost(c, g); got != want {
					t.Errorf("%s %s on %d GPUs = %v, want %v", class, c, g, got, want)
				}
			}
		}
	}
	if _, err := p.Resolve(nil); !errors.Is(err, ErrNoOverheadClass) {
		t.Errorf("no class under testbed: %v, want ErrNoOverheadClass (full-search is not measured there)", err)
	}
	if _, err := p.Resolve(OverheadClass{"sia", "full-search"}); !errors.Is(err, ErrNoOverheadClass) {
		t.Errorf("sia under testbed: %v, want ErrNoOverheadClass (Sia was not run on the testbed)", err)
	}
}

func TestOverheadFormula(t *testing.T) {
	o := Overhead{Fixed: 5, PerGPU: 10, Cap: 25, ByGPUs: map[int]Duration{1: 1, 4: 4, 8: 8},
		Actions: map[Change]Overhead{Migration: {Fixed: 2}}}
	for _, c := range []struct {
		name string
		ch   Change
		n    int
		want Duration
	}{
		{"listed count", Resize, 4, 5 + 25 + 4},
		{"count between entries pays the next larger", Resize, 3, 5 + 25 + 4},
		{"count above the table pays the largest", FirstStart, 16, 5 + 25 + 8},
		{"per-GPU part below its cap", Restart, 2, 5 + 20 + 4},
		{"action override replaces the formula", Migration, 8, 2},
	} {
		if got := o.Cost(c.ch, c.n); got != c.want {
			t.Errorf("%s: Cost(%s, %d) = %v, want %v", c.name, c.ch, c.n, got, c.want)
		}
	}
	if got := (Overhead{PerGPU: 7}).For(3); got != 21 {
		t.Errorf("no cap: For(3) = %v, want 21", got)
	}
	if got := o.Scale(2).Cost(Resize, 4); got != 68 {
		t.Errorf("Scale(2): %v, want 68", got)
	}
}

func TestChangeOf(t *testing.T) {
	none := estimator.Config{}
	a2 := estimator.Config{GPU: "a100", Nodes: 1, PerNode: 2}
	for _, c := range []struct {
		name     string
		ever     bool
		from, to estimator.Config
		want     Change
	}{
		{"never ran", false, none, a2, FirstStart},
		{"suspended before", true, none, a2, Restart},
		{"other type", true, a2, estimator.Config{GPU: "a40", Nodes: 1, PerNode: 2}, TypeChange},
		{"other count", true, a2, estimator.Config{GPU: "a100", Nodes: 1, PerNode: 4}, Resize},
		{"same shape elsewhere", true, a2, estimator.Config{GPU: "a100", Nodes: 2, PerNode: 1}, Migration},
	} {
		if got := ChangeOf(c.ever, c.from, c.to); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestParseOverheadsErrorsNameLineAndKey(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"name: x\nclasses:\n  a:\n    fixed: -3\n", `f.yaml:4: key classes.a.fixed: "-3": want seconds`},
		{"name: x\nclasses:\n  a:\n    by_gpus: {0: 3}\n", `f.yaml:4: key classes.a.by_gpus: "0": want a positive GPU count`},
		{"name: x\nclasses:\n  a:\n    actions:\n      grow: {fixed: 1}\n", `f.yaml:5: key classes.a.actions: "grow": want one of first_start`},
		{"name: x\nclasses:\n  a:\n    perGPU: 3\n", `f.yaml:4: key classes.a.perGPU: unknown key`},
		{"name: x\nclasses:\n  a: {fixed: nan}\n", `key classes.a.fixed: "nan"`},
		{"classes:\n  a: {fixed: 1}\n", "key name: missing"},
		{"name: x\n", "key classes: missing"},
		{"name: x\ncolor: red\n", "f.yaml:2: key color: unknown key"},
		{"- 1\n", "want a mapping"},
	} {
		_, err := ParseOverheads("f.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
}

func FuzzParseOverheads(f *testing.F) {
	for _, n := range BuiltinOverheadNames() {
		b, _ := BuiltinOverheadYAML(n)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseOverheads("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, o := range p.Classes {
			for c := FirstStart; c <= Migration; c++ {
				for _, n := range []int{1, 3, 16} {
					if d := o.Cost(c, n); d < 0 {
						t.Fatalf("negative cost %v", d)
					}
				}
			}
		}
	})
}

// TestExactOverheadByKindOfChange: in exact timing a job makes no progress
// during the overhead of each change, priced by its kind. Hand-worked:
// 2-GPU gpt-1.3b/128 on a100 runs 5.526 s per iteration (see iter13b).
func TestExactOverheadByKindOfChange(t *testing.T) {
	cfg := baseConfig(t, Exact, 20)
	cfg.IterationScale = 1
	cfg.Overhead = Overhead{Fixed: 100, Actions: map[Change]Overhead{Migration: {Fixed: 30}, Restart: {Fixed: 70}}}
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},      // first start: 100 s, then 200 s of work
		1: {{Kind: Reallocate, Job: 0, GPUs: []int{2, 3}}}, // migration: 30 s, then 270 s of work
		2: {{Kind: Suspend, Job: 0}},
		3: {{Kind: Start, Job: 0, GPUs: []int{4, 5}}}, // restart at 900 s: 70 s
	}}
	res, err := Run(context.Background(), cfg, p, oneJob(t, 200))
	if err != nil {
		t.Fatal(err)
	}
	// Work before the restart: 200 + 270 = 470 s = 470/5.526 iterations.
	left := 200 - 470/iter13b
	want := 900 + 70 + left*iter13b
	if len(res.JCTs) != 1 || !near(res.JCTs[0], want) {
		t.Fatalf("JCTs %v, want [%v]", res.JCTs, want)
	}
}

// TestIterationScaleRule: a job with fewer iterations than the scale keeps
// one iteration in exact timing; artifact timing keeps the artifact's
// integer division to 0 (ARENA.md §6: iter_num = trace // 5), so the job
// ends at the first progress update after its start (round 1), having
// paid its start overhead in round 0's throughput.
func TestIterationScaleRule(t *testing.T) {
	p := func() *scripted {
		return &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	}
	ex := baseConfig(t, Exact, 10) // scale 5, overhead 300 s on 2 GPUs
	res, err := Run(context.Background(), ex, p(), oneJob(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.JCTs) != 1 || !near(res.JCTs[0], 300+iter13b) {
		t.Errorf("exact: JCTs %v, want [%v] (overhead + one iteration)", res.JCTs, 300+iter13b)
	}
	ar := baseConfig(t, Artifact, 10)
	res, err = Run(context.Background(), ar, p(), oneJob(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.JCTs) != 1 || res.JCTs[0] != 300 {
		t.Errorf("artifact: JCTs %v, want [300] (0 iterations, ends in round 1)", res.JCTs)
	}
}

func TestResolveEmptyClassIsFullSearch(t *testing.T) {
	p, err := LoadOverheads("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "artifact" {
		t.Fatalf("default profile %s, want artifact", p.Name)
	}
	o, err := p.Resolve(nil)
	if err != nil || o.For(2) != 300 {
		t.Errorf("Resolve(nil) = %v, %v; want full-search 150 s/GPU", o, err)
	}
}
