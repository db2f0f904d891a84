package report

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
)

// reportSensitivity is REPORT.md's model-error check: the Philly
// artifact-timing runs the verdicts come from, re-run at every other
// point of grid, and each checked claim's value there.
type reportSensitivity struct {
	grid sweep.Sensitivity
	// runs: point → unperturbed run key → its perturbed results.
	runs map[sweep.GridPoint]map[string]*sweep.Results
	// vals: verdict (group|claim) → point → the claim's value there.
	vals map[string]map[sweep.GridPoint]float64
	n    int // perturbed runs
}

// sensitivityRuns are the runs REPORT.md's verdicts read (Philly,
// artifact timing, in the sections that check claims), each once.
func sensitivityRuns(secs []section, failed map[string]error) *sweep.Plan {
	p := &sweep.Plan{Name: "reproduce"}
	seen := map[string]bool{}
	for _, s := range secs {
		if s.name != "philly" && s.name != "headline" && s.name != "ablations" {
			continue
		}
		for _, r := range s.plan.Runs {
			_, bad := failed[r.Key]
			if r.Run.Trace == "philly" && r.Run.Timing.String() == "artifact" && !seen[r.Key] && !bad {
				seen[r.Key] = true
				p.Runs = append(p.Runs, r)
			}
		}
	}
	return p
}

// reproduceSensitivity runs the verdicts' runs at every other point of g
// into SensitivityDir(opt.Out) and loads them; failed perturbed runs are
// returned as notes (the claims they decide stay undecided).
func reproduceSensitivity(ctx context.Context, reg runner.Policies, opt ReproduceOptions, g sweep.Sensitivity, secs []section, failed map[string]error, parallel int) (*reportSensitivity, []string, error) {
	base := sensitivityRuns(secs, failed)
	rs := &reportSensitivity{grid: g, runs: map[sweep.GridPoint]map[string]*sweep.Results{}, vals: map[string]map[sweep.GridPoint]float64{}}
	if len(base.Runs) == 0 {
		return rs, nil, nil
	}
	sp := sweep.SensitivityPlan(base, g)
	rs.n = len(sp.Runs)
	rep, err := sweep.RunSweep(ctx, reg, sp, sweep.SweepOptions{Out: sweep.SensitivityDir(opt.Out), Parallel: parallel, Resume: opt.Resume, RunTimeout: opt.RunTimeout, Progress: opt.Progress})
	if err != nil && (ctx.Err() != nil || len(rep.Failed) == 0) {
		return nil, nil, err
	}
	var notes []string
	for _, k := range sortedKeys(rep.Failed) {
		notes = append(notes, fmt.Sprintf("sensitivity run %s failed: %v", k, rep.Failed[k]))
	}
	for _, p := range g.Perturbed() {
		rs.runs[p] = map[string]*sweep.Results{}
		for _, r := range base.Runs {
			key := r.Key + "." + p.Key()
			if _, bad := rep.Failed[key]; bad {
				continue
			}
			lr, err := sweep.LoadResults(sweep.RunDir(sweep.SensitivityDir(opt.Out), key), false)
			if err != nil {
				return nil, nil, err
			}
			rs.runs[p][r.Key] = lr
		}
	}
	return rs, notes, nil
}

// sensitivityVerdicts computes, at every perturbed point, the claims that
// verdicts (mainVerdicts, ablationVerdicts) checks on rs, from the same
// runs perturbed and padded among themselves as rs are; the first value
// per claim and point is kept, as addVerdict keeps the first check.
func (w *reportWriter) sensitivityVerdicts(rs []*sweep.Results, verdicts func(*reportWriter, []*sweep.Results)) {
	if w.sens == nil {
		return
	}
	for _, p := range w.sens.grid.Perturbed() {
		var prs []*sweep.Results
		for _, r := range rs {
			q := w.sens.runs[p][r.Record.Key]
			if q == nil {
				prs = nil
				break
			}
			prs = append(prs, q)
		}
		if prs == nil {
			continue
		}
		tmp := &reportWriter{}
		verdicts(tmp, padded(prs))
		for _, v := range tmp.verdicts {
			k := strconv.Itoa(v.group) + "|" + v.claim
			if w.sens.vals[k] == nil {
				w.sens.vals[k] = map[sweep.GridPoint]float64{}
			}
			if _, ok := w.sens.vals[k][p]; !ok {
				w.sens.vals[k][p] = v.value
			}
		}
	}
}

// robustMark is a checked verdict's model-error note: for a reduction
// (pp) or a ratio, whether its sign (side of 1) holds at every point of
// the grid — "holds under model error" or "fragile" — with its range
// over the grid; for a count or a mean, its range. Then how many points
// of the grid, the model as is among them, are within the claim's
// tolerance of the paper ("within ±2 pp at 3 of 9 model-error points").
// "" without a sensitivity analysis.
func (w *reportWriter) robustMark(v verdict) string {
	if w.sens == nil || v.ok == nil {
		return ""
	}
	return w.signMark(v) + w.toleranceMark(v)
}

// toleranceMark counts the grid points where v's value is within its
// tolerance of the paper's (points without a value count as outside).
func (w *reportWriter) toleranceMark(v verdict) string {
	vals := w.sens.vals[strconv.Itoa(v.group)+"|"+v.claim]
	in, n := 0, 1
	if *v.ok {
		in++
	}
	var tol string
	for _, p := range w.sens.grid.Perturbed() {
		n++
		x, ok := vals[p]
		var good bool
		good, tol = within(v.kind, v.paperValue, x)
		if ok && !math.IsNaN(x) && good {
			in++
		}
	}
	if tol == "" {
		_, tol = within(v.kind, v.paperValue, v.value)
	}
	return fmt.Sprintf("; within %s at %d of %d model-error points", tol, in, n)
}

// signMark is robustMark's sign (or range) part.
func (w *reportWriter) signMark(v verdict) string {
	vals := w.sens.vals[strconv.Itoa(v.group)+"|"+v.claim]
	lo, hi := v.value, v.value
	var flips, missing []string
	side := func(x float64) int {
		if v.kind == "ratio" {
			return sign(x - 1)
		}
		return sign(x)
	}
	for _, p := range w.sens.grid.Perturbed() {
		x, ok := vals[p]
		if !ok || math.IsNaN(x) {
			missing = append(missing, p.String())
			continue
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		if side(x) != side(v.value) {
			flips = append(flips, p.String())
		}
	}
	span := fmtClaim(v.kind, lo) + " to " + fmtClaim(v.kind, hi) + " over the grid"
	switch {
	case v.kind != "pp" && v.kind != "ratio":
		if len(missing) > 0 {
			return "; model error: undecided (no result at " + strings.Join(missing, ", ") + ")"
		}
		return "; model error: " + span
	case len(flips) > 0:
		what := "sign flips"
		if v.kind == "ratio" {
			what = "crosses 1"
		}
		return "; **fragile** under model error (" + what + " at " + strings.Join(flips, ", ") + "; " + span + ")"
	case len(missing) > 0:
		return "; model error: undecided (no result at " + strings.Join(missing, ", ") + ")"
	}
	return "; holds under model error (" + span + ")"
}

// sensitivitySummary is the verdict table's model-error line ("" without
// a sensitivity analysis).
func (w *reportWriter) sensitivitySummary() string {
	if w.sens == nil {
		return ""
	}
	held, fragile, signed, checked, everywhere := 0, 0, 0, 0, 0
	points := 1 + len(w.sens.grid.Perturbed())
	for _, v := range w.verdicts {
		if v.ok == nil {
			continue
		}
		checked++
		if strings.HasSuffix(w.toleranceMark(v), fmt.Sprintf(" at %d of %d model-error points", points, points)) {
			everywhere++
		}
		if v.kind != "pp" && v.kind != "ratio" {
			continue
		}
		signed++
		m := w.robustMark(v)
		switch {
		case strings.Contains(m, "holds under"):
			held++
		case strings.Contains(m, "fragile"):
			fragile++
		}
	}
	return fmt.Sprintf("\nUnder model error (grid %s; %d perturbed runs of the Philly artifact-timing tables the claims are checked on — sections philly, headline, ablations — in `sensitivity/`; the other tables are not perturbed): "+
		"of %d checked reductions and ratios, %d hold (their sign, or side of 1, is the same at every point), %d are fragile, %d undecided. Counts and means show their range over the grid. "+
		"Reproduced under model error: %d of the %d checked claims are within tolerance at all %d points; each row counts its points.\n",
		w.sens.grid, w.sens.n, signed, held, fragile, signed-held-fragile, everywhere, checked, points)
}
