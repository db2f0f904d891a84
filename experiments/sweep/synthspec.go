package sweep

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/synth"
)

// parseSynth reads a spec's synth mapping into one SynthTrace per
// combination of list values; resolve is the spec's path resolver.
func parseSynth(file string, resolve func(string) (string, error), v *yaml.Node) ([]*runner.SynthTrace, error) {
	fail := func(n *yaml.Node, key, format string, args ...any) error {
		return &input.Error{File: file, Line: n.Line, Kind: "key", Field: key, Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != yaml.MappingNode {
		return nil, fail(v, "synth", "want a mapping of synthesis keys (from, format, name, length, %s)", synthKeyNames())
	}
	base := &runner.SynthTrace{}
	type axis struct {
		key  string
		vals []string
	}
	var axes []axis
	var length string // the windows' length (synth.length): until = since + length
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
				if !slices.Contains(importers.SourceNames(), vals[0]) {
					// Confined like traces (resolvePath): a spec reads
					// only files in its own directory.
					full, err := resolve(vals[0])
					if err != nil {
						return nil, fail(val, "synth.from", "%v", err)
					}
					base.From = full
				}
			case "format":
				base.Format = vals[0]
			case "name":
				if err := input.Name(vals[0]); err != nil {
					return nil, fail(val, "synth.name", "%w", err)
				}
				base.Name = vals[0]
			}
			continue
		case "seed":
			return nil, fail(k, "synth.seed", "the sweep's seeds key drives synthesis; remove seed here")
		case "length":
			if len(vals) != 1 {
				return nil, fail(val, "synth.length", "want one value: every window is this long")
			}
			if d, err := synth.ParseSeconds(vals[0]); err != nil || d == 0 {
				return nil, fail(val, "synth.length", "want a duration > 0 such as 2d or 48h")
			}
			length = vals[0]
			continue
		}
		for _, x := range vals {
			var o synth.Options
			if err := synth.Set(&o, k.Value, x); err != nil {
				return nil, fail(k, "synth."+k.Value, "%v", err)
			}
		}
		axes = append(axes, axis{k.Value, vals})
	}
	if length != "" && (!seen["since"] || seen["until"]) {
		return nil, fail(v, "synth.length", "want since and no until: the windows are since … since + length")
	}
	if base.Name == "" {
		base.Name = "synth"
		if base.From != "" {
			base.Name = strings.TrimSuffix(filepath.Base(base.From), filepath.Ext(base.From))
		}
	}
	out := []*runner.SynthTrace{base}
	for _, a := range axes {
		var next []*runner.SynthTrace
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
	if length != "" {
		for _, t := range out {
			t.Keys = withUntil(t.Keys, length)
		}
	}
	return out, nil
}

// withUntil inserts, after keys' since, until = since + length (in days
// when both are given in days, as 37d; else in seconds).
func withUntil(keys [][2]string, length string) [][2]string {
	out := make([][2]string, 0, len(keys)+1)
	for _, kv := range keys {
		out = append(out, kv)
		if kv[0] != "since" {
			continue
		}
		sd, sok := strings.CutSuffix(kv[1], "d")
		ld, lok := strings.CutSuffix(length, "d")
		a, errA := strconv.ParseFloat(sd, 64)
		b, errB := strconv.ParseFloat(ld, 64)
		if sok && lok && errA == nil && errB == nil {
			out = append(out, [2]string{"until", strconv.FormatFloat(a+b, 'g', -1, 64) + "d"})
			continue
		}
		since, _ := synth.ParseSeconds(kv[1]) // both checked by parseSynth
		l, _ := synth.ParseSeconds(length)
		out = append(out, [2]string{"until", strconv.FormatFloat(since+l, 'g', -1, 64)})
	}
	return out
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

// checkSynthRows bounds what the spec's syntheses would hold — every
// synthesised trace for every seed it is built for, all kept while the
// sweep runs — by the rows cap, before any is built: from the keys alone
// (jobs, sample) and, when count is set, for the traces whose size only
// their source decides, by counting the source's jobs that pass the
// filters and window (synth.Size) without synthesising.
func (s *Spec) checkSynthRows(count bool) error {
	total := int64(0)
	var parts []string
	for _, st := range s.Synth {
		seeds := int64(len(s.Seeds))
		if st.Deterministic() {
			seeds = 1 // built once, whatever the seed
		}
		n, known := st.KeyRows()
		if !known {
			if !count {
				continue
			}
			m, err := st.Size(s.Seeds[0])
			if err != nil {
				return s.keyErrorAt("synth", err)
			}
			n = int64(m)
		}
		total = input.Sum(total, input.Product(n, seeds))
		if len(parts) < 3 {
			parts = append(parts, fmt.Sprintf("%s: %d × %d seeds", st.Name, n, seeds))
		} else if len(parts) == 3 {
			parts = append(parts, "…")
		}
	}
	if err := input.Count("jobs", total, 0, input.RowsCap); err != nil {
		var le *input.LimitError
		if errors.As(err, &le) {
			le.Found = "the synthesised traces, each kept for the sweep: " + strings.Join(parts, ", ")
		}
		return s.keyErrorAt("synth", err)
	}
	return nil
}
