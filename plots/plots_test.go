package plots

import (
	"bytes"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/arena-sim/arena/sim"
)

func sampleRuns() []Run {
	mk := func(label string, scale float64) Run {
		r := Run{Label: label, Types: []string{"a100", "a10"}, Start: 1000,
			Utilization: map[string]float64{"a100": 0.5 * scale, "a10": 0.25},
			GPUs:        []TypeCount{{"a100", 4}, {"a10", 2}}}
		for i := range 50 {
			r.JCTs = append(r.JCTs, scale*float64(600+i*900))
			r.Jobs = append(r.Jobs, Job{ID: int32(i), Time: scale * float64(600+i*900), Finished: true})
			r.Timeline = append(r.Timeline, sim.RoundRecord{Round: int32(i), Time: 1000 + 300*float64(i),
				Throughput: scale * float64(100+i), Pending: int32(i % 7), Busy: []int32{int32(i % 4), 2}})
			r.Allocations = append(r.Allocations, sim.AllocRecord{Job: int32(i), GPU: "a100", FirstSlot: int32(i % 4), Slots: 1,
				Start: 1000 + 300*float64(i), End: 1000 + 300*float64(i+3)})
		}
		r.Jobs = append(r.Jobs, Job{ID: 50, Time: 40000, Finished: false})
		r.MeanJCT = scale * 22650
		r.PaddedMeanJCT = r.MeanJCT * 1.5
		return r
	}
	return []Run{mk("fcfs", 1), mk("elasticflow-ls", 0.8)}
}

func TestEveryKindRendersInEveryFormatAndSize(t *testing.T) {
	runs := sampleRuns()
	for _, kind := range Kinds {
		f, err := Draw(kind, runs, Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if f.Title != "" {
			t.Errorf("%s: a title by default (%q): the caption belongs to the paper", kind, f.Title)
		}
		p := f.Panels[0]
		if p.X.Label.Text == "" || (p.Y.Label.Text == "" && kind != "jct-bars") {
			t.Errorf("%s: axes must be labelled (x %q, y %q)", kind, p.X.Label.Text, p.Y.Label.Text)
		}
		if !strings.Contains(p.X.Label.Text+p.Y.Label.Text, "(") {
			t.Errorf("%s: the labels %q / %q name no unit", kind, p.X.Label.Text, p.Y.Label.Text)
		}
		for _, size := range []Size{Column, Full} {
			data, err := f.Encode(Render{Format: "png", Size: size})
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: not a PNG: %v", kind, err)
			}
			// 200 dpi: 3.3 in → 660 px, 7 in → 1400 px.
			if want := int(math.Round(float64(size.W/vg.Inch) * 200)); img.Bounds().Dx() != want {
				t.Errorf("%s %s: %d px wide, want %d", kind, size.Name, img.Bounds().Dx(), want)
			}
		}
		svg, err := f.Encode(Render{Format: "svg"})
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Fatalf("%s: svg: %v", kind, err)
		}
		if kind != "occupancy" {
			for _, r := range runs {
				if !bytes.Contains(svg, []byte(r.Label)) {
					t.Errorf("%s: legend or axis lacks %q", kind, r.Label)
				}
			}
		}
		pdf, err := f.Encode(Render{Format: "pdf"})
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
			t.Fatalf("%s: pdf: %v", kind, err)
		}
	}
}

// lineOf returns the data of legend entry i's line.
func lineOf(t *testing.T, f *Figure, i int) plotter.XYs {
	t.Helper()
	l, ok := f.Legend[i].Thumbs[0].(*plotter.Line)
	if !ok {
		t.Fatalf("legend entry %d is not a line", i)
	}
	return l.XYs
}

// Hand-worked: run a finished 2 of its 4 submitted jobs, run b all 4.
// Over all submitted jobs a's curve must stop at 0.5 (not 1, as a CDF
// over its own finished jobs would), b's at 1. Over the common set (jobs
// 1 and 2, the only ones both finished) both end at 1.
func TestJCTCDFPopulations(t *testing.T) {
	a := Run{Label: "a", Jobs: []Job{{1, 3600, true}, {2, 7200, true}, {3, 9000, false}, {4, 9000, false}}}
	b := Run{Label: "b", Jobs: []Job{{1, 1800, true}, {2, 3600, true}, {3, 5400, true}, {4, 7200, true}}}
	f, err := JCTCDF([]Run{a, b}, "all")
	if err != nil {
		t.Fatal(err)
	}
	if got := lineOf(t, f, 0); got[len(got)-1].Y != 0.5 || got[len(got)-1].X != 2 {
		t.Errorf("a over all jobs ends at %v, want (2 h, 0.5)", got[len(got)-1])
	}
	if got := lineOf(t, f, 1); got[len(got)-1].Y != 1 {
		t.Errorf("b over all jobs ends at %v, want 1", got[len(got)-1])
	}
	if f.Legend[0].Label != "a (2/4)" {
		t.Errorf("legend %q, want the finished/submitted count", f.Legend[0].Label)
	}
	f, err = JCTCDF([]Run{a, b}, "common")
	if err != nil {
		t.Fatal(err)
	}
	got := lineOf(t, f, 1)
	if len(got) != 5 || got[len(got)-1] != (plotter.XY{X: 1, Y: 1}) {
		t.Errorf("b over the common set: %v, want 2 steps ending at (1 h, 1)", got)
	}
	if y := f.Panels[0].Y.Label.Text; !strings.Contains(y, "the 2 jobs all finished") {
		t.Errorf("common-set axis label %q does not say so", y)
	}
	if _, err := JCTCDF([]Run{a}, "mine"); err == nil {
		t.Error("unknown population accepted")
	}
}

// Hand-worked trailing mean over a 600-s window of rounds 300 s apart:
// values 10, 20, 30, 40 → 10, 15, 25, 35.
func TestRollingMean(t *testing.T) {
	var rows []sim.RoundRecord
	for i, v := range []float64{10, 20, 30, 40} {
		rows = append(rows, sim.RoundRecord{Time: 300 * float64(i), Throughput: v})
	}
	pts := rolling(rows, 0, 3600, 600, func(r sim.RoundRecord) float64 { return r.Throughput })
	want := []float64{10, 15, 25, 35}
	for i, p := range pts {
		if p.Y != want[i] {
			t.Errorf("point %d: %g, want %g", i, p.Y, want[i])
		}
	}
	f, err := Throughput(sampleRuns(), 3600)
	if err != nil {
		t.Fatal(err)
	}
	if y := f.Panels[0].X.Label.Text; !strings.Contains(y, "1-h rolling mean") {
		t.Errorf("the axis label %q does not state the smoothing", y)
	}
}

func TestLoadFacetsShareOneLegend(t *testing.T) {
	c := func(l string) Curve { return Curve{Label: l, X: []float64{0.5, 1, 2}, Y: []float64{3, 5, 9}} }
	f, err := LoadCurves("padded mean JCT (h)", []Panel{{"philly", []Curve{c("fcfs"), c("arena")}}, {"pai", []Curve{c("fcfs"), c("arena")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 2 || len(f.Legend) != 2 || f.Panels[1].Title.Text != "pai" {
		t.Errorf("%d panels, %d legend entries, want one panel per trace and one entry per policy", len(f.Panels), len(f.Legend))
	}
	dir := t.TempDir()
	for _, name := range []string{"load.png", "load.svg", "load.pdf"} {
		if err := f.Save(filepath.Join(dir, name), Render{Size: Full}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Save(filepath.Join(dir, "load.gif"), Render{}); err == nil {
		t.Error("an unsupported format must be an error")
	}
}

func TestDrawErrors(t *testing.T) {
	if _, err := Draw("pie", sampleRuns(), Options{}); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := Draw("jct-cdf", nil, Options{}); err == nil {
		t.Error("no runs accepted")
	}
	if _, err := Draw("occupancy", []Run{{Label: "x"}}, Options{}); err == nil {
		t.Error("occupancy without allocations accepted")
	}
	for _, s := range []string{"3.3", "0x2", "axb", "100x2"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("size %q accepted", s)
		}
	}
	if s, err := ParseSize("3.5x2"); err != nil || s.W != 3.5*vg.Inch {
		t.Errorf("3.5x2: %v %v", s, err)
	}
}

func BenchmarkJCTCDFPNG(b *testing.B) {
	runs := sampleRuns()
	for b.Loop() {
		f, _ := JCTCDF(runs, "all")
		if _, err := f.Encode(Render{Format: "png"}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	var got []string
	for _, tk := range (niceTicks{}).Ticks(0, 2.8) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "0.0 0.5 1.0 1.5 2.0 2.5" {
		t.Errorf("ticks of [0, 2.8]: %v", got)
	}
}
