package plots

import (
	"bytes"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim"
)

func sampleRuns() []Run {
	mk := func(label string, scale float64) Run {
		r := Run{Label: label, Types: []string{"a100", "a10"}, Start: 1000,
			Utilization: map[string]float64{"a100": 0.5 * scale, "a10": 0.25}}
		for i := range 50 {
			r.JCTs = append(r.JCTs, scale*float64(600+i*900))
			r.Timeline = append(r.Timeline, sim.RoundRecord{Round: int32(i), Time: 1000 + 300*float64(i),
				Throughput: scale * float64(100+i), Pending: int32(i % 7), Busy: []int32{int32(i % 4), 2}})
		}
		r.MeanJCT = scale * 22650
		r.PaddedMeanJCT = r.MeanJCT * 1.5
		return r
	}
	return []Run{mk("fcfs", 1), mk("elasticflow-ls", 0.8)}
}

func TestEveryKindRendersPNGAndSVG(t *testing.T) {
	runs := sampleRuns()
	for _, kind := range Kinds {
		p, err := Draw(kind, "test", runs)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if p.X.Label.Text == "" && kind != "jct-bars" || p.Y.Label.Text == "" {
			t.Errorf("%s: axes must be labelled (x %q, y %q)", kind, p.X.Label.Text, p.Y.Label.Text)
		}
		if !strings.Contains(p.Y.Label.Text, "(") {
			t.Errorf("%s: the y label %q names no unit", kind, p.Y.Label.Text)
		}
		data, err := Encode(p, "png")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", kind, err)
		}
		if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 250 {
			t.Errorf("%s: %v is too small to read", kind, b)
		}
		svg, err := Encode(p, "svg")
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Fatalf("%s: svg: %v", kind, err)
		}
		for _, r := range runs {
			if !bytes.Contains(svg, []byte(r.Label)) {
				t.Errorf("%s: legend or axis lacks %q", kind, r.Label)
			}
		}
	}
}

func TestLoadCurvesAndSave(t *testing.T) {
	p, err := LoadCurves("load", "padded mean JCT (hours)", []Curve{
		{Label: "fcfs", X: []float64{0.5, 1, 2}, Y: []float64{3, 5, 9}},
		{Label: "srtf", X: []float64{0.5, 1, 2}, Y: []float64{2, 4, 7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"load.png", "load.svg"} {
		if err := Save(p, filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := Save(p, filepath.Join(dir, "load.gif")); err == nil {
		t.Error("an unsupported format must be an error")
	}
}

func TestDrawErrors(t *testing.T) {
	if _, err := Draw("pie", "x", sampleRuns()); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := Draw("jct-cdf", "x", nil); err == nil {
		t.Error("no runs accepted")
	}
}

func BenchmarkJCTCDFPNG(b *testing.B) {
	runs := sampleRuns()
	for b.Loop() {
		p, _ := JCTCDF("bench", runs)
		if _, err := Encode(p, "png"); err != nil {
			b.Fatal(err)
		}
	}
}
