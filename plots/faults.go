package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// AvailType is one GPU type's available GPUs over a run with faults
// (availability.parquet): Total GPUs of the type, and after each event at
// Times[i] (seconds since the run's start) Avail[i] of them on nodes that
// take jobs. Marks are the events that took a node out.
type AvailType struct {
	GPU   string
	Total int
	Times []float64
	Avail []float64
	Marks []FaultMark
}

// FaultMark is one event that took a node out, drawn where the line is
// right after it: Kind "down" (a failure), "drain" (maintenance with
// notice) or "reclaim" (spot capacity taken back with notice).
type FaultMark struct {
	Time  float64
	Kind  string
	Avail float64
}

// faultMarkKinds fixes each kind's glyph, colour and legend label:
// failures stand out (vermillion crosses), planned events are quieter.
var faultMarkKinds = []struct {
	kind, label string
	style       draw.GlyphStyle
}{
	{"down", "node failure", draw.GlyphStyle{Color: palette[1], Radius: vg.Points(2.4), Shape: draw.CrossGlyph{}}},
	{"drain", "maintenance drain (notice starts)", draw.GlyphStyle{Color: palette[0], Radius: vg.Points(2), Shape: draw.TriangleGlyph{}}},
	{"reclaim", "spot reclaim (notice starts)", draw.GlyphStyle{Color: palette[2], Radius: vg.Points(2), Shape: draw.SquareGlyph{}}},
}

// Availability draws, one panel per GPU type (two columns), the GPUs of
// the type on nodes that take jobs (up; not down, draining or reclaimed)
// as a step line over the run's span (seconds), every failure, drain and
// reclaim marked where it took the capacity, and a dashed line at the
// type's total. Each panel's y axis starts below the lowest point by a
// tenth of the total or more, so a dip of one node is visible but not
// blown up to the panel's height.
func Availability(types []AvailType, span float64) (*Figure, error) {
	if len(types) == 0 {
		return nil, fmt.Errorf("plots: availability: no GPU type")
	}
	div, _, _ := timeAxis(span, -1)
	unit := "h"
	if div == 86400 {
		unit = "days"
	}
	f := &Figure{Cols: min(len(types), 2)}
	used := map[string]bool{}
	line := draw.LineStyle{Color: color.Gray{0x30}, Width: vg.Points(0.9)}
	for _, t := range types {
		p := newPlot("simulated time ("+unit+")", "GPUs available")
		p.Title.Text = fmt.Sprintf("%s (%d GPUs)", t.GPU, t.Total)
		pts := plotter.XYs{{X: 0, Y: float64(t.Total)}}
		prev, lo := float64(t.Total), float64(t.Total)
		for i, at := range t.Times {
			x := at / div
			pts = append(pts, plotter.XY{X: x, Y: prev}, plotter.XY{X: x, Y: t.Avail[i]})
			prev, lo = t.Avail[i], math.Min(lo, t.Avail[i])
		}
		pts = append(pts, plotter.XY{X: span / div, Y: prev})
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: availability %s: %w", t.GPU, err)
		}
		l.LineStyle = line
		p.Add(hRule{y: float64(t.Total)}, l)
		for _, k := range faultMarkKinds {
			var xy plotter.XYs
			for _, m := range t.Marks {
				if m.Kind == k.kind {
					xy = append(xy, plotter.XY{X: m.Time / div, Y: m.Avail})
				}
			}
			if len(xy) == 0 {
				continue
			}
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, fmt.Errorf("plots: availability %s: %w", t.GPU, err)
			}
			s.GlyphStyle = k.style
			p.Add(s)
			used[k.kind] = true
		}
		total := float64(t.Total)
		p.X.Min, p.X.Max = 0, span/div
		p.Y.Min = math.Max(0, math.Floor(math.Min(lo-0.05*total, 0.9*total)))
		p.Y.Max = total + math.Max(1, 0.03*total)
		f.Panels = append(f.Panels, p)
	}
	f.shareAxes(false)
	l, _ := plotter.NewLine(plotter.XYs{{}, {X: 1}})
	l.LineStyle = line
	f.addLegend("GPUs on nodes taking jobs", l)
	f.addLegend("all GPUs of the type", hRule{})
	for _, k := range faultMarkKinds {
		if used[k.kind] {
			s, _ := plotter.NewScatter(plotter.XYs{{}})
			s.GlyphStyle = k.style
			f.addLegend(k.label, s)
		}
	}
	return f, nil
}

// LostLine is one policy's cumulative progress lost to interruptions:
// GPUHours[i] at Times[i] (seconds since the run's start).
type LostLine struct {
	Label    string
	Times    []float64
	GPUHours []float64
}

// LostPanel is one panel of CumulativeLost (one faults preset).
type LostPanel struct {
	Title string
	Lines []LostLine
}

// CumulativeLost draws, one panel per faults preset side by side, each
// policy's cumulative GPU-hours of progress lost to interruptions (the
// work redone) over the run's span (seconds). Lines keep their colour and
// dash by position, so the panels list policies in the same order; the
// legend is the first panel's.
func CumulativeLost(panels []LostPanel, span float64) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plots: lost-work: no panel")
	}
	div, _, _ := timeAxis(span, -1)
	unit := "h"
	if div == 86400 {
		unit = "days"
	}
	f := &Figure{Cols: min(len(panels), 3)}
	top := 0.0
	for pi, pn := range panels {
		p := newPlot("simulated time ("+unit+")", "GPU-hours lost (cumulative)")
		p.Title.Text = pn.Title
		for i, ln := range pn.Lines {
			pts := make(plotter.XYs, len(ln.Times))
			for k := range ln.Times {
				pts[k] = plotter.XY{X: ln.Times[k] / div, Y: ln.GPUHours[k]}
				top = math.Max(top, ln.GPUHours[k])
			}
			if len(pts) == 0 {
				continue
			}
			l, s, err := line(pts, i, 6)
			if err != nil {
				return nil, fmt.Errorf("plots: lost-work %s: %w", ln.Label, err)
			}
			p.Add(l, s)
			if pi == 0 {
				f.addLegend(ln.Label, l, s)
			}
		}
		p.X.Min, p.X.Max = 0, span/div
		f.Panels = append(f.Panels, p)
	}
	// One y scale: the presets compare at a glance.
	for _, p := range f.Panels {
		p.Y.Min, p.Y.Max = 0, math.Max(top*1.05, 1)
	}
	f.shareAxes(true)
	return f, nil
}

// hRule is a dashed grey horizontal line at y (and a legend thumbnail).
type hRule struct{ y float64 }

var hRuleStyle = draw.LineStyle{Color: color.Gray{0x80}, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}

func (h hRule) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(hRuleStyle, c.Min.X, y, c.Max.X, y)
}

func (h hRule) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(hRuleStyle, c.Min.X, y, c.Max.X, y)
}
