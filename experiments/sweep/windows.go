package sweep

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/metrics"
	"github.com/arena-sim/arena/traces/synth"
)

// Interval methods of the seed table (the --interval flag of sweep and
// plot).
const (
	// IntervalSeeds: every cell its own table, the interval over its seeds.
	IntervalSeeds = "seeds"
	// IntervalWindows: the cells that differ only by their synthesised
	// window are one table, the interval over windows with the seeds
	// nested within (SetWindowIntervals).
	IntervalWindows = "windows"
)

// WindowInfo is a run's synthesised trace window (synth since/until), the
// trace without it (its window family) and, once SetWindowIntervals has
// run, the two-stage intervals of its family.
type WindowInfo struct {
	// Family identifies the synthesis without its window (source,
	// format and every other key); Name is the trace's name without the
	// window's parts ("philly-pollux.arena"); Source names the source
	// ("philly-pollux"); Window is "35d–37d"; Since orders windows
	// (seconds); Draws says what a seed draws within a window ("draws of
	// 200 jobs from philly-pollux; …", "" when no seed draws anything).
	Family, Name, Source, Window, Draws string
	Since                               float64
	nested                              *nestedStats
}

// nestedStats are a row's intervals over the windows of its family.
type nestedStats struct {
	Stats           map[string]ci.Interval
	Compared        map[string]ci.Interval
	ComparedP, Holm map[string]float64
	Windows         int    // windows in which the row's policy ran
	Of              string // "philly-pollux (35d–37d, 45d–47d), 3 seeds each (draws of …)"
	Inconclusive    string
	Unpaired        []int64
}

// windowOf is run's WindowInfo; nil when its trace is not synthesised
// with since or until.
func windowOf(run *runner.Run, s *sim.Summary) *WindowInfo {
	if run == nil || run.Synth == nil {
		return nil
	}
	st := run.Synth
	var since, until string
	rest := *st
	rest.Keys = nil
	fam := []string{st.From, st.Format}
	for _, kv := range st.Keys {
		switch kv[0] {
		case "since":
			since = kv[1]
		case "until":
			until = kv[1]
		default:
			rest.Keys = append(rest.Keys, kv)
			fam = append(fam, kv[0]+"="+kv[1])
		}
	}
	if since == "" && until == "" {
		return nil
	}
	w := &WindowInfo{Family: strings.Join(fam, "\x00"), Source: synthSource(st)}
	w.Name = strings.Replace(strings.Replace(st.Name, ".since="+since, "", 1), ".until="+until, "", 1)
	switch {
	case since != "" && until != "":
		w.Window = since + "–" + until
	case since != "":
		w.Window = since + " on"
	default:
		w.Window = "up to " + until
	}
	w.Since, _ = synth.ParseSeconds(since)
	if !rest.Deterministic() {
		w.Draws = synthPopulation(&rest, s.JobsInTrace)
	}
	return w
}

// familyKey is r's cell key with its trace replaced by its window family
// ("" when r has no window).
func familyKey(r *SummaryRow) string {
	if r.Window == nil {
		return ""
	}
	return r.Window.Family + "\x00" + r.Window.Name + strings.TrimPrefix(CellKey(r), r.Trace)
}

// ErrNoWindowFamily: --interval windows over rows no two cells of which
// differ only by their window.
var ErrNoWindowFamily = errors.New("no window family: no two cells differ only by their synth window (give synth since as a list, with length; docs/workloads.md)")

// SetWindowIntervals gives every row of a window family — the cells that
// differ only by their synthesised window (synth since/until), two or
// more — the two-stage intervals over the family's windows that the seed
// table then prints, one table per family: per window the mean over its
// seeds, then the Student-t interval over the window means (N = windows;
// ci.TwoStage); and the paired comparisons, paired by window and seed,
// averaged within each window (geometrically for ratios), then t over the
// windows. The rows' own per-cell columns (and summary.parquet) are left
// as they are. Call it after SetBaseline and before SetHolm. An error
// (ErrNoWindowFamily) when rows have no window family.
func SetWindowIntervals(rows []SummaryRow) error {
	cs := cells(rows)
	windows := map[string][]string{} // family key → its cells' keys
	since := map[string]float64{}
	for i := range rows {
		r := &rows[i]
		fk := familyKey(r)
		if fk == "" {
			continue
		}
		ck := CellKey(r)
		if _, ok := since[ck]; !ok {
			since[ck] = r.Window.Since
			windows[fk] = append(windows[fk], ck)
		}
	}
	found := false
	for fk, ws := range windows {
		if len(ws) < 2 {
			delete(windows, fk)
			continue
		}
		found = true
		sort.SliceStable(ws, func(a, b int) bool { return since[ws[a]] < since[ws[b]] })
	}
	if !found {
		return ErrNoWindowFamily
	}
	for i := range rows {
		r := &rows[i]
		ws := windows[familyKey(r)]
		if ws == nil {
			continue
		}
		r.Window.nested = nestedFor(r, ws, cs)
	}
	return nil
}

// nestedFor computes r's two-stage intervals over the windows ws (cell
// keys in window order).
func nestedFor(r *SummaryRow, ws []string, cs map[string]map[string]map[int64]*SummaryRow) *nestedStats {
	n := &nestedStats{Stats: map[string]ci.Interval{}}
	var labels []string
	seedCounts := map[int]bool{}
	for _, ck := range ws {
		var w *WindowInfo
		for _, byPolicy := range cs[ck] {
			for _, x := range byPolicy {
				w = x.Window
				break
			}
			break
		}
		labels = append(labels, w.Window)
		if mine := cs[ck][r.Policy]; len(mine) > 0 {
			n.Windows++
			seedCounts[len(mine)] = true
		}
	}
	for k := range metrics.Catalogue {
		m := &metrics.Catalogue[k]
		if !m.Stats || !m.Section.Has(&r.Summary) {
			continue
		}
		var groups [][]float64
		for _, ck := range ws {
			mine := cs[ck][r.Policy]
			var xs []float64
			for _, s := range sortedSeeds(mine) {
				if v, ok := m.Value(&mine[s].Summary); ok {
					xs = append(xs, v)
				}
			}
			groups = append(groups, xs)
		}
		n.Stats[m.Key] = ci.TwoStage(groups, false)
	}
	var counts []string
	for c := range seedCounts {
		counts = append(counts, strconv.Itoa(c))
	}
	sort.Strings(counts)
	each := strings.Join(counts, " or ")
	n.Of = fmt.Sprintf("%s (%s), %s seed%s each", r.Window.Source, strings.Join(labels, ", "), each, map[bool]string{true: "", false: "s"}[each == "1"])
	if r.Window.Draws != "" {
		n.Of += " (" + r.Window.Draws + ")"
	}
	if r.Comparison == "" {
		return n
	}
	reversed := r.Comparison == r.Policy+" vs "+r.RefPolicy // a baseline: this policy against it
	n.Compared, n.ComparedP = map[string]ci.Interval{}, map[string]float64{}
	unpaired := map[int64]bool{}
	for k := range metrics.Catalogue {
		m := &metrics.Catalogue[k]
		if m.Compared == "" {
			continue
		}
		var groups [][]float64
		for _, ck := range ws {
			a, b := cs[ck][r.RefPolicy], cs[ck][r.Policy]
			if a == nil || b == nil {
				continue
			}
			if reversed {
				a, b = b, a
			}
			if n.Inconclusive == "" {
				n.Inconclusive = inconclusive(a, b)
			}
			for _, s := range Unpaired(a, b) {
				unpaired[s] = true
			}
			groups = append(groups, Paired(m, a, b))
		}
		geo := m.Better == metrics.Higher
		n.Compared[m.Compared], n.ComparedP[m.Compared] = ci.TwoStage(groups, geo), ci.TwoStageP(groups, geo)
	}
	for s := range unpaired {
		n.Unpaired = append(n.Unpaired, s)
	}
	sort.Slice(n.Unpaired, func(a, b int) bool { return n.Unpaired[a] < n.Unpaired[b] })
	return n
}

// windowMode: SetWindowIntervals has given some of rows family intervals.
func windowMode(rows []SummaryRow) bool {
	for _, r := range rows {
		if r.Window != nil && r.Window.nested != nil {
			return true
		}
	}
	return false
}

// familyView is rows as the seed table shows them under --interval
// windows: each row of a window family carries its family's name as its
// trace (so the family's cells are one cell) and the family's intervals;
// other rows as they are.
func familyView(rows []SummaryRow) []SummaryRow {
	out := make([]SummaryRow, len(rows))
	for i, r := range rows {
		if w := r.Window; w != nil && w.nested != nil {
			n := w.nested
			r.Trace = w.Name + " [" + w.Family + "]"
			r.Stats, r.Compared, r.ComparedP, r.Holm = n.Stats, n.Compared, n.ComparedP, n.Holm
			r.Seeds, r.Inconclusive, r.Unpaired = n.Windows, n.Inconclusive, n.Unpaired
		}
		out[i] = r
	}
	return out
}

// displayTrace is the trace a seed table heading names: a window
// family's name without its identifying suffix (familyView).
func displayTrace(r *SummaryRow) string {
	if w := r.Window; w != nil && w.nested != nil {
		return w.Name
	}
	return r.Trace
}
