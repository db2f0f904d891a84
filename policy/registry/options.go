package registry

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// OptionType is the type of a policy option's value.
type OptionType int

const (
	// Int is a whole number ("3", "-1").
	Int OptionType = iota
	// Float is a decimal number ("0.5", "1e3").
	Float
	// Duration is a span of simulated time: a Go duration ("90m", "16h",
	// "1h30m"), a number of days ("7d") or a bare number of seconds ("600").
	Duration
	// String is free text; quote it ('…' or "…") if it holds a comma, a
	// parenthesis, a quote or an equals sign.
	String
	// Enum is one of Option.Values.
	Enum
	// Bool is true or false (also 1/0, yes/no, on/off).
	Bool
)

func (t OptionType) String() string {
	return [...]string{"int", "float", "duration", "string", "enum", "bool"}[t]
}

// Option declares one option of a policy: `arena policies` lists it, the
// policy string `name(key=value,…)` sets it, and the constructor reads its
// typed value from Options.Values.
type Option struct {
	Name string
	Type OptionType
	// Default is the value when the option is not given, written as a user
	// would write it (it is parsed with the same rules).
	Default string
	// Values are the allowed values of an Enum.
	Values []string
	Help   string
	// Required options have no default: the policy string must set them,
	// and globs in specs ("*") skip the policy.
	Required bool
	// Min and Max bound a number's value (Int, Float; Duration in
	// seconds), written as a user would write them; "" for no bound.
	// MinOpen excludes Min itself ("more than"). Every count an option
	// names (queues …) has a Max: it is checked here, before a
	// constructor allocates anything.
	Min, Max string
	MinOpen  bool
	// Path marks an option whose value names a file or directory arena
	// reads (a tenants file, a working directory), except the values in
	// PathBuiltins (built-in data named by a word). A spec resolves such
	// values next to itself and confines them (Spec.MapPaths), as it does
	// its own keys, so the same spec reads the same files wherever it is
	// run from.
	Path         bool
	PathBuiltins []string
	// Command marks an option whose value is a command line arena starts
	// (exec's cmd). The trust check (Spec.Commands) finds every such value
	// in a parsed policy tree, so a new option that starts a process is
	// covered by declaring it, not by teaching the check its name.
	Command bool
}

// checkRange applies o's Min and Max to a parsed number.
func (o Option) checkRange(s string, val any) error {
	var x float64
	switch v := val.(type) {
	case int:
		x = float64(v)
	case float64:
		x = v
	case sim.Duration:
		x = float64(v)
	default:
		return nil
	}
	bound := func(b string) float64 {
		if o.Type == Duration {
			d, _ := ParseDuration(b)
			return float64(d)
		}
		f, _ := strconv.ParseFloat(b, 64)
		return f
	}
	if o.Min != "" {
		lo := bound(o.Min)
		if x < lo || o.MinOpen && x == lo {
			rel := "at least"
			if o.MinOpen {
				rel = "more than"
			}
			return fmt.Errorf("%s: want %s %s%s", input.Clip(s), rel, o.Min, o.rangeHint())
		}
	}
	if o.Max != "" && x > bound(o.Max) {
		return fmt.Errorf("%s: want at most %s%s", input.Clip(s), o.Max, o.rangeHint())
	}
	return nil
}

func (o Option) rangeHint() string {
	if o.Min != "" && o.Max != "" {
		return fmt.Sprintf(" (the range is %s to %s)", o.Min, o.Max)
	}
	return ""
}

// NeedsOptions reports whether e has a required option, so that its bare
// name is not a runnable policy.
func (e Entry) NeedsOptions() bool {
	return slices.ContainsFunc(e.Options, func(o Option) bool { return o.Required })
}

// Values holds a policy's option values, typed, defaults filled in. The
// accessors panic when asked for an option the entry does not declare, or
// with the wrong type: that is a bug in the constructor, not a user error.
type Values struct {
	policy string
	decl   []Option
	vals   map[string]any
	given  map[string]bool
	// wrapped is the parsed policy of the entry's Wraps option, resolved
	// in the registry that parsed the wrapper (Wrapped).
	wrapped *Spec
}

func (v Values) get(name string, t OptionType) any {
	i := slices.IndexFunc(v.decl, func(o Option) bool { return o.Name == name })
	if i < 0 {
		panic(fmt.Sprintf("policy %s: option %q is not declared", v.policy, name))
	}
	if got := v.decl[i].Type; got != t && !(got == Enum && t == String) {
		panic(fmt.Sprintf("policy %s: option %q is a %s, read as a %s", v.policy, name, got, t))
	}
	return v.vals[name]
}

// Int returns an Int option's value.
func (v Values) Int(name string) int { return v.get(name, Int).(int) }

// Float returns a Float option's value.
func (v Values) Float(name string) float64 { return v.get(name, Float).(float64) }

// Duration returns a Duration option's value in simulated seconds.
func (v Values) Duration(name string) sim.Duration { return v.get(name, Duration).(sim.Duration) }

// String returns a String or Enum option's value.
func (v Values) String(name string) string { return v.get(name, String).(string) }

// Bool returns a Bool option's value.
func (v Values) Bool(name string) bool { return v.get(name, Bool).(bool) }

// Given reports whether the user set the option (to any value).
func (v Values) Given(name string) bool { return v.given[name] }

// Wrapped returns the wrapped policy of a wrapper (Entry.Wraps: quota's
// inner policy), parsed in the registry that parsed the wrapper, so that a
// wrapper's constructor needs no registry and can wrap a policy a custom
// registry added. ok is false for values Parse did not build
// (DefaultValues).
func (v Values) Wrapped() (spec Spec, ok bool) {
	if v.wrapped == nil {
		return Spec{}, false
	}
	return *v.wrapped, true
}

// Spec is a parsed policy string: the entry and its option values.
type Spec struct {
	Entry  Entry
	Values Values
}

// String renders the canonical policy string: the entry's canonical name,
// then, in parentheses and in declaration order, every option whose value
// differs from its default. It parses back to the same Spec, and it is
// what results record as the run's policy. An exec policy with only its
// command set renders as "exec:COMMAND".
func (s Spec) String() string {
	var parts []string
	for _, o := range s.Entry.Options {
		def, _ := parseValue(o, o.Default)
		val := s.Values.vals[o.Name]
		if val == def && !o.Required && o.Name != s.Entry.Wraps {
			continue
		}
		if o.Name == s.Entry.Wraps {
			parts = append([]string{formatValue(o, val)}, parts...) // written first, without its key
			continue
		}
		parts = append(parts, o.Name+"="+quoteValue(formatValue(o, val)))
	}
	if s.Entry.Name == ExecName && len(parts) == 1 && strings.HasPrefix(parts[0], "cmd=") {
		return ExecPrefix + s.Values.String("cmd")
	}
	if len(parts) == 0 {
		return s.Entry.Name
	}
	return s.Entry.Name + "(" + strings.Join(parts, ",") + ")"
}

// ExecName and ExecPrefix: "exec:COMMAND" is shorthand for
// exec(cmd='COMMAND') (policy/exec).
const (
	ExecName   = "exec"
	ExecPrefix = "exec:"
)

// NewOptionError is the error of policy's option key ("" = the policy
// string as a whole), an *input.Error with File "policy NAME", Kind
// "option" and Field the option ("policy tiresias: option queues: …"):
// what Parse returns for a bad policy string, and what a constructor
// returns for a value its option's type admits but the policy does not
// (tiresias(queues=0)).
func NewOptionError(policy, key string, err error) *input.Error {
	e := &input.Error{File: "policy " + policy, Err: err}
	if key != "" {
		e.Kind, e.Field = "option", key
	}
	return e
}

// Parse reads a policy string, "name", "name(key=value,…)" or
// "exec:COMMAND", resolving the name in r.
func (r *Registry) Parse(s string) (Spec, error) { return ParseWith(r.Lookup, s) }

// ParseWith is Parse with any lookup function (a wrapped registry).
func ParseWith(lookup func(string) (Entry, error), s string) (Spec, error) {
	return parseDepth(lookup, s, 0)
}

// MaxNesting is how many wrappers a policy string may nest
// (quota(quota(…(fcfs)))): the parser refuses more, so every walk of a
// parsed tree (Spec.Commands) is bounded by the parser's own limit, not by
// one of its own.
const MaxNesting = 8

func parseDepth(lookup func(string) (Entry, error), s string, depth int) (Spec, error) {
	if depth > MaxNesting {
		return Spec{}, fmt.Errorf("policy string nests more than %d wrapped policies", MaxNesting)
	}
	s = strings.TrimSpace(s)
	name, args := s, ""
	var pairs [][2]string
	if cmd, ok := strings.CutPrefix(s, ExecPrefix); ok {
		name = ExecName
		pairs = [][2]string{{"cmd", strings.TrimSpace(cmd)}}
	} else if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Spec{}, NewOptionError(strings.TrimSpace(s[:i]), "", fmt.Errorf("%q: options must end with ')', e.g. tiresias(queues=3,threshold=16h)", s))
		}
		name, args = strings.TrimSpace(s[:i]), s[i+1:len(s)-1]
		items, err := splitTop(args)
		if err != nil {
			return Spec{}, NewOptionError(name, "", err)
		}
		for _, it := range items {
			if strings.TrimSpace(it) == "" {
				if len(items) == 1 {
					break // "name()"
				}
				return Spec{}, NewOptionError(name, "", fmt.Errorf("%q: empty option", s))
			}
			k, v, ok := strings.Cut(it, "=")
			k = strings.TrimSpace(k)
			if !ok && len(pairs) == 0 && strings.TrimSpace(it) != "" {
				k, v, ok = "", it, true // a wrapped policy, quota(fcfs,…): the entry's Wraps option
			} else if ok && strings.ContainsAny(k, "(:") && len(pairs) == 0 {
				k, v = "", it // quota(tiresias(queues=3),…), quota(exec:p.py,…)
			}
			if !ok {
				return Spec{}, NewOptionError(name, k, errors.New("want key=value"))
			}
			val, err := unquote(strings.TrimSpace(v))
			if k == "" && !strings.HasPrefix(strings.TrimSpace(v), "'") && !strings.HasPrefix(strings.TrimSpace(v), `"`) {
				val, err = strings.TrimSpace(v), nil // a policy string keeps its own quotes
			}
			if err != nil {
				return Spec{}, NewOptionError(name, k, err)
			}
			pairs = append(pairs, [2]string{k, val})
		}
	}
	e, err := lookup(name)
	if err != nil {
		return Spec{}, err
	}
	if len(pairs) > 0 && pairs[0][0] == "" {
		if e.Wraps == "" {
			return Spec{}, NewOptionError(name, strings.TrimSpace(pairs[0][1]), errors.New("want key=value"))
		}
		pairs[0][0] = e.Wraps
	}
	vals, err := e.values(name, pairs)
	if err != nil {
		return Spec{}, err
	}
	if e.Wraps != "" {
		inner, err := parseDepth(lookup, vals.String(e.Wraps), depth+1)
		if err != nil {
			return Spec{}, NewOptionError(name, e.Wraps, err)
		}
		e.Overhead, e.Cost = inner.Entry.Overhead, inner.Entry.Cost
		vals.vals[e.Wraps] = inner.String() // canonical, as results record it
		vals.wrapped = &inner
	}
	return Spec{Entry: e, Values: vals}, nil
}

// Commands returns every command line the parsed policy s would start:
// the value of each Command option set in s and in every policy it wraps,
// outermost first. It walks the tree the parser built (bounded by
// MaxNesting), so what it reports is what a run of s would execute.
func (s Spec) Commands() []string {
	var out []string
	for cur := &s; cur != nil; cur = cur.Values.wrapped {
		for _, o := range cur.Entry.Options {
			if o.Command {
				// An empty value that was given is still reported: the
				// check refuses what it cannot tell is harmless.
				if c, ok := cur.Values.vals[o.Name].(string); ok && (c != "" || cur.Values.given[o.Name]) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// MapPaths returns the canonical policy string of s with the value of
// every Path option set in s or in any policy it wraps — except empty
// values and PathBuiltins — replaced by f(policy, option, value); an error
// of f is returned as that option's.
func (s Spec) MapPaths(f func(policy, option, value string) (string, error)) (string, error) {
	vals := maps.Clone(s.Values.vals)
	if inner, ok := s.Values.Wrapped(); ok {
		in, err := inner.MapPaths(f)
		if err != nil {
			return "", err
		}
		vals[s.Entry.Wraps] = in
	}
	for _, o := range s.Entry.Options {
		v, ok := vals[o.Name].(string)
		if !o.Path || !ok || v == "" || slices.Contains(o.PathBuiltins, v) {
			continue
		}
		mapped, err := f(s.Entry.Name, o.Name, v)
		if err != nil {
			return "", NewOptionError(s.Entry.Name, o.Name, err)
		}
		vals[o.Name] = mapped
	}
	out := s
	out.Values.vals = vals
	return out.String(), nil
}

// DefaultValues are e's option values with every default (it panics if e
// has a required option).
func (e Entry) DefaultValues() Values {
	v, err := e.values(e.Name, nil)
	if err != nil {
		panic(err) // a bad default: checked by Register
	}
	return v
}

func (e Entry) values(written string, pairs [][2]string) (Values, error) {
	v := Values{policy: e.Name, decl: e.Options, vals: map[string]any{}, given: map[string]bool{}}
	for _, o := range e.Options {
		if o.Required {
			continue
		}
		d, err := parseValue(o, o.Default)
		if err != nil {
			return Values{}, NewOptionError(written, o.Name, fmt.Errorf("bad default: %w", err))
		}
		v.vals[o.Name] = d
	}
	for _, p := range pairs {
		k, raw := strings.ToLower(p[0]), p[1]
		i := slices.IndexFunc(e.Options, func(o Option) bool { return o.Name == k })
		if i < 0 {
			known := "it takes none"
			if len(e.Options) > 0 {
				var names []string
				for _, o := range e.Options {
					names = append(names, o.Name)
				}
				known = "known: " + strings.Join(names, ", ")
			}
			return Values{}, NewOptionError(written, p[0], fmt.Errorf("unknown option (%s; see 'arena policies')", known))
		}
		if v.given[k] {
			return Values{}, NewOptionError(written, k, errors.New("given twice"))
		}
		val, err := parseValue(e.Options[i], raw)
		if err != nil {
			return Values{}, NewOptionError(written, k, err)
		}
		v.vals[k], v.given[k] = val, true
	}
	for _, o := range e.Options {
		if o.Required && !v.given[o.Name] {
			hint := ""
			if e.Name == ExecName {
				hint = "; write exec:COMMAND, e.g. exec:python3 my_policy.py"
			}
			return Values{}, NewOptionError(written, o.Name, fmt.Errorf("required, not given%s", hint))
		}
	}
	return v, nil
}

func parseValue(o Option, s string) (any, error) {
	v, err := parseType(o, s)
	if err != nil {
		return nil, err
	}
	if err := o.checkRange(s, v); err != nil {
		return nil, err
	}
	return v, nil
}

func parseType(o Option, s string) (any, error) {
	switch o.Type {
	case Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: want a whole number", input.Clip(s))
		}
		return n, nil
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: want a number", input.Clip(s))
		}
		return f, nil
	case Duration:
		d, err := ParseDuration(s)
		if err != nil {
			return nil, err
		}
		return d, nil
	case String:
		return s, nil
	case Enum:
		if !slices.Contains(o.Values, s) {
			return nil, fmt.Errorf("%s: want one of %s", input.Clip(s), strings.Join(o.Values, ", "))
		}
		return s, nil
	case Bool:
		switch strings.ToLower(s) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%s: want true or false", input.Clip(s))
	}
	return nil, fmt.Errorf("option type %d unknown", o.Type)
}

// ParseDuration reads a span of simulated time in sim.ParseDuration's
// grammar ("16h", "1h30m", "7d", "6d22h40m", "600").
func ParseDuration(s string) (sim.Duration, error) {
	d, err := sim.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: want a duration such as 16h, 90m, 7d, 6d22h40m or 600 (seconds)", input.Clip(s))
	}
	return d, nil
}

func formatValue(o Option, v any) string {
	switch o.Type {
	case Int:
		return strconv.Itoa(v.(int))
	case Float:
		return strconv.FormatFloat(v.(float64), 'g', -1, 64)
	case Duration:
		d := v.(sim.Duration)
		if d == sim.Duration(math.Round(float64(d))) && math.Abs(float64(d)) < sim.MaxWholeSeconds {
			return d.String()
		}
		return strconv.FormatFloat(float64(d), 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(v.(bool))
	}
	return v.(string)
}

// quoteValue quotes a value that would not survive splitting otherwise.
func quoteValue(s string) string {
	if s != "" && !strings.ContainsAny(s, ",()'\"= \t") {
		return s
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

func unquote(s string) (string, error) {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1], nil
	}
	if len(s) >= 1 && s[0] == '"' {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("%s: bad double-quoted value: %w", s, err)
		}
		return u, nil
	}
	if strings.ContainsAny(s, "'\"") {
		return "", fmt.Errorf("%s: a quote inside a value; quote the whole value", s)
	}
	return s, nil
}

// SplitList splits a comma-separated list of policy strings, such as the
// --policy flag's "arena,tiresias(queues=3,threshold=16h),exec:python3 p.py":
// commas inside parentheses or quotes do not split.
func SplitList(s string) ([]string, error) {
	items, err := splitTop(s)
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		items[i] = strings.TrimSpace(it)
		if items[i] == "" {
			return nil, fmt.Errorf("%q: empty policy in the list", s)
		}
	}
	return items, nil
}

// splitTop splits s at commas outside parentheses and quotes.
func splitTop(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%q: unbalanced ')'", s)
			}
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: unterminated %c quote", s, quote)
	}
	if depth != 0 {
		return nil, fmt.Errorf("%q: unbalanced '('", s)
	}
	return append(out, s[start:]), nil
}
