package report

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// FaultKinds are the figures of runs with the fault model (docs/faults.md):
// the GPUs available per GPU type over time with every failure, drain and
// reclaim marked (one figure per faults preset, from its lowest seed: the
// events are the same for every policy of a seed), and each policy's
// cumulative progress lost to interruptions (one panel per preset, the
// mean over seeds). "all" draws them for runs with faults and skips them
// for runs without.
var FaultKinds = []string{"availability", "lost-work"}

func init() {
	kindTitle["availability"] = "GPUs available by type, failures marked"
	kindTitle["lost-work"] = "cumulative progress lost to interruptions"
}

// HasFaults reports whether any of runs saw a cluster event (the fault
// figures have something to draw).
func HasFaults(runs []*sweep.Results) bool {
	return slices.ContainsFunc(runs, func(r *sweep.Results) bool { return r.Summary.Faults != nil && r.Summary.Faults.ClusterEvents > 0 })
}

// faultsName is the faults a run ran with: the spec's or flag's name
// ("" when run.json does not record it, e.g. 'arena simulate --out').
func faultsName(r *sweep.Results) string {
	if r.Record.Run != nil {
		return r.Record.Run.Faults
	}
	return ""
}

// readAvailability reads a run's availability.parquet (nil, nil when the
// run wrote none).
func readAvailability(r *sweep.Results) ([]sim.AvailRecord, error) {
	rows, err := pq.ReadAll[sim.AvailRecord](filepath.Join(r.Dir, resultsdir.AvailabilityFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results %s: %s: %w", r.Dir, resultsdir.AvailabilityFile, err)
	}
	return rows, nil
}

// runStart is the simulated time of a run's round 0 (its first
// submission), the origin of the figures' time axes.
func runStart(r *sweep.Results) float64 {
	if len(r.Timeline) > 0 {
		return r.Timeline[0].Time
	}
	return 0
}

// faultGroups splits runs with the fault model by faults name, in the
// order names first appear; names whose runs saw no event (none) are left
// out, as are runs without the fault model.
func faultGroups(runs []*sweep.Results) (names []string, by map[string][]*sweep.Results) {
	by = map[string][]*sweep.Results{}
	for _, r := range runs {
		if r.Summary.Faults == nil {
			continue
		}
		n := faultsName(r)
		if _, ok := by[n]; !ok {
			names = append(names, n)
		}
		by[n] = append(by[n], r)
	}
	names = slices.DeleteFunc(names, func(n string) bool {
		return !slices.ContainsFunc(by[n], func(r *sweep.Results) bool { return r.Summary.Faults.ClusterEvents > 0 })
	})
	return names, by
}

// WriteFaultFigures draws each of kinds (FaultKinds) for runs into dir:
// <prefix>availability[-<faults>].<format> per faults preset with events
// and <prefix>lost-work.<format>. Runs without the fault model are left
// out; with no event in any run, nothing is drawn.
func WriteFaultFigures(dir, prefix string, runs []*sweep.Results, kinds []string, o FigureOptions) ([]FigureFile, error) {
	names, by := faultGroups(runs)
	if len(names) == 0 {
		return nil, nil
	}
	suffix := func(name string) string {
		if len(names) == 1 || name == "" {
			return ""
		}
		return "-" + sweep.SanitizeKey(filepath.Base(name))
	}
	title := func(name string) string {
		if name == "" {
			return "faults"
		}
		return name
	}
	var out []FigureFile
	// These figures carry a title even in a report (they are read apart
	// from the tables): o.Title when given, else what they show.
	save := func(f *plots.Figure, kind, path, title string, rows int) error {
		f.Title = cmp.Or(o.Title, title)
		render := o.render()
		if render.Size.W == 0 {
			render.Size = plots.Column
		}
		render.Size.H *= vg.Length(1 + 0.7*float64(rows-1))
		if err := f.Save(path, render); err != nil {
			return err
		}
		out = append(out, FigureFile{Kind: kind, Title: title, Path: path, Notes: f.Notes})
		return nil
	}
	for _, k := range kinds {
		switch k {
		case "availability":
			for _, name := range names {
				// The events are the same for every policy of a seed:
				// the lowest seed's first run stands for them.
				r := slices.MinFunc(by[name], func(a, b *sweep.Results) int { return cmp.Compare(a.Record.Seed, b.Record.Seed) })
				types, err := availTypes(r)
				if err != nil {
					return out, err
				}
				f, err := plots.Availability(types, r.Summary.HorizonS)
				if err != nil {
					return out, err
				}
				rows := (len(f.Panels) + f.Cols - 1) / f.Cols
				t := fmt.Sprintf("GPUs available by type under %s (seed %d; the same for every policy)", title(name), r.Record.Seed)
				if err := save(f, k, filepath.Join(dir, prefix+k+suffix(name)+"."+o.ext()), t, rows); err != nil {
					return out, err
				}
			}
		case "lost-work":
			var panels []plots.LostPanel
			span, seeds := 0.0, 0
			for _, name := range names {
				pn, s, n, err := lostPanel(title(name), by[name], o)
				if err != nil {
					return out, err
				}
				panels, span, seeds = append(panels, pn), max(span, s), max(seeds, n)
			}
			t := "Progress lost to interruptions, by policy"
			if seeds > 1 {
				t += fmt.Sprintf(" (mean of %d seeds)", seeds)
			}
			f, err := plots.CumulativeLost(panels, span)
			if err != nil {
				return out, err
			}
			if err := save(f, k, filepath.Join(dir, prefix+k+"."+o.ext()), t, 1); err != nil {
				return out, err
			}
		default:
			return out, fmt.Errorf("fault figures: unknown kind %q (known: %v)", k, FaultKinds)
		}
	}
	return out, nil
}

// availTypes turns a run's availability.parquet into the per-type step
// series of plots.Availability, times since the run's start, types in the
// cluster's pool order.
func availTypes(r *sweep.Results) ([]plots.AvailType, error) {
	rows, err := readAvailability(r)
	if err != nil {
		return nil, err
	}
	start := runStart(r)
	var types []plots.AvailType
	at := map[string]int{}
	for _, tc := range gpuLayout(r) {
		at[tc.Type] = len(types)
		types = append(types, plots.AvailType{GPU: tc.Type, Total: tc.N})
	}
	for _, a := range rows {
		i, ok := at[a.GPU]
		if !ok {
			at[a.GPU] = len(types)
			i = len(types)
			types = append(types, plots.AvailType{GPU: a.GPU, Total: int(a.Total)})
		}
		t := &types[i]
		x := a.Time - start
		t.Times, t.Avail = append(t.Times, x), append(t.Avail, float64(a.Available))
		// Every kind that takes a node down is marked (sim's kind table).
		if k, ok := sim.ParseClusterEventKind(a.Event); ok && k.Info().Down {
			t.Marks = append(t.Marks, plots.FaultMark{Time: x, Kind: a.Event, Avail: float64(a.Available)})
		}
	}
	return types, nil
}

// lostPoints is how many points a policy's mean cumulative curve has.
const lostPoints = 400

// lostPanel is one faults preset's panel: per policy (in order of first
// appearance) the mean over its seeds of the cumulative GPU-hours of
// progress lost, sampled at lostPoints times over the longest span.
func lostPanel(title string, runs []*sweep.Results, o FigureOptions) (pn plots.LostPanel, span float64, seeds int, err error) {
	var policies []string
	byPolicy := map[string][]*sweep.Results{}
	for _, r := range runs {
		p := r.Summary.Policy
		if _, ok := byPolicy[p]; !ok {
			policies = append(policies, p)
		}
		byPolicy[p] = append(byPolicy[p], r)
		span = max(span, r.Summary.HorizonS)
	}
	pn = plots.LostPanel{Title: title}
	for _, p := range policies {
		rs := byPolicy[p]
		sum := make([]float64, lostPoints+1)
		times := make([]float64, lostPoints+1)
		for k := range times {
			times[k] = span * float64(k) / lostPoints
		}
		for _, r := range rs {
			rows, err := readAvailability(r)
			if err != nil {
				return pn, 0, 0, err
			}
			start, cum, j := runStart(r), 0.0, 0
			for k, t := range times {
				for j < len(rows) && rows[j].Time-start <= t {
					cum += rows[j].LostGPUSecs / 3600
					j++
				}
				sum[k] += cum
			}
		}
		for k := range sum {
			sum[k] /= float64(len(rs))
		}
		pn.Lines = append(pn.Lines, plots.LostLine{Label: o.label(p), Times: times, GPUHours: sum})
		seeds = max(seeds, len(rs))
	}
	return pn, span, seeds, nil
}
