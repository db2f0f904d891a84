package plots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// eightRuns are sampleRuns' first run under eight policy names.
func eightRuns() []Run {
	base := sampleRuns()[0]
	var runs []Run
	for i := range 8 {
		r := base
		r.Label = fmt.Sprintf("policy-%d", i)
		r.CensoredMeanJCT = r.MeanJCT * 1.1
		runs = append(runs, r)
	}
	return runs
}

// greySignature is what tells a legend entry's series apart without
// colour: dash pattern, marker shape, bar hatch ("" for the entries that
// explain a mark rather than name a series: bands, whiskers, the
// unfinished-job cross).
func greySignature(e LegendEntry) string {
	var parts []string
	for _, th := range e.Thumbs {
		switch v := th.(type) {
		case *plotter.Line:
			parts = append(parts, fmt.Sprintf("dash%v", v.LineStyle.Dashes))
		case *plotter.Scatter:
			parts = append(parts, fmt.Sprintf("mark%T", v.GlyphStyle.Shape))
		case *hatchedBars:
			parts = append(parts, fmt.Sprintf("hatch%v/%v", v.Hatch.Angles, v.Hatch.Spacing))
		case bandThumb, errBarsPlotter:
			return ""
		}
	}
	if strings.HasPrefix(e.Label, "unfinished") {
		return ""
	}
	return strings.Join(parts, " ")
}

// Every pair of series in every figure kind differs in something other
// than colour (dashes, marker or hatch), so the figure survives greyscale
// print. Before the hatches, bars differed in colour only, and
// Okabe–Ito's blue and vermillion print as nearly the same grey.
func TestSeriesDifferInGreyscale(t *testing.T) {
	runs := eightRuns()
	var figs = map[string]*Figure{}
	for _, k := range []string{"jct-cdf", "throughput", "queue", "utilization"} {
		f, err := Draw(k, runs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		figs[k] = f
	}
	// The bars' series are the three means, not the runs.
	bars, err := MeanJCTBars([]Run{{Label: "a", MeanJCT: 1, CensoredMeanJCT: 2, PaddedMeanJCT: 3}})
	if err != nil {
		t.Fatal(err)
	}
	figs["jct-bars"] = bars
	var groups []SeedGroup
	for _, r := range runs {
		groups = append(groups, SeedGroup{Label: r.Label, Seeds: []Run{r, r}})
	}
	for _, k := range SeedKinds {
		f, err := DrawSeeds(k, groups, Options{})
		if err != nil {
			t.Fatal(err)
		}
		figs["seeds "+k] = f
	}
	var curves []Curve
	for i := range 8 {
		curves = append(curves, Curve{Label: fmt.Sprint(i), X: []float64{1, 2}, Y: []float64{1, 2}})
	}
	load, err := LoadCurves("y (h)", []Panel{{Curves: curves}})
	if err != nil {
		t.Fatal(err)
	}
	figs["load"] = load
	for name, f := range figs {
		seen := map[string]string{}
		n := 0
		for _, e := range f.Legend {
			sig := greySignature(e)
			if sig == "" {
				continue
			}
			n++
			if prev, dup := seen[sig]; dup {
				t.Errorf("%s: %q and %q differ only in colour (%s)", name, prev, e.Label, sig)
			}
			seen[sig] = e.Label
		}
		if want := 8; name == "jct-bars" {
			if n != 3 {
				t.Errorf("%s: %d series, want 3", name, n)
			}
		} else if n != want {
			t.Errorf("%s: %d series in the legend, want %d", name, n, want)
		}
	}
}

// A legend of eight long labels at column width (3.3 × 2.4 in) must stay
// under a quarter of the figure's height: before, it flowed to one row
// per entry (8 × 10.8 pt = 86 pt of a 173-pt figure). Short labels keep
// the figure's font size.
func TestLegendUnderAQuarterOfTheHeight(t *testing.T) {
	f := &Figure{}
	for i := range 8 {
		l, _, err := line(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.addLegend(fmt.Sprintf("exec:python3 examples/python/policy_%d.py (986/986)", i), l)
	}
	const pad = 3
	width := Column.W - 2*vg.Points(pad)
	l := f.layoutLegend(width, LegendBudget(Column.H)-vg.Points(pad), 8)
	if l.height+vg.Points(pad) >= Column.H/4 {
		t.Errorf("legend %.1f pt (+%d pt padding) in a %.1f-pt figure: not under a quarter", l.height.Points(), pad, Column.H.Points())
	}
	st := legendStyle(l.size)
	thumbW, gap, _ := legendMetrics(l.size)
	for _, it := range l.items {
		if right := it.x + thumbW + gap + st.Width(it.label); right > width+1e-9 {
			t.Errorf("entry %q ends at %.1f pt, past the legend's %.1f pt", it.label, right.Points(), width.Points())
		}
	}
	t.Logf("legend: %v pt font, %d rows, %.1f pt high; first label %q", l.size, l.rows, l.height.Points(), l.items[0].label)
	labels := map[string]bool{}
	for _, it := range l.items {
		labels[it.label] = true
	}
	if len(labels) != len(l.items) {
		t.Errorf("shortened labels no longer tell the entries apart: %v", labels)
	}
	if len(l.items) != 8 {
		t.Errorf("%d entries placed, want 8", len(l.items))
	}
	if _, err := f.Encode(Render{Format: "png"}); err == nil {
		t.Error("a figure without panels rendered")
	}
	f.Panels = []*plot.Plot{newPlot("x (s)", "y (s)")}
	if _, err := f.Encode(Render{Format: "pdf"}); err != nil {
		t.Errorf("the crowded legend does not render: %v", err)
	}
	short := &Figure{Legend: f.Legend[:3]}
	for i := range short.Legend {
		short.Legend[i].Label = fmt.Sprint("p", i)
	}
	if l := short.layoutLegend(width, LegendBudget(Column.H), 8); l.size != 8 || l.rows != 1 {
		t.Errorf("three short labels: %v pt in %d rows, want 8 pt in one row", l.size, l.rows)
	}
}

// Outside anchors: t(0.975, 2) = 4.302653 from the t table gives {1, 2,
// 3} → 2 ± 2.484; and the interval covers the true mean of normal samples
// in 95 % of draws at any n (here 4000 draws each of n = 3 and 5 from
// N(10, 2²): binomial sd 0.34 %, so 93–97 % is a > 5 sd band).
func TestTInterval(t *testing.T) {
	iv := TInterval([]float64{1, 2, 3, math.NaN()})
	if iv.N != 3 || iv.Mean != 2 || math.Abs(iv.Hi-2-4.302653/math.Sqrt(3)) > 1e-5 || math.Abs(iv.Mean-iv.Lo-(iv.Hi-iv.Mean)) > 1e-12 {
		t.Errorf("TInterval{1,2,3} = %+v, want 2 ± 2.48414", iv)
	}
	if one := TInterval([]float64{4}); one.Lo != 4 || one.Hi != 4 {
		t.Errorf("one value: %+v, want a degenerate interval", one)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{3, 5} {
		covered := 0
		const draws = 4000
		xs := make([]float64, n)
		for range draws {
			for i := range xs {
				xs[i] = 10 + 2*r.NormFloat64()
			}
			if iv := TInterval(xs); iv.Lo <= 10 && 10 <= iv.Hi {
				covered++
			}
		}
		if c := float64(covered) / draws; c < 0.93 || c > 0.97 {
			t.Errorf("n = %d: coverage %.3f, want 0.93–0.97", n, c)
		}
	}
}

// Hatch lines lie inside their bar and are about spacing apart.
func TestHatchLinesStayInTheBar(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 10, Y: 20}, Max: vg.Point{X: 40, Y: 30}}
	for _, h := range hatches[1:] {
		for _, deg := range h.Angles {
			segs := hatchLines(r, deg, h.Spacing)
			if len(segs) == 0 {
				t.Errorf("angle %v: no lines in a 30×10 pt bar", deg)
			}
			for _, s := range segs {
				for _, p := range s {
					if p.X < r.Min.X-1e-9 || p.X > r.Max.X+1e-9 || p.Y < r.Min.Y-1e-9 || p.Y > r.Max.Y+1e-9 {
						t.Errorf("angle %v: point %v outside %v", deg, p, r)
					}
				}
			}
		}
	}
	// Horizontal lines 2.2 pt apart across 10 pt: 4 or 5 of them.
	if n := len(hatchLines(r, 0, vg.Points(2.2))); n < 4 || n > 5 {
		t.Errorf("%d horizontal lines, want 4–5", n)
	}
	if !slices.Equal(HatchOf(0).Angles, nil) || HatchOf(8).Spacing != HatchOf(0).Spacing {
		t.Error("series 0 should be plain and hatches cycle past eight")
	}
}
