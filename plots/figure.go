package plots

import (
	"bytes"
	"fmt"
	"image/color"
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
	Cols   int
	Legend []LegendEntry
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
	if o.Size.W == 0 {
		o.Size = Column
	}
	if o.FontSize == 0 {
		o.FontSize = 8
	}
	if o.DPI == 0 {
		o.DPI = 200
	}
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
	f.draw(draw.New(c), o.FontSize)
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
		st := text.Style{Font: font.From(textFont, size+1), Color: color.Black, XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.FillText(st, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, f.Title)
		dc = draw.Crop(dc, 0, 0, 0, -st.Height(f.Title)-pad)
	}
	if len(f.Legend) > 0 {
		// Under a quarter of the figure's height, padding included.
		h := f.drawLegend(dc, size, LegendBudget(figH)-pad)
		dc = draw.Crop(dc, 0, 0, 0, -h-pad)
	}
	cols := f.Cols
	if cols <= 0 {
		cols = len(f.Panels)
	}
	rows := (len(f.Panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, p := range f.Panels {
		grid[i/cols][i%cols] = p
	}
	canvases := plot.Align(grid, draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6)}, dc)
	for i, p := range f.Panels {
		p.Draw(canvases[i/cols][i%cols])
	}
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
