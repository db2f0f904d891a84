package plots

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TextBox is one string a figure drew and the box it took on the canvas:
// the string's advance width by its font's ascent plus descent, in the
// canvas' coordinates (points from the bottom-left corner), after any
// rotation (a y-axis label's box is tall and narrow).
type TextBox struct {
	Text string
	// Size is the font size in points.
	Size vg.Length
	Rect vg.Rectangle
}

// MinFontSize is the smallest text, in points, a figure may draw: smaller
// is unreadable in print at a column's width.
const MinFontSize = 6

// LayoutProblems are what is wrong with the text of a drawing of size w×h
// holding boxes: text outside the canvas (clipped), text overlapping
// other text or closer to it side by side than 0.8 pt, text smaller than MinFontSize. Empty when the text is
// readable. Each problem names the strings concerned.
func LayoutProblems(boxes []TextBox, w, h vg.Length) []string {
	const eps = vg.Length(0.05) // points: rounding, not layout
	const gap = 0.8             // points between two strings, at least
	var out []string
	for _, b := range boxes {
		r := b.Rect
		if r.Min.X < -eps || r.Min.Y < -eps || r.Max.X > w+eps || r.Max.Y > h+eps {
			out = append(out, fmt.Sprintf("%q (%.1f pt) is clipped: its box %s leaves the %.0f×%.0f pt canvas", b.Text, b.Size.Points(), rectString(r), w.Points(), h.Points()))
		}
		if b.Size < MinFontSize-eps {
			out = append(out, fmt.Sprintf("%q is set in %.1f pt, under the %d pt minimum", b.Text, b.Size.Points(), MinFontSize))
		}
	}
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			ox := math.Min(float64(a.Rect.Max.X), float64(b.Rect.Max.X)) - math.Max(float64(a.Rect.Min.X), float64(b.Rect.Min.X))
			oy := math.Min(float64(a.Rect.Max.Y), float64(b.Rect.Max.Y)) - math.Max(float64(a.Rect.Min.Y), float64(b.Rect.Min.Y))
			// Side by side, text closer than gap reads as one string
			// ("0.00.51.0" of crowded ticks); one above the other, line
			// boxes may touch (gonum sets an axis label so).
			if ox > -gap && oy > float64(eps) {
				out = append(out, fmt.Sprintf("%q %s overlaps %q %s", a.Text, rectString(a.Rect), b.Text, rectString(b.Rect)))
			}
		}
	}
	return out
}

func rectString(r vg.Rectangle) string {
	return fmt.Sprintf("[%.1f–%.1f × %.1f–%.1f pt]", r.Min.X.Points(), r.Max.X.Points(), r.Min.Y.Points(), r.Max.Y.Points())
}

// textRecorder is a vg.Canvas that passes every call on to an inner
// canvas (nil: none) and keeps the box of every string drawn, following
// the canvas' transforms (translate, rotate, scale; push and pop).
type textRecorder struct {
	inner vg.Canvas
	w, h  vg.Length
	// m is the current affine transform (a b c d e f: x' = a·x + c·y + e,
	// y' = b·x + d·y + f); stack the saved ones.
	m     [6]float64
	stack [][6]float64
	boxes []TextBox
}

func newTextRecorder(inner vg.Canvas, w, h vg.Length) *textRecorder {
	return &textRecorder{inner: inner, w: w, h: h, m: [6]float64{1, 0, 0, 1, 0, 0}}
}

// mul sets m to m·t (t applied first, as a canvas transform is).
func (r *textRecorder) mul(t [6]float64) {
	m := r.m
	r.m = [6]float64{
		m[0]*t[0] + m[2]*t[1], m[1]*t[0] + m[3]*t[1],
		m[0]*t[2] + m[2]*t[3], m[1]*t[2] + m[3]*t[3],
		m[0]*t[4] + m[2]*t[5] + m[4], m[1]*t[4] + m[3]*t[5] + m[5],
	}
}

func (r *textRecorder) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(r.m[0]*x + r.m[2]*y + r.m[4]), Y: vg.Length(r.m[1]*x + r.m[3]*y + r.m[5])}
}

func (r *textRecorder) Size() (vg.Length, vg.Length) { return r.w, r.h }

func (r *textRecorder) SetLineWidth(w vg.Length) {
	if r.inner != nil {
		r.inner.SetLineWidth(w)
	}
}

func (r *textRecorder) SetLineDash(d []vg.Length, off vg.Length) {
	if r.inner != nil {
		r.inner.SetLineDash(d, off)
	}
}

func (r *textRecorder) SetColor(c color.Color) {
	if r.inner != nil {
		r.inner.SetColor(c)
	}
}

func (r *textRecorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.mul([6]float64{c, s, -s, c, 0, 0})
	if r.inner != nil {
		r.inner.Rotate(rad)
	}
}

func (r *textRecorder) Translate(p vg.Point) {
	r.mul([6]float64{1, 0, 0, 1, float64(p.X), float64(p.Y)})
	if r.inner != nil {
		r.inner.Translate(p)
	}
}

func (r *textRecorder) Scale(x, y float64) {
	r.mul([6]float64{x, 0, 0, y, 0, 0})
	if r.inner != nil {
		r.inner.Scale(x, y)
	}
}

func (r *textRecorder) Push() {
	r.stack = append(r.stack, r.m)
	if r.inner != nil {
		r.inner.Push()
	}
}

func (r *textRecorder) Pop() {
	if n := len(r.stack); n > 0 {
		r.m, r.stack = r.stack[n-1], r.stack[:n-1]
	}
	if r.inner != nil {
		r.inner.Pop()
	}
}

func (r *textRecorder) Stroke(p vg.Path) {
	if r.inner != nil {
		r.inner.Stroke(p)
	}
}

func (r *textRecorder) Fill(p vg.Path) {
	if r.inner != nil {
		r.inner.Fill(p)
	}
}

func (r *textRecorder) DrawImage(rect vg.Rectangle, img image.Image) {
	if r.inner != nil {
		r.inner.DrawImage(rect, img)
	}
}

// FillString records the string's box: from pt (the baseline's start)
// across its width, from the descent below the baseline to the ascent
// above, through the current transform.
func (r *textRecorder) FillString(f font.Face, pt vg.Point, s string) {
	if r.inner != nil {
		r.inner.FillString(f, pt, s)
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	ext := f.Extents()
	w := f.Width(s)
	corners := []vg.Point{
		{X: pt.X, Y: pt.Y - ext.Descent}, {X: pt.X + w, Y: pt.Y - ext.Descent},
		{X: pt.X, Y: pt.Y + ext.Ascent}, {X: pt.X + w, Y: pt.Y + ext.Ascent},
	}
	box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, c := range corners {
		p := r.apply(c)
		box.Min.X, box.Min.Y = min(box.Min.X, p.X), min(box.Min.Y, p.Y)
		box.Max.X, box.Max.Y = max(box.Max.X, p.X), max(box.Max.Y, p.Y)
	}
	r.boxes = append(r.boxes, TextBox{Text: s, Size: f.Font.Size, Rect: box})
}

// textBoxes draws f at o's size (format aside) and returns the box of
// every string drawn, in drawing order.
func (f *Figure) textBoxes(o Render) []TextBox {
	o = o.withDefaults()
	rec := newTextRecorder(nil, o.Size.W, o.Size.H)
	f.draw(draw.New(rec), o.FontSize)
	return rec.boxes
}

// notePrefix starts the note of a figure whose text does not fit.
const notePrefix = "text does not fit at "

// noteLayout replaces f's note on its text's fit by one for the drawing
// of boxes at size (none when everything fits): a figure drawn at a size
// too small for its text says so, naming the first problems.
func (f *Figure) noteLayout(boxes []TextBox, size Size) {
	f.Notes = slices.DeleteFunc(f.Notes, func(n string) bool { return strings.HasPrefix(n, notePrefix) })
	probs := LayoutProblems(boxes, size.W, size.H)
	if len(probs) == 0 {
		return
	}
	const shown = 3
	msg := strings.Join(probs[:min(shown, len(probs))], "; ")
	if len(probs) > shown {
		msg += fmt.Sprintf("; and %d more", len(probs)-shown)
	}
	f.Notes = append(f.Notes, fmt.Sprintf("%s%.1f×%.1f in: %s (try --size full)", notePrefix, size.W/vg.Inch, size.H/vg.Inch, msg))
}
