package sweep

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/metrics"
	"gopkg.in/yaml.v3"
)

// Sensitivity is a grid of model perturbations: every overhead of the
// run's profile × each of Overheads, every executed iteration time × each
// of IterationTimes (the cross product; 1 in either list is the
// unperturbed value and is always part of the grid). A conclusion that
// holds at every point of the grid survives the simulator's own error of
// that size: arena's testbed study measured overheads to about ±25 % and
// iteration times to about ±5 % (docs/calibrating.md), the default grid.
//
// GPUTypes adds a speed error per GPU type: the executed iteration times
// on that type alone × each of its factors (Run.TypeSlowdowns), each type
// perturbed one at a time and, with two types or more, all of them at
// once at every corner of their extremes (TypePoints), at overheads and
// iteration times ×1. Estimators adds the choice of performance model:
// each run again with every listed estimator but its own, where that
// estimator prices the cluster's GPU types (skipped with a note where it
// does not).
type Sensitivity struct {
	Overheads, IterationTimes []float64
	GPUTypes                  map[string][]float64
	Estimators                []string
}

// DefaultSensitivity is overheads ×0.75/1/1.25 × iteration times
// ×0.95/1/1.05, nine points of which the centre is the run itself.
func DefaultSensitivity() Sensitivity {
	return Sensitivity{Overheads: []float64{0.75, 1.25}, IterationTimes: []float64{0.95, 1.05}}
}

// GridPoint is one perturbation: overheads × Overhead, iteration times ×
// IterTime, iteration times on each GPU type of Types × its factor (a
// canonical Run.TypeSlowdowns, "h100=0.8,l20=1.2"; "" none), and the
// performance model Estimator instead of the run's own ("" its own).
type GridPoint struct {
	Overhead, IterTime float64
	Types, Estimator   string
}

// Centre is the unperturbed point.
func (p GridPoint) Centre() bool {
	return p.Overhead == 1 && p.IterTime == 1 && p.Types == "" && p.Estimator == ""
}

// global reports whether p is a point of the overheads × iteration-times
// grid (neither a per-type nor an estimator point).
func (p GridPoint) global() bool { return p.Types == "" && p.Estimator == "" }

// Key names the point in run keys and directories: "o0.75-i0.95",
// "t-h100x0.8-l20x1.2", "e-analytic".
func (p GridPoint) Key() string {
	var parts []string
	if p.global() || p.Overhead != 1 || p.IterTime != 1 {
		parts = append(parts, "o"+strconv.FormatFloat(p.Overhead, 'g', -1, 64)+"-i"+strconv.FormatFloat(p.IterTime, 'g', -1, 64))
	}
	if p.Types != "" {
		parts = append(parts, "t-"+typeSlowdownsKey(p.Types))
	}
	if p.Estimator != "" {
		parts = append(parts, "e-"+p.Estimator)
	}
	return strings.Join(parts, "-")
}

// String is "overheads ×1.25 · iteration times ×0.95", "h100 ×0.8 · l20
// ×1.2" (iteration times on those types) or "estimator analytic".
func (p GridPoint) String() string {
	var parts []string
	if p.global() || p.Overhead != 1 || p.IterTime != 1 {
		parts = append(parts, fmt.Sprintf("overheads ×%g · iteration times ×%g", p.Overhead, p.IterTime))
	}
	if p.Types != "" {
		parts = append(parts, strings.NewReplacer("=", " ×", ",", " · ").Replace(p.Types))
	}
	if p.Estimator != "" {
		parts = append(parts, "estimator "+p.Estimator)
	}
	return strings.Join(parts, " · ")
}

// Apply returns r perturbed by p: its own overhead scale and slowdowns
// multiplied (0 counts as 1), a factor of 1 leaving its field as it was
// (so the centre is r itself, byte for byte). RelaxedSlowdown 0 means
// "as Slowdown" and stays 0: scaling Slowdown scales it too. p's per-type
// factors multiply r's own (Run.TypeSlowdowns); p's estimator replaces
// r's.
func (p GridPoint) Apply(r runner.Run) runner.Run {
	if p.Overhead != 1 {
		r.OverheadScale = factorOr1(r.OverheadScale) * p.Overhead
	}
	if p.IterTime != 1 {
		r.Slowdown = factorOr1(r.Slowdown) * p.IterTime
		r.RelaxedSlowdown *= p.IterTime
	}
	if p.Types != "" {
		own, _ := runner.ParseTypeSlowdowns(r.TypeSlowdowns) // Validate refuses a bad one
		if own == nil {
			own = map[string]float64{}
		}
		mine, _ := runner.ParseTypeSlowdowns(p.Types)
		for t, f := range mine {
			own[t] = factorOr1(own[t]) * f
		}
		r.TypeSlowdowns = runner.FormatTypeSlowdowns(own)
	}
	if p.Estimator != "" {
		r.Estimator = p.Estimator
	}
	return r
}

// axis is a factor list with 1 added, sorted, without repeats.
func axis(fs []float64) []float64 {
	out := append([]float64{1}, fs...)
	slices.Sort(out)
	return slices.Compact(out)
}

// gridTypes are g's GPU types with a factor other than 1, sorted.
func (g Sensitivity) gridTypes() []string {
	var out []string
	for t, fs := range g.GPUTypes {
		if len(axis(fs)) > 1 {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// TypePoints lists the per-GPU-type points: each type alone at each of its
// factors (one at a time, types in name order, factors ascending), then,
// with two types or more, every corner of their box — each type at its
// lowest or highest factor, all at once (a type with one factor has one
// extreme). Two types of two factors each give 4 + 4 points, the whole
// 3 × 3 grid but its centre; three give 6 + 8 of the 26.
func (g Sensitivity) TypePoints() []GridPoint {
	types := g.gridTypes()
	var out []GridPoint
	for _, t := range types {
		for _, f := range axis(g.GPUTypes[t]) {
			if f != 1 {
				out = append(out, GridPoint{Overhead: 1, IterTime: 1, Types: runner.FormatTypeSlowdowns(map[string]float64{t: f})})
			}
		}
	}
	if len(types) < 2 {
		return out
	}
	corners := []map[string]float64{{}}
	for _, t := range types {
		fs := slices.DeleteFunc(axis(g.GPUTypes[t]), func(f float64) bool { return f == 1 })
		ext := slices.Compact([]float64{fs[0], fs[len(fs)-1]})
		var next []map[string]float64
		for _, c := range corners {
			for _, f := range ext {
				m := maps.Clone(c)
				m[t] = f
				next = append(next, m)
			}
		}
		corners = next
	}
	for _, c := range corners {
		out = append(out, GridPoint{Overhead: 1, IterTime: 1, Types: runner.FormatTypeSlowdowns(c)})
	}
	return out
}

// Points lists the grid: the overheads × iteration-times points,
// overheads-major, both axes ascending (the centre among them); then the
// per-type points (TypePoints); then one point per estimator listed.
func (g Sensitivity) Points() []GridPoint {
	var out []GridPoint
	for _, o := range axis(g.Overheads) {
		for _, f := range axis(g.IterationTimes) {
			out = append(out, GridPoint{Overhead: o, IterTime: f})
		}
	}
	out = append(out, g.TypePoints()...)
	for _, e := range g.Estimators {
		out = append(out, GridPoint{Overhead: 1, IterTime: 1, Estimator: e})
	}
	return out
}

// Perturbed lists the points but the centre: the runs a sensitivity
// analysis adds to each run (an estimator point only to the runs it
// applies to, pointSkip).
func (g Sensitivity) Perturbed() []GridPoint {
	return slices.DeleteFunc(g.Points(), GridPoint.Centre)
}

func joinFactors(fs []float64) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, "/")
}

// String names the grid: "overheads ×0.75/1/1.25 × iteration times
// ×0.95/1/1.05, 9 points", then, when set, "; iteration times per GPU
// type h100 ×0.8/1/1.2, l20 ×0.8/1/1.2, one at a time and corners, 8
// points" and "; estimators profiledb/analytic, each run with the
// others" (without the first part when it is the centre alone).
func (g Sensitivity) String() string {
	var parts []string
	types := g.gridTypes()
	if n := len(axis(g.Overheads)) * len(axis(g.IterationTimes)); n > 1 || len(types) == 0 && len(g.Estimators) == 0 {
		parts = append(parts, fmt.Sprintf("overheads ×%s × iteration times ×%s, %s", joinFactors(axis(g.Overheads)), joinFactors(axis(g.IterationTimes)), points(n)))
	}
	if len(types) > 0 {
		per := make([]string, len(types))
		for i, t := range types {
			per[i] = t + " ×" + joinFactors(axis(g.GPUTypes[t]))
		}
		how := "one at a time and corners"
		if len(types) == 1 {
			how = "one type"
		}
		parts = append(parts, fmt.Sprintf("iteration times per GPU type %s, %s, %s", strings.Join(per, ", "), how, points(len(g.TypePoints()))))
	}
	if len(g.Estimators) > 0 {
		parts = append(parts, "estimators "+strings.Join(g.Estimators, "/")+", each run with the others")
	}
	return strings.Join(parts, "; ")
}

// points is "1 point", "9 points".
func points(n int) string {
	if n == 1 {
		return "1 point"
	}
	return strconv.Itoa(n) + " points"
}

func checkFactors(what string, fs []float64) error {
	for _, f := range fs {
		if !(f > 0) || f > 100 || math.IsInf(f, 0) {
			return fmt.Errorf("%s factor %v: want a number in (0, 100] (1 = unperturbed)", what, f)
		}
	}
	return nil
}

// ruleTypeFactor is the rule of a per-type factor: Run.TypeSlowdowns'.
const ruleTypeFactor = "want a factor from 0.01 to 100 (1 = unperturbed), as --type-slowdowns"

// checkGridType checks a GPU type name of the grid (a catalog type, any
// case) and its factors; it returns the name in lower case.
func checkGridType(name string, fs []float64) (string, error) {
	if _, err := estimator.LookupGPU(name); err != nil {
		return "", fmt.Errorf("GPU type %s: not a GPU type arena knows (known: %s)", clip(name), strings.Join(estimator.GPUNames(), ", "))
	}
	name = strings.ToLower(strings.TrimSpace(name))
	for _, f := range fs {
		if !(f >= runner.MinFactor) || f > 100 {
			return "", fmt.Errorf("%s factor %v: %s", name, f, ruleTypeFactor)
		}
	}
	return name, nil
}

// checkGridEstimator checks an estimator name of the grid.
func checkGridEstimator(name string) error {
	if !slices.Contains(runner.EstimatorNames(), name) {
		return fmt.Errorf("estimator %s: unknown (known: %s)", clip(name), strings.Join(runner.EstimatorNames(), ", "))
	}
	return nil
}

// ParseSensitivity reads --sensitivity: "" or "default" is the default
// grid; otherwise parts separated by ";", each optional:
// "overheads=0.75,1.25", "iteration-times=0.95,1.05",
// "types=h100:0.8/1.2,l20:0.8/1.2" (per-GPU-type factors, also
// gpu-types=) and "estimators=profiledb,analytic". An omitted overheads or
// iteration-times part keeps its default list ("=1" varies nothing on
// that axis); without types or estimators the grid has none.
func ParseSensitivity(s string) (Sensitivity, error) {
	g := DefaultSensitivity()
	s = strings.TrimSpace(s)
	if s == "" || s == "default" || s == "true" {
		return g, nil
	}
	bad := func(format string, args ...any) (Sensitivity, error) {
		return Sensitivity{}, fmt.Errorf("sensitivity %s: "+format+"; want e.g. 'overheads=0.75,1.25;iteration-times=0.95,1.05;types=h100:0.8/1.2,l20:0.8/1.2;estimators=profiledb,analytic'", append([]any{clip(s)}, args...)...)
	}
	parseFactors := func(k, v, sep string) ([]float64, error) {
		var fs []float64
		for _, x := range strings.Split(v, sep) {
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s is not a number", k, clip(x))
			}
			fs = append(fs, f)
		}
		return fs, nil
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "_", "-")
		if k == "gpu-types" {
			k = "types"
		}
		if !ok || !slices.Contains([]string{"overheads", "iteration-times", "types", "estimators"}, k) {
			return bad("part %s: want overheads=…, iteration-times=…, types=… or estimators=…", clip(part))
		}
		if seen[k] {
			return bad("%s given twice", k)
		}
		seen[k] = true
		switch k {
		case "types":
			g.GPUTypes = map[string][]float64{}
			for _, tv := range strings.Split(v, ",") {
				name, fv, ok := strings.Cut(strings.TrimSpace(tv), ":")
				if !ok {
					return bad("types: %s: want TYPE:FACTOR/FACTOR, e.g. h100:0.8/1.2", clip(tv))
				}
				fs, err := parseFactors("types: "+strings.TrimSpace(name), fv, "/")
				if err != nil {
					return bad("%v", err)
				}
				t, err := checkGridType(name, fs)
				if err != nil {
					return bad("types: %v", err)
				}
				if _, dup := g.GPUTypes[t]; dup {
					return bad("types: %s given twice", t)
				}
				g.GPUTypes[t] = fs
			}
		case "estimators":
			g.Estimators = nil
			for _, e := range strings.Split(v, ",") {
				e = strings.TrimSpace(e)
				if err := checkGridEstimator(e); err != nil {
					return bad("estimators: %v", err)
				}
				if slices.Contains(g.Estimators, e) {
					return bad("estimators: %s given twice", e)
				}
				g.Estimators = append(g.Estimators, e)
			}
		default:
			fs, err := parseFactors(k, v, ",")
			if err != nil {
				return bad("%v", err)
			}
			if err := checkFactors(k, fs); err != nil {
				return bad("%v", err)
			}
			if k == "overheads" {
				g.Overheads = fs
			} else {
				g.IterationTimes = fs
			}
		}
	}
	return g, nil
}

// sensitivityMapping is the form of the spec key in its messages.
const sensitivityMapping = "a mapping {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05], gpu_types: {h100: [0.8, 1.2]}, estimators: [profiledb, analytic]}"

// parseSensitivityNode reads the spec key sensitivity: true / false, or a
// mapping {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05],
// gpu_types: {h100: [0.8, 1.2], l20: [0.8, 1.2]}, estimators: [profiledb,
// analytic]} (an omitted overheads or iteration_times list keeps its
// default; without gpu_types or estimators the grid has none). false gives
// nil.
func parseSensitivityNode(file string, v *yaml.Node) (*Sensitivity, error) {
	fail := func(n *yaml.Node, format string, args ...any) error {
		return &input.Error{File: file, Line: n.Line, Kind: "key", Field: "sensitivity", Err: fmt.Errorf(format, args...)}
	}
	if v.Kind == yaml.ScalarNode {
		var b bool
		if err := v.Decode(&b); err != nil {
			return nil, fail(v, "want true, false or %s, got %s", sensitivityMapping, clip(v.Value))
		}
		if !b {
			return nil, nil
		}
		g := DefaultSensitivity()
		return &g, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, fail(v, "want true, false or %s", sensitivityMapping)
	}
	g := DefaultSensitivity()
	seen := map[string]bool{}
	factors := func(name string, val *yaml.Node, check func(float64) error, rule string) ([]float64, error) {
		items, nerr := scalarList(val)
		if nerr != nil {
			return nil, fail(nerr.node, "%s: %s", name, nerr.msg)
		}
		var fs []float64
		for _, it := range items {
			f, err := strconv.ParseFloat(it.Value, 64)
			if err == nil {
				err = check(f)
			}
			if err != nil {
				return nil, fail(it, "%s: %s: %s", name, clip(it.Value), rule)
			}
			fs = append(fs, f)
		}
		return fs, nil
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		name := strings.ReplaceAll(k.Value, "-", "_")
		if !slices.Contains([]string{"overheads", "iteration_times", "gpu_types", "estimators"}, name) {
			return nil, fail(k, "unknown key %s in the mapping (known: overheads, iteration_times, gpu_types, estimators)", clip(k.Value))
		}
		if seen[name] {
			return nil, fail(k, "%s given twice", name)
		}
		seen[name] = true
		switch name {
		case "gpu_types":
			if val.Kind != yaml.MappingNode {
				return nil, fail(val, "gpu_types: want a mapping of GPU type to factors, e.g. {h100: [0.8, 1.2], l20: [0.8, 1.2]}")
			}
			g.GPUTypes = map[string][]float64{}
			for i := 0; i+1 < len(val.Content); i += 2 {
				tk, tv := val.Content[i], val.Content[i+1]
				fs, err := factors("gpu_types: "+tk.Value, tv, func(f float64) error {
					if !(f >= runner.MinFactor) || f > 100 {
						return errors.New(ruleTypeFactor)
					}
					return nil
				}, ruleTypeFactor)
				if err != nil {
					return nil, err
				}
				t, err := checkGridType(tk.Value, fs)
				if err != nil {
					return nil, fail(tk, "gpu_types: %v", err)
				}
				if _, dup := g.GPUTypes[t]; dup {
					return nil, fail(tk, "gpu_types: %s given twice", t)
				}
				g.GPUTypes[t] = fs
			}
		case "estimators":
			items, nerr := scalarList(val)
			if nerr != nil {
				return nil, fail(nerr.node, "estimators: %s", nerr.msg)
			}
			g.Estimators = nil
			for _, it := range items {
				e := strings.TrimSpace(it.Value)
				if err := checkGridEstimator(e); err != nil {
					return nil, fail(it, "estimators: %v", err)
				}
				if slices.Contains(g.Estimators, e) {
					return nil, fail(it, "estimators: %s given twice", e)
				}
				g.Estimators = append(g.Estimators, e)
			}
		default:
			fs, err := factors(name, val, func(f float64) error { return checkFactors(name, []float64{f}) }, "want a factor in (0, 100] (1 = unperturbed)")
			if err != nil {
				return nil, err
			}
			if name == "overheads" {
				g.Overheads = fs
			} else {
				g.IterationTimes = fs
			}
		}
	}
	return &g, nil
}

// CheckPlan refuses a grid with a GPU type none of plan's clusters has
// (its points would change nothing), naming it and the clusters' types.
// A type some clusters lack is only skipped on their runs (pointSkip).
func (g Sensitivity) CheckPlan(plan *Plan) error {
	if len(g.GPUTypes) == 0 {
		return nil
	}
	rv := plan.resolver
	if rv == nil {
		rv = runner.NewResolver(nil)
	}
	have := map[string]bool{}
	var desc []string
	seen := map[string]bool{}
	for _, pr := range plan.Runs {
		if seen[pr.Run.Cluster] {
			continue
		}
		seen[pr.Run.Cluster] = true
		spec, err := rv.Cluster(pr.Run.Cluster)
		if err != nil {
			return err
		}
		types := runner.ClusterTypes(spec)
		for _, t := range types {
			have[t] = true
		}
		desc = append(desc, spec.Name+": "+strings.Join(types, ", "))
	}
	var missing []string
	for t := range g.GPUTypes {
		if !have[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("GPU type %s: no cluster of the sweep has it (%s)", strings.Join(missing, ", "), strings.Join(desc, "; "))
}

// pointSkip says whether grid point p applies to run r: skip reports a run
// p does not apply to, note why when it is worth saying (empty for an
// estimator point naming the run's own estimator: that run is the
// centre). A per-type point applies on a cluster having each of its types;
// an estimator point where the estimator prices the cluster's types
// (runner.CheckPriced). The overheads × iteration-times points apply to
// every run.
func pointSkip(rv *runner.Resolver, r runner.Run, p GridPoint) (skip bool, note string) {
	if p.global() {
		return false, ""
	}
	spec, err := rv.Cluster(r.Cluster)
	if err != nil {
		return false, "" // the run fails on it with its own error
	}
	if p.Types != "" {
		m, _ := runner.ParseTypeSlowdowns(p.Types)
		have := runner.ClusterTypes(spec)
		var lack []string
		for t := range m {
			if !slices.Contains(have, t) {
				lack = append(lack, t)
			}
		}
		if len(lack) > 0 {
			slices.Sort(lack)
			return true, fmt.Sprintf("%s skipped on cluster %s: it has no %s", p, spec.Name, strings.Join(lack, ", "))
		}
	}
	if p.Estimator != "" {
		if p.Estimator == cmp.Or(r.Estimator, "profiledb") {
			return true, ""
		}
		src, err := rv.Source(p.Estimator)
		if err != nil {
			return true, fmt.Sprintf("%s skipped: %v", p, err)
		}
		if err := runner.CheckPriced(spec, p.Estimator, src, nil); err != nil {
			var ue *runner.UnpricedError
			if errors.As(err, &ue) {
				return true, fmt.Sprintf("%s skipped on cluster %s: it cannot price %s", p, spec.Name, strings.Join(ue.Types, ", "))
			}
			return true, fmt.Sprintf("%s skipped: %v", p, err)
		}
	}
	return false, ""
}

// SensitivityDir is where a sweep in out keeps its perturbed runs (a
// sweep directory of its own: runs/<key>.<point>/), so out's runs,
// summary.parquet rows and seed statistics are those of the model as is.
func SensitivityDir(out string) string { return filepath.Join(out, "sensitivity") }

// planResolver is the resolver holding plan's inputs (a new one for a
// plan built otherwise than by Expand).
func planResolver(plan *Plan) *runner.Resolver {
	if plan.resolver != nil {
		return plan.resolver
	}
	return runner.NewResolver(nil)
}

// SensitivityPlan is every run of plan at every point of g but the centre
// that applies to it (pointSkip; Notes say which were skipped and why):
// key and group suffixed with the point (".o1.25-i0.95", so padding and
// seed statistics stay within one point), the run perturbed (Apply).
func SensitivityPlan(plan *Plan, g Sensitivity) *Plan {
	rv := planResolver(plan)
	out := &Plan{Name: plan.Name + "-sensitivity", resolver: plan.resolver}
	for _, p := range g.Perturbed() {
		for _, r := range plan.Runs {
			if skip, note := pointSkip(rv, r.Run, p); skip {
				if note != "" && !slices.Contains(out.Notes, note) {
					out.Notes = append(out.Notes, note)
				}
				continue
			}
			out.Runs = append(out.Runs, perturbed(r, p))
		}
	}
	return out
}

// perturbed is run r at grid point p, as SensitivityPlan plans it.
func perturbed(r PlannedRun, p GridPoint) PlannedRun {
	return PlannedRun{Key: r.Key + "." + p.Key(), Group: r.Group + "." + p.Key(), Run: p.Apply(r.Run)}
}

// MarkRobust reads the perturbed runs of plan from SensitivityDir(out),
// computes each grid point's comparisons against baseline as the main
// rows' (summary rows per point: padded within the point's groups, seed
// statistics over its seeds) and fills rows' robustness columns
// (markRobust). A point that does not apply to a cell (pointSkip) is left
// out of its verdicts, with its note. At an estimator point each cell's
// runs are summarised apart and keyed as the cell they perturb (two cells
// differing only in their estimator would otherwise meet there). A
// missing perturbed run is an error unless partial, when the comparisons
// it would decide are left undecided (null).
func MarkRobust(rows []SummaryRow, plan *Plan, out string, g Sensitivity, baseline string, partial bool) error {
	rv := planResolver(plan)
	cellOf := map[string]string{} // run key → its main row's cell
	for i := range rows {
		cellOf[rows[i].Key] = CellKey(&rows[i])
	}
	perPoint := map[GridPoint][]SummaryRow{}
	skipped := map[GridPoint]map[string]string{}
	var missing []string
	for _, p := range g.Perturbed() {
		loaded := map[string][]*Results{} // by the estimator perturbed ("" but at an estimator point)
		var origins []string
		for _, pr := range plan.Runs {
			if skip, note := pointSkip(rv, pr.Run, p); skip {
				if skipped[p] == nil {
					skipped[p] = map[string]string{}
				}
				if c, ok := cellOf[pr.Key]; ok {
					skipped[p][c] = note
				}
				continue
			}
			key := pr.Key + "." + p.Key()
			dir := RunDir(SensitivityDir(out), key)
			if !CompleteRun(dir, perturbed(pr, p)) {
				missing = append(missing, key)
				continue
			}
			r, err := LoadResults(dir, false)
			if err != nil {
				return err
			}
			origin := ""
			if p.Estimator != "" {
				origin = cmp.Or(pr.Run.Estimator, "profiledb")
			}
			if _, ok := loaded[origin]; !ok {
				origins = append(origins, origin)
			}
			loaded[origin] = append(loaded[origin], r)
		}
		for _, origin := range origins {
			prs := SummaryRows(loaded[origin])
			if baseline != "" && slices.ContainsFunc(prs, func(r SummaryRow) bool { return r.Policy == baseline }) {
				if err := SetBaseline(prs, baseline); err != nil {
					return err
				}
			}
			if origin != "" {
				for i := range prs {
					prs[i].Estimator = origin
				}
			}
			perPoint[p] = append(perPoint[p], prs...)
		}
	}
	if len(missing) > 0 && !partial {
		if len(missing) > 5 {
			missing = append(missing[:5:5], fmt.Sprintf("… %d more", len(missing)-5))
		}
		return fmt.Errorf("sensitivity: %d perturbed run(s) have no complete results in %s (run the sweep with --sensitivity, or --resume):\n  %s",
			len(missing), SensitivityDir(out), strings.Join(missing, "\n  "))
	}
	markRobust(rows, g, perPoint, skipped)
	return nil
}

// A verdict is what the model-error grid says of one comparison on one
// metric, decided from intervals, not means:
//
//   - holds: the paired interval excludes "no difference" (0 for a
//     reduction, 1 for a ratio) at the centre and on the same side at every
//     perturbed point;
//   - fragile: it does at the centre, and at some point it does not, or
//     excludes it on the other side;
//   - not resolved: the centre's interval contains "no difference" (or a
//     single seed gives none), so there is no conclusion to keep;
//   - undecided: a perturbed point lacks the comparison.
type verdict int

const (
	notResolved verdict = iota
	holds
	fragile
	undecided
)

func (v verdict) String() string {
	return [...]string{"not resolved", "holds", "fragile", "undecided"}[v]
}

// side is which side of null iv's interval lies: +1 wholly above, −1
// wholly below, 0 when it contains null or has no bounds (fewer than two
// seeds).
func side(iv ci.Interval, null float64) int {
	switch {
	case iv.Lo > null: // false for NaN
		return 1
	case iv.Hi < null:
		return -1
	}
	return 0
}

// compMetric is one metric a comparison is judged on.
type compMetric struct {
	key, name string
	null      float64
	// cross says what a sign change is for this metric.
	cross string
}

// judged are the metrics whose comparisons the model-error grid judges:
// the default metric's paired reduction and the throughput ratio.
var judged = []compMetric{
	{"jct_reduction", "JCT reduction", 0, "below 0"},
	{"throughput_ratio", "throughput ratio", 1, "below 1"},
}

// judge returns the verdict on m of row r (the centre) against its
// counterparts at the perturbed points (nil: the point lacks it), with
// the points that make it fragile or undecided.
func judge(m compMetric, r *SummaryRow, at []GridPoint, others []*SummaryRow) (verdict, string) {
	c, ok := r.Cmp(m.key)
	if !ok {
		return undecided, "no result at the centre"
	}
	s := side(c, m.null)
	var notSig, other, missing []string
	for i, q := range others {
		var iv ci.Interval
		if q != nil && q.Comparison == r.Comparison {
			iv, ok = q.Cmp(m.key)
		}
		if q == nil || q.Comparison != r.Comparison || !ok {
			missing = append(missing, at[i].String())
			continue
		}
		switch side(iv, m.null) {
		case s:
		case 0:
			notSig = append(notSig, at[i].String())
		default:
			other = append(other, at[i].String())
		}
	}
	switch {
	case s == 0:
		if c.N < 2 {
			return notResolved, "one seed: no interval"
		}
		return notResolved, fmt.Sprintf("its interval contains %g at the centre", m.null)
	case len(notSig) > 0 || len(other) > 0:
		var why []string
		if len(other) > 0 {
			why = append(why, "significant the other way at "+strings.Join(other, ", "))
		}
		if len(notSig) > 0 {
			why = append(why, fmt.Sprintf("interval contains %g at ", m.null)+strings.Join(notSig, ", "))
		}
		return fragile, strings.Join(why, "; ")
	case len(missing) > 0:
		return undecided, "no result at " + strings.Join(missing, ", ")
	}
	return holds, ""
}

// ranking is a cell's policies ordered by their mean over seeds of the
// default metric (submitted_mean_jct_s), best first (ties by name).
func ranking(rs []*SummaryRow) []string {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b *SummaryRow) int {
		return cmp.Or(cmp.Compare(a.Stat("submitted_mean_jct_s").Mean, b.Stat("submitted_mean_jct_s").Mean), cmp.Compare(a.Policy, b.Policy))
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Policy
	}
	return out
}

// byCell indexes rows: cell → policy → one of its rows (every seed's row
// of a policy carries the same across-seed columns).
func byCell(rows []SummaryRow) (map[string]map[string]*SummaryRow, []string) {
	out := map[string]map[string]*SummaryRow{}
	var order []string
	for i := range rows {
		k := CellKey(&rows[i])
		if out[k] == nil {
			out[k] = map[string]*SummaryRow{}
			order = append(order, k)
		}
		if _, ok := out[k][rows[i].Policy]; !ok {
			out[k][rows[i].Policy] = &rows[i]
		}
	}
	return out, order
}

func cellRanking(c map[string]*SummaryRow) []string {
	var rs []*SummaryRow
	for _, r := range c {
		rs = append(rs, r)
	}
	return ranking(rs)
}

// PointShift is how far one grid point moves a comparison's paired JCT
// reduction (submitted_mean_jct_s): over the seeds paired both at the
// centre and at the point, the mean and 95 % Student-t interval of the
// point's reduction − the centre's, as a fraction (0.05 = 5 points).
// Holds says whether the point's own interval excludes 0 on the centre's
// side.
type PointShift struct {
	Point GridPoint
	Shift ci.Interval
	Holds bool
}

// pairOf is the two policies of r's comparison in the order its metric
// pairs them (a against b): "fcfs vs sia" is fcfs against sia.
func pairOf(r *SummaryRow) (a, b string) {
	if r.Comparison == r.Policy+" vs "+r.RefPolicy {
		return r.Policy, r.RefPolicy
	}
	return r.RefPolicy, r.Policy
}

// seedShift is metric m's paired comparison of a with b at a point minus
// at the centre, seed by seed (seeds paired at both, increasing), as a
// t-interval; false when no seed is.
func seedShift(m *metrics.Metric, centre, point map[string]map[int64]*SummaryRow, a, b string) (ci.Interval, bool) {
	var ds []float64
	for _, s := range sortedSeeds(centre[b]) {
		ca, cb, pa, pb := centre[a][s], centre[b][s], point[a][s], point[b][s]
		if ca == nil || pa == nil || pb == nil || !samePair(ca, cb) || !samePair(pa, pb) {
			continue
		}
		if d := m.Pair(&pa.Summary, &pb.Summary) - m.Pair(&ca.Summary, &cb.Summary); !math.IsNaN(d) {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return ci.Interval{}, false
	}
	return ci.TInterval(ds), true
}

// markRobust fills the robustness columns of rows (the unperturbed runs,
// with their comparison columns set) from perPoint, the same sweep's rows
// at every other point of g; skipped[p] holds the cells point p does not
// apply to (pointSkip), with the note to give ("" none), left out of
// their verdicts:
//
//   - robust: this row's comparison (the policy against the baseline, or
//     arena against it) keeps the sign of its mean paired JCT reduction on
//     submitted_mean_jct_s and the side of 1 of its mean throughput ratio
//     at every point; null on rows without a comparison, or where a
//     point lacks it;
//   - ranking_robust: the cell's policies keep their order by mean
//     submitted_mean_jct_s at every point (null where a point lacks one);
//   - robustness: "holds", or "fragile (…)" saying what flips where;
//   - ranking_robustness: "holds", or "changes: " and the order where it
//     differs;
//   - sensitivity_grid: the grid (g.String()), and the cell's skipped
//     points (GridSkipped).
//
// Each comparison row also gets its JCT reduction's shift at every point
// (Shifts, PointShift).
func markRobust(rows []SummaryRow, g Sensitivity, perPoint map[GridPoint][]SummaryRow, skipped map[GridPoint]map[string]string) {
	main, _ := byCell(rows)
	centreSeeds := cells(rows)
	type pointCells struct {
		p     GridPoint
		cells map[string]map[string]*SummaryRow
		seeds map[string]map[string]map[int64]*SummaryRow
	}
	var pts []pointCells
	for _, p := range g.Perturbed() {
		c, _ := byCell(perPoint[p])
		pts = append(pts, pointCells{p, c, cells(perPoint[p])})
	}
	// applies lists the points of cell k.
	applies := func(k string) []pointCells {
		return slices.DeleteFunc(slices.Clone(pts), func(pc pointCells) bool {
			_, skip := skipped[pc.p][k]
			return skip
		})
	}
	jct, _ := metrics.ComparedBy(judged[0].key)
	rankOK := map[string]*bool{}
	rankNote := map[string]string{}
	for k, c := range main {
		want := cellRanking(c)
		var flips, missing []string
		for _, pc := range applies(k) {
			pcell := pc.cells[k]
			if len(pcell) != len(c) {
				missing = append(missing, pc.p.String())
				continue
			}
			if got := cellRanking(pcell); !slices.Equal(got, want) {
				flips = append(flips, fmt.Sprintf("%s at %s", strings.Join(got, " < "), pc.p))
			}
		}
		// A change anywhere decides it; otherwise a missing point leaves
		// it undecided (nil).
		if len(flips) > 0 || len(missing) == 0 {
			ok := len(flips) == 0
			rankOK[k] = &ok
		}
		if len(flips) > 0 {
			rankNote[k] = "changes: " + strings.Join(flips, "; ")
		}
	}
	for i := range rows {
		r := &rows[i]
		k := CellKey(r)
		r.SensitivityGrid, r.GridSkipped, r.Shifts = g.String(), nil, nil
		for _, p := range g.Perturbed() {
			if note := skipped[p][k]; note != "" {
				r.GridSkipped = append(r.GridSkipped, note)
			}
		}
		r.RankingRobust, r.RankingRobustness = rankOK[k], "holds"
		switch {
		case rankNote[k] != "":
			r.RankingRobustness = rankNote[k]
		case rankOK[k] == nil:
			r.RankingRobustness = "undecided (missing perturbed runs)"
		}
		r.Robust, r.Robustness = nil, ""
		r.JCTVerdict, r.ThroughputVerdict = "", ""
		if r.Comparison == "" {
			continue
		}
		mine := applies(k)
		others := make([]*SummaryRow, len(mine))
		at := make([]GridPoint, len(mine))
		for i, pc := range mine {
			others[i], at[i] = pc.cells[k][r.Policy], pc.p
		}
		if jct != nil {
			c, _ := r.Cmp(judged[0].key)
			centreSide := side(c, 0)
			a, b := pairOf(r)
			for i, pc := range mine {
				sh, ok := seedShift(jct, centreSeeds[k], pc.seeds[k], a, b)
				if !ok {
					continue
				}
				ps := PointShift{Point: pc.p, Shift: sh}
				if q := others[i]; q != nil && q.Comparison == r.Comparison && centreSide != 0 {
					iv, ok := q.Cmp(judged[0].key)
					ps.Holds = ok && side(iv, 0) == centreSide
				}
				r.Shifts = append(r.Shifts, ps)
			}
		}
		var vs [2]verdict
		var parts []string
		for i, m := range judged {
			v, why := judge(m, r, at, others)
			vs[i] = v
			part := m.name + " " + v.String()
			if why != "" {
				part += " (" + why + ")"
			}
			parts = append(parts, part)
		}
		r.JCTVerdict, r.ThroughputVerdict = vs[0].String(), vs[1].String()
		switch {
		case vs[0] == holds && vs[1] == holds:
			t := true
			r.Robust, r.Robustness = &t, "holds"
			continue
		case vs[0] == fragile || vs[1] == fragile:
			f := false
			r.Robust = &f
		}
		r.Robustness = strings.Join(parts, "; ")
	}
}

// RobustCell is a row's entry in the seed table's robustness column: ""
// when no sensitivity analysis ran, "–" on a row without a comparison,
// "holds" when both verdicts hold, else each metric's verdict (the lines
// under the table say where and why).
func RobustCell(r *SummaryRow) string {
	switch {
	case r.SensitivityGrid == "":
		return ""
	case r.Robustness == "":
		return "–"
	case r.Robustness == "holds" || r.JCTVerdict == "":
		return r.Robustness
	}
	return "JCT " + r.JCTVerdict + " · thr. " + r.ThroughputVerdict
}

// WriteRobustness prints, after the seed table of rows whose robustness
// columns are set, each cell's ranking under the grid and a one-line
// summary naming the grid. It prints nothing when no sensitivity analysis
// ran.
func WriteRobustness(w io.Writer, rows []SummaryRow) error {
	if len(rows) == 0 || rows[0].SensitivityGrid == "" {
		return nil
	}
	var b strings.Builder
	cells, order := byCell(rows)
	fmt.Fprintf(&b, "\nUnder model error — grid %s; perturbed runs in OUT/sensitivity:\n", rows[0].SensitivityGrid)
	comps, rankHeld := 0, 0
	count := map[string]map[string]int{} // metric name → verdict → comparisons
	for _, m := range judged {
		count[m.name] = map[string]int{}
	}
	seen := map[string]bool{}
	for _, k := range order {
		c := cells[k]
		var any *SummaryRow
		for _, r := range c {
			any = r
			break
		}
		rank := strings.Join(cellRanking(c), " < ")
		state := any.RankingRobustness
		if any.RankingRobust != nil && *any.RankingRobust {
			state, rankHeld = "holds at every point", rankHeld+1
		}
		fmt.Fprintf(&b, "  %s on %s, %s timing, density %g: ranking by submitted mean JCT %s %s\n", any.Trace, any.Cluster, any.Timing, any.Density, rank, state)
		for _, n := range any.GridSkipped {
			fmt.Fprintf(&b, "    %s\n", n)
		}
		for i := range rows {
			r := &rows[i]
			if CellKey(r) != k || r.Comparison == "" || seen[k+"|"+r.Policy] {
				continue
			}
			seen[k+"|"+r.Policy] = true
			comps++
			count[judged[0].name][r.JCTVerdict]++
			count[judged[1].name][r.ThroughputVerdict]++
			if r.Robust == nil || !*r.Robust {
				fmt.Fprintf(&b, "    %s: %s\n", r.Comparison, r.Robustness)
			}
			if r.JCTVerdict != holds.String() {
				writeShifts(&b, r)
			}
		}
	}
	var per []string
	for _, m := range judged {
		c := count[m.name]
		per = append(per, fmt.Sprintf("%s %d hold · %d fragile · %d not resolved · %d undecided", m.name, c["holds"], c["fragile"], c["not resolved"], c["undecided"]))
	}
	noun := "comparisons"
	if comps == 1 {
		noun = "comparison"
	}
	fmt.Fprintf(&b, "Model error, %d %s (holds: the paired 95 %% t-interval over seeds excludes no difference on the same side at every point): %s; ranking by mean holds in %d of %d cells.\n",
		comps, noun, strings.Join(per, "; "), rankHeld, len(order))
	_, err := io.WriteString(w, b.String())
	return err
}

// gridColumn is the row's sensitivity_grid column: the grid, then the
// points skipped on its cell ("; skipped here: …").
func gridColumn(r *SummaryRow) string {
	if len(r.GridSkipped) == 0 {
		return r.SensitivityGrid
	}
	return r.SensitivityGrid + "; skipped here: " + strings.Join(r.GridSkipped, "; ")
}

// maxShiftLines bounds the shift lines of one comparison.
const maxShiftLines = 5

// writeShifts prints, under a comparison whose JCT verdict is not
// "holds", its JCT reduction's paired shift at the points where it does
// not hold (for a comparison not resolved at the centre, every point):
// largest shift first, at most maxShiftLines, then how many more and the
// largest of them.
func writeShifts(b *strings.Builder, r *SummaryRow) {
	var sh []PointShift
	for _, s := range r.Shifts {
		if !s.Holds {
			sh = append(sh, s)
		}
	}
	if len(sh) == 0 {
		return
	}
	slices.SortStableFunc(sh, func(x, y PointShift) int { return cmp.Compare(math.Abs(y.Shift.Mean), math.Abs(x.Shift.Mean)) })
	fmt.Fprintf(b, "      how far the grid moves its JCT reduction (point − centre, paired by seed; mean [95 %% t-interval], percentage points):\n")
	for i, s := range sh {
		if i == maxShiftLines {
			fmt.Fprintf(b, "        … %d more point(s), each within ±%s pts\n", len(sh)-i, strconv.FormatFloat(math.Abs(s.Shift.Mean)*100, 'f', 1, 64))
			break
		}
		iv := "(one seed: no interval)"
		if s.Shift.N >= 2 {
			iv = fmt.Sprintf("[%s, %s]", signedPts(s.Shift.Lo), signedPts(s.Shift.Hi))
		}
		fmt.Fprintf(b, "        %s: %s pts %s\n", s.Point, signedPts(s.Shift.Mean), iv)
	}
}

// signedPts is a fraction as signed percentage points, one decimal:
// 0.0412 → "+4.1", −0.003 → "−0.3".
func signedPts(f float64) string {
	s := strconv.FormatFloat(math.Abs(f)*100, 'f', 1, 64)
	if math.Round(math.Abs(f)*1000) == 0 {
		return "0.0"
	}
	if f < 0 {
		return "−" + s
	}
	return "+" + s
}
