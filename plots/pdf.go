// The PDF canvas below is gonum/plot's vg/vgpdf (v0.17.0, BSD-3-Clause,
// Copyright ©2015 The Gonum Authors) with its font handling replaced.
// vgpdf registers each font through fpdf's legacy MakeFont path with the
// cp1252 code page: the whole TrueType file is embedded (Liberation Sans:
// ~218 KB per figure) and text is written as raw UTF-8 bytes that a reader
// decodes as cp1252, so "×" shows as "Ã—" and "≤" as "â‰¤" (and ≤ has no
// cp1252 code at all). Here fonts go through fpdf's UTF-8 path
// (AddUTF8FontFromBytes): a Type0/CIDFontType2 font with Identity-H
// encoding, a ToUnicode map (text extraction and search work) and only
// the glyphs the figure uses embedded (a subset), so any character of the
// font is drawn and a figure is tens of KB.

package plots

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	pdf "codeberg.org/go-pdf/fpdf"
	stdfnt "golang.org/x/image/font"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfDPI is the nominal resolution of drawing in PDF (points).
const pdfDPI = 72

// pdfEpoch is every figure's CreationDate and ModDate: fpdf stamps the
// wall clock otherwise, and the same results must give the same bytes.
var pdfEpoch = time.Unix(0, 0).UTC()

// pdfCanvas implements vg.Canvas (and vg.CanvasWriterTo) on fpdf.
type pdfCanvas struct {
	doc       *pdf.Fpdf
	w, h      vg.Length
	numImages int
	stack     []pdfContext
	fonts     map[string]bool
	err       error
}

type pdfContext struct {
	fill, line color.Color
	width      vg.Length
}

func newPDF(w, h vg.Length) *pdfCanvas {
	c := &pdfCanvas{
		doc:   pdf.NewCustom(&pdf.InitType{UnitStr: "pt", Size: pdf.SizeType{Wd: w.Points(), Ht: h.Points()}}),
		w:     w,
		h:     h,
		stack: make([]pdfContext, 1),
		fonts: map[string]bool{},
	}
	c.doc.SetCreationDate(pdfEpoch)
	c.doc.SetModificationDate(pdfEpoch)
	c.doc.SetCatalogSort(true)
	c.doc.SetCompression(true)
	c.doc.SetMargins(0, 0, 0)
	c.doc.SetAutoPageBreak(false, 0)
	c.doc.AddPage()
	c.Push()
	c.Translate(vg.Point{X: 0, Y: c.h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) context() *pdfContext { return &c.stack[len(c.stack)-1] }

func (c *pdfCanvas) DPI() float64             { return pdfDPI }
func (c *pdfCanvas) Size() (w, h vg.Length)   { return c.w, c.h }
func (c *pdfCanvas) unit(l vg.Length) float64 { return l.Dots(pdfDPI) }
func (c *pdfCanvas) pdfPoint(pt vg.Point) (float64, float64) {
	return c.unit(pt.X), c.unit(pt.Y)
}

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(c.unit(w))
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.context().line, c.context().fill = clr, clr
	// PDF takes the straight colour and a separate alpha; Go's RGBA() is
	// premultiplied (vgpdf passes it on as is, so its translucent fills
	// come out dark grey).
	n := color.NRGBAModel.Convert(clr).(color.NRGBA)
	c.doc.SetFillColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetDrawColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetTextColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetAlpha(float64(n.A)/255, "Normal")
}

func (c *pdfCanvas) Rotate(r float64) { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(pt vg.Point) {
	x, y := c.pdfPoint(pt)
	c.doc.TransformTranslate(x, y)
}

func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// fontStyle is fpdf's style string of a face ("", "B", "I", "BI").
func fontStyle(fnt font.Face) string {
	s := ""
	if fnt.Font.Weight == stdfnt.WeightBold {
		s += "B"
	}
	if fnt.Font.Style == stdfnt.StyleItalic {
		s += "I"
	}
	return s
}

func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 || c.err != nil {
		return
	}
	name, style := fnt.Name(), fontStyle(fnt)
	if key := name + "\x00" + style; !c.fonts[key] {
		var raw bytes.Buffer
		if _, err := fnt.Face.WriteSourceTo(nil, &raw); err != nil {
			c.err = fmt.Errorf("pdf: font %s: %w", name, err)
			return
		}
		// fpdf subsets the font to the runes written (its usedRunes) when
		// the document is closed.
		c.doc.AddUTF8FontFromBytes(name, style, raw.Bytes())
		c.fonts[key] = true
	}
	c.doc.SetFont(name, style, c.unit(fnt.Font.Size))

	c.Push()
	defer c.Pop()
	c.Translate(pt)
	// fpdf's origin is the top left corner.
	c.Scale(1, -1)
	_, h := c.doc.GetFontSize()
	d := c.doc.GetFontDesc(name, style)
	top := 0.81 * h // no metrics: the usual ascent share
	if d.Ascent != 0 {
		top = -float64(d.Ascent) * h / float64(d.Ascent-d.Descent)
	}
	w := c.doc.GetStringWidth(str)
	c.doc.MoveTo(-c.doc.GetCellMargin(), top)
	c.doc.CellFormat(w, h, str, "", 0, "BL", false, 0, "")
}

// DrawImage implements vg.Canvas.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	if c.err != nil {
		return
	}
	opts := pdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.numImages++
	name := fmt.Sprintf("image_%03d.png", c.numImages)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.err = fmt.Errorf("pdf: image: %w", err)
		return
	}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	x, y := c.pdfPoint(rect.Min)
	w, h := c.pdfPoint(rect.Size())
	c.doc.ImageOptions(name, x, y, w, h, false, opts, 0, "")
}

func (c *pdfCanvas) path(path vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range path {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = c.pdfPoint(comp.Pos)
			c.doc.MoveTo(x0, y0)
		case vg.LineComp:
			c.doc.LineTo(c.pdfPoint(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := c.pdfPoint(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.pdfPoint(comp.Control[0])
				c.doc.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.pdfPoint(comp.Control[0])
				dx, dy := c.pdfPoint(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			default:
				panic("plots: pdf: invalid number of control points")
			}
		case vg.CloseComp:
			c.doc.LineTo(x0, y0)
			c.doc.ClosePath()
		default:
			panic(fmt.Sprintf("plots: pdf: unknown path component type %d", comp.Type))
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	x0 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start))
	y0 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start))
	c.doc.LineTo(c.unit(x0), c.unit(y0))
	r := c.unit(comp.Radius)
	const deg = 180 / math.Pi
	beg := comp.Start * deg
	c.doc.Arc(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, comp.Angle*deg, beg, beg+comp.Angle*deg, style)
	x1 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start+comp.Angle))
	y1 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start+comp.Angle))
	c.doc.MoveTo(c.unit(x1), c.unit(y1))
}

// WriteTo writes the document; the canvas is closed afterwards.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.Pop()
	c.doc.Close()
	cw := &countWriter{w: w}
	b := bufio.NewWriter(cw)
	if err := c.doc.Output(b); err != nil {
		return cw.n, err
	}
	return cw.n, b.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (w *countWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += int64(n)
	return n, err
}
