package plots

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	t.Logf("pdftotext of the test figure:\n%s", text)
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
