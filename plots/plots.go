package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/arena-sim/arena/sim"
)

// Run is what the figures need of one run.
type Run struct {
	// Label names the run in legends and on bar axes (usually the policy).
	Label string
	// JCTs of the jobs finished in the window, seconds.
	JCTs []float64
	// MeanJCT and PaddedMeanJCT, seconds (PaddedMeanJCT 0 = not computed).
	MeanJCT, PaddedMeanJCT float64
	// Timeline is the per-round table; Types names its Busy columns.
	Timeline []sim.RoundRecord
	Types    []string
	// Start is the simulated time of round 0 (the first submission).
	Start float64
	// Utilization is the mean busy share per GPU type.
	Utilization map[string]float64
}

// Kinds are the per-run figure kinds, in the order Draw makes them.
var Kinds = []string{"jct-cdf", "jct-bars", "throughput", "queue", "utilization"}

// Size of every figure: readable in a report at full width.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// Draw makes the figure of one kind for runs.
func Draw(kind, title string, runs []Run) (*plot.Plot, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plots: %s: no runs", kind)
	}
	switch kind {
	case "jct-cdf":
		return JCTCDF(title, runs)
	case "jct-bars":
		return MeanJCTBars(title, runs)
	case "throughput":
		return Throughput(title, runs)
	case "queue":
		return QueueLength(title, runs)
	case "utilization":
		return Utilization(title, runs)
	}
	return nil, fmt.Errorf("plots: unknown kind %q (known: %s)", kind, strings.Join(Kinds, ", "))
}

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// palette is Tableau 10: ten hues that stay distinct side by side, for
// colour-blind readers too, and in greyscale by lightness.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// Color is the colour of series i (cycling past ten).
func Color(i int) color.Color { return palette[i%len(palette)] }

// style gives run i a colour and, past the palette, a dash pattern, so
// many policies stay distinguishable in print.
func style(i int) draw.LineStyle {
	return draw.LineStyle{Color: Color(i), Width: vg.Points(1.5), Dashes: plotutil.Dashes(i / len(palette))}
}

// JCTCDF plots, per run, the share of finished jobs whose JCT is at most x
// hours (log axis: JCTs span minutes to days).
func JCTCDF(title string, runs []Run) (*plot.Plot, error) {
	p := newPlot(title, "job completion time (hours, log scale)", "cumulative share of finished jobs (0–1)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	for i, r := range runs {
		if len(r.JCTs) == 0 {
			continue
		}
		sorted := append([]float64(nil), r.JCTs...)
		sort.Float64s(sorted)
		pts := make(plotter.XYs, 0, len(sorted))
		for k, v := range sorted {
			pts = append(pts, plotter.XY{X: math.Max(v/3600, 1e-3), Y: float64(k+1) / float64(len(sorted))})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: jct-cdf %s: %w", r.Label, err)
		}
		l.LineStyle = style(i)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d jobs)", r.Label, len(r.JCTs)), l)
	}
	p.Legend.Left = false
	p.Legend.Top = false
	p.Legend.XOffs = -vg.Millimeter * 2
	p.Legend.YOffs = vg.Millimeter * 2
	return p, nil
}

// MeanJCTBars plots each run's mean JCT and, when computed, its padded mean
// (the artifact's metric: unfinished jobs count with the largest JCT).
func MeanJCTBars(title string, runs []Run) (*plot.Plot, error) {
	p := newPlot(title, "", "mean JCT (hours)")
	p.Legend.Left = false
	labels := make([]string, len(runs))
	raw := make(plotter.Values, len(runs))
	padded := make(plotter.Values, len(runs))
	anyPadded := false
	for i, r := range runs {
		labels[i] = r.Label
		raw[i] = r.MeanJCT / 3600
		padded[i] = r.PaddedMeanJCT / 3600
		anyPadded = anyPadded || r.PaddedMeanJCT > 0
	}
	// About 400 pt of axis are shared by len(runs) groups of bars.
	w := vg.Points(min(28, 320/float64(len(runs)*2)))
	series := []struct {
		name string
		vals plotter.Values
	}{{"mean over finished jobs", raw}}
	if anyPadded {
		series = append(series, struct {
			name string
			vals plotter.Values
		}{"padded mean (unfinished = max JCT)", padded})
	}
	for k, s := range series {
		if err := addBars(p, k, len(series), s.name, s.vals, w); err != nil {
			return nil, fmt.Errorf("plots: jct-bars: %w", err)
		}
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(runs))-0.5
	p.Y.Min = 0
	p.Y.Max = headroom(len(series), slices.Max(raw), slices.Max(padded))
	return p, nil
}

// Throughput plots the cluster throughput per round over simulated time.
func Throughput(title string, runs []Run) (*plot.Plot, error) {
	return timeSeries(title, "cluster throughput (samples/s)", runs, func(r sim.RoundRecord) float64 { return r.Throughput })
}

// QueueLength plots the pending jobs per round over simulated time.
func QueueLength(title string, runs []Run) (*plot.Plot, error) {
	return timeSeries(title, "pending jobs (queue length)", runs, func(r sim.RoundRecord) float64 { return float64(r.Pending) })
}

func timeSeries(title, yLabel string, runs []Run, value func(sim.RoundRecord) float64) (*plot.Plot, error) {
	span := 0.0
	for _, r := range runs {
		if n := len(r.Timeline); n > 0 {
			span = math.Max(span, r.Timeline[n-1].Time-r.Start)
		}
	}
	unit, div := "hours", 3600.0
	if span > 3*86400 {
		unit, div = "days", 86400
	}
	p := newPlot(title, "simulated time since the first submission ("+unit+")", yLabel)
	p.Legend.Left = false
	top := 0.0
	for i, r := range runs {
		if len(r.Timeline) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(r.Timeline))
		for k, row := range r.Timeline {
			pts[k] = plotter.XY{X: (row.Time - r.Start) / div, Y: value(row)}
			top = math.Max(top, pts[k].Y)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", r.Label, err)
		}
		l.LineStyle = style(i)
		l.LineStyle.Width = vg.Points(1)
		p.Add(l)
		p.Legend.Add(r.Label, l)
	}
	p.Y.Min, p.Y.Max = 0, headroom(len(runs), top)
	return p, nil
}

// addBars adds series k of n side by side at each nominal x position:
// bars of width w, centred as a group, in series k's colour.
func addBars(p *plot.Plot, k, n int, label string, vals plotter.Values, w vg.Length) error {
	b, err := plotter.NewBarChart(vals, w)
	if err != nil {
		return err
	}
	b.Color = Color(k)
	b.LineStyle.Width = 0
	b.Offset = w * vg.Length(float64(k)-float64(n-1)/2)
	p.Add(b)
	p.Legend.Add(label, b)
	return nil
}

// headroom returns an axis maximum that leaves room above the data for a
// legend of n entries.
func headroom(n int, vals ...float64) float64 {
	m := 0.0
	for _, v := range vals {
		m = math.Max(m, v)
	}
	if m <= 0 {
		return 1
	}
	return m * max(1.3, 1+0.09*float64(n))
}

// Utilization plots each run's mean busy share per GPU type as grouped
// bars (one group per type, one bar per run).
func Utilization(title string, runs []Run) (*plot.Plot, error) {
	p := newPlot(title, "GPU type", "mean GPUs busy (%)")
	p.Legend.Left = false
	var types []string
	for _, r := range runs {
		for _, t := range r.Types {
			if !contains(types, t) {
				types = append(types, t)
			}
		}
		if len(r.Types) == 0 {
			for t := range r.Utilization {
				if !contains(types, t) {
					types = append(types, t)
				}
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("plots: utilization: no GPU types in the runs")
	}
	w := vg.Points(min(20, 320/float64(len(types)*len(runs))))
	top := 0.0
	for i, r := range runs {
		vals := make(plotter.Values, len(types))
		for k, t := range types {
			vals[k] = 100 * r.Utilization[t]
			top = math.Max(top, vals[k])
		}
		if err := addBars(p, i, len(runs), r.Label, vals, w); err != nil {
			return nil, fmt.Errorf("plots: utilization: %w", err)
		}
	}
	p.NominalX(types...)
	p.X.Min, p.X.Max = -0.5, float64(len(types))-0.5
	p.Y.Min, p.Y.Max = 0, headroom(len(runs), top)
	return p, nil
}

// Curve is one line of a load-sweep figure: a value per density.
type Curve struct {
	Label string
	X, Y  []float64
}

// LoadCurves plots a metric against the load density, one line (with
// point markers) per policy.
func LoadCurves(title, yLabel string, curves []Curve) (*plot.Plot, error) {
	p := newPlot(title, "load density (iterations × density)", yLabel)
	top := 0.0
	for i, c := range curves {
		pts := make(plotter.XYs, len(c.X))
		for k := range c.X {
			pts[k] = plotter.XY{X: c.X[k], Y: c.Y[k]}
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: load %s: %w", c.Label, err)
		}
		l.LineStyle = style(i)
		s.Color = Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(c.Label, l, s)
		for _, y := range c.Y {
			top = math.Max(top, y)
		}
	}
	p.X.Min = 0
	p.Y.Min, p.Y.Max = 0, headroom(len(curves), top)
	return p, nil
}

// Formats are the file formats Save writes.
var Formats = []string{"png", "svg"}

// Encode renders p in format (png or svg) at the standard size.
func Encode(p *plot.Plot, format string) ([]byte, error) {
	if !contains(Formats, format) {
		return nil, fmt.Errorf("plots: format %q: want png or svg", format)
	}
	wt, err := p.WriterTo(Width, Height, format)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes p to path, the format taken from its extension, through a
// temporary file so a reader never sees half a figure.
func Save(p *plot.Plot, path string) error {
	data, err := Encode(p, strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return sim.WriteFileAtomic(path, data)
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
