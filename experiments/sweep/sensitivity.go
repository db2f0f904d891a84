package sweep

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/input"
	"gopkg.in/yaml.v3"
)

// Sensitivity is a grid of model perturbations: every overhead of the
// run's profile × each of Overheads, every executed iteration time × each
// of IterationTimes (the cross product; 1 in either list is the
// unperturbed value and is always part of the grid). A conclusion that
// holds at every point of the grid survives the simulator's own error of
// that size: arena's testbed study measured overheads to about ±25 % and
// iteration times to about ±5 % (docs/calibrating.md), the default grid.
type Sensitivity struct {
	Overheads, IterationTimes []float64
}

// DefaultSensitivity is overheads ×0.75/1/1.25 × iteration times
// ×0.95/1/1.05, nine points of which the centre is the run itself.
func DefaultSensitivity() Sensitivity {
	return Sensitivity{Overheads: []float64{0.75, 1.25}, IterationTimes: []float64{0.95, 1.05}}
}

// GridPoint is one perturbation: overheads × Overhead, iteration times ×
// IterTime.
type GridPoint struct{ Overhead, IterTime float64 }

// Centre is the unperturbed point.
func (p GridPoint) Centre() bool { return p.Overhead == 1 && p.IterTime == 1 }

// Key names the point in run keys and directories: "o0.75-i0.95".
func (p GridPoint) Key() string {
	return "o" + strconv.FormatFloat(p.Overhead, 'g', -1, 64) + "-i" + strconv.FormatFloat(p.IterTime, 'g', -1, 64)
}

// String is "overheads ×1.25 · iteration times ×0.95".
func (p GridPoint) String() string {
	return fmt.Sprintf("overheads ×%g · iteration times ×%g", p.Overhead, p.IterTime)
}

// Apply returns r perturbed by p: its own overhead scale and slowdowns
// multiplied (0 counts as 1), a factor of 1 leaving its field as it was
// (so the centre is r itself, byte for byte). RelaxedSlowdown 0 means
// "as Slowdown" and stays 0: scaling Slowdown scales it too.
func (p GridPoint) Apply(r runner.Run) runner.Run {
	if p.Overhead != 1 {
		r.OverheadScale = factorOr1(r.OverheadScale) * p.Overhead
	}
	if p.IterTime != 1 {
		r.Slowdown = factorOr1(r.Slowdown) * p.IterTime
		r.RelaxedSlowdown *= p.IterTime
	}
	return r
}

// axis is a factor list with 1 added, sorted, without repeats.
func axis(fs []float64) []float64 {
	out := append([]float64{1}, fs...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Points lists the grid, overheads-major, both axes ascending; the centre
// is among them.
func (g Sensitivity) Points() []GridPoint {
	var out []GridPoint
	for _, o := range axis(g.Overheads) {
		for _, f := range axis(g.IterationTimes) {
			out = append(out, GridPoint{o, f})
		}
	}
	return out
}

// Perturbed lists the points but the centre: the runs a sensitivity
// analysis adds to each run.
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
// ×0.95/1/1.05, 9 points".
func (g Sensitivity) String() string {
	return fmt.Sprintf("overheads ×%s × iteration times ×%s, %d points", joinFactors(axis(g.Overheads)), joinFactors(axis(g.IterationTimes)), len(g.Points()))
}

func checkFactors(what string, fs []float64) error {
	for _, f := range fs {
		if !(f > 0) || f > 100 || math.IsInf(f, 0) {
			return fmt.Errorf("%s factor %v: want a number in (0, 100] (1 = unperturbed)", what, f)
		}
	}
	return nil
}

// ParseSensitivity reads --sensitivity: "" or "default" is the default
// grid; otherwise "overheads=0.75,1.25;iteration-times=0.95,1.05", each
// part optional (an omitted part keeps its default list; "=1" varies
// nothing on that axis).
func ParseSensitivity(s string) (Sensitivity, error) {
	g := DefaultSensitivity()
	s = strings.TrimSpace(s)
	if s == "" || s == "default" || s == "true" {
		return g, nil
	}
	bad := func(format string, args ...any) (Sensitivity, error) {
		return Sensitivity{}, fmt.Errorf("sensitivity %s: "+format+"; want e.g. 'overheads=0.75,1.25;iteration-times=0.95,1.05'", append([]any{clip(s)}, args...)...)
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "_", "-")
		if !ok || (k != "overheads" && k != "iteration-times") {
			return bad("part %s: want overheads=… or iteration-times=…", clip(part))
		}
		if seen[k] {
			return bad("%s given twice", k)
		}
		seen[k] = true
		var fs []float64
		for _, x := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return bad("%s: %s is not a number", k, clip(x))
			}
			fs = append(fs, f)
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
	return g, nil
}

// parseSensitivityNode reads the spec key sensitivity: true / false, or a
// mapping {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05]} (an
// omitted list keeps its default). false gives nil.
func parseSensitivityNode(file string, v *yaml.Node) (*Sensitivity, error) {
	fail := func(n *yaml.Node, format string, args ...any) error {
		return &input.Error{File: file, Line: n.Line, Kind: "key", Field: "sensitivity", Err: fmt.Errorf(format, args...)}
	}
	if v.Kind == yaml.ScalarNode {
		var b bool
		if err := v.Decode(&b); err != nil {
			return nil, fail(v, "want true, false or a mapping {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05]}, got %s", clip(v.Value))
		}
		if !b {
			return nil, nil
		}
		g := DefaultSensitivity()
		return &g, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, fail(v, "want true, false or a mapping {overheads: [0.75, 1.25], iteration_times: [0.95, 1.05]}")
	}
	g := DefaultSensitivity()
	seen := map[string]bool{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		name := strings.ReplaceAll(k.Value, "-", "_")
		if name != "overheads" && name != "iteration_times" {
			return nil, fail(k, "unknown key %s in the mapping (known: overheads, iteration_times)", clip(k.Value))
		}
		if seen[name] {
			return nil, fail(k, "%s given twice", name)
		}
		seen[name] = true
		items, nerr := scalarList(val)
		if nerr != nil {
			return nil, fail(nerr.node, "%s: %s", name, nerr.msg)
		}
		var fs []float64
		for _, it := range items {
			f, err := strconv.ParseFloat(it.Value, 64)
			if err == nil {
				err = checkFactors(name, []float64{f})
			}
			if err != nil {
				return nil, fail(it, "%s: %s: want a factor in (0, 100] (1 = unperturbed)", name, clip(it.Value))
			}
			fs = append(fs, f)
		}
		if name == "overheads" {
			g.Overheads = fs
		} else {
			g.IterationTimes = fs
		}
	}
	return &g, nil
}

// SensitivityDir is where a sweep in out keeps its perturbed runs (a
// sweep directory of its own: runs/<key>.<point>/), so out's runs,
// summary.parquet rows and seed statistics are those of the model as is.
func SensitivityDir(out string) string { return filepath.Join(out, "sensitivity") }

// SensitivityPlan is every run of plan at every point of g but the centre:
// key and group suffixed with the point (".o1.25-i0.95", so padding and
// seed statistics stay within one point), the run perturbed (Apply).
func SensitivityPlan(plan *Plan, g Sensitivity) *Plan {
	out := &Plan{Name: plan.Name + "-sensitivity"}
	for _, p := range g.Perturbed() {
		for _, r := range plan.Runs {
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
// (markRobust). A missing perturbed run is an error unless partial, when
// the comparisons it would decide are left undecided (null).
func MarkRobust(rows []SummaryRow, plan *Plan, out string, g Sensitivity, baseline string, partial bool) error {
	perPoint := map[GridPoint][]SummaryRow{}
	var missing []string
	for _, p := range g.Perturbed() {
		var loaded []*Results
		for _, pr := range plan.Runs {
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
			loaded = append(loaded, r)
		}
		prs := SummaryRows(loaded)
		if baseline != "" && slices.ContainsFunc(prs, func(r SummaryRow) bool { return r.Policy == baseline }) {
			if err := SetBaseline(prs, baseline); err != nil {
				return err
			}
		}
		perPoint[p] = prs
	}
	if len(missing) > 0 && !partial {
		if len(missing) > 5 {
			missing = append(missing[:5:5], fmt.Sprintf("… %d more", len(missing)-5))
		}
		return fmt.Errorf("sensitivity: %d perturbed run(s) have no complete results in %s (run the sweep with --sensitivity, or --resume):\n  %s",
			len(missing), SensitivityDir(out), strings.Join(missing, "\n  "))
	}
	markRobust(rows, g, perPoint)
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

// markRobust fills the robustness columns of rows (the unperturbed runs,
// with their comparison columns set) from perPoint, the same sweep's rows
// at every other point of g:
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
//   - sensitivity_grid: the grid (g.String()).
func markRobust(rows []SummaryRow, g Sensitivity, perPoint map[GridPoint][]SummaryRow) {
	main, _ := byCell(rows)
	type pointCells struct {
		p     GridPoint
		cells map[string]map[string]*SummaryRow
	}
	var pts []pointCells
	for _, p := range g.Perturbed() {
		c, _ := byCell(perPoint[p])
		pts = append(pts, pointCells{p, c})
	}
	rankOK := map[string]*bool{}
	rankNote := map[string]string{}
	for k, c := range main {
		want := cellRanking(c)
		var flips, missing []string
		for _, pc := range pts {
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
		r.SensitivityGrid = g.String()
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
		others := make([]*SummaryRow, len(pts))
		at := make([]GridPoint, len(pts))
		for i, pc := range pts {
			others[i], at[i] = pc.cells[k][r.Policy], pc.p
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
