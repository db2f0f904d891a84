package experiments

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
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
		Label: r.Label(), JCTs: r.Record.JCTs, MeanJCT: r.Summary.MeanJCT, PaddedMeanJCT: r.Summary.PaddedMeanJCT,
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
			for i := 1; i < len(prs); i++ {
				a, b := prs[i-1], prs[i]
				if a.Record.Density == b.Record.Density || loadCell(a) != loadCell(b) {
					return nil, fmt.Errorf("load figure: trace %s, policy %s: runs %s and %s differ in more than the density (%s vs %s); plot them separately, one directory per setting",
						t, p, a.Dir, b.Dir, loadCell(a), loadCell(b))
				}
			}
			cj, ct := plots.Curve{Label: p}, plots.Curve{Label: p}
			for _, r := range prs {
				d := density(r.Record.Density)
				cj.X, cj.Y = append(cj.X, d), append(cj.Y, r.Summary.PaddedMeanJCT/3600)
				ct.X, ct.Y = append(ct.X, d), append(ct.Y, r.Summary.MeanThroughput)
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

// loadCell names what a load curve's points must share.
func loadCell(r *Results) string {
	s := r.Summary
	return fmt.Sprintf("cluster %s, %s timing, %d rounds, seed %d, estimator %s", s.Cluster, s.Timing, s.Rounds, r.Record.Seed, s.Estimator)
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
