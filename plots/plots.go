package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
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
	// Jobs are every submitted job's outcome (the CDF's denominator and
	// its censored tail; the common set of jobs is found by ID).
	Jobs []Job
	// MeanJCT (over finished jobs), CensoredMeanJCT (unfinished jobs at
	// their age at the horizon) and PaddedMeanJCT (the artifact's), seconds;
	// 0 = not computed.
	MeanJCT, CensoredMeanJCT, PaddedMeanJCT float64
	// MeanJCTCI, CensoredMeanJCTCI and PaddedMeanJCTCI are confidence
	// intervals (low, high) over seeds, seconds; zero = none (no error bar).
	MeanJCTCI, CensoredMeanJCTCI, PaddedMeanJCTCI [2]float64
	// Timeline is the per-round table; Types names its Busy columns.
	Timeline []sim.RoundRecord
	Types    []string
	// Start is the simulated time of round 0 (the first submission).
	Start float64
	// Utilization is the mean busy share per GPU type; UtilizationCI an
	// interval (low, high) per type over seeds (nil: no error bars).
	Utilization   map[string]float64
	UtilizationCI map[string][2]float64
	// Allocations are the run's GPU holdings over time (the occupancy
	// figure); GPUs is the cluster's GPU count per type in slot order.
	Allocations []sim.AllocRecord
	GPUs        []TypeCount
}

// TypeCount is a GPU type and how many GPUs of it the cluster has.
type TypeCount struct {
	Type string
	N    int
}

// Job is one submitted job's outcome.
type Job struct {
	ID int32
	// Time is the JCT of a finished job; for an unfinished one, the time
	// from its submission to the horizon (a lower bound of its JCT).
	Time     float64
	Finished bool
}

// Options shape the figures of Draw.
type Options struct {
	// Title drawn above the figure ("" = none, the default).
	Title string
	// CDF is the JCT CDF's population: "all" (default; every submitted
	// job, unfinished ones censored at the horizon) or "common" (the jobs
	// every run finished).
	CDF string
	// Window is the rolling mean of time series, seconds (0: chosen from
	// the span, stated in the axis label; negative: raw per-round values).
	Window float64
}

// Kinds are the per-run figure kinds, in the order Draw makes them.
var Kinds = []string{"jct-cdf", "jct-bars", "throughput", "queue", "utilization", "occupancy"}

// DefaultKinds are what "all" draws: every kind but the one-run occupancy
// figure.
var DefaultKinds = []string{"jct-cdf", "jct-bars", "throughput", "queue", "utilization"}

// Draw makes the figure of one kind for runs.
func Draw(kind string, runs []Run, o Options) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plots: %s: no runs", kind)
	}
	var f *Figure
	var err error
	switch kind {
	case "jct-cdf":
		f, err = JCTCDF(runs, o.CDF)
	case "jct-bars":
		f, err = MeanJCTBars(runs)
	case "throughput":
		f, err = Throughput(runs, o.Window)
	case "queue":
		f, err = QueueLength(runs, o.Window)
	case "utilization":
		f, err = Utilization(runs)
	case "occupancy":
		f, err = Occupancy(runs[0])
	default:
		return nil, fmt.Errorf("plots: unknown kind %q (known: %s)", kind, strings.Join(Kinds, ", "))
	}
	if err != nil {
		return nil, err
	}
	f.Title = o.Title
	return f, nil
}

func newPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xe0}
	g.Horizontal.Color = color.Gray{0xe0}
	p.Add(g)
	return p
}

// palette is Okabe & Ito's colour-blind-safe set, in an order that keeps
// neighbours apart in lightness; grey replaces yellow (too faint on white).
var palette = []color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x99, 0x99, 0x99, 0xff}, // grey (for Okabe–Ito's yellow, too faint on white)
}

// Color is the colour of series i (cycling past eight).
func Color(i int) color.Color { return palette[i%len(palette)] }

// dashes gives series i its own dash pattern (solid first), so lines stay
// apart in black-and-white print.
var dashes = [][]vg.Length{
	nil, {vg.Points(4), vg.Points(1.5)}, {vg.Points(1), vg.Points(1.2)}, {vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
	{vg.Points(2.5), vg.Points(1.5)}, {vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(1), vg.Points(1), vg.Points(2)},
	{vg.Points(1), vg.Points(2.5)}, {vg.Points(8), vg.Points(2)},
}

func style(i int) draw.LineStyle {
	return draw.LineStyle{Color: Color(i), Width: vg.Points(1.1), Dashes: dashes[i%len(dashes)]}
}

// marker gives series i its own glyph shape (plotutil's sequence).
func marker(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: Color(i), Radius: vg.Points(2.2), Shape: plotutil.Shape(i)}
}

// line returns series i's line through pts with markers at about n
// evenly spaced points (staggered by i so markers of close lines do not
// sit on each other), and its legend thumbnails.
func line(pts plotter.XYs, i, n int) (*plotter.Line, *plotter.Scatter, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, nil, err
	}
	l.LineStyle = style(i)
	var marks plotter.XYs
	if n > 0 && len(pts) > 0 {
		step := max(1, len(pts)/n)
		for k := (i * step / 3) % step; k < len(pts); k += step {
			marks = append(marks, pts[k])
		}
	} else {
		marks = pts
	}
	if len(marks) == 0 {
		marks = plotter.XYs{pts[len(pts)-1]}
	}
	s, err := plotter.NewScatter(marks)
	if err != nil {
		return nil, nil, err
	}
	s.GlyphStyle = marker(i)
	return l, s, nil
}

// JCTCDF plots, per run, the share of jobs whose JCT is at most x hours
// (log axis: JCTs span minutes to days). population "all" counts every
// submitted job, so a run that finished fewer jobs ends lower; its curve
// continues dotted to the horizon, where a marker stands for the
// unfinished jobs (censored: their JCT exceeds the horizon). "common"
// counts only the jobs every run finished.
func JCTCDF(runs []Run, population string) (*Figure, error) {
	f := &Figure{}
	var p *plot.Plot
	switch population {
	case "", "all":
		p = newPlot("JCT (h, log scale)", "share of all submitted jobs")
	case "common":
		p = newPlot("JCT (h, log scale)", "")
	default:
		return nil, fmt.Errorf("plots: jct-cdf: population %q: want all or common", population)
	}
	f.Panels = []*plot.Plot{p}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	const floor = 1.0 / 60 // 1 minute: a log axis needs a positive start
	var common map[int32]int
	if population == "common" {
		var n int
		var err error
		if common, n, err = commonFinished(runs); err != nil {
			return nil, err
		}
		p.Y.Label.Text = fmt.Sprintf("share of the %d jobs all finished", n)
	}
	xmax, censored := 0.0, false
	for _, r := range runs {
		for _, j := range r.Jobs {
			xmax = math.Max(xmax, j.Time/3600)
		}
		for _, v := range r.JCTs {
			xmax = math.Max(xmax, v/3600)
		}
	}
	for i, r := range runs {
		fin, total := runPopulation(r, common)
		if total == 0 {
			continue
		}
		sort.Float64s(fin)
		pts := plotter.XYs{{X: math.Max(floor, fin0(fin)/3600), Y: 0}}
		for k, v := range fin {
			x := math.Max(floor, v/3600)
			pts = append(pts, plotter.XY{X: x, Y: float64(k) / float64(total)}, plotter.XY{X: x, Y: float64(k+1) / float64(total)})
		}
		l, s, err := line(pts, i, 5)
		if err != nil {
			return nil, fmt.Errorf("plots: jct-cdf %s: %w", r.Label, err)
		}
		p.Add(l, s)
		label := r.Label
		if common == nil && len(r.Jobs) > 0 {
			label = fmt.Sprintf("%s (%d/%d)", r.Label, len(fin), total)
			if unfinished := total - len(fin); unfinished > 0 && xmax > 0 {
				if err := addCensoredTail(p, pts[len(pts)-1], xmax, i); err != nil {
					return nil, err
				}
				censored = true
			}
		}
		f.addLegend(label, l, s)
	}
	if common == nil && censored {
		mark, err := plotter.NewScatter(plotter.XYs{{}})
		if err != nil {
			return nil, err
		}
		mark.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		f.addLegend("unfinished at the horizon", mark)
	}
	if common == nil {
		p.Y.Label.Text = "share of submitted jobs"
		if len(runs[0].Jobs) == 0 {
			p.Y.Label.Text = "share of finished jobs"
		}
	}
	return f, nil
}

// commonFinished returns the IDs of the jobs every run finished (the
// common population; each maps to len(runs)) and how many there are.
// Separate because it is the population's definition, and the one check
// that every run has a per-job table to define it from.
func commonFinished(runs []Run) (map[int32]int, int, error) {
	common := map[int32]int{}
	for _, r := range runs {
		if len(r.Jobs) == 0 {
			return nil, 0, fmt.Errorf("plots: jct-cdf common: run %s has no per-job table", r.Label)
		}
		for _, j := range r.Jobs {
			if j.Finished {
				common[j.ID]++
			}
		}
	}
	n := 0
	for id, c := range common {
		if c == len(runs) {
			n++
		} else {
			delete(common, id)
		}
	}
	return common, n, nil
}

// runPopulation returns r's finished JCTs (seconds, unsorted) and the size
// of its population: the common jobs when common is non-nil, else every
// submitted job (or, without a per-job table, the finished ones).
// Separate because the choice of population is the figure's definition,
// apart from its drawing.
func runPopulation(r Run, common map[int32]int) (fin []float64, total int) {
	switch {
	case common != nil:
		for _, j := range r.Jobs {
			if _, ok := common[j.ID]; ok {
				fin = append(fin, j.Time)
			}
		}
		total = len(fin)
	case len(r.Jobs) > 0:
		for _, j := range r.Jobs {
			if j.Finished {
				fin = append(fin, j.Time)
			}
		}
		total = len(r.Jobs)
	default: // no job table: finished jobs only
		fin, total = append(fin, r.JCTs...), len(r.JCTs)
	}
	return fin, total
}

// addCensoredTail adds to p run i's censored tail: its curve continued
// dotted from its last point end to the horizon xmax, where a cross
// stands for the unfinished jobs. Separate because it is the drawing of
// the censoring, apart from the curve itself.
func addCensoredTail(p *plot.Plot, end plotter.XY, xmax float64, i int) error {
	tail, err := plotter.NewLine(plotter.XYs{end, {X: xmax, Y: end.Y}})
	if err != nil {
		return err
	}
	tail.LineStyle = style(i)
	tail.LineStyle.Dashes = []vg.Length{vg.Points(0.8), vg.Points(1.6)}
	cens, err := plotter.NewScatter(plotter.XYs{{X: xmax, Y: end.Y}})
	if err != nil {
		return err
	}
	cens.GlyphStyle = draw.GlyphStyle{Color: Color(i), Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
	p.Add(tail, cens)
	return nil
}

func fin0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

// MeanJCTBars plots, as horizontal bars with one row per run (so long
// policy names never collide), each run's mean JCT over finished jobs and,
// where computed, its censored mean (the default comparison: an unfinished
// job counts its age at the horizon) and its padded mean (the artifact's
// metric: unfinished jobs count with the group's largest JCT). Error bars
// show confidence intervals when the runs carry them.
func MeanJCTBars(runs []Run) (*Figure, error) { return MeanJCTBarsCI(runs, "") }

// MeanJCTBarsCI is MeanJCTBars whose whiskers' interval is named in the
// legend (e.g. IntervalName(5): "95 % t-interval over 5 seeds"), so a
// reader never has to guess what an error bar is.
func MeanJCTBarsCI(runs []Run, ciName string) (*Figure, error) {
	f := &Figure{}
	whiskers := false
	p := newPlot("mean JCT (h)", "")
	f.Panels = []*plot.Plot{p}
	n := len(runs)
	labels := make([]string, n)
	type series struct {
		name string
		get  func(Run) float64
		ci   func(Run) [2]float64
	}
	all := []series{
		{"mean over finished jobs", func(r Run) float64 { return r.MeanJCT }, func(r Run) [2]float64 { return r.MeanJCTCI }},
		{"censored mean (unfinished: age at horizon)", func(r Run) float64 { return r.CensoredMeanJCT }, func(r Run) [2]float64 { return r.CensoredMeanJCTCI }},
		{"artifact's padded mean (unfinished: largest JCT)", func(r Run) float64 { return r.PaddedMeanJCT }, func(r Run) [2]float64 { return r.PaddedMeanJCTCI }},
	}
	var ss []series
	var vals []plotter.Values
	for k, s := range all {
		v := make(plotter.Values, n)
		present := false
		// Rows run top to bottom in run order.
		for i, r := range runs {
			v[n-1-i] = s.get(r) / 3600
			present = present || s.get(r) > 0
		}
		if k == 0 || present {
			ss, vals = append(ss, s), append(vals, v)
		}
	}
	for i, r := range runs {
		labels[n-1-i] = r.Label
	}
	top := 0.0
	// The bars' width follows the rows' spacing when drawn (barSlot).
	w := vg.Points(1)
	for k, s := range ss {
		top = math.Max(top, slices.Max(vals[k]))
		for _, r := range runs {
			top = math.Max(top, s.ci(r)[1]/3600)
		}
		b, err := plotter.NewBarChart(vals[k], w)
		if err != nil {
			return nil, fmt.Errorf("plots: jct-bars: %w", err)
		}
		b.Horizontal = true
		slot := barSlot{k: k, n: len(ss), dir: -1}
		hb := newHatchedBars(b, slot)
		p.Add(hb)
		f.addLegend(s.name, hb)
		var errs []errBar
		for i, r := range runs {
			if ci := s.ci(r); ci != [2]float64{} {
				errs = append(errs, errBar{pos: float64(n - 1 - i), lo: ci[0] / 3600, hi: ci[1] / 3600, slot: &slot})
			}
		}
		if len(errs) > 0 {
			p.Add(errBarsPlotter{bars: errs, horizontal: true})
			whiskers = true
		}
	}
	if whiskers && ciName != "" {
		f.addLegend(ciName, errBarsPlotter{horizontal: true})
	}
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Min = 0
	p.X.Max = top * 1.05
	return f, nil
}

// errBar is one confidence interval drawn across a bar.
type errBar struct {
	pos, lo, hi float64
	// slot is the bar's place in its group (nil: no bar; dx then shifts
	// the whisker, so those of several lines at one x stay apart).
	slot *barSlot
	dx   vg.Length
}

// errBarsPlotter draws interval whiskers on bars (plotter.XErrorBars
// cannot follow a bar chart's offset within a group).
type errBarsPlotter struct {
	bars       []errBar
	horizontal bool
	color      color.Color // nil: black
}

// Thumbnail draws one whisker across the legend icon.
func (e errBarsPlotter) Thumbnail(c *draw.Canvas) {
	ls := draw.LineStyle{Color: color.Black, Width: vg.Points(0.7)}
	cap := vg.Points(2)
	if !e.horizontal {
		x := (c.Min.X + c.Max.X) / 2
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		c.StrokeLine2(ls, x-cap, c.Min.Y, x+cap, c.Min.Y)
		c.StrokeLine2(ls, x-cap, c.Max.Y, x+cap, c.Max.Y)
		return
	}
	y := (c.Min.Y + c.Max.Y) / 2
	x0, x1 := c.Min.X+vg.Points(1), c.Max.X-vg.Points(1)
	c.StrokeLine2(ls, x0, y, x1, y)
	c.StrokeLine2(ls, x0, y-cap, x0, y+cap)
	c.StrokeLine2(ls, x1, y-cap, x1, y+cap)
}

func (e errBarsPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: color.Black, Width: vg.Points(0.7)}
	if e.color != nil {
		ls.Color = e.color
	}
	cap := vg.Points(2)
	// A whisker past the axis range (a t-interval's lower bound below 0
	// for a positive metric) is cut at the plot's edge, without its cap.
	stroke := func(a, b vg.Point) { c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{a, b})...) }
	capAt := func(a, b vg.Point) {
		if c.Contains(vg.Point{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}) {
			c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
		}
	}
	for _, b := range e.bars {
		off := b.dx
		if b.slot != nil {
			if e.horizontal {
				_, off = b.slot.geometry(trY(1) - trY(0))
			} else {
				_, off = b.slot.geometry(trX(1) - trX(0))
			}
		}
		if e.horizontal {
			y := trY(b.pos) + off
			x0, x1 := trX(b.lo), trX(b.hi)
			stroke(vg.Point{X: x0, Y: y}, vg.Point{X: x1, Y: y})
			capAt(vg.Point{X: x0, Y: y - cap}, vg.Point{X: x0, Y: y + cap})
			capAt(vg.Point{X: x1, Y: y - cap}, vg.Point{X: x1, Y: y + cap})
		} else {
			x := trX(b.pos) + off
			y0, y1 := trY(b.lo), trY(b.hi)
			stroke(vg.Point{X: x, Y: y0}, vg.Point{X: x, Y: y1})
			capAt(vg.Point{X: x - cap, Y: y0}, vg.Point{X: x + cap, Y: y0})
			capAt(vg.Point{X: x - cap, Y: y1}, vg.Point{X: x + cap, Y: y1})
		}
	}
}

// Throughput plots the cluster throughput over simulated time, as a
// rolling mean (stated in the axis label) so policies stay apart.
func Throughput(runs []Run, window float64) (*Figure, error) {
	return timeSeries("throughput (samples/s)", runs, window, func(r sim.RoundRecord) float64 { return r.Throughput })
}

// QueueLength plots the pending jobs over simulated time.
func QueueLength(runs []Run, window float64) (*Figure, error) {
	return timeSeries("pending jobs (count)", runs, window, func(r sim.RoundRecord) float64 { return float64(r.Pending) })
}

// defaultWindow picks a rolling-mean window: about 1/40 of the span,
// rounded to 1, 2, 3, 6, 12 or 24 hours.
func defaultWindow(span float64) float64 {
	for _, h := range []float64{1, 2, 3, 6, 12} {
		if span/40 <= h*3600 {
			return h * 3600
		}
	}
	return 24 * 3600
}

// timeAxis is the x axis of a figure over simulated time spanning span
// seconds: its unit's divisor (hours, or days beyond 3 days), the rolling
// window (0 picks the default for the span) and the label, which states
// the smoothing because the x axis has the room.
func timeAxis(span, window float64) (div, win float64, xLabel string) {
	unit, div := "h", 3600.0
	if span > 3*86400 {
		unit, div = "days", 86400
	}
	if window == 0 {
		window = defaultWindow(span)
	}
	xLabel = "simulated time (" + unit + "); per round"
	if window > 0 {
		xLabel = fmt.Sprintf("simulated time (%s); %s rolling mean", unit, hours(window))
	}
	return div, window, xLabel
}

func timeSeries(yLabel string, runs []Run, window float64, value func(sim.RoundRecord) float64) (*Figure, error) {
	span := 0.0
	for _, r := range runs {
		if n := len(r.Timeline); n > 0 {
			span = math.Max(span, r.Timeline[n-1].Time-r.Start)
		}
	}
	div, window, xLabel := timeAxis(span, window)
	f := &Figure{}
	p := newPlot(xLabel, yLabel)
	f.Panels = []*plot.Plot{p}
	top := 0.0
	for i, r := range runs {
		if len(r.Timeline) == 0 {
			continue
		}
		pts := rolling(r.Timeline, r.Start, div, window, value)
		for _, pt := range pts {
			top = math.Max(top, pt.Y)
		}
		l, s, err := line(pts, i, 6)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", r.Label, err)
		}
		p.Add(l, s)
		f.addLegend(r.Label, l, s)
	}
	p.X.Min = 0
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.05, 1)
	return f, nil
}

func hours(s float64) string {
	if s < 3600 {
		return fmt.Sprintf("%g-min", s/60)
	}
	return fmt.Sprintf("%g-h", s/3600)
}

func sepIf(open bool) string {
	if open {
		return ""
	}
	return ", "
}

// rolling returns the trailing mean of value over window seconds at each
// round (the raw values when window ≤ 0); x in units of div since start.
func rolling(rows []sim.RoundRecord, start, div, window float64, value func(sim.RoundRecord) float64) plotter.XYs {
	pts := make(plotter.XYs, len(rows))
	sum, lo := 0.0, 0
	for k, row := range rows {
		v := value(row)
		if window <= 0 {
			pts[k] = plotter.XY{X: (row.Time - start) / div, Y: v}
			continue
		}
		sum += v
		for rows[lo].Time <= row.Time-window {
			sum -= value(rows[lo])
			lo++
		}
		pts[k] = plotter.XY{X: (row.Time - start) / div, Y: sum / float64(k-lo+1)}
	}
	return pts
}

// Utilization plots each run's mean busy share per GPU type as grouped
// bars (one group per type, one bar per run).
func Utilization(runs []Run) (*Figure, error) { return UtilizationCI(runs, "") }

// UtilizationCI is Utilization with whiskers from the runs'
// UtilizationCI, their interval named in the legend.
func UtilizationCI(runs []Run, ciName string) (*Figure, error) {
	f := &Figure{}
	whiskers := false
	p := newPlot("GPU type", "mean GPUs busy (%)")
	f.Panels = []*plot.Plot{p}
	var types []string
	for _, r := range runs {
		for _, t := range r.Types {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		if len(r.Types) == 0 {
			for _, t := range sortedTypes(r.Utilization) {
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("plots: utilization: no GPU types in the runs")
	}
	w := vg.Points(1) // set from the categories' spacing when drawn
	for i, r := range runs {
		vals := make(plotter.Values, len(types))
		for k, t := range types {
			vals[k] = 100 * r.Utilization[t]
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("plots: utilization: %w", err)
		}
		slot := barSlot{k: i, n: len(runs), dir: 1}
		hb := newHatchedBars(b, slot)
		p.Add(hb)
		f.addLegend(r.Label, hb)
		var errs []errBar
		for k, t := range types {
			if ci, ok := r.UtilizationCI[t]; ok {
				errs = append(errs, errBar{pos: float64(k), lo: 100 * ci[0], hi: 100 * ci[1], slot: &slot})
			}
		}
		if len(errs) > 0 {
			p.Add(errBarsPlotter{bars: errs})
			whiskers = true
		}
	}
	if whiskers && ciName != "" {
		f.addLegend(ciName, errBarsPlotter{})
	}
	p.NominalX(types...)
	p.X.Min, p.X.Max = -0.5, float64(len(types))-0.5
	// From 0 to just above the highest bar or whisker (not always 100:
	// shares of a few percent would be flat lines).
	top := 0.0
	for _, r := range runs {
		for _, t := range types {
			top = math.Max(top, 100*r.Utilization[t])
			if ci, ok := r.UtilizationCI[t]; ok {
				top = math.Max(top, 100*ci[1])
			}
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Min(100, math.Max(1, top*1.1))
	return f, nil
}

func sortedTypes(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Curve is one line of a load-sweep figure: a value per density, with an
// optional confidence interval per point (Lo, Hi; nil = none).
type Curve struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
}

// Panel is one facet of a load figure: its title (e.g. the trace) and
// curves.
type Panel struct {
	Title  string
	Curves []Curve
}

// LoadCurves plots a metric against the load density, one panel per
// facet (trace), one line with markers per policy; the legend is shared,
// so a policy has the same colour, dashes and marker in every panel.
func LoadCurves(yLabel string, panels []Panel) (*Figure, error) {
	return LoadCurvesCI(yLabel, panels, "")
}

// LoadCurvesCI is LoadCurves with the error bars' interval named in the
// legend ("" = no entry).
func LoadCurvesCI(yLabel string, panels []Panel, ciName string) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plots: load: no panels")
	}
	f := &Figure{}
	whiskers := false
	index := map[string]int{}
	var labels []string
	for _, pn := range panels {
		for _, c := range pn.Curves {
			if !slices.Contains(labels, c.Label) {
				labels = append(labels, c.Label)
			}
		}
	}
	for _, pn := range panels {
		p := newPlot("load density (× iterations)", yLabel)
		p.Title.Text = pn.Title
		top := 0.0
		for _, c := range pn.Curves {
			i, ok := index[c.Label]
			if !ok {
				i = len(index)
				index[c.Label] = i
			}
			pts := make(plotter.XYs, len(c.X))
			for k := range c.X {
				pts[k] = plotter.XY{X: c.X[k], Y: c.Y[k]}
				top = math.Max(top, c.Y[k])
				if k < len(c.Hi) {
					top = math.Max(top, c.Hi[k])
				}
			}
			l, s, err := line(pts, i, 0)
			if err != nil {
				return nil, fmt.Errorf("plots: load %s: %w", c.Label, err)
			}
			p.Add(l, s)
			if len(c.Lo) == len(c.X) && len(c.Hi) == len(c.X) {
				// Each line's whiskers in its colour, dodged 2.5 pt
				// per line about the point.
				dx := vg.Points(2.5 * (float64(i) - float64(len(labels)-1)/2))
				var eb []errBar
				for k := range c.X {
					eb = append(eb, errBar{pos: c.X[k], lo: c.Lo[k], hi: c.Hi[k], dx: dx})
				}
				p.Add(errBarsPlotter{bars: eb, color: Color(i)})
				whiskers = true
			}
			if !ok {
				f.addLegend(c.Label, l, s)
			}
		}
		p.X.Min = 0
		p.Y.Min, p.Y.Max = 0, math.Max(top*1.05, 1)
		f.Panels = append(f.Panels, p)
	}
	if whiskers && ciName != "" {
		f.addLegend(ciName, errBarsPlotter{})
	}
	f.shareAxes(false)
	return f, nil
}

// niceTicks puts about five major ticks (or, with few set, about that
// many less one: a narrow panel's) at 1, 2 or 5 × 10^k steps and labels
// them without trailing zeros (gonum's default prints "2.50").
type niceTicks struct{ few int }

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	n := 6.0
	if t.few > 0 {
		n = float64(t.few)
	}
	raw := (hi - lo) / n
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	e := int(math.Floor(math.Log10(step) + 1e-9))
	prec := max(0, -e)
	if m := step / math.Pow(10, float64(e)); math.Abs(m-2.5) < 1e-9 && e <= 0 {
		prec = 1 - e
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		x := math.Round(v/step) * step
		if math.Abs(x) < step*1e-9 {
			x = 0
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', prec, 64)})
		if minor := x + step/2; minor < hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}
