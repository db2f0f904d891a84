package plots

import (
	"bytes"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// figureChars are the non-ASCII characters arena writes into figure texts
// (grep of plots/ and experiments/figures.go: × in density labels and the
// load axis, — and – in titles and labels, ≤ in captions and legends, −
// for negative reductions, … ± → ‡ § in labels a report passes through).
const figureChars = "× — – ≤ ≥ − … ± → ‡ §"

// A PDF figure must carry its text as Unicode (pdftotext is an outside
// anchor: poppler decodes what a reader's viewer and search decode) and
// embed only the glyphs it uses. Before pdf.go, gonum's vgpdf gave
// "JCT Ã— 2 â€” …" here and 220,062 bytes (the whole Liberation Sans).
func TestPDFTextIsUnicodeAndFontsSubset(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("SKIPPED: pdftotext not found (Debian: apt-get install poppler-utils; `make test` installs it as root): PDF text is NOT checked")
	}
	runs := sampleRuns()
	runs[0].Label = "fcfs × 2 — p ≤ 5"
	runs[1].Label = "elasticflow-ls −3 % … ± → ‡ §"
	f, err := Draw("jct-cdf", runs, Options{Title: "JCT × density — share ≤ 1 (– ≥)"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Encode(Render{Format: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chars.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pdftotext, "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	text := string(out)
	t.Logf("%d bytes; pdftotext of the test figure:\n%s", len(data), text)
	for _, want := range []string{"JCT × density — share ≤ 1 (– ≥)", "fcfs × 2 — p ≤ 5", "elasticflow-ls −3 % … ± → ‡ §", "share of submitted jobs", "JCT (h, log scale)"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext lacks %q", want)
		}
	}
	for _, c := range strings.Fields(figureChars) {
		if !strings.Contains(text, c) {
			t.Errorf("pdftotext lacks %s", c)
		}
	}
	for _, bad := range []string{"Ã", "â€", "â‰"} {
		if strings.Contains(text, bad) {
			t.Errorf("mojibake %q in the PDF text (UTF-8 read as cp1252)", bad)
		}
	}
	// Tens of KB: the subset font is a few KB, the rest is paths.
	if len(data) > 60_000 {
		t.Errorf("PDF is %d bytes, want ≤ 60,000 (a subset font, not the whole one)", len(data))
	}
}

// Guard against change: the same figure gives the same bytes (no wall
// clock in the PDF's dates, no map order in its font subset).
func TestPDFDeterministic(t *testing.T) {
	enc := func() []byte {
		f, err := Draw("throughput", sampleRuns(), Options{Title: "≤ ×"})
		if err != nil {
			t.Fatal(err)
		}
		data, err := f.Encode(Render{Format: "pdf"})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if a, b := enc(), enc(); !bytes.Equal(a, b) {
		t.Error("two encodings of one figure differ")
	}
}

// A translucent fill (the seed bands) keeps its hue in PDF: the colour
// operator carries the straight RGB of Okabe–Ito blue (0, 114, 178) and
// the alpha goes to the graphics state. gonum's vgpdf passes Go's
// premultiplied RGBA on, so at alpha 0x38 it wrote 0 25 39 (near black)
// and the bands printed dark grey.
func TestPDFTranslucentFillKeepsItsColour(t *testing.T) {
	c := newPDF(100, 100)
	c.doc.SetCompression(false)
	c.SetColor(color.NRGBA{0x00, 0x72, 0xb2, 0x38})
	var p vg.Path
	p.Move(vg.Point{X: 10, Y: 10})
	p.Line(vg.Point{X: 50, Y: 10})
	p.Line(vg.Point{X: 50, Y: 50})
	p.Close()
	c.Fill(p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("0.447 0.698 rg")) {
		t.Error("fill colour is not the straight (0, 114, 178)")
	}
	if !bytes.Contains(buf.Bytes(), []byte("/ca 0.22")) {
		t.Error("no fill alpha 0x38/255 ≈ 0.22 in the graphics state")
	}
}

// A character the figure font lacks (⚠ of arena's terminal warnings) is
// drawn as a readable stand-in, not an empty box; the others stay.
func TestMissingGlyphsGetAStandIn(t *testing.T) {
	if got := printable("fcfs ⚠ 400 dropped — ≤ ×"); got != "fcfs (!) 400 dropped — ≤ ×" {
		t.Errorf("printable: %q", got)
	}
	runs := sampleRuns()
	runs[0].Label = "fcfs ⚠"
	f, err := MeanJCTBars(runs)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := f.Encode(Render{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte("⚠")) || !bytes.Contains(svg, []byte("fcfs (!)")) {
		t.Error("the bar axis label kept ⚠ (no glyph in Liberation Sans)")
	}
}
