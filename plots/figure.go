package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim/input"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/arena-sim/arena/sim/resultsdir"
)

// Figure is one figure: one or more panels (facets, side by side) and one
// legend shared by them, drawn above the panels so it never covers data.
// The title is empty by default: in a paper the caption says what a figure
// shows.
type Figure struct {
	Title  string
	Panels []*plot.Plot
	// Cols is the number of panel columns (0: all panels in one row).
	Cols int
	// XLabel and YLabel, when set, label the axes of every panel once,
	// below and left of the panels (a figure of several panels: see
	// shareAxes); the panels' own labels are then empty.
	XLabel, YLabel string
	Legend         []LegendEntry
	// Notes are what drawing had to compromise (set by Encode): e.g.
	// legend labels shortened to fit, which --label should fix.
	Notes []string
}

// LegendEntry names a series and shows its line, marker or bar style.
type LegendEntry struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

func (f *Figure) addLegend(label string, thumbs ...plot.Thumbnailer) {
	f.Legend = append(f.Legend, LegendEntry{label, thumbs})
}

// Size is a figure's size on paper.
type Size struct {
	Name string
	W, H vg.Length
}

// The standard sizes: a column of a two-column paper and a full text
// width. Fonts are set in points (FontSize), so text stays readable when
// the figure is placed at its natural size.
var (
	Column = Size{"column", 3.3 * vg.Inch, 2.4 * vg.Inch}
	Full   = Size{"full", 7 * vg.Inch, 3 * vg.Inch}
)

// ParseSize reads "column", "full" or "WxH" in inches (e.g. "3.3x2.5").
func ParseSize(s string) (Size, error) {
	switch s {
	case "", "column":
		return Column, nil
	case "full":
		return Full, nil
	}
	w, h, ok := strings.Cut(s, "x")
	wf, err1 := strconv.ParseFloat(strings.TrimSuffix(w, "in"), 64)
	hf, err2 := strconv.ParseFloat(strings.TrimSuffix(h, "in"), 64)
	// input.Range refuses NaN and ±Inf, which every comparison passes.
	if !ok || err1 != nil || err2 != nil || input.Range("", wf, 1, 40) != nil || input.Range("", hf, 1, 40) != nil {
		return Size{}, fmt.Errorf("size %s: want column (3.3×2.4 in), full (7×3 in) or WxH in inches between 1 and 40, e.g. 3.3x2.5", input.Clip(s))
	}
	return Size{s, vg.Length(wf) * vg.Inch, vg.Length(hf) * vg.Inch}, nil
}

// Render options.
type Render struct {
	Format string // pdf, svg or png
	Size   Size
	// FontSize of ticks, labels and legend in points (0: 8 pt, readable
	// at a column's width; titles are 1 pt larger).
	FontSize vg.Length
	// DPI of PNG output (0: 200).
	DPI int
}

// withDefaults fills o's zero fields: column size, 8 pt, 200 dpi.
func (o Render) withDefaults() Render {
	if o.Size.W == 0 {
		o.Size = Column
	}
	if o.FontSize == 0 {
		o.FontSize = 8
	}
	if o.DPI == 0 {
		o.DPI = 200
	}
	return o
}

// Formats are the file formats Encode writes.
var Formats = []string{"pdf", "svg", "png"}

var textFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

func (f *Figure) applyFonts(size vg.Length) {
	set := func(s *text.Style, sz vg.Length) { s.Font = font.From(textFont, sz) }
	for _, p := range f.Panels {
		set(&p.Title.TextStyle, size+1)
		for _, ax := range []*plot.Axis{&p.X, &p.Y} {
			set(&ax.Label.TextStyle, size)
			set(&ax.Tick.Label, size-0.5)
			ax.Tick.Length = vg.Points(3)
			ax.Padding = vg.Points(2)
		}
		p.Title.Padding = vg.Points(3)
	}
}

// Encode renders the figure.
func (f *Figure) Encode(o Render) ([]byte, error) {
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("plots: a figure with no panels")
	}
	o = o.withDefaults()
	var c vg.CanvasWriterTo
	switch o.Format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(o.Size.W, o.Size.H), vgimg.UseDPI(o.DPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(o.Size.W, o.Size.H)
	case "pdf":
		c = newPDF(o.Size.W, o.Size.H) // UTF-8 text, subset fonts (pdf.go)
	default:
		return nil, fmt.Errorf("plots: format %q: want %s", o.Format, strings.Join(Formats, ", "))
	}
	// The drawing goes through a recorder of its text, so what does not
	// fit is known from the very drawing written (layout.go).
	rec := newTextRecorder(c, o.Size.W, o.Size.H)
	f.draw(draw.New(rec), o.FontSize)
	f.noteLayout(rec.boxes, o.Size)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path, the format taken from its extension,
// through a temporary file so a reader never sees half a figure.
func (f *Figure) Save(path string, o Render) error {
	o.Format = strings.TrimPrefix(filepath.Ext(path), ".")
	data, err := f.Encode(o)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return resultsdir.WriteFileAtomic(path, data)
}

func (f *Figure) draw(dc draw.Canvas, size vg.Length) {
	f.applyFonts(size)
	f.makePrintable()
	pad := vg.Points(3)
	figH := dc.Max.Y - dc.Min.Y
	dc = draw.Crop(dc, pad, -pad, pad, -pad)
	if f.Title != "" {
		// Wrapped to the width: a report's titles are sentences.
		st := text.Style{Font: font.From(textFont, size+1), Color: color.Black, XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		lines := wrapText(st, f.Title, dc.Max.X-dc.Min.X)
		for k, l := range lines {
			dc.FillText(st, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Length(k)*lineHeight(st)}, l)
		}
		dc = draw.Crop(dc, 0, 0, 0, -blockHeight(st, len(lines))-pad)
	}
	if len(f.Legend) > 0 {
		// Under a quarter of the figure's height, padding included.
		h := f.drawLegend(dc, size, LegendBudget(figH)-pad)
		dc = draw.Crop(dc, 0, 0, 0, -h-pad)
	}
	dc = f.drawSharedLabels(dc)
	cols := f.Cols
	if cols <= 0 {
		cols = len(f.Panels)
	}
	rows := (len(f.Panels) + cols - 1) / cols
	f.fitPanelTitles((dc.Max.X - dc.Min.X - panelPad*vg.Length(cols-1)) / vg.Length(cols))
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range f.Panels {
		grid[i/cols][i%cols] = p
	}
	canvases := plot.Align(grid, draw.Tiles{Rows: rows, Cols: cols, PadX: panelPad, PadY: panelPad}, dc)
	for i, p := range f.Panels {
		p.Draw(canvases[i/cols][i%cols])
	}
}

// panelPad is the room between panels.
const panelPad = 6

// drawSharedLabels draws the figure's own axis labels (XLabel below the
// panels, YLabel left of them, turned; each wrapped to the room it has)
// in the panels' label style, and returns what is left for the panels.
func (f *Figure) drawSharedLabels(dc draw.Canvas) draw.Canvas {
	p0 := f.Panels[0]
	var xl []string
	var xh vg.Length
	xst := p0.X.Label.TextStyle
	if f.XLabel != "" {
		xl = wrapText(xst, f.XLabel, dc.Max.X-dc.Min.X)
		xh = blockHeight(xst, len(xl)) + p0.X.Label.Padding
	}
	body := draw.Crop(dc, 0, 0, xh, 0)
	if f.YLabel != "" {
		// As gonum draws an axis label: turned a quarter left, its
		// first line leftmost.
		yst := p0.Y.Label.TextStyle
		yl := wrapText(yst, f.YLabel, body.Max.Y-body.Min.Y)
		descent := yst.FontExtents().Descent
		turned := yst
		turned.Rotation += math.Pi / 2
		for k, l := range yl {
			x := body.Min.X + yst.Height(l) - descent + vg.Length(k)*lineHeight(yst)
			body.FillText(turned, vg.Point{X: x, Y: body.Center().Y}, l)
		}
		body = draw.Crop(body, blockHeight(yst, len(yl))+descent+p0.Y.Label.Padding, 0, 0, 0)
	}
	descent := xst.FontExtents().Descent
	for k, l := range xl {
		y := dc.Min.Y + descent + vg.Length(len(xl)-1-k)*lineHeight(xst)
		dc.FillText(xst, vg.Point{X: body.Center().X, Y: y}, l)
	}
	return body
}

// lineHeight is the distance between the baselines of wrapped lines in
// st: its font's line box and a little air.
func lineHeight(st text.Style) vg.Length { return st.Height("Xg") + st.Font.Size*0.1 }

// blockHeight is the height of n lines in st.
func blockHeight(st text.Style, n int) vg.Length {
	return st.Height("Xg") + vg.Length(max(0, n-1))*lineHeight(st)
}

// shareAxes moves the axis labels of a figure of several panels to the
// figure (XLabel, YLabel: said once, not in every panel, so the panels
// keep their room at a column's width); with sameY (one y scale for
// every panel) only the first column keeps its y tick labels.
func (f *Figure) shareAxes(sameY bool) {
	if len(f.Panels) < 2 {
		return
	}
	f.XLabel, f.YLabel = f.Panels[0].X.Label.Text, f.Panels[0].Y.Label.Text
	cols := f.Cols
	if cols <= 0 {
		cols = len(f.Panels)
	}
	for i, p := range f.Panels {
		p.X.Label.Text, p.Y.Label.Text = "", ""
		if _, nice := p.X.Tick.Marker.(niceTicks); nice && cols >= 3 {
			// Three panels abreast are narrow: fewer x ticks, so their
			// labels stay apart.
			p.X.Tick.Marker = niceTicks{few: 3}
		}
		if sameY && i%cols != 0 {
			p.Y.Tick.Marker = unlabelledTicks{p.Y.Tick.Marker}
		}
	}
}

// unlabelledTicks keeps a tick marker's ticks and drops their labels (a
// panel whose y scale the panel left of it already labels).
type unlabelledTicks struct{ plot.Ticker }

func (t unlabelledTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}

// fitPanelTitles makes each panel's title fit the width of its tile: a
// smaller font (down to 7 pt), then the middle cut by "…" (noted).
func (f *Figure) fitPanelTitles(w vg.Length) {
	for _, p := range f.Panels {
		st := &p.Title.TextStyle
		for st.Width(p.Title.Text) > w && st.Font.Size > 7 {
			st.Font.Size -= 0.5
		}
		if st.Width(p.Title.Text) > w {
			p.Title.Text = shorten(*st, p.Title.Text, w)
			if !slices.Contains(f.Notes, noteTitleShortened) {
				f.Notes = append(f.Notes, noteTitleShortened)
			}
		}
	}
}

const noteTitleShortened = "panel titles shortened to fit their panels (rename policies with --label or a spec's labels:, or use --size full)"

// wrapText breaks s at spaces into lines no wider than w in st (a word
// wider than w keeps its own line).
func wrapText(st text.Style, s string, w vg.Length) []string {
	if st.Width(s) <= w {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && st.Width(line+" "+word) > w {
			lines, line = append(lines, line), word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}

// LegendBudget is the most height a legend may take in a figure of
// height h (its padding included): a quarter.
func LegendBudget(h vg.Length) vg.Length { return h / 4 }

// minLegendFont is the smallest legend font (points) a crowded legend
// shrinks to before its labels are shortened.
const minLegendFont = 6

// legendItem is one placed legend entry: its (possibly shortened) label,
// its offset from the legend's top-left corner and its row.
type legendItem struct {
	e     LegendEntry
	label string
	x     vg.Length
	row   int
}

// legendLayout is the legend's arrangement: font size, rows, height.
type legendLayout struct {
	size   vg.Length
	rowH   vg.Length
	rows   int
	items  []legendItem
	height vg.Length
	// shortened: labels were cut to fit (the caller is told, Notes).
	shortened bool
}

func legendStyle(size vg.Length) text.Style {
	return text.Style{Font: font.From(textFont, size), Color: color.Black, XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
}

// layoutLegend arranges the entries across width in at most maxH: rows
// filled left to right and centred, at the figure's font size, or a
// smaller one (down to 6 pt) when that takes too many rows; if even 6 pt
// does not fit, a grid of equal columns with labels shortened by "…".
// A legend above the panels must not eat the data's room: the callers
// give it a quarter of the figure's height at most.
func (f *Figure) layoutLegend(width, maxH, size vg.Length) legendLayout {
	var l legendLayout
	for sz := size; ; sz -= 0.5 {
		if sz < minLegendFont {
			sz = minLegendFont
		}
		l = f.flowLegend(width, sz)
		if l.height <= maxH || sz == minLegendFont {
			break
		}
	}
	if l.height <= maxH {
		return l
	}
	return f.gridLegend(width, maxH, minLegendFont)
}

func legendMetrics(size vg.Length) (thumbW, gap, rowH vg.Length) {
	return 2.2 * size, size * 0.4, size * 1.35
}

func (f *Figure) flowLegend(width, size vg.Length) legendLayout {
	st := legendStyle(size)
	thumbW, gap, rowH := legendMetrics(size)
	l := legendLayout{size: size, rowH: rowH}
	x, row := vg.Length(0), 0
	for _, e := range f.Legend {
		w := thumbW + gap + st.Width(e.Label) + 2*gap
		if x > 0 && x+w > width {
			x, row = 0, row+1
		}
		l.items = append(l.items, legendItem{e: e, label: e.Label, x: x, row: row})
		x += w
	}
	l.rows = row + 1
	// Centre each row.
	for r := 0; r < l.rows; r++ {
		last := -1
		for i := range l.items {
			if l.items[i].row == r {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		used := l.items[last].x + thumbW + gap + st.Width(l.items[last].label)
		shift := max(0, (width-used)/2)
		for i := range l.items {
			if l.items[i].row == r {
				l.items[i].x += shift
			}
		}
	}
	l.height = rowH * vg.Length(l.rows)
	return l
}

func (f *Figure) gridLegend(width, maxH, size vg.Length) legendLayout {
	st := legendStyle(size)
	thumbW, gap, rowH := legendMetrics(size)
	rows := max(1, int(maxH/rowH))
	cols := (len(f.Legend) + rows - 1) / rows
	rows = (len(f.Legend) + cols - 1) / cols
	colW := width / vg.Length(cols)
	room := colW - thumbW - 3*gap
	l := legendLayout{size: size, rowH: rowH, rows: rows, height: rowH * vg.Length(rows), shortened: true}
	labels := make([]string, len(f.Legend))
	for i, e := range f.Legend {
		labels[i] = e.Label
	}
	labels = dropSharedPrefixes(labels, func(s string) bool { return st.Width(s) <= room })
	for i, e := range f.Legend {
		l.items = append(l.items, legendItem{e: e, label: shorten(st, labels[i], room), x: colW * vg.Length(i%cols), row: i / cols})
	}
	return l
}

// dropSharedPrefixes replaces the beginning a label shares with another
// ("exec:python3 examples/python/" of two policies' commands) by "…",
// when that leaves every label distinct: the legend then spends its room
// on what tells the series apart. It cuts at the last separator (space,
// "/", ":") of the shared part when the rest then fits, else all of it.
func dropSharedPrefixes(labels []string, fits func(string) bool) []string {
	out := make([]string, len(labels))
	seen := map[string]bool{}
	for i, a := range labels {
		ra := []rune(a)
		shared := 0
		for j, b := range labels {
			if j == i {
				continue
			}
			rb := []rune(b)
			k := 0
			for k < len(ra) && k < len(rb) && ra[k] == rb[k] {
				k++
			}
			shared = max(shared, k)
		}
		out[i] = a
		if shared >= 6 && len(ra)-shared >= 3 {
			out[i] = "…" + string(ra[shared:])
			if cut := strings.LastIndexAny(string(ra[:shared]), " /:"); cut > 0 {
				if t := "…" + string(ra)[cut+1:]; fits(t) {
					out[i] = t
				}
			}
		}
		if seen[out[i]] {
			return labels
		}
		seen[out[i]] = true
	}
	return out
}

// shorten cuts s to at most w wide in st by an ellipsis in its middle:
// labels of one legend often share a beginning (exec:python3 …) and
// differ near the end (…sjf.py), or share an end (… (986/986)).
func shorten(st text.Style, s string, w vg.Length) string {
	if st.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		head := n / 2
		if t := string(r[:head]) + "…" + string(r[len(r)-(n-head):]); st.Width(t) <= w {
			return t
		}
	}
	return "…"
}

const noteShortened = "legend labels shortened to fit under a quarter of the figure's height (rename policies with --label or a spec's labels:, or use --size full)"

// drawLegend lays the entries out across the top of c (in at most maxH)
// and returns the height used.
func (f *Figure) drawLegend(c draw.Canvas, size, maxH vg.Length) vg.Length {
	l := f.layoutLegend(c.Max.X-c.Min.X, maxH, size)
	if l.shortened && !slices.Contains(f.Notes, noteShortened) {
		f.Notes = append(f.Notes, noteShortened)
	}
	st := legendStyle(l.size)
	thumbW, gap, _ := legendMetrics(l.size)
	for _, it := range l.items {
		yc := c.Max.Y - l.rowH*(vg.Length(it.row)+0.5)
		x0 := c.Min.X + it.x
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: yc - l.size*0.45}, Max: vg.Point{X: x0 + thumbW, Y: yc + l.size*0.45}}}
		for _, t := range it.e.Thumbs {
			t.Thumbnail(&icon)
		}
		c.FillText(st, vg.Point{X: x0 + thumbW + gap, Y: yc}, it.label)
	}
	return l.height
}
