package overheadprofile

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

//go:embed data/*.yaml
var builtinOverheads embed.FS

// Default is the profile runs use unless told otherwise.
const Default = "artifact"

// BuiltinNames lists the embedded overhead profiles.
func BuiltinNames() []string {
	ents, _ := builtinOverheads.ReadDir("data")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// BuiltinYAML returns the source of a built-in profile (for
// 'arena policies --overheads NAME --yaml' style listings and docs).
func BuiltinYAML(name string) ([]byte, bool) {
	b, err := builtinOverheads.ReadFile(path.Join("data", name+".yaml"))
	return b, err == nil
}

// Load resolves an --overheads argument: a built-in profile name
// ("" is Default) or a YAML file.
func Load(nameOrPath string) (*sim.OverheadProfile, error) {
	if nameOrPath == "" {
		nameOrPath = Default
	}
	if b, ok := BuiltinYAML(nameOrPath); ok {
		return Parse(nameOrPath+".yaml (built-in)", b)
	}
	b, err := input.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("overheads %q: neither a built-in profile (%s) nor a file", nameOrPath, strings.Join(BuiltinNames(), ", "))
		}
		return nil, fmt.Errorf("overheads: %w", err)
	}
	return Parse(nameOrPath, b)
}

// Parse reads an overhead profile; file names it in errors.
//
//	name: my-cluster
//	doc: what was measured and how
//	classes:
//	  arena:                      # a class: a policy name or a family (pruned, full-search)
//	    fixed: 55                 # seconds per change
//	    per_gpu: 0                # seconds per GPU ...
//	    cap: 0                    # ... at most this (0: no cap)
//	    by_gpus: {1: 32, 2: 69}   # seconds by the job's GPU count after the change
//	    actions:                  # optional: own formula for some kinds of change
//	      migration: {fixed: 20}  # first_start, restart, resize, type_change, migration
func Parse(file string, data []byte) (*sim.OverheadProfile, error) {
	fail := func(n *yaml.Node, key, format string, args ...any) error {
		return input.At(file, n, key, format, args...)
	}
	doc, err := input.OneDocument(file, "an overhead profile", data)
	if err != nil {
		return nil, err
	}
	if doc == nil || doc.Kind != yaml.MappingNode {
		return nil, &input.Error{File: file, Err: errors.New("want a mapping with keys name, doc, classes")}
	}
	p := &sim.OverheadProfile{Classes: map[string]sim.Overhead{}, Docs: map[string]string{}}
	err = input.Mapping(file, "", doc, []string{"name", "doc", "classes"}, nil, func(key string, k, v *yaml.Node) error {
		switch key {
		case "name":
			if err := input.Name(v.Value); err != nil {
				return fail(v, "name", "%w", err)
			}
			p.Name = v.Value
		case "doc":
			p.Doc = strings.TrimSpace(v.Value)
		case "classes":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return fail(v, "classes", "want a mapping of class name to cost")
			}
			return input.Mapping(file, "classes.", v, nil, strings.TrimSpace, func(name string, ck, cv *yaml.Node) error {
				if name == "" {
					return fail(ck, "classes", "empty class name")
				}
				o, d, err := parseOverhead(file, "classes."+name, cv, true)
				if err != nil {
					return err
				}
				p.Classes[name], p.Docs[name] = o, d
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, &input.Error{File: file, Kind: "key", Field: "name", Err: errors.New("missing")}
	}
	if len(p.Classes) == 0 {
		return nil, &input.Error{File: file, Kind: "key", Field: "classes", Err: errors.New("missing")}
	}
	return p, nil
}

// maxOverhead bounds every parsed duration (a week): larger is a typo.
const maxOverhead = 7 * 24 * 3600

func parseOverhead(file, key string, n *yaml.Node, top bool) (sim.Overhead, string, error) {
	fail := func(n *yaml.Node, key, format string, args ...any) error {
		return input.At(file, n, key, format, args...)
	}
	changeNames := sim.ChangeNames()
	known := []string{"fixed", "per_gpu", "cap", "by_gpus"}
	if top {
		known = append(known, "actions", "doc")
	}
	want := strings.Join(known, ", ")
	if n.Kind != yaml.MappingNode {
		return sim.Overhead{}, "", fail(n, key, "want a mapping with keys %s", want)
	}
	seconds := func(v *yaml.Node, key string) (sim.Duration, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
		if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || f < 0 || f > maxOverhead {
			return 0, fail(v, key, "%q: want seconds, a number in [0, %d]", v.Value, maxOverhead)
		}
		return sim.Duration(f), nil
	}
	var o sim.Overhead
	var doc string
	err := input.Mapping(file, key+".", n, known, nil, func(_ string, k, v *yaml.Node) error {
		sub := key + "." + k.Value
		var err error
		switch {
		case k.Value == "fixed":
			o.Fixed, err = seconds(v, sub)
		case k.Value == "per_gpu":
			o.PerGPU, err = seconds(v, sub)
		case k.Value == "cap":
			o.Cap, err = seconds(v, sub)
		case k.Value == "by_gpus":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return fail(v, sub, "want a mapping of GPU count to seconds, e.g. {1: 32, 2: 69}")
			}
			o.ByGPUs = map[int]sim.Duration{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				gk, gv := v.Content[j], v.Content[j+1]
				g, gerr := strconv.Atoi(strings.TrimSpace(gk.Value))
				if gerr != nil || g <= 0 || g > 1<<20 {
					return fail(gk, sub, "%q: want a positive GPU count", gk.Value)
				}
				if _, dup := o.ByGPUs[g]; dup {
					return fail(gk, sub, "GPU count %d given twice", g)
				}
				if o.ByGPUs[g], err = seconds(gv, fmt.Sprintf("%s.%d", sub, g)); err != nil {
					return err
				}
			}
		case k.Value == "actions" && top:
			if v.Kind != yaml.MappingNode {
				return fail(v, sub, "want a mapping of change kind (%s) to cost", strings.Join(changeNames, ", "))
			}
			o.Actions = map[sim.Change]sim.Overhead{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ak, av := v.Content[j], v.Content[j+1]
				c := -1
				for x, name := range changeNames {
					if name == ak.Value {
						c = x
					}
				}
				if c < 0 {
					return fail(ak, sub, "%q: want one of %s", ak.Value, strings.Join(changeNames, ", "))
				}
				if _, dup := o.Actions[sim.Change(c)]; dup {
					return fail(ak, sub, "%s given twice", ak.Value)
				}
				a, _, aerr := parseOverhead(file, sub+"."+ak.Value, av, false)
				if aerr != nil {
					return aerr
				}
				o.Actions[sim.Change(c)] = a
			}
		case k.Value == "doc" && top:
			doc = strings.TrimSpace(v.Value)
		}
		return err
	})
	if err != nil {
		return o, "", err
	}
	return o, doc, nil
}
