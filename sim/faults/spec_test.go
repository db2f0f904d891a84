package faults

import (
	"errors"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// The presets parse (init would panic otherwise) and carry the rates
// their comments derive from the published numbers (guard against an
// edit that breaks the arithmetic: 3600 / rate is the MTBF in seconds).
func TestPresets(t *testing.T) {
	if got := strings.Join(PresetNames(), ","); got != "aws-spot,gcp-maintenance,llama3,llama3-failures" {
		t.Errorf("presets %s", got)
	}
	l, text, _ := Preset("llama3")
	// 16,384 × 54 × 24 = 21,233,664 GPU-hours; 21,233,664 / 419 = 50,677 h per GPU.
	if h := l.Failures[0].MTBF / 3600; h < 50676 || h > 50678 || !l.Failures[0].PerGPU {
		t.Errorf("llama3 per-GPU MTBF %v h, want 50,677 h", h)
	}
	total := 0.0
	for _, c := range l.Failures[0].Causes {
		total += c.Weight
	}
	if total != 419 || l.Failures[0].Causes[0] != (Cause{"gpu", 148}) {
		t.Errorf("llama3 causes sum to %v, want 419 (Table 5)", total)
	}
	// 21,233,664 / 47 = 451,780 GPU-hours between planned interruptions.
	if h := l.Maintenance[0].Mean / 3600; h < 451779 || h > 451781 || !l.Maintenance[0].PerGPU {
		t.Errorf("llama3 planned: %v GPU-hours, want 451,780", h)
	}
	if !strings.Contains(text, "Llama 3 Herd of Models") {
		t.Error("the llama3 preset does not cite its source")
	}
	g, _, _ := Preset("gcp-maintenance")
	if m := g.Maintenance[0]; m.Every != 14*86400 || m.Notice != 3600 || !m.RandomPhase {
		t.Errorf("gcp-maintenance %+v", m)
	}
	s, _, _ := Preset("aws-spot")
	if sp := s.Spot[0]; sp.Notice != 120 || sp.Mean < 730*3600/0.1-3600 || sp.Mean > 730*3600/0.1+3600 || !sp.Priced || sp.Price != 0 {
		t.Errorf("aws-spot %+v", sp)
	}
}

// A spot process's price: `spot` (0: the energy model's spot price for
// the node's type) or $ per GPU-hour; SpotNodes gives every node the
// first priced process of its type covers, and none for a spec without
// one.
func TestSpotNodes(t *testing.T) {
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a40", Nodes: 16, GPUsPerNode: 2}, {GPU: "a10", Nodes: 16, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec("f.yaml", []byte("spot:\n  - {gpu: a10, rate: 1, returns: 1h, price: 0.4}\n  - {rate: 1, returns: 1h, price: spot}\n  - {rate: 1, returns: 1h, price: 9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	nodes := s.SpotNodes(c)
	if len(nodes) != 32 {
		t.Fatalf("%d spot nodes, want 32: %v", len(nodes), nodes)
	}
	for n, usd := range nodes {
		if want := map[bool]float64{true: 0, false: 0.4}[c.Nodes[n].GPU == "a40"]; usd != want {
			t.Errorf("node %d (%s): $%g, want $%g", n, c.Nodes[n].GPU, usd, want)
		}
	}
	plain, _, _ := Preset("gcp-maintenance")
	if plain.SpotNodes(c) != nil {
		t.Error("spot nodes from a spec without a priced spot process")
	}
}

// Strict parsing: each bad spec fails with an *input.Error at the line
// (counted by hand) and key.
func TestParseSpecErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		key, msg   string
	}{
		{"unknown key", "failures:\n  - rate: 1\n    repiar: 1h\n", 3, "failures[0].repiar", "unknown key"},
		{"negative rate", "failures:\n  - rate: -1\n    repair: 1h\n", 2, "failures[0].rate", "> 0"},
		{"NaN rate", "spot:\n  - rate: .nan\n    returns: 1h\n", 2, "spot[0].rate", "> 0"},
		{"rate and mtbf", "failures:\n  - rate: 1\n    mtbf: 3h\n    repair: 1h\n", 3, "failures[0].mtbf", "not both"},
		{"no rate", "failures:\n  - repair: 1h\n", 2, "failures[0]", "missing rate"},
		{"no repair", "failures:\n  - rate: 1\n", 2, "failures[0]", "missing repair"},
		{"negative duration", "failures:\n  - rate: 1\n    repair: -1h\n", 3, "failures[0].repair", "≥ 0"},
		{"bad unit", "failures:\n  - rate: 1\n    repair: 1y\n", 3, "failures[0].repair", "want a duration"},
		{"lognormal without sigma", "failures:\n  - rate: 1\n    repair: {dist: lognormal, mean: 1h}\n", 3, "failures[0].repair", "sigma"},
		{"unknown dist", "failures:\n  - rate: 1\n    repair: {dist: gamma, mean: 1h}\n", 3, "failures[0].repair.dist", "want one of"},
		{"unknown gpu", "spot:\n  - gpu: h1000\n    rate: 1\n    returns: 1h\n", 2, "spot[0].gpu", "unknown GPU type"},
		{"overlapping windows", "maintenance:\n  - every: 1h\n    notice: 1h\n    duration: 1h\n", 2, "maintenance[0].every", "overlap"},
		{"duplicate key", "name: a\nname: b\nspot:\n  - {rate: 1, returns: 1h}\n", 2, "name", "given twice"},
		{"bad shape", "failures:\n  - rate: 1\n    shape: 50\n    repair: 1h\n", 3, "failures[0].shape", "Weibull shape"},
		{"bad cause weight", "failures:\n  - rate: 1\n    repair: 1h\n    causes: {gpu: 0}\n", 4, "failures[0].causes.gpu", "> 0"},
		{"bad spot price", "spot:\n  - rate: 1\n    returns: 1h\n    price: cheap\n", 4, "spot[0].price", "want spot"},
		{"zero spot price", "spot:\n  - rate: 1\n    returns: 1h\n    price: 0\n", 4, "spot[0].price", "(0, 1000]"},
	} {
		_, err := ParseSpec("f.yaml", []byte(c.text))
		var ie *input.Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an *input.Error", c.name, err)
			continue
		}
		if ie.File != "f.yaml" || ie.Line != c.line || ie.Field != c.key || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q (line %d key %q), want line %d key %q containing %q", c.name, err, ie.Line, ie.Field, c.line, c.key, c.msg)
		}
	}
	if _, err := ParseSpec("f.yaml", []byte("name: x\n")); err == nil || !strings.Contains(err.Error(), "no process") {
		t.Errorf("a spec without processes: %v", err)
	}
	if _, err := ParseSpec("f.yaml", []byte("spot:\n  - {rate: 1, returns: 1h}\n---\nspot: []\n")); err == nil {
		t.Error("a second document was accepted")
	}
}

// Durations take s, m, h, d, w; hand-worked.
func TestParseDuration(t *testing.T) {
	for in, want := range map[string]float64{"90": 90, "90s": 90, "2m": 120, "1.5h": 5400, "14d": 1209600, "1w": 604800, "0": 0} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "h", "-1s", "1e400", "inf", "NaN", "3 days"} {
		if _, err := parseDuration(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// Any text either parses into a spec whose processes synthesise valid
// events, or fails with an *input.Error; it never panics.
func FuzzParseSpec(f *testing.F) {
	for _, name := range PresetNames() {
		_, text, _ := Preset(name)
		f.Add(text)
	}
	f.Add("failures:\n  - {rate: 1, shape: 0.5, repair: {dist: lognormal, mean: 1h, sigma: 1}}\nmaintenance:\n  - {every: 1d, phase: 2h, duration: 1h}\n")
	c := testCluster(f)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec("f.yaml", []byte(text))
		if err != nil {
			var ie *input.Error
			if !errors.As(err, &ie) {
				t.Fatalf("%v is not an *input.Error", err)
			}
			return
		}
		// A bounded window: rates a fuzzer writes may be huge, the event
		// cap then answers with an error, not memory.
		if _, err := Synthesise(s, c, 1, 0, 3600); err != nil && !strings.Contains(err.Error(), "events") {
			t.Fatalf("synthesis: %v", err)
		}
	})
}

// Seeded says which faults names draw from the seed (a sweep over seeds of
// a deterministic trace runs every seed only for those): presets and
// faults specs do; none and events files do not.
func TestSeeded(t *testing.T) {
	for name, want := range map[string]bool{"": false, "none": false, "llama3": true, "aws-spot": true, "my.yaml": true, "dir/x.YML": true,
		"ev.csv": false, "ev.parquet": false, "nonsense": false} {
		if got := Seeded(name); got != want {
			t.Errorf("Seeded(%q) = %v, want %v", name, got, want)
		}
	}
}
