package experiments

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/traces"
	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/synth"
	"github.com/arena-sim/arena/traces/table"
)

// SynthTrace is a trace a spec synthesises (its synth mapping): a source
// and synthesis keys (package synth), built anew for each seed of the
// sweep — the seed drives every random choice.
//
//	synth:
//	  from: philly-pollux      # built-in trace (importers.SourceNames), canonical table or raw file (+ format:)
//	  recipe: arena
//	  rate: [20, 40]           # a list makes an axis: one trace per value
type SynthTrace struct {
	// Name is the trace's name in results ("philly-pollux.arena.rate=20").
	Name   string
	From   string // resolved path or built-in name; "" = from scratch
	Format string
	Keys   [][2]string // synthesis keys in spec order (seed excluded)
}

// Options returns the synthesis options for one seed.
func (s *SynthTrace) Options(seed int64) (synth.Options, error) {
	var o synth.Options
	for _, kv := range s.Keys {
		if err := synth.Set(&o, kv[0], kv[1]); err != nil {
			return o, err
		}
	}
	o.Seed = uint64(seed)
	return o, nil
}

// Deterministic reports whether every seed gives the same trace.
func (s *SynthTrace) Deterministic() bool {
	o, err := s.Options(0)
	return err == nil && o.Deterministic()
}

var (
	synthMu      sync.Mutex
	synthSources = map[string][]table.Job{}
	synthBuilt   = map[string]*traces.Trace{}
)

// Build synthesises the trace for seed. Sources and results are cached
// for the process (a sweep runs every policy on the same trace); callers
// get their own copy of the job list.
func (s *SynthTrace) Build(seed int64) (*traces.Trace, error) {
	o, err := s.Options(seed)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s\x00%s\x00%v\x00%d", s.From, s.Format, s.Keys, seed)
	synthMu.Lock()
	defer synthMu.Unlock()
	if t, ok := synthBuilt[key]; ok {
		return copyTrace(t), nil
	}
	var src []table.Job
	if s.From != "" {
		skey := s.From + "\x00" + s.Format
		if src, err = synthSources[skey], nil; src == nil {
			if src, err = importers.Open(s.From, s.Format, importers.Options{}); err != nil {
				return nil, err
			}
			synthSources[skey] = src
		}
	}
	jobs, err := synth.Run(src, o)
	if err != nil {
		return nil, fmt.Errorf("synth %s: %w", s.Name, err)
	}
	t, err := traces.FromTable(s.Name, s.Name, jobs)
	if err != nil {
		return nil, fmt.Errorf("synth %s: %w", s.Name, err)
	}
	synthBuilt[key] = t
	return copyTrace(t), nil
}

func copyTrace(t *traces.Trace) *traces.Trace {
	c := *t
	c.Jobs = slices.Clone(t.Jobs)
	return &c
}

// parseSynth reads a spec's synth mapping into one SynthTrace per
// combination of list values.
func parseSynth(file, dir string, v *yaml.Node) ([]*SynthTrace, error) {
	fail := func(n *yaml.Node, key, format string, args ...any) error {
		return &SpecError{File: file, Line: n.Line, Key: key, Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != yaml.MappingNode {
		return nil, fail(v, "synth", "want a mapping of synthesis keys (from, format, name, %s)", synthKeyNames())
	}
	base := &SynthTrace{}
	type axis struct {
		key  string
		vals []string
	}
	var axes []axis
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if seen[k.Value] {
			return nil, fail(k, "synth."+k.Value, "given twice")
		}
		seen[k.Value] = true
		items, nerr := scalarList(val)
		if nerr != nil {
			return nil, fail(nerr.node, "synth."+k.Value, "%s", nerr.msg)
		}
		var vals []string
		for _, it := range items {
			vals = append(vals, strings.TrimSpace(it.Value))
		}
		switch k.Value {
		case "from", "format", "name":
			if len(vals) != 1 {
				return nil, fail(val, "synth."+k.Value, "want one value")
			}
			switch k.Value {
			case "from":
				base.From = vals[0]
				if !slices.Contains(importers.SourceNames(), vals[0]) && !filepath.IsAbs(vals[0]) && dir != "" {
					base.From = filepath.Join(dir, vals[0])
				}
			case "format":
				base.Format = vals[0]
			case "name":
				base.Name = vals[0]
			}
			continue
		case "seed":
			return nil, fail(k, "synth.seed", "the sweep's seeds key drives synthesis; remove seed here")
		}
		for _, x := range vals {
			var o synth.Options
			if err := synth.Set(&o, k.Value, x); err != nil {
				return nil, fail(k, "synth."+k.Value, "%v", err)
			}
		}
		axes = append(axes, axis{k.Value, vals})
	}
	if base.Name == "" {
		base.Name = "synth"
		if base.From != "" {
			base.Name = strings.TrimSuffix(filepath.Base(base.From), filepath.Ext(base.From))
		}
	}
	out := []*SynthTrace{base}
	for _, a := range axes {
		var next []*SynthTrace
		for _, t := range out {
			for _, x := range a.vals {
				c := *t
				c.Keys = append(slices.Clone(t.Keys), [2]string{a.key, x})
				if len(a.vals) > 1 {
					c.Name += "." + a.key + "=" + x
				} else if a.key == "recipe" {
					c.Name += "." + x
				}
				next = append(next, &c)
			}
		}
		out = next
	}
	return out, nil
}

func synthKeyNames() string {
	var names []string
	for _, k := range synth.Keys() {
		if k.Name != "seed" {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ", ")
}
