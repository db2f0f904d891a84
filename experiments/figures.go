package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/sim"
)

// FigureOptions say how figures are drawn and written.
type FigureOptions struct {
	Format string     // pdf, svg or png (default)
	Size   plots.Size // default plots.Column
	// Title above each figure ("" = none, the default).
	Title string
	// CDF population ("all" or "common") and the time series' rolling
	// window (plots.Options).
	CDF    string
	Window float64
}

func (o FigureOptions) render() plots.Render {
	return plots.Render{Size: o.Size}
}

func (o FigureOptions) ext() string {
	if o.Format == "" {
		return "png"
	}
	return o.Format
}

// PlotRun converts loaded results (with tables) into what plots draw.
func PlotRun(r *Results) plots.Run {
	start := 0.0
	if len(r.Timeline) > 0 {
		start = r.Timeline[0].Time
	}
	pr := plots.Run{
		Label: r.Label(), JCTs: r.Record.JCTs, MeanJCT: r.Summary.MeanJCT, CensoredMeanJCT: r.Summary.CensoredMeanJCT, PaddedMeanJCT: r.Summary.PaddedMeanJCT,
		Timeline: r.Timeline, Types: r.Types, Start: start, Utilization: r.Summary.Utilization,
		Allocations: r.Allocations,
	}
	// Unfinished jobs are censored at the horizon: their JCT is at least
	// the time from submission to the end of the simulated window.
	horizon := start + r.Summary.HorizonS
	for _, j := range r.Jobs {
		if j.State == "finished" {
			pr.Jobs = append(pr.Jobs, plots.Job{ID: j.ID, Time: j.JCT, Finished: true})
		} else {
			pr.Jobs = append(pr.Jobs, plots.Job{ID: j.ID, Time: max(0, horizon-j.Submit)})
		}
	}
	pr.GPUs = gpuLayout(r)
	return pr
}

// gpuLayout is the cluster's GPU slots as runs of one type, in slot order:
// from the cluster spec when it is built in or still on disk, else from
// the allocations seen.
func gpuLayout(r *Results) []plots.TypeCount {
	if spec, err := sim.LoadClusterSpec(r.Summary.Cluster); err == nil {
		var out []plots.TypeCount
		for _, p := range spec.Pools {
			n := p.Nodes * p.GPUsPerNode
			if k := len(out); k > 0 && out[k-1].Type == p.GPU {
				out[k-1].N += n
			} else {
				out = append(out, plots.TypeCount{Type: p.GPU, N: n})
			}
		}
		return out
	}
	hi := map[string]int32{}
	var order []string
	for _, a := range r.Allocations {
		if _, ok := hi[a.GPU]; !ok {
			order = append(order, a.GPU)
		}
		hi[a.GPU] = max(hi[a.GPU], a.FirstSlot+a.Slots)
	}
	sort.Slice(order, func(i, j int) bool { return hi[order[i]] < hi[order[j]] })
	var out []plots.TypeCount
	prev := int32(0)
	for _, t := range order {
		out = append(out, plots.TypeCount{Type: t, N: int(hi[t] - prev)})
		prev = hi[t]
	}
	return out
}

// FigureFile is one figure written by WriteFigures.
type FigureFile struct {
	Kind, Title, Path string
}

// WriteFigures draws each kind for runs into dir as <prefix><kind>.<format>
// (the one-run occupancy figure: <prefix><policy>.occupancy.<format> for
// each run). Runs should be loaded with tables and padded (PadGroups)
// beforehand.
func WriteFigures(dir, prefix string, runs []*Results, kinds []string, o FigureOptions) ([]FigureFile, error) {
	pr := make([]plots.Run, len(runs))
	for i, r := range runs {
		pr[i] = PlotRun(r)
	}
	po := plots.Options{Title: o.Title, CDF: o.CDF, Window: o.Window}
	var out []FigureFile
	for _, k := range kinds {
		if k == "occupancy" {
			for i, r := range pr {
				f, err := plots.Draw(k, []plots.Run{r}, po)
				if err != nil {
					return out, err
				}
				path := filepath.Join(dir, prefix+sanitizeKey(runs[i].Label())+"."+k+"."+o.ext())
				if err := f.Save(path, o.render()); err != nil {
					return out, err
				}
				out = append(out, FigureFile{Kind: k, Title: kindTitle[k] + ", " + r.Label, Path: path})
			}
			continue
		}
		f, err := plots.Draw(k, pr, po)
		if err != nil {
			return out, err
		}
		path := filepath.Join(dir, prefix+k+"."+o.ext())
		if err := f.Save(path, o.render()); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: k, Title: kindTitle[k], Path: path})
	}
	return out, nil
}

var kindTitle = map[string]string{
	"jct-cdf": "JCT CDF", "jct-bars": "mean JCT", "throughput": "cluster throughput",
	"queue": "queue length", "utilization": "GPU utilisation by type", "occupancy": "GPU occupancy",
	"load-jct": "padded mean JCT vs load", "load-throughput": "mean throughput vs load",
}

// LoadKinds are the load-sweep figure kinds.
var LoadKinds = []string{"load-jct", "load-throughput"}

// WriteLoadFigures draws the load-sweep curves (padded mean JCT and mean
// throughput against density, one line per policy) of runs that differ in
// density, one panel per trace (runs of different traces are never joined
// into one line); runs must be padded within their groups. Runs of one
// trace that differ in anything but policy and density (cluster, timing,
// rounds, seed, estimator) are refused: their points would zig-zag.
func WriteLoadFigures(dir, prefix string, runs []*Results, o FigureOptions) ([]FigureFile, error) {
	// Across-seed means and 95 % intervals: summary.parquet's columns
	// (padded_mean_jct_s_mean/_ci_lo/_ci_hi, mean_throughput_…), computed
	// from the runs as padded by the caller.
	rows := summaryRowsAsPadded(runs)
	rowOf := map[*Results]*SummaryRow{}
	for i, r := range runs {
		rowOf[r] = &rows[i]
	}
	var traceOrder []string
	byTrace := map[string][]*Results{}
	for _, r := range runs {
		t := r.Summary.Trace
		if _, ok := byTrace[t]; !ok {
			traceOrder = append(traceOrder, t)
		}
		byTrace[t] = append(byTrace[t], r)
	}
	var jctPanels, thrPanels []plots.Panel
	for _, t := range traceOrder {
		rs := byTrace[t]
		var policies []string
		byPolicy := map[string][]*Results{}
		for _, r := range rs {
			p := r.Summary.Policy
			if _, ok := byPolicy[p]; !ok {
				policies = append(policies, p)
			}
			byPolicy[p] = append(byPolicy[p], r)
		}
		var jct, thr []plots.Curve
		for _, p := range policies {
			prs := byPolicy[p]
			sort.SliceStable(prs, func(i, j int) bool { return prs[i].Record.Density < prs[j].Record.Density })
			cj, ct := plots.Curve{Label: p}, plots.Curve{Label: p}
			withCI := false
			for i := 0; i < len(prs); {
				k := i + 1
				for k < len(prs) && prs[k].Record.Density == prs[i].Record.Density {
					k++
				}
				// Runs at one density may differ in their seed only.
				seeds := map[int64]bool{}
				for _, r := range prs[i:k] {
					if loadCell(r) != loadCell(prs[i]) || seeds[r.Record.Seed] {
						return nil, fmt.Errorf("load figure: trace %s, policy %s: runs %s and %s differ in more than the density and seed (%s vs %s); plot them separately, one directory per setting",
							t, p, prs[i].Dir, r.Dir, loadCell(prs[i]), loadCell(r))
					}
					seeds[r.Record.Seed] = true
				}
				if i > 0 && loadCell(prs[i]) != loadCell(prs[i-1]) {
					return nil, fmt.Errorf("load figure: trace %s, policy %s: runs %s and %s differ in more than the density (%s vs %s); plot them separately, one directory per setting",
						t, p, prs[i-1].Dir, prs[i].Dir, loadCell(prs[i-1]), loadCell(prs[i]))
				}
				d := density(prs[i].Record.Density)
				row := rowOf[prs[i]]
				cj.X, ct.X = append(cj.X, d), append(ct.X, d)
				if k-i > 1 {
					cj.Y, ct.Y = append(cj.Y, row.PaddedMeanJCTMean/3600), append(ct.Y, row.MeanThroughputMean)
					lo, hi := ciOr(row.PaddedMeanJCTCILo, row.PaddedMeanJCTMean), ciOr(row.PaddedMeanJCTCIHi, row.PaddedMeanJCTMean)
					cj.Lo, cj.Hi = append(cj.Lo, lo/3600), append(cj.Hi, hi/3600)
					ct.Lo = append(ct.Lo, ciOr(row.MeanThroughputCILo, row.MeanThroughputMean))
					ct.Hi = append(ct.Hi, ciOr(row.MeanThroughputCIHi, row.MeanThroughputMean))
					withCI = true
				} else {
					s := prs[i].Summary
					cj.Y, ct.Y = append(cj.Y, s.PaddedMeanJCT/3600), append(ct.Y, s.MeanThroughput)
					cj.Lo, cj.Hi = append(cj.Lo, s.PaddedMeanJCT/3600), append(cj.Hi, s.PaddedMeanJCT/3600)
					ct.Lo, ct.Hi = append(ct.Lo, s.MeanThroughput), append(ct.Hi, s.MeanThroughput)
				}
				i = k
			}
			if !withCI {
				cj.Lo, cj.Hi, ct.Lo, ct.Hi = nil, nil, nil, nil
			}
			jct, thr = append(jct, cj), append(thr, ct)
		}
		title := t
		if len(traceOrder) == 1 {
			title = ""
		}
		jctPanels = append(jctPanels, plots.Panel{Title: title, Curves: jct})
		thrPanels = append(thrPanels, plots.Panel{Title: title, Curves: thr})
	}
	var out []FigureFile
	for _, f := range []struct {
		kind, y string
		p       []plots.Panel
	}{{"load-jct", "padded mean JCT (h)", jctPanels}, {"load-throughput", "mean throughput (samples/s)", thrPanels}} {
		fig, err := plots.LoadCurves(f.y, f.p)
		if err != nil {
			return out, err
		}
		fig.Title = o.Title
		path := filepath.Join(dir, prefix+f.kind+"."+o.ext())
		if err := fig.Save(path, o.render()); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: f.kind, Title: kindTitle[f.kind], Path: path})
	}
	return out, nil
}

// ciOr is an interval bound, or v when the bound is null or NaN (one seed).
func ciOr(b *float64, v float64) float64 {
	if b == nil || math.IsNaN(*b) {
		return v
	}
	return *b
}

// WriteSeedFigures draws, for each cell (runs that differ only in policy
// and seed) with at least two seeds, the mean-JCT bars over seeds with
// their 95 % bootstrap intervals as error bars — summary.parquet's
// mean_jct_s_mean / _ci_lo / _ci_hi and padded_mean_jct_s_… columns — into
// <cell>.seeds.jct-bars.<format> (the cell is the group with its seed
// replaced by "seeds"). Runs must be padded within their groups.
func WriteSeedFigures(dir string, runs []*Results, o FigureOptions) ([]FigureFile, error) {
	rows := summaryRowsAsPadded(runs)
	type cell struct {
		name     string
		policies []string
		row      map[string]*SummaryRow
	}
	var order []string
	cells := map[string]*cell{}
	for i, r := range runs {
		row := &rows[i]
		if row.Seeds < 2 {
			continue
		}
		k := cellKey(row)
		c, ok := cells[k]
		if !ok {
			name := strings.Replace(r.Record.Group, ".s"+strconv.FormatInt(r.Record.Seed, 10), ".seeds", 1)
			c = &cell{name: name, row: map[string]*SummaryRow{}}
			cells[k] = c
			order = append(order, k)
		}
		if _, ok := c.row[row.Policy]; !ok {
			c.policies = append(c.policies, row.Policy)
			c.row[row.Policy] = row
		}
	}
	var out []FigureFile
	for _, k := range order {
		c := cells[k]
		var pr []plots.Run
		for _, p := range c.policies {
			row := c.row[p]
			r := plots.Run{Label: fmt.Sprintf("%s (%d seeds)", p, row.Seeds), MeanJCT: row.MeanJCTMean, CensoredMeanJCT: row.CensoredMeanJCTMean, PaddedMeanJCT: row.PaddedMeanJCTMean}
			r.MeanJCTCI = [2]float64{ciOr(row.MeanJCTCILo, row.MeanJCTMean), ciOr(row.MeanJCTCIHi, row.MeanJCTMean)}
			r.CensoredMeanJCTCI = [2]float64{ciOr(row.CensoredMeanJCTCILo, row.CensoredMeanJCTMean), ciOr(row.CensoredMeanJCTCIHi, row.CensoredMeanJCTMean)}
			r.PaddedMeanJCTCI = [2]float64{ciOr(row.PaddedMeanJCTCILo, row.PaddedMeanJCTMean), ciOr(row.PaddedMeanJCTCIHi, row.PaddedMeanJCTMean)}
			pr = append(pr, r)
		}
		f, err := plots.MeanJCTBars(pr)
		if err != nil {
			return out, err
		}
		f.Title = o.Title
		path := filepath.Join(dir, c.name+".jct-bars."+o.ext())
		if err := f.Save(path, o.render()); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: "jct-bars", Title: "mean JCT over seeds (95 % CI)", Path: path})
	}
	return out, nil
}

// loadCell names what a load curve's points must share.
func loadCell(r *Results) string {
	s := r.Summary
	return fmt.Sprintf("cluster %s, %s timing, %d rounds, estimator %s", s.Cluster, s.Timing, s.Rounds, s.Estimator)
}

// ParseKinds validates a --kind list ("" or "all" = every per-group kind
// but occupancy; "load" = the load-sweep curves).
func ParseKinds(s string) ([]string, error) {
	if s == "" || s == "all" {
		return plots.DefaultKinds, nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "all" {
			out = append(out, plots.DefaultKinds...)
			continue
		}
		if k == "load" {
			out = append(out, LoadKinds...)
			continue
		}
		if !slices.Contains(plots.Kinds, k) && !slices.Contains(LoadKinds, k) {
			return nil, fmt.Errorf("kind %q: unknown (known: %s, load)", k, strings.Join(plots.Kinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}
