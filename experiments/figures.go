package experiments

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/arena-sim/arena/plots"
)

// PlotRun converts loaded results (with tables) into what plots draw.
func PlotRun(r *Results) plots.Run {
	start := 0.0
	if len(r.Timeline) > 0 {
		start = r.Timeline[0].Time
	}
	return plots.Run{
		Label: r.Label(), JCTs: r.Record.JCTs, MeanJCT: r.Summary.MeanJCT, PaddedMeanJCT: r.Summary.PaddedMeanJCT,
		Timeline: r.Timeline, Types: r.Types, Start: start, Utilization: r.Summary.Utilization,
	}
}

// FigureFile is one figure written by WriteFigures.
type FigureFile struct {
	Kind, Title, Path string
}

// WriteFigures draws each kind for runs into dir as <prefix><kind>.<format>.
// Runs should be loaded with tables and padded (PadGroups) beforehand.
func WriteFigures(dir, prefix, title string, runs []*Results, kinds []string, format string) ([]FigureFile, error) {
	pr := make([]plots.Run, len(runs))
	for i, r := range runs {
		pr[i] = PlotRun(r)
	}
	var out []FigureFile
	for _, k := range kinds {
		p, err := plots.Draw(k, title+": "+kindTitle[k], pr)
		if err != nil {
			return out, err
		}
		path := filepath.Join(dir, prefix+k+"."+format)
		if err := plots.Save(p, path); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: k, Title: kindTitle[k], Path: path})
	}
	return out, nil
}

var kindTitle = map[string]string{
	"jct-cdf": "JCT CDF", "jct-bars": "mean JCT", "throughput": "cluster throughput",
	"queue": "queue length", "utilization": "GPU utilisation by type",
	"load-jct": "padded mean JCT vs load", "load-throughput": "mean throughput vs load",
}

// LoadKinds are the load-sweep figure kinds.
var LoadKinds = []string{"load-jct", "load-throughput"}

// WriteLoadFigures draws the load-sweep curves (padded mean JCT and mean
// throughput against density, one line per policy) of runs that differ in
// density; runs must be padded within their groups.
func WriteLoadFigures(dir, prefix, title string, runs []*Results, format string) ([]FigureFile, error) {
	timings := map[string]bool{}
	for _, r := range runs {
		timings[r.Summary.Timing] = true
	}
	var policies []string
	byPolicy := map[string][]*Results{}
	for _, r := range runs {
		p := r.Summary.Policy
		if len(timings) > 1 {
			p += " (" + r.Summary.Timing + ")"
		}
		if _, ok := byPolicy[p]; !ok {
			policies = append(policies, p)
		}
		byPolicy[p] = append(byPolicy[p], r)
	}
	var jct, thr []plots.Curve
	for _, p := range policies {
		rs := byPolicy[p]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Record.Density < rs[j].Record.Density })
		cj, ct := plots.Curve{Label: p}, plots.Curve{Label: p}
		for _, r := range rs {
			d := density(r.Record.Density)
			cj.X, cj.Y = append(cj.X, d), append(cj.Y, r.Summary.PaddedMeanJCT/3600)
			ct.X, ct.Y = append(ct.X, d), append(ct.Y, r.Summary.MeanThroughput)
		}
		jct, thr = append(jct, cj), append(thr, ct)
	}
	var out []FigureFile
	for _, f := range []struct {
		kind, y string
		c       []plots.Curve
	}{{"load-jct", "padded mean JCT (hours)", jct}, {"load-throughput", "mean cluster throughput (samples/s)", thr}} {
		p, err := plots.LoadCurves(title+": "+kindTitle[f.kind], f.y, f.c)
		if err != nil {
			return out, err
		}
		path := filepath.Join(dir, prefix+f.kind+"."+format)
		if err := plots.Save(p, path); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: f.kind, Title: kindTitle[f.kind], Path: path})
	}
	return out, nil
}

// ParseKinds validates a --kind list ("" or "all" = every per-run kind;
// "load" = the load-sweep curves).
func ParseKinds(s string) ([]string, error) {
	if s == "" || s == "all" {
		return plots.Kinds, nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "all" {
			out = append(out, plots.Kinds...)
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
