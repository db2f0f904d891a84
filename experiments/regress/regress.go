package regress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/metrics"
)

// Golden is a committed golden summary file: runs and the summaries they
// must keep producing, within tolerances.
//
//	{
//	  "comment": "why these runs",
//	  "tolerance": "2%",                       // default for every metric (optional)
//	  "tolerances": {"jobs_finished": "0"},    // per metric: "2%" relative or "0.5" absolute
//	  "bounds": {"mean_jct_s": {"max_increase": "2%"}},  // one-sided, per metric
//	  "relations": ["arena.mean_throughput >= 1.3 * fcfs.mean_throughput"],
//	  "runs": [{"run": {"trace": "pai", "cluster": "paper-1280", "policy": "fcfs",
//	             "timing": "exact", "rounds": 500}, "summary": {...summary.json...}}]
//	}
//
// A bound limits a metric's move in one direction only (an improvement is
// no regression): max_increase, max_decrease, each "2%" or "0.5"; a
// direction not given is unlimited. A relation compares metrics of two
// runs of the file (named by policy) or a run's metric and a number.
type Golden struct {
	Comment    string            `json:"comment,omitempty"`
	Tolerance  string            `json:"tolerance,omitempty"`
	Tolerances map[string]string `json:"tolerances,omitempty"`
	Bounds     map[string]Bound  `json:"bounds,omitempty"`
	Relations  []string          `json:"relations,omitempty"`
	Runs       []GoldenRun       `json:"runs"`
}

// Bound is a one-sided limit on a metric's move.
type Bound struct {
	MaxIncrease string `json:"max_increase,omitempty"`
	MaxDecrease string `json:"max_decrease,omitempty"`
}

// allows reports whether the move from golden to got stays within the
// bound, and describes the bound.
func (b Bound) allows(golden, got float64) (bool, string) {
	var desc []string
	ok := true
	if b.MaxIncrease != "" {
		t, _ := ParseTolerance(b.MaxIncrease)
		desc = append(desc, "max_increase "+b.MaxIncrease)
		if got > golden && !t.allows(golden, got) {
			ok = false
		}
	}
	if b.MaxDecrease != "" {
		t, _ := ParseTolerance(b.MaxDecrease)
		desc = append(desc, "max_decrease "+b.MaxDecrease)
		if got < golden && !t.allows(golden, got) {
			ok = false
		}
	}
	return ok, strings.Join(desc, ", ")
}

// GoldenRun is one run of a golden file.
type GoldenRun struct {
	Run GoldenRunSpec `json:"run"`
	// Anchor says what the summary rests on besides arena's own earlier
	// output (optional for regress; the committed goldens all give one).
	Anchor  *GoldenAnchor  `json:"anchor,omitempty"`
	Summary map[string]any `json:"summary"`
}

// GoldenAnchor is a golden run's anchor. Kind "outside": the summary
// agrees with figures from outside arena (Source: the artifact's stored
// results, a hand-worked case), given in Values as the source prints
// them, to the source's precision. Kind "guard": the summary is arena's
// own output and only notices a change (Source says why there is no
// outside figure).
type GoldenAnchor struct {
	Kind   string                 `json:"kind"`
	Source string                 `json:"source"`
	Values map[string]json.Number `json:"values,omitempty"`
}

// GoldenRunSpec is the run a golden entry pins: a whole runner.Run in its
// JSON form. Files written when it held only trace, cluster, policy,
// timing, rounds, density, seed and estimator read unchanged (the other
// fields are their defaults); a key that is no field of a run is an error.
type GoldenRunSpec = runner.Run

// goldenName names a golden run in messages: policy/trace/cluster/timing,
// then the rounds and density when set.
func goldenName(g GoldenRunSpec) string {
	s := fmt.Sprintf("%s/%s/%s/%s", g.Policy, g.Trace, g.Cluster, g.Timing)
	if g.Rounds > 0 {
		s += fmt.Sprintf("/r%d", g.Rounds)
	}
	if g.Density != 0 && g.Density != 1 {
		s += fmt.Sprintf("/d%g", g.Density)
	}
	return s
}

// Tolerance bounds how far a metric may move: relative (|Δ| ≤ Rel·|golden|)
// or absolute (|Δ| ≤ Abs).
type Tolerance struct {
	Rel, Abs float64
}

// ParseTolerance reads "2%" (relative) or "0.5" (absolute).
func ParseTolerance(s string) (Tolerance, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || input.Range("", v, 0, math.NaN()) != nil {
			return Tolerance{}, fmt.Errorf("tolerance %s: want a percentage such as 2%% or an absolute value such as 0.5", input.Clip(s))
		}
		return Tolerance{Rel: v / 100}, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || input.Range("", v, 0, math.NaN()) != nil {
		return Tolerance{}, fmt.Errorf("tolerance %s: want a percentage such as 2%% or an absolute value such as 0.5", input.Clip(s))
	}
	return Tolerance{Abs: v}, nil
}

func (t Tolerance) String() string {
	if t.Rel > 0 {
		return strconv.FormatFloat(100*t.Rel, 'g', -1, 64) + "%"
	}
	return strconv.FormatFloat(t.Abs, 'g', -1, 64)
}

func (t Tolerance) allows(golden, got float64) bool {
	d := math.Abs(got - golden)
	return d <= t.Abs || d <= t.Rel*math.Abs(golden) || d <= 1e-9*math.Max(1, math.Abs(golden))
}

// LoadGolden reads a golden file.
func LoadGolden(file string) (*Golden, error) {
	data, err := input.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	var g Golden
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("golden %s: %w", file, err)
	}
	if len(g.Runs) == 0 {
		return nil, fmt.Errorf("golden %s: no runs", file)
	}
	if g.Tolerance != "" {
		if _, err := ParseTolerance(g.Tolerance); err != nil {
			return nil, fmt.Errorf("golden %s: \"tolerance\": %w", file, err)
		}
	}
	for k, v := range g.Tolerances {
		if err := knownMetric(k); err != nil {
			return nil, fmt.Errorf("golden %s: \"tolerances\".%q: %w", file, k, err)
		}
		if _, err := ParseTolerance(v); err != nil {
			return nil, fmt.Errorf("golden %s: \"tolerances\".%q: %w", file, k, err)
		}
	}
	for k, b := range g.Bounds {
		if err := knownMetric(k); err != nil {
			return nil, fmt.Errorf("golden %s: \"bounds\".%q: %w", file, k, err)
		}
		if b.MaxIncrease == "" && b.MaxDecrease == "" {
			return nil, fmt.Errorf("golden %s: \"bounds\".%q: give max_increase, max_decrease or both", file, k)
		}
		for _, v := range []string{b.MaxIncrease, b.MaxDecrease} {
			if v == "" {
				continue
			}
			if _, err := ParseTolerance(v); err != nil {
				return nil, fmt.Errorf("golden %s: \"bounds\".%q: %w", file, k, err)
			}
		}
		if _, both := g.Tolerances[k]; both {
			return nil, fmt.Errorf("golden %s: %q has both a tolerance and a bound; give one", file, k)
		}
	}
	inRelation := map[string]bool{}
	for i, expr := range g.Relations {
		rel, err := parseRelation(expr, &g)
		if err != nil {
			return nil, fmt.Errorf("golden %s: relations[%d]: %w", file, i, err)
		}
		for _, t := range []term{rel.left, rel.right} {
			if t.policy != "" {
				inRelation[t.policy] = true
			}
		}
	}
	for i, r := range g.Runs {
		if r.Run.Trace == "" || r.Run.Cluster == "" || r.Run.Policy == "" {
			return nil, fmt.Errorf("golden %s: runs[%d].run: trace, cluster and policy are required", file, i)
		}
		// A run with nothing to compare would "match" whatever it does.
		if len(r.Summary) == 0 && !inRelation[r.Run.Policy] {
			return nil, fmt.Errorf("golden %s: runs[%d] (%s): no summary to compare and no relation names it: it would pass whatever the run does (fill it with --update)", file, i, goldenName(r.Run))
		}
		if err := r.Run.Validate(); err != nil {
			// The one input-error type, at the line where runs[i] starts
			// (a JSON decoder gives no line per field).
			ie := &input.Error{File: file, Line: arrayElemLine(data, "runs", i), Err: err}
			var fe *input.Error
			if errors.As(err, &fe) {
				ie.Field, ie.Err = fmt.Sprintf("runs[%d].run.%s", i, fe.Field), fe.Err
			}
			return nil, ie
		}
	}
	return &g, nil
}

// Deviation is one metric of one run that differs from its golden value.
type Deviation struct {
	Run, Metric string
	Golden, Got any
	// Change is (got − golden)/|golden| for numbers (NaN when golden is 0).
	Change    float64
	Tolerance Tolerance
	// Fail is false for changes within tolerance.
	Fail bool
	// Bound describes a one-sided bound that applied instead of Tolerance.
	Bound string
}

func (d Deviation) String() string {
	g, gok := d.Golden.(float64)
	v, vok := d.Got.(float64)
	verdict := "within"
	if d.Fail {
		verdict = "exceeds"
	}
	if gok && vok {
		change := "n/a"
		if !math.IsNaN(d.Change) {
			change = fmt.Sprintf("%+.2f%%", 100*d.Change)
		}
		limit := "tolerance " + d.Tolerance.String()
		if d.Bound != "" {
			limit = "bound " + d.Bound
		}
		return fmt.Sprintf("%s: %s %s → %s (%s, %+g%s; %s %s)", d.Run, d.Metric, fmtNum(g), fmtNum(v), change, v-g, direction(d.Metric, v-g), verdict, limit)
	}
	return fmt.Sprintf("%s: %s %v → %v", d.Run, d.Metric, d.Golden, d.Got)
}

// direction says whether a move of delta in metric is better or worse,
// by the catalogue's direction ("" for metrics with none).
func direction(metric string, delta float64) string {
	m, ok := metrics.Lookup(metric)
	switch {
	case !ok || m.Better == metrics.Neither || delta == 0:
		return ""
	case (m.Better == metrics.Lower) == (delta < 0):
		return ", better"
	}
	return ", worse"
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// RegressReport is the outcome of a regression check.
type RegressReport struct {
	Runs       int
	Deviations []Deviation // every metric that moved, failing or not
	// NewMetrics lists summary fields missing from the golden file
	// (reported, never failing: regenerate the golden to track them).
	NewMetrics []string
	// Relations are the file's relations, evaluated.
	Relations []RelationResult
}

// RelationResult is one relation of a golden file, evaluated.
type RelationResult struct {
	Expr        string
	Left, Right float64
	OK          bool
}

func (r RelationResult) String() string {
	verdict := "holds"
	if !r.OK {
		verdict = "FAILS"
	}
	return fmt.Sprintf("relation %q %s: %s vs %s", r.Expr, verdict, fmtNum(r.Left), fmtNum(r.Right))
}

// Failures returns the deviations beyond tolerance.
func (r *RegressReport) Failures() []Deviation {
	var out []Deviation
	for _, d := range r.Deviations {
		if d.Fail {
			out = append(out, d)
		}
	}
	return out
}

// knownMetric checks that a tolerance or bound names a metric of the
// catalogue (sim/metrics) by its summary.json path, or a member of a
// family (utilization.<type>, faults.by_cause.<cause>.<figure>): a typo
// would otherwise bound nothing and pass whatever the run does.
func knownMetric(name string) error {
	if m, ok := metrics.Lookup(name); ok {
		if m.JSONPath() != name {
			return fmt.Errorf("golden files name metrics by their summary.json path: write %q", m.JSONPath())
		}
		if m.Section == metrics.Machine {
			return fmt.Errorf("%s is the machine's wall clock, which regress does not compare", name)
		}
		return nil
	}
	for _, family := range []string{"utilization.", "faults.by_cause."} {
		if strings.HasPrefix(name, family) && len(name) > len(family) {
			return nil
		}
	}
	return fmt.Errorf("no metric %s (docs/metrics.md lists them by summary.json path)", input.Clip(name))
}

// ErrRegression marks a failed regression check.
var ErrRegression = errors.New("regress: regression")

// DefaultTolerance applies to metrics no one set a tolerance for.
var DefaultTolerance = Tolerance{Rel: 0.02}

// Regress re-runs every run of g and compares its summary with the golden
// one, metric by metric (the wallclock section is ignored). A metric's
// tolerance is, in order: the golden file's "tolerances" entry for it,
// override (the command line's --tolerance) if not nil, the file's
// "tolerance", DefaultTolerance. It returns ErrRegression (wrapped, naming
// each metric and its change) when any metric moved beyond its tolerance.
func Regress(ctx context.Context, reg runner.Policies, g *Golden, override *Tolerance) (*RegressReport, error) {
	def := DefaultTolerance
	switch {
	case override != nil:
		def = *override
	case g.Tolerance != "":
		def, _ = ParseTolerance(g.Tolerance)
	}
	rep := &RegressReport{Runs: len(g.Runs)}
	newMetrics := map[string]bool{}
	gotByPolicy := map[string]map[string]any{}
	for _, gr := range g.Runs {
		out, err := runner.Execute(ctx, reg, gr.Run)
		if err != nil {
			return nil, fmt.Errorf("regress %s: %w", goldenName(gr.Run), err)
		}
		got, err := flattenSummary(out.Summary)
		if err != nil {
			return nil, err
		}
		gotByPolicy[gr.Run.Policy] = got
		want := flatten(gr.Summary)
		for _, k := range sortedKeys(want) {
			tol := def
			if t, ok := g.Tolerances[k]; ok {
				tol, _ = ParseTolerance(t)
			}
			bound, bounded := g.Bounds[k]
			gv, ok := got[k]
			if !ok {
				rep.Deviations = append(rep.Deviations, Deviation{Run: goldenName(gr.Run), Metric: k, Golden: want[k], Got: "(missing)", Change: math.NaN(), Fail: true})
				continue
			}
			wn, wok := want[k].(float64)
			gn, gok := gv.(float64)
			if wok && gok {
				if wn == gn {
					continue
				}
				change := math.NaN()
				if wn != 0 {
					change = (gn - wn) / math.Abs(wn)
				}
				d := Deviation{Run: goldenName(gr.Run), Metric: k, Golden: wn, Got: gn, Change: change, Tolerance: tol, Fail: !tol.allows(wn, gn)}
				if bounded {
					ok, desc := bound.allows(wn, gn)
					d.Fail, d.Bound = !ok, desc
				}
				rep.Deviations = append(rep.Deviations, d)
				continue
			}
			if fmt.Sprint(want[k]) != fmt.Sprint(gv) {
				rep.Deviations = append(rep.Deviations, Deviation{Run: goldenName(gr.Run), Metric: k, Golden: want[k], Got: gv, Change: math.NaN(), Fail: true})
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				newMetrics[k] = true
			}
		}
	}
	rep.NewMetrics = sortedKeys(newMetrics)
	for _, expr := range g.Relations {
		rel, err := parseRelation(expr, g)
		if err != nil {
			return nil, fmt.Errorf("relations: %w", err)
		}
		rr, err := rel.eval(gotByPolicy)
		if err != nil {
			return nil, err
		}
		rep.Relations = append(rep.Relations, rr)
	}
	var lines []string
	for _, d := range rep.Failures() {
		lines = append(lines, d.String())
	}
	failedRel := 0
	for _, r := range rep.Relations {
		if !r.OK {
			lines = append(lines, r.String())
			failedRel++
		}
	}
	if len(lines) > 0 {
		return rep, fmt.Errorf("%w: %d metric(s) moved beyond tolerance, %d relation(s) failed:\n  %s", ErrRegression, len(lines)-failedRel, failedRel, strings.Join(lines, "\n  "))
	}
	return rep, nil
}

// UpdateGolden re-runs every run of g and stores the new summaries in it
// (tolerances and comments are kept).
func UpdateGolden(ctx context.Context, reg runner.Policies, g *Golden) error {
	for i, gr := range g.Runs {
		out, err := runner.Execute(ctx, reg, gr.Run)
		if err != nil {
			return fmt.Errorf("golden %s: %w", goldenName(gr.Run), err)
		}
		m, err := summaryMap(out.Summary)
		if err != nil {
			return err
		}
		g.Runs[i].Summary = m
	}
	return nil
}

// Encode renders g as the JSON committed to testdata.
func (g *Golden) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// summaryMap is a summary as golden JSON: every field but the wallclock
// section, which differs between identical runs.
func summaryMap(s sim.Summary) (map[string]any, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	// Not metrics: the run's identity changes with the build and the
	// inputs' encoding, not with the scheduler's quality.
	delete(m, "wallclock")
	delete(m, "arena_version")
	delete(m, "input_hash")
	return m, nil
}

func flattenSummary(s sim.Summary) (map[string]any, error) {
	m, err := summaryMap(s)
	if err != nil {
		return nil, err
	}
	return flatten(m), nil
}

// flatten turns nested maps into dotted keys ("utilization.a100") and
// numbers into float64.
func flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, vv := range x {
				if prefix == "" && k == "wallclock" {
					continue
				}
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, vv)
			}
		case json.Number:
			f, _ := x.Float64()
			out[prefix] = f
		default:
			out[prefix] = x
		}
	}
	walk("", m)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// arrayElemLine is the 1-based line where element i of the top-level
// object's array key starts in the JSON data, or 0 if there is none.
func arrayElemLine(data []byte, key string, i int) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0
		}
		if k, _ := t.(string); k != key {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return 0
		}
		for n := 0; dec.More(); n++ {
			off := int(dec.InputOffset())
			if n == i {
				// The element starts at the first byte after the
				// separators.
				for off < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
					off++
				}
				return 1 + bytes.Count(data[:off], []byte("\n"))
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0
			}
		}
		return 0
	}
	return 0
}
