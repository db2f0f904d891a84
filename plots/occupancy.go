package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/arena-sim/arena/sim"
)

// Occupancy is the Gantt-style picture of one run: every GPU of the
// cluster (y, grouped by type in slot order) over simulated time (x),
// filled while a job holds it, one colour per job (neighbouring jobs
// differ), white while idle. It shows how a policy packs, resizes and
// migrates jobs.
func Occupancy(r Run) (*Figure, error) {
	if len(r.Allocations) == 0 {
		return nil, fmt.Errorf("plots: occupancy: run %s has no allocations table (allocations.parquet; results written before it existed lack it)", r.Label)
	}
	total := 0
	for _, tc := range r.GPUs {
		total += tc.N
	}
	end := 0.0
	for _, a := range r.Allocations {
		end = math.Max(end, a.End-r.Start)
		total = max(total, int(a.FirstSlot+a.Slots))
	}
	unit, div := "h", 3600.0
	if end > 3*86400 {
		unit, div = "days", 86400
	}
	p := newPlot("simulated time ("+unit+")", "GPU (by type)")
	p.Add(occupancyPlotter{allocs: r.Allocations, start: r.Start, div: div})
	p.X.Min, p.X.Max = 0, end/div
	p.Y.Min, p.Y.Max = 0, float64(total)
	// Type names at the middle of each type's slots, boundaries as ticks.
	var ticks []plot.Tick
	at := 0
	for _, tc := range r.GPUs {
		ticks = append(ticks, plot.Tick{Value: float64(at)}, plot.Tick{Value: float64(at) + float64(tc.N)/2, Label: tc.Type})
		at += tc.N
	}
	ticks = append(ticks, plot.Tick{Value: float64(at)})
	if len(r.GPUs) > 0 {
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		p.Add(typeRules{at: ticks})
	}
	f := &Figure{Panels: []*plot.Plot{p}}
	return f, nil
}

type occupancyPlotter struct {
	allocs     []sim.AllocRecord
	start, div float64
}

// jobColors: Okabe–Ito without black and yellow, then lighter tints, so
// consecutive job IDs get well-separated colours.
var jobColors = func() []color.Color {
	var out []color.Color
	for _, c := range palette[:6] {
		out = append(out, c)
	}
	for _, c := range palette[:6] {
		out = append(out, color.RGBA{uint8((int(c.R) + 255) / 2), uint8((int(c.G) + 255) / 2), uint8((int(c.B) + 255) / 2), 0xff})
	}
	return out
}()

func (o occupancyPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, a := range o.allocs {
		x0, x1 := trX((a.Start-o.start)/o.div), trX((a.End-o.start)/o.div)
		y0, y1 := trY(float64(a.FirstSlot)), trY(float64(a.FirstSlot+a.Slots))
		if x1-x0 < vg.Points(0.2) {
			x1 = x0 + vg.Points(0.2)
		}
		rect := c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.FillPolygon(jobColors[int(a.Job)%len(jobColors)], rect)
	}
}

// typeRules draws a thin line at each GPU-type boundary.
type typeRules struct{ at []plot.Tick }

func (t typeRules) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: color.Gray{0x40}, Width: vg.Points(0.5)}
	for _, tk := range t.at {
		if tk.Label == "" {
			y := trY(tk.Value)
			c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		}
	}
}
