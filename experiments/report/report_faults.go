package report

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/sweep"
)

// FaultsSection is the reproduce section of the faults study (not part of
// "all"): the Philly comparison in exact timing with no faults and under
// failure and maintenance presets, seeded, with one checkpoint model
// (data/specs/faults.yaml; docs/faults.md).
const FaultsSection = "faults"

// faultCell is one policy under one faults name: its runs by seed.
type faultCell map[int64]*sweep.Results

func (c faultCell) seeds() []int64 {
	var s []int64
	for k := range c {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// interval is the t-interval over c's seeds of get.
func (c faultCell) interval(get func(*sweep.Results) float64) ci.Interval {
	var xs []float64
	for _, s := range c.seeds() {
		xs = append(xs, get(c[s]))
	}
	return ci.TInterval(xs)
}

// nonNegative clips an interval of a quantity that cannot be negative
// (GPU-hours, counts) at 0: the t-interval is symmetric, the quantity is
// not.
func nonNegative(iv ci.Interval) ci.Interval {
	iv.Lo = math.Max(iv.Lo, 0)
	return iv
}

// faultStudy is the section's runs: faults name → policy → seed → run,
// names and policies in plan order.
type faultStudy struct {
	names, policies []string
	cells           map[string]map[string]faultCell
}

func newFaultStudy(rs []*sweep.Results) *faultStudy {
	st := &faultStudy{cells: map[string]map[string]faultCell{}}
	for _, r := range rs {
		n, p := cmp.Or(faultsName(r), "none"), r.Summary.Policy
		if st.cells[n] == nil {
			st.cells[n] = map[string]faultCell{}
			st.names = append(st.names, n)
		}
		if !slices.Contains(st.policies, p) {
			st.policies = append(st.policies, p)
		}
		if st.cells[n][p] == nil {
			st.cells[n][p] = faultCell{}
		}
		st.cells[n][p][r.Record.Seed] = r
	}
	return st
}

func submittedJCTHours(r *sweep.Results) float64 { return r.Summary.SubmittedMeanJCT / 3600 }

// faultValue reads a value of a run's faults section (NaN without one).
func faultValue(get func(r *sweep.Results) float64) func(*sweep.Results) float64 {
	return func(r *sweep.Results) float64 {
		if r.Summary.Faults == nil {
			return math.NaN()
		}
		return get(r)
	}
}

var (
	ettrOf      = faultValue(func(r *sweep.Results) float64 { return r.Summary.Faults.EffectiveTrainingTimeRatio })
	goodputOf   = faultValue(func(r *sweep.Results) float64 { return r.Summary.Faults.Goodput })
	lostOf      = faultValue(func(r *sweep.Results) float64 { return r.Summary.Faults.LostGPUHours })
	redoneOf    = faultValue(func(r *sweep.Results) float64 { return r.Summary.Faults.LostWorkGPUHours })
	restartOf   = faultValue(func(r *sweep.Results) float64 { return r.Summary.Faults.RecoveryGPUHours })
	interruptOf = faultValue(func(r *sweep.Results) float64 { return float64(r.Summary.Faults.Interruptions) })
)

// faultRanking orders policies by their mean of get, lowest first (ties by
// name: no map order).
func faultRanking(policies []string, mean func(p string) float64) []string {
	out := slices.Clone(policies)
	out = slices.DeleteFunc(out, func(p string) bool { return math.IsNaN(mean(p)) })
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(mean(a), mean(b)), cmp.Compare(a, b))
	})
	return out
}

// faultsSection writes the study: how it was run, per faults preset a
// check that the events are a seeded axis, a table per policy of its JCT
// with and without faults and what the faults cost it, the ranking with
// and without, and the figures.
func (w *reportWriter) faultsSection(s section) error {
	rs := w.runsOf(s.plan, func(sweep.PlannedRun) bool { return true })
	w.p("## Faults: Philly under failures and maintenance\n\n")
	if len(rs) == 0 {
		w.p("No registered policy.\n\n")
		return nil
	}
	st := newFaultStudy(rs)
	r0 := rs[0]
	run := r0.Record.Run
	w.p("Philly (%d jobs submitted in the window) on %s, %s timing, %d rounds of 300 s; spec `experiments/data/specs/faults.yaml`, docs/faults.md. ",
		r0.Summary.Submitted, r0.Summary.Cluster, r0.Summary.Timing, r0.Summary.Rounds)
	if run != nil {
		w.p("Checkpoint model, the same in every run with and without faults: a job writes a checkpoint after every %s of progress, taking %s without progress; "+
			"a job interrupted by a node going down loses the progress since its last checkpoint (or since its configuration began, if later), "+
			"is re-queued, and pays the overhead profile's restart cost plus %s of restore at its next start. ",
			span(run.CheckpointInterval), span(run.CheckpointCost), span(run.CheckpointRestore))
	}
	w.p("The events are synthesised for each seed over the run's window; every policy of a seed sees the same events. ")
	w.p("Philly's trace and the policies are deterministic, so the runs without faults draw nothing from the seed and ran once (seed 1): ")
	w.p("their values are exact, and a change under faults is paired with them seed by seed. ")
	w.p("*Mean JCT* is over every submitted job (unfinished ones at their charge, age at the horizon plus remaining work at its best rate; docs/statistics.md). ")
	w.p("*GPU-h lost* = progress redone + restart (overhead and restore after interruptions). ")
	w.p("*ETTR* (effective training time ratio) = GPU-time of kept progress / GPU-time held; below 1 without faults too (reconfiguration overhead, checkpoint writes). ")
	w.p("*Goodput* = samples of kept progress per second.\n\n")
	none := st.cells["none"]
	tests := w.neighbourFamily(st)
	for _, name := range st.names {
		if name == "none" {
			continue
		}
		cells := st.cells[name]
		n := 0
		for _, c := range cells {
			n = max(n, len(c))
		}
		w.p("### %s\n\n", name)
		w.faultsAxisCheck(name, cells, st.policies)
		w.p("Each cell with faults: the mean [%s]; without faults: %s.\n\n", ci.Describe(ci.T, n, "seed"), noneDescription(none))
		w.p("| policy | mean JCT (h), no faults | with faults | change | jobs finished, no faults / with | GPU-h lost (redone + restart) | ETTR, no faults | with faults | interruptions | goodput (samples/s), no faults | with faults |\n")
		w.p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, p := range st.policies {
			c, base := cells[p], none[p]
			if c == nil {
				continue
			}
			change := "–"
			if base != nil {
				b := base.interval(submittedJCTHours).Mean
				var xs []float64
				for _, sd := range c.seeds() {
					ref := b
					if r, ok := base[sd]; ok {
						ref = submittedJCTHours(r)
					}
					xs = append(xs, submittedJCTHours(c[sd])/ref-1)
				}
				change = signedPct(ci.TInterval(xs))
			}
			fin := func(r *sweep.Results) float64 { return float64(r.Summary.Finished) }
			lost := nonNegative(c.interval(lostOf))
			w.p("| %s | %s | %s | %s | %s / %s | %s (%s + %s) | %s | %s | %s | %s | %s |\n", p,
				baseCell(base, submittedJCTHours, 2), ci.Format(c.interval(submittedJCTHours), 2, ""), change,
				baseCell(base, fin, 0), ci.Format(c.interval(fin), 0, ""),
				ci.Format(lost, 1, ""), oneDecimal(c.interval(redoneOf).Mean), oneDecimal(c.interval(restartOf).Mean),
				baseCell(base, ettrOf, 4), ci.Format(c.interval(ettrOf), 4, ""),
				ci.Format(nonNegative(c.interval(interruptOf)), 1, ""),
				baseCell(base, goodputOf, 0), ci.Format(c.interval(goodputOf), 0, ""))
		}
		w.p("\n")
		w.faultsRanking(name, st.policies, none, cells, tests)
	}
	figs, err := WriteFaultFigures(filepath.Join(w.out, "figures"), s.name+".", rs, FaultKinds, w.figOpts())
	if err != nil {
		return err
	}
	w.embed(figs)
	return nil
}

// noneDescription says how the runs without faults were summarised.
func noneDescription(none map[string]faultCell) string {
	n := 0
	for _, c := range none {
		n = max(n, len(c))
	}
	switch n {
	case 0:
		return "no run"
	case 1:
		return "one run (deterministic: exact)"
	}
	return "the mean [" + ci.Describe(ci.T, n, "seed") + "]"
}

// baseCell is a no-faults cell: the value of its one run, or its mean and
// interval over seeds.
func baseCell(c faultCell, get func(*sweep.Results) float64, digits int) string {
	if c == nil {
		return "–"
	}
	return ci.Format(c.interval(get), digits, "")
}

// signedPct renders a relative change with its sign: "+1.2% [0.4, 2.0]"
// ("0.0%" for a change that rounds to nothing, whatever its sign).
func signedPct(iv ci.Interval) string {
	s := ci.Format(iv, 1, "%")
	switch {
	case math.IsNaN(iv.Mean):
	case strings.HasPrefix(s, "-0.0%"):
		s = strings.TrimPrefix(s, "-")
	case iv.Mean >= 0.0005:
		s = "+" + s
	}
	return s
}

// faultsAxisCheck states the events per seed and checks the axis is a real
// one: every policy of a seed saw the same events (count and capacity
// lost), and the seeds differ. A failed check is a surprise.
func (w *reportWriter) faultsAxisCheck(name string, cells map[string]faultCell, policies []string) {
	type sig struct {
		events  int
		unavail float64
	}
	perSeed := map[int64]sig{}
	var seeds []int64
	same := true
	for _, p := range policies {
		for sd, r := range cells[p] {
			if r.Summary.Faults == nil {
				continue
			}
			g := sig{r.Summary.Faults.ClusterEvents, math.Round(r.Summary.Faults.UnavailableGPUHours*1e6) / 1e6}
			if prev, ok := perSeed[sd]; ok {
				same = same && prev == g
				continue
			}
			perSeed[sd] = g
			seeds = append(seeds, sd)
		}
	}
	slices.Sort(seeds)
	var parts []string
	distinct := map[sig]bool{}
	for _, sd := range seeds {
		g := perSeed[sd]
		distinct[g] = true
		parts = append(parts, fmt.Sprintf("seed %d: %d events, %.0f GPU-h unavailable", sd, g.events, g.unavail))
	}
	w.p("Events (node events applied, notice expiries included, and the GPU-hours of capacity out): %s. ", strings.Join(parts, "; "))
	switch {
	case !same:
		w.p("⚠ **policies of one seed saw different events**: the comparison is not paired.\n\n")
		w.surprises = append(w.surprises, fmt.Sprintf("faults %s: policies of one seed saw different cluster events (the faults axis must give every policy of a seed the same events).", name))
	case len(seeds) > 1 && len(distinct) == 1:
		w.p("⚠ **every seed gave the same events**: the seeds are not independent draws.\n\n")
		w.surprises = append(w.surprises, fmt.Sprintf("faults %s: every seed gave the same cluster events.", name))
	default:
		w.p("Checked: the same for every policy of a seed, different across seeds.\n\n")
	}
}

// faultMeans is each policy's mean JCT (h) over its seeds in cs (NaN: none).
func faultMeans(cs map[string]faultCell) func(string) float64 {
	return func(p string) float64 {
		if cs[p] == nil {
			return math.NaN()
		}
		return cs[p].interval(submittedJCTHours).Mean
	}
}

// neighbourTest is one comparison of the faults section: a preset's
// neighbouring policies in its ranking, the paired per-seed difference of
// their JCT (h, the worse minus the better), its two-sided t-test p-value
// and Holm-adjusted p-value over every such comparison of the section.
type neighbourTest struct {
	iv      ci.Interval
	p, holm float64
}

// neighbourFamily runs every neighbour comparison of the section (per
// preset with faults, each pair of policies next to each other in its
// ranking by mean JCT) and adjusts their p-values together (Holm's
// step-down): preset|a|b → test.
func (w *reportWriter) neighbourFamily(st *faultStudy) map[string]neighbourTest {
	out := map[string]neighbourTest{}
	var keys []string
	var ps []float64
	for _, name := range st.names {
		if name == "none" {
			continue
		}
		cells := st.cells[name]
		after := faultRanking(st.policies, faultMeans(cells))
		for i := 0; i+1 < len(after); i++ {
			a, b := cells[after[i]], cells[after[i+1]]
			var d []float64
			for _, sd := range a.seeds() {
				if rb, ok := b[sd]; ok {
					d = append(d, submittedJCTHours(rb)-submittedJCTHours(a[sd]))
				}
			}
			k := name + "|" + after[i] + "|" + after[i+1]
			out[k] = neighbourTest{iv: ci.TInterval(d), p: ci.TTestP(d)}
			keys, ps = append(keys, k), append(ps, out[k].p)
		}
	}
	adj := ci.Holm(ps)
	for i, k := range keys {
		t := out[k]
		t.holm = adj[i]
		out[k] = t
	}
	return out
}

// familySize is the number of tests of a family with a p-value.
func familySize(tests map[string]neighbourTest) int {
	n := 0
	for _, t := range tests {
		if !math.IsNaN(t.p) {
			n++
		}
	}
	return n
}

// faultsRanking writes the policies' ranking by mean JCT without and with
// the faults, which policies move, whether each neighbouring pair under
// faults is separated by its paired per-seed difference after Holm's
// step-down over the section's neighbour comparisons (tests), and in how
// many seeds the ranking is the one without faults.
func (w *reportWriter) faultsRanking(name string, policies []string, none, cells map[string]faultCell, tests map[string]neighbourTest) {
	before := faultRanking(policies, faultMeans(none))
	after := faultRanking(policies, faultMeans(cells))
	w.p("Ranking by mean JCT, best first — no faults: %s; under %s: %s. ", strings.Join(before, " < "), name, strings.Join(after, " < "))
	var moved []string
	for i, p := range after {
		if j := slices.Index(before, p); j >= 0 && j != i {
			moved = append(moved, fmt.Sprintf("%s from %d to %d", p, j+1, i+1))
		}
	}
	if len(moved) == 0 && len(before) == len(after) {
		w.p("No policy's rank changes. ")
	} else if len(moved) > 0 {
		w.p("**Rank changes: %s.** ", strings.Join(moved, ", "))
	}
	// Neighbours under faults: paired per-seed difference of JCT, decided
	// after Holm's step-down over the section's neighbour comparisons.
	var close []string
	for i := 0; i+1 < len(after); i++ {
		t := tests[name+"|"+after[i]+"|"+after[i+1]]
		if !(t.iv.Mean > 0 && t.holm <= 1-ci.Level) {
			close = append(close, fmt.Sprintf("%s and %s (paired difference %s h, Holm-adjusted p %s)", after[i], after[i+1], ci.Format(t.iv, 2, ""), pValue(t.holm)))
		}
	}
	if len(close) > 0 {
		n := familySize(tests)
		w.p("Not separated by the seeds (%d neighbour comparisons in this section at %.0f %% each, ~%.1f false positives expected under no difference; separated means a Holm-adjusted paired t-test p ≤ 0.05 over the %d): %s. ",
			n, 100*ci.Level, ci.FalsePositives(n), n, strings.Join(close, "; "))
	}
	// Per seed: the ranking of that seed's runs against the one without faults.
	seeds := map[int64]bool{}
	for _, c := range cells {
		for sd := range c {
			seeds[sd] = true
		}
	}
	keep := 0
	for sd := range seeds {
		r := faultRanking(policies, func(p string) float64 {
			if x, ok := cells[p][sd]; ok {
				return submittedJCTHours(x)
			}
			return math.NaN()
		})
		if slices.Equal(r, before) {
			keep++
		}
	}
	w.p("Seed by seed, the ranking is the one without faults in %d of %d seeds.\n\n", keep, len(seeds))
}

// span renders seconds as the spec would write them ("30m", "60s").
func span(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%g h", s/3600)
	case math.Mod(s, 60) == 0 && s >= 600:
		return fmt.Sprintf("%g min", s/60)
	}
	return fmt.Sprintf("%g s", s)
}

// pValue renders a p-value ("0.003", "< 0.001", "–" without a test).
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}
