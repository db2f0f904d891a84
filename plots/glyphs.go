package plots

import (
	"strings"
	"sync"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// Figure text is drawn in Liberation Sans, which has every character
// arena writes into figures (× — – ≤ ≥ − … ± → ‡ §) but not the symbols
// of its terminal output (⚠ ✓ ✗). A missing glyph would print as an empty
// box (and in PDF extract as a character nobody sees), so such characters
// are replaced by a readable stand-in before drawing.

// standIns replace characters the font lacks.
var standIns = map[rune]string{'⚠': "(!)", '✓': "ok", '✗': "x", '✔': "ok", '✘': "x"}

var fontGlyphs struct {
	once sync.Once
	font *sfnt.Font
}

// hasGlyph reports whether the figure font draws r.
func hasGlyph(r rune) bool {
	fontGlyphs.once.Do(func() {
		fontGlyphs.font = font.DefaultCache.Lookup(textFont, 8).Face
	})
	if fontGlyphs.font == nil || r < 0x80 {
		return true
	}
	var buf sfnt.Buffer
	i, err := fontGlyphs.font.GlyphIndex(&buf, r)
	return err == nil && i != 0
}

// printable returns s with the characters the font lacks replaced (a
// stand-in from standIns, else "?").
func printable(s string) string {
	ok := true
	for _, r := range s {
		if !hasGlyph(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case hasGlyph(r):
			b.WriteRune(r)
		case standIns[r] != "":
			b.WriteString(standIns[r])
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// printableTicks wraps a tick marker so its labels (policy names on a
// bar chart's axis) are printable.
type printableTicks struct{ plot.Ticker }

func (t printableTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = printable(ticks[i].Label)
	}
	return ticks
}

// makePrintable replaces, in every text of the figure, the characters its
// font lacks.
func (f *Figure) makePrintable() {
	f.Title = printable(f.Title)
	for i := range f.Legend {
		f.Legend[i].Label = printable(f.Legend[i].Label)
	}
	for _, p := range f.Panels {
		p.Title.Text = printable(p.Title.Text)
		for _, ax := range []*plot.Axis{&p.X, &p.Y} {
			ax.Label.Text = printable(ax.Label.Text)
			if _, done := ax.Tick.Marker.(printableTicks); !done && ax.Tick.Marker != nil {
				ax.Tick.Marker = printableTicks{ax.Tick.Marker}
			}
		}
	}
}
