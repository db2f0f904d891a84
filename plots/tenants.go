package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TenantShare is one run's GPUs held per tenant over time (sim/fairness
// ShareOverTime, tenant_gpus.csv): GPUs[t][i] is tenant Tenants[t]'s GPUs
// at Times[i] (seconds; Start is the run's round 0).
type TenantShare struct {
	Label   string
	Start   float64
	Times   []float64
	Tenants []string
	GPUs    [][]float64
	// Capacity is the cluster's GPU count: with it the bands are shares of
	// the cluster (% of its GPUs; the stack's top is its utilisation),
	// without it GPU counts.
	Capacity int
}

// RhoRun is one run's (or one policy's, pooled over seeds) finish-time
// fairness ρ of its rated jobs (sim/fairness).
type RhoRun struct {
	Label string
	Rhos  []float64
}

// MaxTenantBands is how many tenants the share figure draws apart; the
// others (fewest GPU-hours) are one light grey band, "other": fifteen
// colours cannot be told apart at a glance, nor in greyscale print, the
// few largest tenants can.
const MaxTenantBands = 5

// TenantShares draws, per run (one panel each, side by side), the GPUs
// each tenant held over simulated time as stacked bands, largest tenant
// (by GPU-hours over all runs) at the bottom, so panels compare the same
// tenant at the same place. Values are trailing rolling means over window
// seconds (0: about 1/40 of the run, stated in the axis label; negative:
// per round). Bands are separated by white lines and darkest at the
// bottom, each lighter than the one under it (bandColor), so they stay
// apart in greyscale; the legend names them in the same order, bottom
// band first. Several panels share one y scale and their axis labels.
func TenantShares(runs []TenantShare, window float64) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plots: tenant-share: no runs")
	}
	total, order, span := tenantTotals(runs)
	if len(order) == 0 {
		return nil, fmt.Errorf("plots: tenant-share: no tenant held a GPU")
	}
	bands := order
	other := 0
	if len(order) > MaxTenantBands {
		bands, other = order[:MaxTenantBands], len(order)-MaxTenantBands
	}
	band := map[string]int{}
	for i, name := range bands {
		band[name] = i
	}
	nb := len(bands)
	if other > 0 {
		nb++
	}
	div, window, _ := timeAxis(span, window)
	// A short axis label: panels sit side by side.
	unit := "h"
	if div == 86400 {
		unit = "days"
	}
	xLabel := "time (" + unit + ")"
	if window > 0 {
		xLabel += ", " + hours(window) + " mean"
	}
	f := &Figure{Cols: min(len(runs), 3)}
	if len(runs) == 4 {
		f.Cols = 2
	}
	yLabel, scale := "GPUs held", func(TenantShare) float64 { return 1 }
	if !slices.ContainsFunc(runs, func(r TenantShare) bool { return r.Capacity <= 0 }) {
		yLabel, scale = "% of the cluster's GPUs", func(r TenantShare) float64 { return 100 / float64(r.Capacity) }
	}
	ymax := 0.0
	colors := make([]color.Color, nb)
	for i := range len(bands) {
		colors[i] = bandColor(i, len(bands))
	}
	if other > 0 {
		colors[nb-1] = otherBand
	}
	for _, r := range runs {
		p := newPlot(xLabel, yLabel)
		if len(runs) > 1 {
			p.Title.Text = r.Label
		}
		xs, smooth := bandSeries(r, band, nb, total, scale(r), div, window)
		lower := make([]float64, len(xs))
		top := 0.0
		for b := range smooth {
			upper := make([]float64, len(xs))
			for i := range xs {
				upper[i] = lower[i] + smooth[b][i]
				top = math.Max(top, upper[i])
			}
			poly, err := bandPolygon(xs, lower, upper)
			if err != nil {
				return nil, fmt.Errorf("plots: tenant-share %s: %w", r.Label, err)
			}
			poly.Color = colors[b]
			poly.LineStyle = draw.LineStyle{Color: color.White, Width: vg.Points(0.3)}
			p.Add(poly)
			lower = upper
		}
		p.X.Min = 0
		ymax = math.Max(ymax, top)
		f.Panels = append(f.Panels, p)
	}
	// One y scale for every panel: the policies compare at a glance.
	for _, p := range f.Panels {
		p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.05, 1)
	}
	f.shareAxes(true)
	for b := range nb {
		label := ""
		if b < len(bands) {
			label = bands[b]
		} else {
			label = fmt.Sprintf("other (%d tenants)", other)
		}
		f.addLegend(label, swatch{colors[b]})
	}
	return f, nil
}

// tenantTotals orders the tenants by GPU-hours over every run,
// decreasing (ties by name), tenants that never held a GPU dropped, and
// gives the longest run's span in seconds.
func tenantTotals(runs []TenantShare) (total map[string]float64, order []string, span float64) {
	total = map[string]float64{}
	for _, r := range runs {
		if len(r.Times) == 0 {
			continue
		}
		span = math.Max(span, r.Times[len(r.Times)-1]-r.Start)
		for t, name := range r.Tenants {
			for i := range r.Times {
				total[name] += r.GPUs[t][i]
			}
		}
	}
	for name, v := range total {
		if v > 0 {
			order = append(order, name)
		}
	}
	sort.Slice(order, func(a, b int) bool {
		if total[order[a]] != total[order[b]] {
			return total[order[a]] > total[order[b]]
		}
		return order[a] < order[b]
	})
	return total, order, span
}

// bandSeries is one run's stacked bands before stacking: per band, the
// GPUs held at each row times scale (tenants outside band summed into the
// last, "other", band), smoothed over window; xs are the smoothed rows'
// times in units of div.
func bandSeries(r TenantShare, band map[string]int, nb int, total map[string]float64, scale, div, window float64) (xs []float64, smooth [][]float64) {
	vals := make([][]float64, nb)
	for b := range vals {
		vals[b] = make([]float64, len(r.Times))
	}
	for t, name := range r.Tenants {
		b, ok := band[name]
		if !ok {
			if total[name] == 0 {
				continue
			}
			b = nb - 1
		}
		for i, v := range r.GPUs[t] {
			vals[b][i] += v * scale
		}
	}
	smooth = make([][]float64, nb)
	for b := range vals {
		pts := rollingValues(r.Times, vals[b], r.Start, div, window)
		smooth[b] = make([]float64, len(pts))
		xs = xs[:0]
		for i, pt := range pts {
			smooth[b][i] = pt.Y
			xs = append(xs, pt.X)
		}
	}
	return xs, smooth
}

// bandFills are the tenants' fills, viridis (colour-blind-safe and
// perceptually ordered) from dark purple to light green at 0, 0.2, 0.4,
// 0.6, 0.8 of its range: in greyscale (0.299 R + 0.587 G + 0.114 B) 30,
// 75, 99, 124, 168 of 255, each band lighter than the one under it, and
// all darker than otherBand (224).
var bandFills = []color.RGBA{
	{0x44, 0x01, 0x54, 0xff},
	{0x41, 0x44, 0x87, 0xff},
	{0x2a, 0x78, 0x8e, 0xff},
	{0x22, 0xa8, 0x84, 0xff},
	{0x7a, 0xd1, 0x51, 0xff},
}

// otherBand is the fill of the "other" tenants, on top of the stack.
var otherBand = color.Gray{0xe0}

// bandColor is the fill of band i of n named tenants: bandFills spread
// over the n bands (the darkest at the bottom), so fewer bands are
// further apart in lightness.
func bandColor(i, n int) color.Color {
	if n <= 1 {
		return bandFills[0]
	}
	return bandFills[i*(len(bandFills)-1)/(n-1)]
}

// bandPolygon is the area between lower and upper over xs.
func bandPolygon(xs, lower, upper []float64) (*plotter.Polygon, error) {
	pts := make(plotter.XYs, 0, 2*len(xs)+1)
	for i := range xs {
		pts = append(pts, plotter.XY{X: xs[i], Y: upper[i]})
	}
	for i := len(xs) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: xs[i], Y: lower[i]})
	}
	if len(pts) < 3 {
		pts = append(pts, plotter.XY{}, plotter.XY{}, plotter.XY{})
	}
	return plotter.NewPolygon(pts)
}

// swatch is a legend thumbnail: a filled square.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

// rollingValues is rolling over (times, values): the trailing mean over
// window seconds at each row (values as they are when window ≤ 0), x in
// units of div since start.
func rollingValues(times, values []float64, start, div, window float64) plotter.XYs {
	pts := make(plotter.XYs, len(times))
	sum, lo := 0.0, 0
	for k, at := range times {
		if window <= 0 {
			pts[k] = plotter.XY{X: (at - start) / div, Y: values[k]}
			continue
		}
		sum += values[k]
		for times[lo] <= at-window {
			sum -= values[lo]
			lo++
		}
		pts[k] = plotter.XY{X: (at - start) / div, Y: sum / float64(k-lo+1)}
	}
	return pts
}

// RhoCDF plots, per run, the share of its rated jobs with finish-time
// fairness at most ρ (log axis: ρ spans 0.1 to tens), with a vertical
// rule at ρ = 1 (the job did no worse than with its fair share). The
// legend gives each run's share of jobs with ρ > 1 (Gavel's and Sia's
// headline figure).
func RhoCDF(runs []RhoRun) (*Figure, error) {
	f := &Figure{}
	p := newPlot("finish-time fairness ρ (log scale)", "share of rated jobs")
	f.Panels = []*plot.Plot{p}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	lo, hi := math.Inf(1), 0.0
	drawn := 0
	for i, r := range runs {
		rhos := make([]float64, 0, len(r.Rhos))
		for _, x := range r.Rhos {
			if x > 0 && !math.IsInf(x, 0) {
				rhos = append(rhos, x)
			}
		}
		if len(rhos) == 0 {
			continue
		}
		sort.Float64s(rhos)
		lo, hi = math.Min(lo, rhos[0]), math.Max(hi, rhos[len(rhos)-1])
		n := float64(len(rhos))
		pts := plotter.XYs{{X: rhos[0], Y: 0}}
		above := 0
		for k, x := range rhos {
			pts = append(pts, plotter.XY{X: x, Y: float64(k) / n}, plotter.XY{X: x, Y: float64(k+1) / n})
			if x > 1 {
				above++
			}
		}
		l, s, err := line(pts, i, 5)
		if err != nil {
			return nil, fmt.Errorf("plots: rho-cdf %s: %w", r.Label, err)
		}
		p.Add(l, s)
		f.addLegend(fmt.Sprintf("%s (ρ>1: %.0f %%)", r.Label, 100*float64(above)/n), l, s)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("plots: rho-cdf: no run has a rated job")
	}
	// The axis spans the data and 1, with a little room either side.
	p.X.Min, p.X.Max = math.Min(lo, 1)/1.2, math.Max(hi, 1)*1.2
	p.Add(vRule{x: 1})
	return f, nil
}

// vRule is a thin dark vertical line at x.
type vRule struct{ x float64 }

func (v vRule) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{0x40}, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, x, c.Min.Y, x, c.Max.Y)
}
