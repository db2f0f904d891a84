package sweep

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/clusterspec"
	"github.com/arena-sim/arena/sim/energy"
	"github.com/arena-sim/arena/sim/faults"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/overheadprofile"
	"github.com/arena-sim/arena/sim/tenants"
	"github.com/arena-sim/arena/traces"
)

// Spec is an experiment description: every list is one axis of the sweep
// and the sweep is their cross product. Every list key also accepts a
// single scalar.
//
//	name: philly                 # used in messages and reports
//	traces: [philly]             # built-in names or CSV paths (relative to the spec)
//	clusters: [paper-1280]       # built-in names or YAML/JSON paths
//	policies: [arena, "*", "!arena-*"]  # names, globs, "!glob" excludes,
//	                             # "tiresias(queues=3)", "exec:python3 p.py"
//	skip_missing: true           # skip named policies not registered (else an error)
//	timing: [artifact, exact]  # default exact
//	rounds: 2000                 # or horizon: 7d (default: the trace's own); a list is an axis
//	measure: 1d..3d              # the jobs measured (or #4000..5000; default all)
//	drain: true                  # default in exact timing: run until the measured jobs end
//	density: [0.5, 1.0, 2.0]     # iteration scaling (ARENA.md §8), default 1
//	seeds: [0]
//	estimators: [profiledb]
//	overheads: testbed           # overhead profile: built-in name or YAML path (default artifact)
//	iteration_scale: 1           # overrides every trace's iteration scale
//	slowdown: 1.045              # executed iteration times × this (calibration)
//	relaxed_slowdown: 1.34       # … × this instead on relaxed multi-node placements
//	synth: {from: philly-pollux, recipe: arena}  # synthesised traces (see SynthTrace)
//	labels: {"exec:python3 sjf.py": SJF}  # figure labels (arena plot --spec)
//	sensitivity: true            # or {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05]}
//	overhead_scale: 1            # every overhead × this (sensitivity)
//	gpu_map: a100=h100,v100=h100 # the trace's GPU types rewritten
//	profiling_delay: true        # jobs wait for their profiling first
//	schedule_on_events: true     # exact timing: decide at arrivals and completions too
//	max_rounds: 100000
//	check: true                  # the engine's invariant checker
//	tenants: [vcs, teams.yaml]   # fairness figures: each VC a tenant, or a tenants file
//
// The run keys are runner.Fields (one table with the flags of 'arena
// simulate'; docs/runs.md); any of them given as a list is an axis.
type Spec struct {
	// File is where the spec came from (for messages); Dir resolves
	// relative trace and cluster paths ("" = the working directory).
	File, Dir string

	Name        string
	Traces      []string
	Clusters    []string
	Policies    []string
	SkipMissing bool
	Timings     []sim.Timing
	// Rounds are the run lengths asked (rounds, or horizon turned into
	// rounds): an axis; nil the trace's default.
	Rounds     []int
	Densities  []float64
	Seeds      []int64
	Estimators []string
	// Axes are the other run fields the spec sets (overheads, slowdown,
	// gpu_map, until_done, …; runner.Fields), in the table's order: each a
	// list of values (a scalar is a list of one) and, with more than one,
	// an axis of the sweep.
	Axes []Axis
	// Baseline is the policy the report compares the others with ("" =
	// the paper's form, Arena against each policy).
	Baseline string
	// Synth are the traces the spec synthesises (one per combination of
	// list values of its synth mapping), on the trace axis after Traces.
	Synth []*runner.SynthTrace
	// Labels rename policies in figures (labels: {"exec:python3 sjf.py":
	// SJF}); `arena plot --spec` reads them.
	Labels map[string]string
	// Sensitivity, when set, re-runs every run at the grid's other points
	// and marks each comparison robust or fragile (sensitivity.go).
	Sensitivity *Sensitivity

	// lines of each key, and of each entry of a list key, for errors
	// found after parsing.
	lines     map[string]int
	itemLines map[string][]int
	// outsidePaths is the user's consent (AllowOutsidePaths) to the spec
	// naming files outside its directory.
	outsidePaths bool
}

// SpecOption changes how LoadSpec and ParseSpec read a spec.
type SpecOption func(*Spec)

// AllowOutsidePaths, when allow is set, lets the spec name files outside
// its directory — absolute paths, ../ paths, symbolic links leading out —
// in every path it holds (its keys and its policies' Path options): the
// user's consent, `arena sweep --allow-outside-paths` (docs/trust.md).
// Relative paths still resolve against the spec's directory.
func AllowOutsidePaths(allow bool) SpecOption {
	return func(s *Spec) { s.outsidePaths = allow }
}

// Axis is a run field a spec sets beyond its classic axes (traces,
// clusters, policies, timing, rounds, density, seeds, estimators): the
// field and its values as written, each checked by the field's rule.
type Axis struct {
	Field  *runner.Field
	Values []string
}

// HasKey reports whether the spec file sets key.
func (s *Spec) HasKey(key string) bool {
	_, ok := s.lines[key]
	return ok
}

// KeyError is an *input.Error at key's line (the file's first line when the
// spec does not set key), for problems found after parsing.
func (s *Spec) KeyError(key string, err error) *input.Error {
	line, ok := s.lines[key]
	if !ok {
		line = 1
	}
	return &input.Error{File: s.File, Line: line, Kind: "key", Field: key, Err: err}
}

// pathError is an *input.Error for a run field's error path: the key's line,
// or for "policies[2]" the line of that entry of the list, when the file
// wrote the list one entry a line.
func (s *Spec) pathError(path string, err error) *input.Error {
	key, idx, ok := strings.Cut(path, "[")
	key = specKey(key)
	e := s.KeyError(key, err)
	if ok {
		if i, perr := strconv.Atoi(strings.TrimSuffix(idx, "]")); perr == nil && i >= 0 && i < len(s.itemLines[key]) {
			e.Line, e.Field = s.itemLines[key][i], key+"["+strconv.Itoa(i)+"]"
		}
	}
	return e
}

// specKeys are the keys a spec may hold, in documentation order: its own
// (name, skip_missing, baseline, synth) and every run field's
// (runner.Fields).
var specKeys = func() []string {
	keys := []string{"name"}
	for _, f := range runner.Fields {
		keys = append(keys, f.SpecName())
		if f.Key == "policy" {
			keys = append(keys, "skip_missing")
		}
	}
	return append(keys, "baseline", "synth", "labels", "sensitivity")
}()

// classicAxes are the run keys a spec has always had, with fields of
// their own in Spec; every other run key becomes an Axis.
var classicAxes = []string{"traces", "clusters", "policies", "timing", "rounds", "horizon", "density", "seeds", "estimators"}

// specKey is the spec key a key or alias stands for.
func specKey(key string) string {
	if f, ok := runner.FieldByKey(key); ok {
		return f.SpecName()
	}
	return key
}

// LoadSpec reads a spec file; its relative paths resolve against the
// file's directory.
func LoadSpec(file string, opts ...SpecOption) (*Spec, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	defer f.Close()
	data, err := input.ReadAll(file, f)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", file, err)
	}
	return ParseSpec(file, filepath.Dir(file), data, opts...)
}

// ParseSpec parses a spec; file names it in errors and dir resolves its
// relative paths (resolvePath, confined to dir unless opts hold
// AllowOutsidePaths). It checks the form of every value; whether traces,
// clusters and policies exist is checked by Expand.
func ParseSpec(file, dir string, data []byte, opts ...SpecOption) (*Spec, error) {
	root, err := input.OneDocument(file, "a spec", data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, &input.Error{File: file, Line: 1, Err: errors.New("empty spec; want a mapping with keys " + strings.Join(specKeys, ", "))}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &input.Error{File: file, Line: root.Line, Err: errors.New("want a mapping with keys " + strings.Join(specKeys, ", "))}
	}
	s := &Spec{File: file, Dir: dir, lines: map[string]int{}, itemLines: map[string][]int{}, Timings: []sim.Timing{sim.Exact}, Densities: []float64{1}, Seeds: []int64{0}, Estimators: []string{"profiledb"}}
	for _, o := range opts {
		o(s)
	}
	var horizon *yaml.Node
	err = input.Mapping(file, "", root, specKeys, specKey, func(key string, k, v *yaml.Node) error {
		s.lines[key] = k.Line
		return s.setKey(key, v, &horizon)
	})
	if err != nil {
		return nil, err
	}
	if err := s.settle(root, horizon); err != nil {
		return nil, err
	}
	return s, nil
}

// specFail is the *input.Error of key at node n.
func specFail(file string, n *yaml.Node, key string, format string, args ...any) error {
	return &input.Error{File: file, Line: n.Line, Kind: "key", Field: key, Err: fmt.Errorf(format, args...)}
}

// setKey reads one key of the spec file into s; horizon is kept for
// settle, which needs to know whether rounds was given too.
func (s *Spec) setKey(key string, v *yaml.Node, horizon **yaml.Node) error {
	file := s.File
	switch key {
	case "name":
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			return specFail(file, v, key, "want a non-empty string")
		}
		if err := checkName(v.Value); err != nil {
			return specFail(file, v, key, "%v", err)
		}
		if err := input.Name(v.Value); err != nil {
			return specFail(file, v, key, "%w", err)
		}
		s.Name = v.Value
	case "traces", "clusters", "policies":
		items, err := scalarList(v)
		if err != nil {
			return specFail(file, err.node, key, "%s", err.msg)
		}
		vals := make([]string, 0, len(items))
		for _, it := range items {
			if strings.TrimSpace(it.Value) == "" {
				return specFail(file, it, key, "empty entry")
			}
			vals = append(vals, strings.TrimSpace(it.Value))
			s.itemLines[key] = append(s.itemLines[key], it.Line)
		}
		switch key {
		case "traces":
			s.Traces = vals
		case "clusters":
			s.Clusters = vals
		case "policies":
			s.Policies = vals
		}
	case "baseline":
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			return specFail(file, v, key, "want a policy name, e.g. fcfs")
		}
		s.Baseline = strings.TrimSpace(v.Value)
	case "skip_missing":
		var b bool
		if err := v.Decode(&b); err != nil {
			return specFail(file, v, key, "want true or false, got %q", v.Value)
		}
		s.SkipMissing = b
	case "timing", "rounds", "density", "seeds", "estimators":
		return s.setClassicAxis(key, v)
	case "horizon":
		*horizon = v
	case "labels":
		labels, err := parseLabels(file, key, v)
		if err != nil {
			return err
		}
		s.Labels = labels
	case "sensitivity":
		g, err := parseSensitivityNode(file, v)
		if err != nil {
			return err
		}
		s.Sensitivity = g
	case "synth":
		st, err := parseSynth(file, func(p string) (string, error) { return s.resolvePath(p, false) }, v)
		if err != nil {
			return err
		}
		s.Synth = st
	default: // every other run field: values checked by its rule
		f, _ := runner.FieldByKey(key)
		items, err := scalarList(v)
		if err != nil {
			return specFail(file, err.node, key, "%s", err.msg)
		}
		ax := Axis{Field: f}
		for _, it := range items {
			var r runner.Run
			if perr := f.Set(&r, it.Value); perr != nil {
				return specFail(file, it, key, "%v", perr)
			}
			ax.Values = append(ax.Values, strings.TrimSpace(it.Value))
		}
		s.Axes = append(s.Axes, ax)
	}
	return nil
}

// parseLabels reads the labels: mapping (policy → figure label).
func parseLabels(file, key string, v *yaml.Node) (map[string]string, error) {
	if v.Kind != yaml.MappingNode {
		return nil, specFail(file, v, key, "want a mapping of policy to figure label, e.g. {\"exec:python3 sjf.py\": SJF}")
	}
	labels := map[string]string{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		pk, pv := v.Content[j], v.Content[j+1]
		if pk.Kind != yaml.ScalarNode || pv.Kind != yaml.ScalarNode || strings.TrimSpace(pk.Value) == "" || strings.TrimSpace(pv.Value) == "" {
			return nil, specFail(file, pk, key, "want policy: label, both non-empty strings")
		}
		if err := input.Name(pv.Value); err != nil {
			return nil, specFail(file, pv, key, "label: %w", err)
		}
		if _, dup := labels[strings.TrimSpace(pk.Value)]; dup {
			return nil, specFail(file, pk, key, "policy %q labelled twice", pk.Value)
		}
		labels[strings.TrimSpace(pk.Value)] = strings.TrimSpace(pv.Value)
	}
	return labels, nil
}

// setClassicAxis reads one of the axes Spec has fields of its own for
// (timing, density, seeds, estimators) or rounds, each value checked by
// its run field's rule.
func (s *Spec) setClassicAxis(key string, v *yaml.Node) error {
	file := s.File
	items, err := scalarList(v)
	if err != nil {
		return specFail(file, err.node, key, "%s", err.msg)
	}
	f, _ := runner.FieldByKey(key)
	s.Timings, s.Densities, s.Seeds, s.Estimators = timingsIf(key != "timing", s.Timings), floatsIf(key != "density", s.Densities), intsIf(key != "seeds", s.Seeds), stringsIf(key != "estimators", s.Estimators)
	for _, it := range items {
		var r runner.Run
		if perr := f.Set(&r, it.Value); perr != nil {
			return specFail(file, it, key, "%v", perr)
		}
		switch key {
		case "timing":
			s.Timings = append(s.Timings, r.Timing)
		case "rounds":
			if slices.Contains(s.Rounds, r.Rounds) {
				return specFail(file, it, key, "%d given twice", r.Rounds)
			}
			s.Rounds = append(s.Rounds, r.Rounds)
		case "density":
			s.Densities = append(s.Densities, r.Density)
		case "seeds":
			s.Seeds = append(s.Seeds, r.Seed)
		case "estimators":
			s.Estimators = append(s.Estimators, r.Estimator)
		}
	}
	return nil
}

// settle finishes a parsed spec: axes in the table's order, the horizon
// turned into rounds, the required keys checked (at root's line) and the
// default name from the file's.
func (s *Spec) settle(root, horizon *yaml.Node) error {
	// The table's order, whatever the file's.
	slices.SortStableFunc(s.Axes, func(a, b Axis) int { return fieldIndex(a.Field) - fieldIndex(b.Field) })
	if horizon != nil {
		if _, both := s.lines["rounds"]; both {
			return specFail(s.File, horizon, "horizon", "rounds and horizon are alternatives; give one")
		}
		f, _ := runner.FieldByKey("horizon")
		items, nerr := scalarList(horizon)
		if nerr != nil {
			return specFail(s.File, nerr.node, "horizon", "%s", nerr.msg)
		}
		for _, it := range items {
			var r runner.Run
			if err := f.Set(&r, it.Value); err != nil {
				return specFail(s.File, it, "horizon", "%v", err)
			}
			if slices.Contains(s.Rounds, r.Rounds) {
				return specFail(s.File, it, "horizon", "%s is %d rounds, as another value of the list", it.Value, r.Rounds)
			}
			s.Rounds = append(s.Rounds, r.Rounds)
		}
	}
	for _, req := range []struct {
		key  string
		have bool
	}{{"traces", len(s.Traces) > 0 || len(s.Synth) > 0}, {"clusters", len(s.Clusters) > 0}, {"policies", len(s.Policies) > 0}} {
		if !req.have {
			return &input.Error{File: s.File, Line: root.Line, Kind: "key", Field: req.key, Err: errors.New("missing (required)")}
		}
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
		if checkName(s.Name) != nil || input.Name(s.Name) != nil {
			s.Name = SanitizeKey(s.Name)
		}
	}
	return nil
}

func fieldIndex(f *runner.Field) int {
	for i := range runner.Fields {
		if &runner.Fields[i] == f {
			return i
		}
	}
	return len(runner.Fields)
}

// The list keys' defaults are replaced, not added to, by the spec's values.
func timingsIf(keep bool, v []sim.Timing) []sim.Timing {
	if keep {
		return v
	}
	return nil
}
func floatsIf(keep bool, v []float64) []float64 {
	if keep {
		return v
	}
	return nil
}
func intsIf(keep bool, v []int64) []int64 {
	if keep {
		return v
	}
	return nil
}
func stringsIf(keep bool, v []string) []string {
	if keep {
		return v
	}
	return nil
}

// checkName accepts a spec name that is one safe path element: it names
// the default results directory (results/<name>), so "../../x" must not
// climb out of it.
func checkName(n string) error {
	if len(n) > 100 || strings.ContainsAny(n, `/\`) || strings.Contains(n, "..") || strings.HasPrefix(n, ".") ||
		strings.ContainsFunc(n, unicode.IsControl) || !utf8.ValidString(n) {
		return fmt.Errorf("%s: want a plain name (letters, digits, - _ +; no /, \\, .. or leading dot): it names the results directory", clip(n))
	}
	return nil
}

type nodeError struct {
	node *yaml.Node
	msg  string
}

// scalarList accepts a scalar or a sequence of scalars.
func scalarList(v *yaml.Node) ([]*yaml.Node, *nodeError) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, &nodeError{v, "empty; want a value or a list"}
		}
		return []*yaml.Node{v}, nil
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			return nil, &nodeError{v, "empty list"}
		}
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, &nodeError{it, "want a list of plain values"}
			}
		}
		return v.Content, nil
	}
	return nil, &nodeError{v, "want a value or a list of values"}
}

// clip shows a value from the user's input in a message (sim.ShowValue).
func clip(s string) string { return sim.ShowValue(s) }

// PlannedRun is one point of a sweep.
type PlannedRun struct {
	// Key names the run uniquely and stably within its sweep; it is also
	// its results directory name.
	Key string
	// Group names the comparison the run belongs to (every parameter but
	// the policy): padded mean JCTs are computed within a group.
	Group string
	Run   runner.Run
}

// Plan is a spec resolved against the policy registry.
type Plan struct {
	Name string
	Runs []PlannedRun
	// Notes say what was skipped (policies not registered, patterns
	// that matched nothing).
	Notes []string
	// resolver holds the inputs Expand loaded (nil for a plan built
	// otherwise: RunSweep then loads them).
	resolver *runner.Resolver
}

// Expand resolves the spec's policy list against reg and returns the cross
// product in a stable order (trace, cluster, timing, density, seed,
// estimator, the other axes in runner.Fields order, then policy
// innermost), checking every run before any runs (runner.Resolver.Check:
// its fields, that every trace, cluster, policy, overhead profile,
// estimator, faults input and tenants file exists, and that the
// estimator prices every GPU type of the cluster). The inputs it loads
// stay with the plan, so RunSweep loads none of them again.
func (s *Spec) Expand(reg runner.Policies) (*Plan, error) { return s.expand(reg, true) }

// List is Expand for listing the runs (sweep --list): the same plan, but
// no synthesised trace is built or its source read — their size is
// checked from the spec's keys alone.
func (s *Spec) List(reg runner.Policies) (*Plan, error) { return s.expand(reg, false) }

func (s *Spec) expand(reg runner.Policies, build bool) (*Plan, error) {
	fail := func(key string, err error) error {
		return &input.Error{File: s.File, Line: s.lines[key], Kind: "key", Field: key, Err: err}
	}
	rv := runner.NewResolver(reg)
	plan := &Plan{Name: s.Name, resolver: rv}
	policies, notes, err := ResolvePolicies(reg, s.Policies, s.SkipMissing)
	if err != nil {
		var fe *input.Error
		if errors.As(err, &fe) {
			return nil, s.pathError(fe.Field, fe.Err)
		}
		return nil, fail("policies", err)
	}
	plan.Notes = notes
	// Files a policy's options name (registry.Option.Path: a tenants file,
	// a working directory) are read next to the spec, like its own keys.
	for i, p := range policies {
		if policies[i], err = s.resolvePolicyPaths(reg, p); err != nil {
			return nil, fail("policies", err)
		}
	}
	// The plan's size is the product of the axes: checked before anything
	// is loaded or built (a 480 KB spec named 13.7M runs).
	n := int64(1)
	rounds := s.Rounds
	if len(rounds) == 0 {
		rounds = []int{0} // the trace's default
	}
	for _, k := range []int{len(s.Traces) + len(s.Synth), len(s.Clusters), len(s.Timings), len(rounds), len(s.Densities), len(s.Seeds), len(s.Estimators), len(policies)} {
		n = input.Product(n, int64(k))
	}
	for _, ax := range s.Axes {
		n = input.Product(n, int64(len(ax.Values)))
	}
	if err := input.Count("runs (the product of the spec's axes)", n, 0, input.RunsCap); err != nil {
		return nil, &input.Error{File: s.File, Line: 1, Err: err}
	}
	// So is what the syntheses would hold (a 7-line spec asked for
	// millions of jobs × seeds).
	if err := s.checkSynthRows(build); err != nil {
		return nil, err
	}
	traceRefs, traceNames, synthOf, err := s.expandTraces(rv, build)
	if err != nil {
		return nil, err
	}
	clusterRefs, clusterNames, err := s.expandClusters(rv)
	if err != nil {
		return nil, err
	}
	combos, err := s.axisCombos(rv, policies)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	drainDefault := !slices.ContainsFunc(s.Axes, func(ax Axis) bool { return ax.Field.Key == "drain" })
	for ti := range traceRefs {
		seeds := s.Seeds
		// seeded: a combination whose faults draw from the seed (a preset
		// or a faults spec) runs every seed even on a deterministic trace.
		seeded := func(r runner.Run) bool { return true }
		if len(seeds) > 1 && (synthOf[ti] == nil || synthOf[ti].Deterministic()) {
			// Nothing else in the run draws from the seed: every seed
			// would repeat the same run.
			seeded = func(r runner.Run) bool { return faults.Seeded(r.Faults) }
			if slices.ContainsFunc(combos, seeded) {
				plan.Notes = append(plan.Notes, fmt.Sprintf("trace %s is deterministic (no synthesis draws from the seed): runs without seeded faults run seed %d only", traceNames[ti], seeds[0]))
			} else {
				seeds = seeds[:1]
				plan.Notes = append(plan.Notes, fmt.Sprintf("trace %s is deterministic (no synthesis draws from the seed): seeds %v would give identical runs; running seed %d only", traceNames[ti], s.Seeds, seeds[0]))
			}
		}
		for ci := range s.Clusters {
			for _, timing := range s.Timings {
				for _, rd := range rounds {
					for _, density := range s.Densities {
						for _, seed := range seeds {
							for _, est := range s.Estimators {
								for _, combo := range combos {
									if seed != seeds[0] && !seeded(combo) {
										continue
									}
									// Exact timing drains unless the spec
									// says drain (artifact timing keeps the
									// artifact's horizon, for parity).
									combo.Drain = combo.Drain || drainDefault && timing == sim.Exact
									group := GroupKey(traceNames[ti], clusterNames[ci], timing, rd, density, seed, est) + axesKey(combo)
									for _, p := range policies {
										key := PolicyDir(p) + "." + group
										if seen[key] {
											return nil, fail("traces", fmt.Errorf("two runs would share the name %q (two traces or clusters with the same file name?)", key))
										}
										seen[key] = true
										r := combo
										r.Trace, r.Cluster, r.Policy, r.Timing = traceRefs[ti], clusterRefs[ci], p, timing
										r.Rounds, r.Density, r.Seed, r.Estimator, r.Synth = rd, density, seed, est, synthOf[ti]
										if err := rv.Check(r); err != nil {
											return nil, s.checkError(err, ci)
										}
										plan.Runs = append(plan.Runs, PlannedRun{Key: key, Group: group, Run: r})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if s.Sensitivity != nil {
		if err := s.Sensitivity.CheckPlan(plan); err != nil {
			return nil, fail("sensitivity", err)
		}
	}
	return plan, nil
}

// checkError renders an error of runner.Resolver.Check for a run on the
// spec's ci-th cluster at the spec key that set the field; a cluster its
// estimator cannot price is the estimators key's fault when the spec sets
// it, else the cluster's (the default estimator prices few GPU types).
func (s *Spec) checkError(err error, ci int) error {
	var ue *runner.UnpricedError
	if errors.As(err, &ue) && !s.HasKey("estimators") {
		return s.pathError("clusters["+strconv.Itoa(ci)+"]", ue)
	}
	return s.fieldError(err)
}

// keyErrorAt is an *input.Error at key's line.
func (s *Spec) keyErrorAt(key string, err error) error {
	return &input.Error{File: s.File, Line: s.lines[key], Kind: "key", Field: key, Err: err}
}

// expandTraces resolves the trace axis: each listed trace loaded once
// (its reference and name), then the synthesised ones, each built once
// for the first seed (when build is set) so a bad source or key fails
// before any run.
func (s *Spec) expandTraces(rv *runner.Resolver, build bool) (refs, names []string, synth []*runner.SynthTrace, err error) {
	traceRefs := make([]string, len(s.Traces))
	traceNames := make([]string, len(s.Traces))
	for i, t := range s.Traces {
		ref, err := s.resolvePath(t, slices.Contains(traces.BuiltinNames(), t))
		if err != nil {
			return nil, nil, nil, s.keyErrorAt("traces", err)
		}
		tr, err := rv.Trace(runner.Run{Trace: ref})
		if err != nil {
			return nil, nil, nil, s.keyErrorAt("traces", err)
		}
		traceRefs[i], traceNames[i] = ref, tr.Name
	}
	// Synthesised traces join the trace axis; each is built once here (the
	// first seed) so a bad source or key fails before any run.
	synthOf := make([]*runner.SynthTrace, len(s.Traces))
	for _, st := range s.Synth {
		if build {
			if _, err := st.Build(s.Seeds[0]); err != nil {
				return nil, nil, nil, s.keyErrorAt("synth", err)
			}
		}
		traceRefs, traceNames, synthOf = append(traceRefs, st.Name), append(traceNames, st.Name), append(synthOf, st)
	}
	return traceRefs, traceNames, synthOf, nil
}

// expandClusters resolves the cluster axis: each spec loaded once, named
// by its name: key or else its file name.
func (s *Spec) expandClusters(rv *runner.Resolver) (refs, names []string, err error) {
	clusterRefs := make([]string, len(s.Clusters))
	clusterNames := make([]string, len(s.Clusters))
	for i, c := range s.Clusters {
		ref, err := s.resolvePath(c, slices.Contains(clusterspec.BuiltinNames(), c))
		if err != nil {
			return nil, nil, s.keyErrorAt("clusters", err)
		}
		spec, err := rv.Cluster(ref)
		if err != nil {
			return nil, nil, s.keyErrorAt("clusters", err)
		}
		clusterRefs[i], clusterNames[i] = ref, spec.Name
		if clusterNames[i] == "" {
			clusterNames[i] = strings.TrimSuffix(filepath.Base(c), filepath.Ext(c))
		}
	}
	return clusterRefs, clusterNames, nil
}

// axisCombos is every combination of the values of the spec's other run
// axes, each a partial run, overhead profiles resolved to paths and
// checked against every policy of the spec.
func (s *Spec) axisCombos(rv *runner.Resolver, policies []string) ([]runner.Run, error) {
	combos := []runner.Run{{}}
	for _, ax := range s.Axes {
		var next []runner.Run
		for _, c := range combos {
			for _, v := range ax.Values {
				r := c
				if err := ax.Field.Set(&r, v); err != nil {
					return nil, s.keyErrorAt(ax.Field.SpecName(), err)
				}
				if ax.Field.Key == "tenants" && v != runner.TenantsVCs && !tenants.IsBuiltin(v) {
					// A tenants file, like a trace, is read next to the spec.
					ref, err := s.resolvePath(v, false)
					if err != nil {
						return nil, s.keyErrorAt("tenants", err)
					}
					r.Tenants = ref
				}
				if ax.Field.Key == "energy" && !energy.IsBuiltin(v) {
					// An energy file, like a trace, is read next to the spec.
					ref, err := s.resolvePath(v, false)
					if err != nil {
						return nil, s.keyErrorAt("energy", err)
					}
					r.Energy = ref
				}
				if ax.Field.Key == "faults" && v != "" && v != "none" && !slices.Contains(faults.PresetNames(), v) {
					if !slices.Contains([]string{".yaml", ".yml", ".csv", ".parquet"}, strings.ToLower(filepath.Ext(v))) {
						return nil, s.keyErrorAt("faults", fmt.Errorf("%s: not a preset (%s, none), nor a faults spec (.yaml) or an events file (.csv, .parquet)", clip(v), strings.Join(faults.PresetNames(), ", ")))
					}
					// A faults spec or events file, like a trace, is read next to the spec.
					ref, err := s.resolvePath(v, false)
					if err != nil {
						return nil, s.keyErrorAt("faults", err)
					}
					r.Faults = ref
				}
				if ax.Field.Key == "overheads" {
					ref, err := s.resolvePath(v, slices.Contains(overheadprofile.BuiltinNames(), v))
					if err != nil {
						return nil, s.keyErrorAt("overheads", err)
					}
					r.Overheads = ref
					for _, p := range policies {
						if _, _, _, err := rv.Policy(p, ref); err != nil {
							return nil, s.keyErrorAt("overheads", err)
						}
					}
				}
				next = append(next, r)
			}
		}
		combos = next
	}
	return combos, nil
}

// fieldError renders a run's field error (an *input.Error) at the spec
// key that set the field.
func (s *Spec) fieldError(err error) error {
	var fe *input.Error
	if !errors.As(err, &fe) {
		return &input.Error{File: s.File, Line: 1, Err: err}
	}
	return s.pathError(fe.Field, fe.Err)
}

// axesKey renders the other axes' values of a run for its group key: the
// overhead profile, iteration scale and slowdowns as the keys of earlier
// sweeps named them, then the later keys, each only when not its default.
func axesKey(r runner.Run) string {
	var k string
	if r.Overheads != "" && filepath.Base(r.Overheads) != overheadprofile.Default {
		k += ".o-" + SanitizeKey(strings.TrimSuffix(filepath.Base(r.Overheads), filepath.Ext(r.Overheads)))
	}
	if r.IterationScale > 0 {
		k += ".i" + strconv.FormatInt(r.IterationScale, 10)
	}
	if r.Slowdown != 0 && r.Slowdown != 1 || r.RelaxedSlowdown != 0 && r.RelaxedSlowdown != 1 {
		k += ".sd" + strconv.FormatFloat(factorOr1(r.Slowdown), 'g', -1, 64) + "-" + strconv.FormatFloat(factorOr1(r.RelaxedSlowdown), 'g', -1, 64)
	}
	if r.TypeSlowdowns != "" {
		k += ".ts-" + typeSlowdownsKey(r.TypeSlowdowns)
	}
	if r.OverheadScale != 0 && r.OverheadScale != 1 {
		k += ".os" + strconv.FormatFloat(r.OverheadScale, 'g', -1, 64)
	}
	if r.GPUMap != "" {
		k += ".gm-" + SanitizeKey(r.GPUMap)
	}
	if r.Tenants != "" {
		k += ".t-" + SanitizeKey(strings.TrimSuffix(filepath.Base(r.Tenants), filepath.Ext(r.Tenants)))
	}
	k += faultsKey(r)
	k += measureKey(r)
	for _, b := range []struct {
		on  bool
		tag string
	}{{r.ProfilingDelay, ".pd"}, {r.ScheduleOnEvents, ".ev"}, {r.Drain, ".dr"}, {r.Check, ".chk"}} {
		if b.on {
			k += b.tag
		}
	}
	return k
}

// typeSlowdownsKey is a canonical type_slowdowns value as a key part:
// "h100=1.2,l20=0.8" → "h100x1.2-l20x0.8".
func typeSlowdownsKey(ts string) string {
	return strings.NewReplacer("=", "x", ",", "-").Replace(ts)
}

// faultsKey is the faults and checkpoint part of a run's key ("" for a
// run with neither): they are axes too (docs/faults.md).
func faultsKey(r runner.Run) string {
	var k string
	if r.Faults != "" {
		k += ".f-" + SanitizeKey(strings.TrimSuffix(filepath.Base(r.Faults), filepath.Ext(r.Faults)))
	}
	if r.CheckpointInterval != 0 || r.CheckpointCost != 0 || r.CheckpointRestore != 0 {
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		k += ".ck" + g(r.CheckpointInterval) + "-" + g(r.CheckpointCost) + "-" + g(r.CheckpointRestore)
	}
	return k
}

// faultsName is r's faults input as a table names it: a preset's name, a
// file's base name without extension ("" without faults).
func faultsName(r runner.Run) string {
	if r.Faults == "" {
		return "none"
	}
	return strings.TrimSuffix(filepath.Base(r.Faults), filepath.Ext(r.Faults))
}

// resolvePath turns a reference a spec holds (a trace, cluster, overhead
// profile, tenants file, faults input, synth source or a policy's Path
// option) into a path: every path of a spec goes through here. A spec may
// reference only files inside its own directory (or, with no directory,
// the working directory): a spec from a stranger must not make arena read
// /etc/shadow or ../../secrets, even to fail on them. Symbolic links are
// followed before the check. With the user's consent (AllowOutsidePaths)
// it may name any file: an absolute path is kept as given, a relative one
// still resolves against the spec's directory.
func (s *Spec) resolvePath(p string, builtin bool) (string, error) {
	if builtin {
		return p, nil
	}
	return resolveIn(s.Dir, p, s.outsidePaths)
}

// resolvePolicyPaths resolves every path a policy string's options name
// (registry.Spec.MapPaths) as the spec's own keys are: next to the spec,
// confined to its directory unless the user consented.
func (s *Spec) resolvePolicyPaths(reg runner.Policies, p string) (string, error) {
	ps, err := registry.ParseWith(reg.Lookup, p)
	if err != nil {
		return "", err
	}
	return ps.MapPaths(func(_, _, v string) (string, error) { return s.resolvePath(v, false) })
}

// resolveIn is resolvePath for a spec in dir: p joined to dir (an
// absolute p kept as given), refused, unless outside is set, if it is
// absolute or leads outside dir (after symbolic links).
func resolveIn(dir, p string, outside bool) (string, error) {
	if outside {
		if filepath.IsAbs(p) {
			return p, nil
		}
		return filepath.Join(dir, p), nil
	}
	// The path as typed, quoted and escaped: the user must see what was refused.
	refused := fmt.Errorf("%s: not a built-in name, and a path outside the spec's directory; a spec reads files outside its directory only with --allow-outside-paths — read the spec, then rerun with --allow-outside-paths if you trust it (docs/trust.md)", input.Clip(p))
	if filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return "", refused
	}
	full := filepath.Join(dir, p)
	base := dir
	if base == "" {
		base = "."
	}
	realBase, err1 := filepath.EvalSymlinks(base)
	realFull, err2 := filepath.EvalSymlinks(full)
	if err1 == nil && err2 == nil {
		rel, err := filepath.Rel(realBase, realFull)
		if err != nil || !filepath.IsLocal(rel) {
			return "", refused
		}
	}
	return full, nil
}

// GroupKey renders the parameters shared by a comparison group, e.g.
// "philly.paper-1280.artifact.r2000.d1.s0" (estimator appended unless
// profiledb; rounds "rdef" for the trace's default).
func GroupKey(trace, cluster string, timing sim.Timing, rounds int, density float64, seed int64, est string) string {
	r := "rdef"
	if rounds > 0 {
		r = "r" + strconv.Itoa(rounds)
	}
	parts := []string{SanitizeKey(trace), SanitizeKey(cluster), timing.String(), r,
		"d" + strconv.FormatFloat(density, 'g', -1, 64), "s" + strconv.FormatInt(seed, 10)}
	if est != "" && est != "profiledb" {
		parts = append(parts, SanitizeKey(est))
	}
	return strings.Join(parts, ".")
}

var unsafeKeyRE = regexp.MustCompile(`[^A-Za-z0-9_+-]+`)

// SanitizeKey makes s safe in a run key, a file name and a column name:
// every run of characters other than letters, digits, '_', '+' and '-'
// becomes '_'.
func SanitizeKey(s string) string { return unsafeKeyRE.ReplaceAllString(s, "_") }

// PolicyDir is a policy string made safe as a directory name: every run of
// characters other than letters, digits, '_', '+', '-' and '=' becomes '_'
// ("tiresias(queues=3)" → "tiresias_queues=3", "exec:python3 p.py" →
// "exec_python3_p_py"). A plain registered name is unchanged.
func PolicyDir(p string) string {
	return strings.Trim(policyDirRE.ReplaceAllString(p, "_"), "_")
}

var policyDirRE = regexp.MustCompile(`[^A-Za-z0-9_+=-]+`)

// policyGlob says whether a policies entry is a glob over registered
// names: a pattern character and no option list or command.
func policyGlob(pat string) bool {
	return strings.ContainsAny(pat, "*?[") && !strings.ContainsAny(pat, "(:")
}

// ResolvePolicies turns a policy list into canonical policy strings in
// order. Entries are names or aliases, policy strings with options
// ("tiresias(queues=3,threshold=16h)", "exec:python3 my_policy.py"), globs ("arena-*", "*") over the
// registered names, or "!glob" to remove names matched so far. A named
// policy that is not registered is an error, or, with skipMissing, a note
// (so a spec can list policies that have not landed yet).
func ResolvePolicies(reg runner.Policies, patterns []string, skipMissing bool) (names, notes []string, err error) {
	registered := reg.Names()
	for i, pat := range patterns {
		at := func(err error) error { return &input.Error{Field: fmt.Sprintf("policies[%d]", i), Err: err} }
		if ex, ok := strings.CutPrefix(pat, "!"); ok {
			if _, err := path.Match(ex, ""); err != nil {
				return nil, nil, at(fmt.Errorf("%q: bad pattern: %w", pat, err))
			}
			names = slices.DeleteFunc(names, func(n string) bool { m, _ := path.Match(ex, n); return m })
			continue
		}
		if policyGlob(pat) {
			if _, err := path.Match(pat, ""); err != nil {
				return nil, nil, at(fmt.Errorf("%q: bad pattern: %w", pat, err))
			}
			matched := 0
			for _, n := range registered {
				if e, err := reg.Lookup(n); err == nil && e.NeedsOptions() {
					continue // exec needs its command: a glob cannot run it
				}
				if m, _ := path.Match(pat, n); m {
					matched++
					if !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
			if matched == 0 {
				notes = append(notes, fmt.Sprintf("policy pattern %q matches no registered policy", pat))
			}
			continue
		}
		ps, perr := registry.ParseWith(reg.Lookup, pat)
		if perr != nil {
			var oe *input.Error
			if skipMissing && !errors.As(perr, &oe) {
				notes = append(notes, fmt.Sprintf("policy %q is not registered yet; its runs are skipped", pat))
				continue
			}
			return nil, nil, at(perr)
		}
		if n := ps.String(); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 && !skipMissing {
		return nil, notes, fmt.Errorf("no registered policy left (registered: %s)", strings.Join(registered, ", "))
	}
	return names, notes, nil
}

func factorOr1(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}
