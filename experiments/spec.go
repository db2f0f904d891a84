package experiments

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
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
//	timing: [artifact, exact]
//	rounds: 2000                 # or horizon: 7d (default: the trace's own)
//	density: [0.5, 1.0, 2.0]     # iteration scaling (ARENA.md §8), default 1
//	seeds: [0]
//	estimators: [profiledb]
//	overheads: testbed           # overhead profile: built-in name or YAML path (default artifact)
//	iteration_scale: 1           # overrides every trace's iteration scale
//	slowdown: 1.045              # executed iteration times × this (calibration)
//	relaxed_slowdown: 1.34       # … × this instead on relaxed multi-node placements
//	synth: {from: philly-pollux, recipe: arena}  # synthesised traces (see SynthTrace)
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
	Rounds      int
	Densities   []float64
	Seeds       []int64
	Estimators  []string
	// Overheads is the overhead profile (built-in name or resolved path;
	// "" = the artifact's); IterationScale overrides the traces' scale
	// (0 = each trace's own).
	Overheads      string
	IterationScale int64
	// Baseline is the policy the report compares the others with ("" =
	// the paper's form, Arena against each policy).
	Baseline string
	// Slowdown and RelaxedSlowdown calibrate execution (Run.Slowdown);
	// 0 = none.
	Slowdown, RelaxedSlowdown float64
	// Synth are the traces the spec synthesises (one per combination of
	// list values of its synth mapping), on the trace axis after Traces.
	Synth []*SynthTrace

	// lines of each key, for errors found after parsing.
	lines map[string]int
}

// SpecError locates a problem in a spec file.
type SpecError struct {
	File string
	Line int
	Key  string
	Err  error
}

func (e *SpecError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: key %q: %v", loc, e.Key, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *SpecError) Unwrap() error { return e.Err }

// HasKey reports whether the spec file sets key.
func (s *Spec) HasKey(key string) bool {
	_, ok := s.lines[key]
	return ok
}

// KeyError is a SpecError at key's line (the file's first line when the
// spec does not set key), for problems found after parsing.
func (s *Spec) KeyError(key string, err error) *SpecError {
	line, ok := s.lines[key]
	if !ok {
		line = 1
	}
	return &SpecError{File: s.File, Line: line, Key: key, Err: err}
}

// specKeys are the keys a spec may hold, in documentation order.
var specKeys = []string{"name", "traces", "clusters", "policies", "skip_missing", "timing", "rounds", "horizon", "density", "seeds", "estimators", "overheads", "iteration_scale", "slowdown", "relaxed_slowdown", "baseline", "synth"}

// keyAliases accept the singular or plural form of a list key.
var keyAliases = map[string]string{
	"trace": "traces", "cluster": "clusters", "policy": "policies", "timings": "timing",
	"densities": "density", "seed": "seeds", "estimator": "estimators",
}

// LoadSpec reads a spec file.
func LoadSpec(file string) (*Spec, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	defer f.Close()
	const maxSpec = 1 << 20
	data, err := io.ReadAll(io.LimitReader(f, maxSpec+1))
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", file, err)
	}
	if len(data) > maxSpec {
		return nil, &SpecError{File: file, Err: fmt.Errorf("over %d bytes; a spec is a short YAML file", maxSpec)}
	}
	return ParseSpec(file, filepath.Dir(file), data)
}

// ParseSpec parses a spec; file names it in errors and dir resolves its
// relative paths. It checks the form of every value; whether traces,
// clusters and policies exist is checked by Expand.
func ParseSpec(file, dir string, data []byte) (*Spec, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &SpecError{File: file, Line: yamlErrorLine(err), Err: fmt.Errorf("not valid YAML: %w", err)}
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		return nil, &SpecError{File: file, Line: second.Line, Err: errors.New("a second YAML document (after ---); a spec is one document")}
	}
	if len(doc.Content) == 0 {
		return nil, &SpecError{File: file, Line: 1, Err: errors.New("empty spec; want a mapping with keys " + strings.Join(specKeys, ", "))}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &SpecError{File: file, Line: root.Line, Err: errors.New("want a mapping with keys " + strings.Join(specKeys, ", "))}
	}
	s := &Spec{File: file, Dir: dir, lines: map[string]int{}, Densities: []float64{1}, Seeds: []int64{0}, Estimators: []string{"profiledb"}}
	fail := func(n *yaml.Node, key string, format string, args ...any) error {
		return &SpecError{File: file, Line: n.Line, Key: key, Err: fmt.Errorf(format, args...)}
	}
	var horizon *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		key := k.Value
		if a, ok := keyAliases[key]; ok {
			key = a
		}
		if !slices.Contains(specKeys, key) {
			return nil, fail(k, k.Value, "unknown key (known: %s)", strings.Join(specKeys, ", "))
		}
		if _, dup := s.lines[key]; dup {
			return nil, fail(k, k.Value, "given twice (first on line %d)", s.lines[key])
		}
		s.lines[key] = k.Line
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return nil, fail(v, key, "want a non-empty string")
			}
			if err := checkName(v.Value); err != nil {
				return nil, fail(v, key, "%v", err)
			}
			s.Name = v.Value
		case "traces", "clusters", "policies", "estimators":
			items, err := scalarList(v)
			if err != nil {
				return nil, fail(err.node, key, "%s", err.msg)
			}
			vals := make([]string, 0, len(items))
			for _, it := range items {
				if strings.TrimSpace(it.Value) == "" {
					return nil, fail(it, key, "empty entry")
				}
				vals = append(vals, strings.TrimSpace(it.Value))
			}
			switch key {
			case "traces":
				s.Traces = vals
			case "clusters":
				s.Clusters = vals
			case "policies":
				s.Policies = vals
			case "estimators":
				s.Estimators = vals
			}
		case "baseline":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return nil, fail(v, key, "want a policy name, e.g. fcfs")
			}
			s.Baseline = strings.TrimSpace(v.Value)
		case "skip_missing":
			var b bool
			if err := v.Decode(&b); err != nil {
				return nil, fail(v, key, "want true or false, got %q", v.Value)
			}
			s.SkipMissing = b
		case "timing":
			items, err := scalarList(v)
			if err != nil {
				return nil, fail(err.node, key, "%s", err.msg)
			}
			s.Timings = nil
			for _, it := range items {
				t, perr := sim.ParseTiming(it.Value)
				if perr != nil {
					return nil, fail(it, key, "%q: want exact or artifact", it.Value)
				}
				s.Timings = append(s.Timings, t)
			}
		case "rounds":
			n, perr := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || perr != nil || n < 0 {
				return nil, fail(v, key, "want a whole number of 300 s rounds (0 = the trace's default), got %q", v.Value)
			}
			s.Rounds = n
		case "horizon":
			horizon = v
		case "overheads":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return nil, fail(v, key, "want a profile name (%s) or a YAML file", strings.Join(sim.BuiltinOverheadNames(), ", "))
			}
			s.Overheads = strings.TrimSpace(v.Value)
		case "slowdown", "relaxed_slowdown":
			f, perr := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || perr != nil || !(f > 0) || f > 100 {
				return nil, fail(v, key, "want a factor in (0, 100] (1 = none), got %q", v.Value)
			}
			if key == "slowdown" {
				s.Slowdown = f
			} else {
				s.RelaxedSlowdown = f
			}
		case "iteration_scale":
			n, perr := strconv.ParseInt(v.Value, 10, 64)
			if v.Kind != yaml.ScalarNode || perr != nil || n <= 0 {
				return nil, fail(v, key, "want a positive integer (1: iterations as the trace gives them; 5: the artifact's simulation traces), got %q", v.Value)
			}
			s.IterationScale = n
		case "synth":
			st, err := parseSynth(file, dir, v)
			if err != nil {
				return nil, err
			}
			s.Synth = st
		case "density":
			items, err := scalarList(v)
			if err != nil {
				return nil, fail(err.node, key, "%s", err.msg)
			}
			s.Densities = nil
			for _, it := range items {
				d, perr := strconv.ParseFloat(it.Value, 64)
				if perr != nil || !(d >= MinDensity && d <= MaxDensity) {
					return nil, fail(it, key, "%s: want a number from %g to %g (1 = the trace as is)", clip(it.Value), MinDensity, MaxDensity)
				}
				s.Densities = append(s.Densities, d)
			}
		case "seeds":
			items, err := scalarList(v)
			if err != nil {
				return nil, fail(err.node, key, "%s", err.msg)
			}
			s.Seeds = nil
			for _, it := range items {
				n, perr := strconv.ParseInt(it.Value, 10, 64)
				if perr != nil {
					return nil, fail(it, key, "%q: want an integer", it.Value)
				}
				s.Seeds = append(s.Seeds, n)
			}
		}
	}
	if horizon != nil {
		if _, both := s.lines["rounds"]; both {
			return nil, fail(horizon, "horizon", "rounds and horizon are alternatives; give one")
		}
		d, err := ParseHorizon(horizon.Value)
		if err != nil {
			return nil, fail(horizon, "horizon", "%v", err)
		}
		s.Rounds = HorizonRounds(d)
	}
	for _, req := range []struct {
		key  string
		have bool
	}{{"traces", len(s.Traces) > 0 || len(s.Synth) > 0}, {"clusters", len(s.Clusters) > 0}, {"policies", len(s.Policies) > 0}, {"timing", len(s.Timings) > 0}} {
		if !req.have {
			return nil, &SpecError{File: file, Line: root.Line, Key: req.key, Err: errors.New("missing (required)")}
		}
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if checkName(s.Name) != nil {
			s.Name = sanitizeKey(s.Name)
		}
	}
	return s, nil
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

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrorLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
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
	Run   Run
}

// Plan is a spec resolved against the policy registry.
type Plan struct {
	Name string
	Runs []PlannedRun
	// Notes say what was skipped (policies not registered, patterns
	// that matched nothing).
	Notes []string
}

// Expand resolves the spec's policy list against reg and returns the cross
// product in a stable order (trace, cluster, timing, density, seed,
// estimator, then policy innermost), checking that every trace, cluster
// and estimator exists.
func (s *Spec) Expand(reg Policies) (*Plan, error) {
	fail := func(key string, err error) error {
		return &SpecError{File: s.File, Line: s.lines[key], Key: key, Err: err}
	}
	plan := &Plan{Name: s.Name}
	policies, notes, err := ResolvePolicies(reg, s.Policies, s.SkipMissing)
	if err != nil {
		return nil, fail("policies", err)
	}
	plan.Notes = notes
	traceRefs := make([]string, len(s.Traces))
	traceNames := make([]string, len(s.Traces))
	for i, t := range s.Traces {
		ref, err := s.resolvePath(t, slices.Contains(traces.BuiltinNames(), t))
		if err != nil {
			return nil, fail("traces", err)
		}
		tr, err := traces.Load(ref)
		if err != nil {
			return nil, fail("traces", err)
		}
		traceRefs[i], traceNames[i] = ref, tr.Name
	}
	// Synthesised traces join the trace axis; each is built once here (the
	// first seed) so a bad source or key fails before any run.
	synthOf := make([]*SynthTrace, len(s.Traces))
	for _, st := range s.Synth {
		if _, err := st.Build(s.Seeds[0]); err != nil {
			return nil, fail("synth", err)
		}
		traceRefs, traceNames, synthOf = append(traceRefs, st.Name), append(traceNames, st.Name), append(synthOf, st)
	}
	clusterRefs := make([]string, len(s.Clusters))
	clusterNames := make([]string, len(s.Clusters))
	for i, c := range s.Clusters {
		ref, err := s.resolvePath(c, slices.Contains(sim.BuiltinClusterNames(), c))
		if err != nil {
			return nil, fail("clusters", err)
		}
		spec, err := sim.LoadClusterSpec(ref)
		if err != nil {
			return nil, fail("clusters", err)
		}
		if _, err := sim.NewCluster(spec); err != nil {
			return nil, fail("clusters", err)
		}
		clusterRefs[i], clusterNames[i] = ref, spec.Name
		if clusterNames[i] == "" {
			clusterNames[i] = strings.TrimSuffix(filepath.Base(c), filepath.Ext(c))
		}
	}
	for _, e := range s.Estimators {
		if _, err := SourceFor(e); err != nil {
			return nil, fail("estimators", err)
		}
	}
	overheads := ""
	if s.Overheads != "" {
		ref, err := s.resolvePath(s.Overheads, slices.Contains(sim.BuiltinOverheadNames(), s.Overheads))
		if err != nil {
			return nil, fail("overheads", err)
		}
		overheads = ref
		prof, err := sim.LoadOverheads(overheads)
		if err != nil {
			return nil, fail("overheads", err)
		}
		for _, p := range policies {
			e, err := reg.Lookup(p)
			if err == nil {
				_, err = prof.Resolve(e.Overhead)
			}
			if err != nil {
				return nil, fail("overheads", fmt.Errorf("policy %s: %w", p, err))
			}
		}
	}
	seen := map[string]bool{}
	for ti := range traceRefs {
		seeds := s.Seeds
		if len(seeds) > 1 && (synthOf[ti] == nil || synthOf[ti].Deterministic()) {
			// Nothing in the run draws from the seed: every seed would
			// repeat the same run.
			seeds = seeds[:1]
			plan.Notes = append(plan.Notes, fmt.Sprintf("trace %s is deterministic (no synthesis draws from the seed): seeds %v would give identical runs; running seed %d only", traceNames[ti], s.Seeds, seeds[0]))
		}
		for ci := range s.Clusters {
			for _, timing := range s.Timings {
				for _, density := range s.Densities {
					for _, seed := range seeds {
						for _, est := range s.Estimators {
							group := groupKey(traceNames[ti], clusterNames[ci], timing, s.Rounds, density, seed, est)
							if s.Overheads != "" && s.Overheads != sim.DefaultOverheads {
								group += ".o-" + sanitizeKey(strings.TrimSuffix(filepath.Base(s.Overheads), filepath.Ext(s.Overheads)))
							}
							if s.IterationScale > 0 {
								group += ".i" + strconv.FormatInt(s.IterationScale, 10)
							}
							if s.Slowdown != 0 && s.Slowdown != 1 || s.RelaxedSlowdown != 0 && s.RelaxedSlowdown != 1 {
								group += ".sd" + strconv.FormatFloat(factorOr1(s.Slowdown), 'g', -1, 64) + "-" + strconv.FormatFloat(factorOr1(s.RelaxedSlowdown), 'g', -1, 64)
							}
							for _, p := range policies {
								key := PolicyDir(p) + "." + group
								if seen[key] {
									return nil, fail("traces", fmt.Errorf("two runs would share the name %q (two traces or clusters with the same file name?)", key))
								}
								seen[key] = true
								plan.Runs = append(plan.Runs, PlannedRun{Key: key, Group: group, Run: Run{
									Trace: traceRefs[ti], Cluster: clusterRefs[ci], Policy: p, Timing: timing,
									Rounds: s.Rounds, Density: density, Seed: seed, Estimator: est,
									Overheads: overheads, IterationScale: s.IterationScale,
									Slowdown: s.Slowdown, RelaxedSlowdown: s.RelaxedSlowdown, Synth: synthOf[ti],
								}})
							}
						}
					}
				}
			}
		}
	}
	return plan, nil
}

// resolvePath turns a trace or cluster reference into a path. A spec may
// reference only files inside its own directory (or, with no directory,
// the working directory): a spec from a stranger must not make arena read
// /etc/shadow or ../../secrets, even to fail on them. Symbolic links are
// followed before the check.
func (s *Spec) resolvePath(p string, builtin bool) (string, error) {
	if builtin {
		return p, nil
	}
	outside := fmt.Errorf("%s: not a built-in name, and a path outside the spec's directory; a spec may only reference files next to it or below", clip(p))
	if filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return "", outside
	}
	full := filepath.Join(s.Dir, p)
	base := s.Dir
	if base == "" {
		base = "."
	}
	realBase, err1 := filepath.EvalSymlinks(base)
	realFull, err2 := filepath.EvalSymlinks(full)
	if err1 == nil && err2 == nil {
		rel, err := filepath.Rel(realBase, realFull)
		if err != nil || !filepath.IsLocal(rel) {
			return "", outside
		}
	}
	return full, nil
}

// groupKey renders the parameters shared by a comparison group, e.g.
// "philly.paper-1280.artifact.r2000.d1.s0" (estimator appended unless
// profiledb; rounds "rdef" for the trace's default).
func groupKey(trace, cluster string, timing sim.Timing, rounds int, density float64, seed int64, est string) string {
	r := "rdef"
	if rounds > 0 {
		r = "r" + strconv.Itoa(rounds)
	}
	parts := []string{sanitizeKey(trace), sanitizeKey(cluster), timing.String(), r,
		"d" + strconv.FormatFloat(density, 'g', -1, 64), "s" + strconv.FormatInt(seed, 10)}
	if est != "" && est != "profiledb" {
		parts = append(parts, sanitizeKey(est))
	}
	return strings.Join(parts, ".")
}

var unsafeKeyRE = regexp.MustCompile(`[^A-Za-z0-9_+-]+`)

func sanitizeKey(s string) string { return unsafeKeyRE.ReplaceAllString(s, "_") }

// PolicyDir is a policy string made safe as a directory name: every run of
// characters other than letters, digits, '_', '+', '-' and '=' becomes '_'
// ("tiresias(queues=3)" → "tiresias_queues=3", "exec:python3 p.py" →
// "exec_python3_p_py"). A plain registered name is unchanged.
func PolicyDir(p string) string {
	return strings.Trim(policyDirRE.ReplaceAllString(p, "_"), "_")
}

var policyDirRE = regexp.MustCompile(`[^A-Za-z0-9_+=-]+`)

// ResolvePolicies turns a policy list into canonical policy strings in
// order. Entries are names or aliases, policy strings with options
// ("tiresias(queues=3,threshold=16h)", "exec:python3 my_policy.py"), globs ("arena-*", "*") over the
// registered names, or "!glob" to remove names matched so far. A named
// policy that is not registered is an error, or, with skipMissing, a note
// (so a spec can list policies that have not landed yet).
func ResolvePolicies(reg Policies, patterns []string, skipMissing bool) (names, notes []string, err error) {
	registered := reg.Names()
	for _, pat := range patterns {
		if ex, ok := strings.CutPrefix(pat, "!"); ok {
			if _, err := path.Match(ex, ""); err != nil {
				return nil, nil, fmt.Errorf("%q: bad pattern: %w", pat, err)
			}
			names = slices.DeleteFunc(names, func(n string) bool { m, _ := path.Match(ex, n); return m })
			continue
		}
		if strings.ContainsAny(pat, "*?[") && !strings.ContainsAny(pat, "(:") {
			if _, err := path.Match(pat, ""); err != nil {
				return nil, nil, fmt.Errorf("%q: bad pattern: %w", pat, err)
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
		ps, perr := policy.ParseWith(reg.Lookup, pat)
		if perr != nil {
			var oe *policy.OptionError
			if skipMissing && !errors.As(perr, &oe) {
				notes = append(notes, fmt.Sprintf("policy %q is not registered yet; its runs are skipped", pat))
				continue
			}
			return nil, nil, perr
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
