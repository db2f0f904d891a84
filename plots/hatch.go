package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Hatch is a bar fill pattern: lines at the given angles (degrees; none =
// a plain fill) every Spacing. Bars of different series differ in their
// hatch as well as their colour, so they stay apart in greyscale print
// (Okabe–Ito's blue and vermillion have almost the same grey).
type Hatch struct {
	Angles  []float64
	Spacing vg.Length
}

// hatches: plain first, then diagonal, anti-diagonal, horizontal,
// cross-hatched, vertical, dense diagonal, diamond.
var hatches = []Hatch{
	{},
	{[]float64{45}, vg.Points(2.6)},
	{[]float64{-45}, vg.Points(2.6)},
	{[]float64{0}, vg.Points(2.2)},
	{[]float64{45, -45}, vg.Points(3)},
	{[]float64{90}, vg.Points(2.2)},
	{[]float64{45}, vg.Points(1.5)},
	{[]float64{0, 90}, vg.Points(2.6)},
}

// HatchOf is series i's hatch (cycling past eight).
func HatchOf(i int) Hatch { return hatches[i%len(hatches)] }

// hatchStyle: white lines read on every palette colour and as light
// stripes on its grey.
var hatchStyle = draw.LineStyle{Color: color.White, Width: vg.Points(0.6)}

// outline separates touching bars of similar grey.
var barOutline = draw.LineStyle{Color: color.Black, Width: vg.Points(0.4)}

// hatchedBars is a bar chart whose bars (and legend thumbnail) carry a
// hatch over their fill. It is series slot of slots in each category;
// its width is set when drawn, from the category spacing on the canvas,
// so groups of bars never touch whatever the figure's size and legend.
type hatchedBars struct {
	*plotter.BarChart
	Hatch Hatch
	slot  barSlot
}

// barSlot places series k of n within a category: dir = +1 puts series 0
// first along the axis (left), −1 last (top of a horizontal chart).
type barSlot struct {
	k, n int
	dir  float64
}

// barShare is the share of a category's spacing its bars fill; maxBar
// the widest a bar gets.
const barShare = 0.78

var maxBar = vg.Points(14)

// geometry is the bar's width and offset when categories are step apart.
func (s barSlot) geometry(step vg.Length) (w, off vg.Length) {
	if step < 0 {
		step = -step
	}
	w = min(maxBar, step*barShare/vg.Length(s.n))
	return w, vg.Length(s.dir) * w * vg.Length(float64(s.k)-float64(s.n-1)/2)
}

func newHatchedBars(b *plotter.BarChart, slot barSlot) *hatchedBars {
	b.Color = Color(slot.k)
	b.LineStyle = barOutline
	return &hatchedBars{BarChart: b, Hatch: HatchOf(slot.k), slot: slot}
}

func (h *hatchedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	b := h.BarChart
	trCat, trVal := plt.Transforms(&c)
	if b.Horizontal {
		trCat, trVal = trVal, trCat
	}
	b.Width, b.Offset = h.slot.geometry(trCat(1) - trCat(0))
	// Fill first, then hatch, then the outline on top (the BarChart's
	// own outline would sit under the hatch).
	ls := b.LineStyle
	b.LineStyle.Width = 0
	b.Plot(c, plt)
	b.LineStyle = ls
	for i, v := range b.Values {
		cat := trCat(b.XMin+float64(i)) - b.Width/2 + b.Offset
		lo, hi := trVal(0), trVal(v)
		var r vg.Rectangle
		if b.Horizontal {
			r = vg.Rectangle{Min: vg.Point{X: lo, Y: cat}, Max: vg.Point{X: hi, Y: cat + b.Width}}
		} else {
			r = vg.Rectangle{Min: vg.Point{X: cat, Y: lo}, Max: vg.Point{X: cat + b.Width, Y: hi}}
		}
		if r.Min.X > r.Max.X {
			r.Min.X, r.Max.X = r.Max.X, r.Min.X
		}
		if r.Min.Y > r.Max.Y {
			r.Min.Y, r.Max.Y = r.Max.Y, r.Min.Y
		}
		r.Min.X, r.Max.X = max(r.Min.X, c.Min.X), min(r.Max.X, c.Max.X)
		r.Min.Y, r.Max.Y = max(r.Min.Y, c.Min.Y), min(r.Max.Y, c.Max.Y)
		if r.Max.X <= r.Min.X || r.Max.Y <= r.Min.Y {
			continue
		}
		h.Hatch.draw(c, r)
		if ls.Width > 0 {
			c.StrokeLines(ls, []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}, r.Min})
		}
	}
}

func (h *hatchedBars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(h.Color, []vg.Point{c.Min, {X: c.Min.X, Y: c.Max.Y}, c.Max, {X: c.Max.X, Y: c.Min.Y}})
	h.Hatch.draw(*c, c.Rectangle)
	if h.LineStyle.Width > 0 {
		c.StrokeLines(h.LineStyle, []vg.Point{c.Min, {X: c.Min.X, Y: c.Max.Y}, c.Max, {X: c.Max.X, Y: c.Min.Y}, c.Min})
	}
}

// draw strokes the hatch lines inside r, each clipped to it.
func (h Hatch) draw(c draw.Canvas, r vg.Rectangle) {
	for _, deg := range h.Angles {
		for _, seg := range hatchLines(r, deg, h.Spacing) {
			c.StrokeLine2(hatchStyle, seg[0].X, seg[0].Y, seg[1].X, seg[1].Y)
		}
	}
}

// hatchLines returns the segments of parallel lines at deg degrees,
// spacing apart (perpendicular distance), that lie inside r. Lines are
// anchored at the origin so neighbouring bars' hatches line up.
func hatchLines(r vg.Rectangle, deg float64, spacing vg.Length) [][2]vg.Point {
	if spacing <= 0 {
		return nil
	}
	th := deg * math.Pi / 180
	dx, dy := math.Cos(th), math.Sin(th) // direction
	nx, ny := -dy, dx                    // normal
	// Range of n·p over the rectangle's corners.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range []vg.Point{r.Min, r.Max, {X: r.Min.X, Y: r.Max.Y}, {X: r.Max.X, Y: r.Min.Y}} {
		d := nx*float64(p.X) + ny*float64(p.Y)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	s := float64(spacing)
	var out [][2]vg.Point
	for k := math.Ceil(lo / s); k*s <= hi; k++ {
		// Points p = o + t·d with n·o = k·s; clip t to the rectangle
		// (Liang–Barsky on the slab of each axis).
		ox, oy := nx*k*s, ny*k*s
		t0, t1 := math.Inf(-1), math.Inf(1)
		ok := true
		for _, ax := range [2][3]float64{{ox, dx, 0}, {oy, dy, 1}} {
			o, d := ax[0], ax[1]
			mn, mx := float64(r.Min.X), float64(r.Max.X)
			if ax[2] == 1 {
				mn, mx = float64(r.Min.Y), float64(r.Max.Y)
			}
			if math.Abs(d) < 1e-12 {
				if o < mn || o > mx {
					ok = false
				}
				continue
			}
			a, b := (mn-o)/d, (mx-o)/d
			if a > b {
				a, b = b, a
			}
			t0, t1 = math.Max(t0, a), math.Min(t1, b)
		}
		if !ok || t1-t0 < 1e-9 {
			continue
		}
		out = append(out, [2]vg.Point{
			{X: vg.Length(ox + t0*dx), Y: vg.Length(oy + t0*dy)},
			{X: vg.Length(ox + t1*dx), Y: vg.Length(oy + t1*dy)},
		})
	}
	return out
}
