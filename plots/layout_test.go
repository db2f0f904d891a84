package plots

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"image/color"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// A y axis' label is drawn turned a quarter: its recorded box is narrow
// and tall (its text's width runs up the canvas), and it lies inside the
// canvas left of the data. A title wider than the figure is wrapped into
// lines that stay inside the canvas and apart.
func TestTextBoxesFollowTheCanvasTransforms(t *testing.T) {
	f := &Figure{Panels: []*plot.Plot{newPlot("x (s)", "a long y label (units)")}}
	f.Title = strings.Repeat("a title far too long for a column figure ", 3)
	boxes := f.textBoxes(Render{})
	var y TextBox
	titleLines := 0
	for _, b := range boxes {
		if b.Text == "a long y label (units)" {
			y = b
		}
		if b.Size == 9 && strings.Contains(f.Title, b.Text) {
			titleLines++
		}
	}
	w, h := y.Rect.Max.X-y.Rect.Min.X, y.Rect.Max.Y-y.Rect.Min.Y
	if !(h > 4*w) || y.Rect.Min.X < 0 || y.Rect.Min.X > vg.Points(20) {
		t.Errorf("y label box %v: want tall and narrow at the left edge", rectString(y.Rect))
	}
	if titleLines < 2 {
		t.Errorf("the long title is %d line(s), want it wrapped", titleLines)
	}
	if p := LayoutProblems(boxes, Column.W, Column.H); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
}

// Hand-made boxes: one leaving the canvas, two overlapping, one set in
// 5 pt; boxes 1 pt apart side by side, or touching one above the other,
// are apart.
func TestLayoutProblems(t *testing.T) {
	box := func(s string, size, x0, y0, x1, y1 float64) TextBox {
		return TextBox{Text: s, Size: vg.Length(size), Rect: vg.Rectangle{Min: vg.Point{X: vg.Length(x0), Y: vg.Length(y0)}, Max: vg.Point{X: vg.Length(x1), Y: vg.Length(y1)}}}
	}
	got := LayoutProblems([]TextBox{
		box("out", 8, -3, 10, 20, 19),
		box("a", 8, 50, 50, 70, 59), box("b", 8, 65, 55, 90, 64),
		box("apart", 8, 91, 55, 100, 64), box("above", 8, 50, 59, 60, 68),
		box("tiny", 5, 100, 100, 110, 105),
	}, 200, 150)
	want := []string{`"out"`, `"a"`, `"b"`, `"tiny" is set in 5.0 pt`}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %s:\n%s", w, all)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d problems, want 3 (clipped, overlap, small):\n%s", len(got), all)
	}
}

// figureKinds are the figures package plots draws, each with data that
// crowds it (eight policies with long names, four GPU types, fifteen
// tenants, three faults presets), and the constructors they exercise:
// TestEveryConstructorIsChecked fails when a constructor is in none.
func figureKinds(t *testing.T) []struct {
	name  string
	uses  []string
	build func() (*Figure, error)
} {
	runs := eightRuns()
	for i := range runs {
		runs[i].Label = fmt.Sprintf("quota(gavel-fair-%d)", i)
		runs[i].Types = []string{"a100", "v100", "a40", "a10"}
		runs[i].Utilization = map[string]float64{"a100": 0.9, "v100": 0.5, "a40": 0.3, "a10": 0.2}
		runs[i].UtilizationCI = map[string][2]float64{"a100": {0.8, 1}}
		runs[i].MeanJCTCI = [2]float64{runs[i].MeanJCT * 0.9, runs[i].MeanJCT * 1.1}
	}
	var groups []SeedGroup
	for _, r := range runs {
		groups = append(groups, SeedGroup{Label: r.Label, Seeds: []Run{r, r, r}})
	}
	var curves []Curve
	for i, r := range runs {
		curves = append(curves, Curve{Label: r.Label, X: []float64{0.5, 1, 2}, Y: []float64{1, 2, 4 + float64(i)}, Lo: []float64{0.5, 1, 3}, Hi: []float64{2, 3, 6 + float64(i)}})
	}
	var shares []TenantShare
	for _, p := range []string{"fcfs", "quota(fcfs)", "arena", "quota(arena)", "gavel-fair", "quota(gavel-fair)"} {
		s := TenantShare{Label: p, Capacity: 1280}
		for k := range 50 {
			s.Times = append(s.Times, 3600*float64(k))
		}
		for i := range 15 {
			s.Tenants = append(s.Tenants, fmt.Sprintf("vc%06x", 0xabc000+i))
			g := make([]float64, len(s.Times))
			for k := range g {
				g[k] = float64((15 - i) * (1 + k%5))
			}
			s.GPUs = append(s.GPUs, g)
		}
		shares = append(shares, s)
	}
	var rhos []RhoRun
	for _, r := range runs {
		rhos = append(rhos, RhoRun{Label: r.Label, Rhos: []float64{0.3, 0.9, 1.5, 4}})
	}
	var avail []AvailType
	for _, g := range []string{"a100", "v100", "a40", "a10"} {
		avail = append(avail, AvailType{GPU: g, Total: 320, Times: []float64{3600, 7200, 86400}, Avail: []float64{312, 304, 320},
			Marks: []FaultMark{{Time: 3600, Kind: "down", Avail: 312}, {Time: 7200, Kind: "drain", Avail: 304}}})
	}
	var lost []LostPanel
	for _, name := range []string{"llama3", "gcp-maintenance", "spot-reclaims"} {
		pn := LostPanel{Title: name}
		for i, r := range runs[:6] {
			pn.Lines = append(pn.Lines, LostLine{Label: r.Label, Times: []float64{0, 86400 * 7}, GPUHours: []float64{0, 50 * float64(i+1)}})
		}
		lost = append(lost, pn)
	}
	type kind = struct {
		name  string
		uses  []string
		build func() (*Figure, error)
	}
	var out []kind
	drawn := map[string]string{"jct-cdf": "JCTCDF", "jct-bars": "MeanJCTBars", "throughput": "Throughput", "queue": "QueueLength", "utilization": "Utilization", "occupancy": "Occupancy"}
	for _, k := range Kinds {
		out = append(out, kind{k, []string{"Draw", drawn[k]}, func() (*Figure, error) { return Draw(k, runs, Options{}) }})
	}
	out = append(out, kind{"jct-cdf common", []string{"JCTCDF"}, func() (*Figure, error) { return JCTCDF(runs, "common") }})
	for _, k := range SeedKinds {
		out = append(out, kind{"seeds " + k, []string{"DrawSeeds", "JCTCDFSeeds"}, func() (*Figure, error) { return DrawSeeds(k, groups, Options{}) }})
	}
	return append(out,
		kind{"jct-bars over seeds", []string{"MeanJCTBars", "MeanJCTBarsCI"}, func() (*Figure, error) { return MeanJCTBarsCI(runs, IntervalName(3)) }},
		kind{"utilization over seeds", []string{"Utilization", "UtilizationCI"}, func() (*Figure, error) { return UtilizationCI(runs, IntervalName(3)) }},
		kind{"load, one trace", []string{"LoadCurves", "LoadCurvesCI"}, func() (*Figure, error) {
			return LoadCurvesCI("padded mean JCT (h)", []Panel{{Curves: curves}}, IntervalName(3))
		}},
		kind{"load, three traces", []string{"LoadCurvesCI"}, func() (*Figure, error) {
			return LoadCurvesCI("mean throughput (samples/s)", []Panel{{"philly", curves}, {"helios-venus", curves}, {"alibaba-pai", curves}}, IntervalName(3))
		}},
		kind{"tenant-share", []string{"TenantShares"}, func() (*Figure, error) { return TenantShares(shares, 0) }},
		kind{"rho-cdf", []string{"RhoCDF"}, func() (*Figure, error) { return RhoCDF(rhos) }},
		kind{"availability", []string{"Availability"}, func() (*Figure, error) {
			f, err := Availability(avail, 7*86400)
			if err == nil {
				f.Title = "GPUs available by type under gcp-maintenance (seed 1; the same for every policy)"
			}
			return f, err
		}},
		kind{"lost-work", []string{"CumulativeLost"}, func() (*Figure, error) {
			f, err := CumulativeLost(lost, 7*86400)
			if err == nil {
				f.Title = "Progress lost to interruptions, by policy (mean of 5 seeds)"
			}
			return f, err
		}},
	)
}

// Every figure kind, crowded, drawn at column width (3.3 × 2.4 in; a
// figure of r rows of panels 1 + 0.7·(r−1) times as tall, as the report
// draws them) has every text box inside the canvas, apart from the others
// and at 6 pt or more.
func TestEveryKindFitsAtColumnWidth(t *testing.T) {
	for _, k := range figureKinds(t) {
		f, err := k.build()
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		size := Column
		if cols := max(f.Cols, 1); f.Cols > 0 {
			rows := (len(f.Panels) + cols - 1) / cols
			size.H *= vg.Length(1 + 0.7*float64(rows-1))
		}
		boxes := f.textBoxes(Render{Size: size})
		if len(boxes) < 4 {
			t.Errorf("%s: %d strings drawn: the recorder missed the text", k.name, len(boxes))
		}
		for _, p := range LayoutProblems(boxes, size.W, size.H) {
			t.Errorf("%s: %s", k.name, p)
		}
	}
}

// Every exported function of the package that makes a *Figure is
// exercised by a kind of figureKinds, so a new figure joins the check.
func TestEveryConstructorIsChecked(t *testing.T) {
	used := map[string]bool{}
	for _, k := range figureKinds(t) {
		for _, u := range k.uses {
			used[u] = true
		}
	}
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil {
					continue
				}
				for _, r := range fn.Type.Results.List {
					if star, ok := r.Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok && id.Name == "Figure" && !used[fn.Name.Name] {
							t.Errorf("%s makes a *Figure but no kind of figureKinds draws it", fn.Name.Name)
						}
					}
				}
			}
		}
	}
}

// The tenant bands stay apart without colour: in greyscale (0.299 R +
// 0.587 G + 0.114 B) each band is lighter than the one under it by at
// least 20 of 255, and "other", on top, lighter still.
func TestTenantBandsOrderedInLightness(t *testing.T) {
	grey := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
	}
	for n := 1; n <= MaxTenantBands; n++ {
		var gs []float64
		for i := range n {
			gs = append(gs, grey(bandColor(i, n)))
		}
		gs = append(gs, grey(otherBand))
		for i := 1; i < len(gs); i++ {
			if gs[i]-gs[i-1] < 20 {
				t.Errorf("%d bands: band %d grey %.0f, band %d %.0f: under 20 apart", n, i-1, gs[i-1], i, gs[i])
			}
		}
		if !slices.IsSorted(gs) || math.IsNaN(gs[0]) {
			t.Errorf("%d bands: greys %v not increasing", n, gs)
		}
	}
}
