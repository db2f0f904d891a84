package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/arena-sim/arena/sim"
)

// SeedGroup is one series of a seed-aggregated figure: a policy's runs
// of one cell (same trace, cluster, timing, rounds, density, estimator),
// one per seed. Groups of one figure list their seeds in the same order,
// so Seeds[k] of every group saw the same workload draw.
type SeedGroup struct {
	Label string
	Seeds []Run
}

// SeedKinds are the figure kinds DrawSeeds makes.
var SeedKinds = []string{"jct-cdf", "throughput", "queue"}

// DrawSeeds makes the seed-aggregated figure of one kind: the mean over
// seeds of each group's curve with a band of its 95 % t-interval at each
// point (TInterval). Bars with whiskers are MeanJCTBarsCI's.
func DrawSeeds(kind string, groups []SeedGroup, o Options) (*Figure, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("plots: %s over seeds: no runs", kind)
	}
	n := len(groups[0].Seeds)
	for _, g := range groups {
		if len(g.Seeds) != n {
			return nil, fmt.Errorf("plots: %s over seeds: %s has %d seeds, %s %d; a band needs the same seeds for every policy", kind, groups[0].Label, n, g.Label, len(g.Seeds))
		}
	}
	var f *Figure
	var err error
	switch kind {
	case "jct-cdf":
		f, err = JCTCDFSeeds(groups, o.CDF)
	case "throughput":
		f, err = timeSeriesSeeds("throughput (samples/s)", groups, o.Window, func(r sim.RoundRecord) float64 { return r.Throughput })
	case "queue":
		f, err = timeSeriesSeeds("pending jobs (count)", groups, o.Window, func(r sim.RoundRecord) float64 { return float64(r.Pending) })
	default:
		return nil, fmt.Errorf("plots: unknown seed-aggregated kind %q (known: %v and jct-bars)", kind, SeedKinds)
	}
	if err != nil {
		return nil, err
	}
	f.Title = o.Title
	return f, nil
}

// band returns the filled region between lo and hi over xs in series i's
// colour, light enough that lines and other bands show through.
func band(xs, lo, hi []float64, i int) (*plotter.Polygon, error) {
	var ring plotter.XYs
	for k := range xs {
		ring = append(ring, plotter.XY{X: xs[k], Y: hi[k]})
	}
	for k := len(xs) - 1; k >= 0; k-- {
		ring = append(ring, plotter.XY{X: xs[k], Y: lo[k]})
	}
	pg, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	r, g, b, _ := Color(i).RGBA()
	pg.Color = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x38}
	pg.LineStyle.Width = 0
	return pg, nil
}

// bandKey is the legend entry that says what the bands are.
func bandKey(f *Figure, seeds int) {
	f.addLegend(IntervalName(seeds), bandThumb{})
}

type bandThumb struct{}

func (bandThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(color.Gray{0xc8}, []vg.Point{c.Min, {X: c.Min.X, Y: c.Max.Y}, c.Max, {X: c.Max.X, Y: c.Min.Y}})
}

// JCTCDFSeeds plots, per group, the mean over seeds of the share of
// submitted jobs finished within x hours ("all"; a seed's unfinished jobs
// never count as finished, so a policy that strands jobs ends lower), or
// of the jobs every policy finished in that seed ("common"), on a log
// grid of JCTs, with the 95 % t-interval of the per-seed shares as a band.
func JCTCDFSeeds(groups []SeedGroup, population string) (*Figure, error) {
	if population == "" {
		population = "all"
	}
	if population != "all" && population != "common" {
		return nil, fmt.Errorf("plots: jct-cdf: population %q: want all or common", population)
	}
	n := len(groups[0].Seeds)
	// Per seed: the IDs every group finished (common population).
	common := make([]map[int32]bool, n)
	if population == "common" {
		var err error
		if common, err = commonPerSeed(groups, n); err != nil {
			return nil, err
		}
	}
	// Per group and seed: sorted finished JCTs (h) and the denominator.
	cdfs := make([][]seedCDF, len(groups))
	xmin, xmax := math.Inf(1), 0.0
	for gi, g := range groups {
		for k, r := range g.Seeds {
			c := newSeedCDF(r, common[k])
			if len(c.fin) > 0 {
				xmin, xmax = math.Min(xmin, c.fin[0]), math.Max(xmax, c.fin[len(c.fin)-1])
			}
			cdfs[gi] = append(cdfs[gi], c)
		}
	}
	yLabel := "share of submitted jobs"
	if population == "common" {
		yLabel = "share of jobs every policy finished"
	}
	f := &Figure{}
	p := newPlot("JCT (h, log scale)", yLabel)
	f.Panels = []*plot.Plot{p}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	// From just below the shortest JCT (at least 1 minute: a log axis
	// needs a positive start) to the longest.
	const floor = 1.0 / 60
	lo := math.Max(floor, 0.95*xmin)
	if math.IsInf(xmin, 1) {
		lo = floor
	}
	xmax = math.Max(xmax, 2*lo)
	const points = 240
	xs := make([]float64, points)
	for k := range xs {
		xs[k] = lo * math.Pow(xmax/lo, float64(k)/float64(points-1))
	}
	for gi, g := range groups {
		mean, lo, hi := cdfBand(xs, cdfs[gi])
		if math.IsNaN(mean[0]) {
			continue
		}
		bd, err := band(xs, lo, hi, gi)
		if err != nil {
			return nil, fmt.Errorf("plots: jct-cdf %s: %w", g.Label, err)
		}
		pts := make(plotter.XYs, points)
		for k := range xs {
			pts[k] = plotter.XY{X: xs[k], Y: mean[k]}
		}
		l, s, err := line(pts, gi, 5)
		if err != nil {
			return nil, fmt.Errorf("plots: jct-cdf %s: %w", g.Label, err)
		}
		p.Add(bd, l, s)
		label := g.Label
		if population == "all" {
			fin, tot := 0, 0
			for _, c := range cdfs[gi] {
				fin, tot = fin+len(c.fin), tot+c.total
			}
			label = fmt.Sprintf("%s (%s finished)", g.Label, shareText(fin, tot, n))
		}
		f.addLegend(label, l, s)
	}
	bandKey(f, n)
	return f, nil
}

// commonPerSeed returns, per seed, the IDs of the jobs every group
// finished: the common population of that seed's runs. Separate because
// it is the population's definition, and the one check that every run
// has a per-job table to define it from.
func commonPerSeed(groups []SeedGroup, n int) ([]map[int32]bool, error) {
	common := make([]map[int32]bool, n)
	for k := range n {
		count := map[int32]int{}
		for _, g := range groups {
			if len(g.Seeds[k].Jobs) == 0 {
				return nil, fmt.Errorf("plots: jct-cdf common: run %s (seed %d of %d) has no per-job table", g.Label, k+1, n)
			}
			for _, j := range g.Seeds[k].Jobs {
				if j.Finished {
					count[j.ID]++
				}
			}
		}
		common[k] = map[int32]bool{}
		for id, c := range count {
			if c == len(groups) {
				common[k][id] = true
			}
		}
	}
	return common, nil
}

// seedCDF is one run's empirical JCT distribution: its finished JCTs in
// hours, sorted, over the size of its population.
type seedCDF struct {
	fin   []float64
	total int
}

// newSeedCDF returns r's distribution over its population: the common
// jobs when common is non-nil, else every submitted job (or, without a
// per-job table, the finished ones). Separate because the choice of
// population is the figure's definition, apart from its drawing.
func newSeedCDF(r Run, common map[int32]bool) seedCDF {
	var c seedCDF
	switch {
	case common != nil:
		for _, j := range r.Jobs {
			if common[j.ID] {
				c.fin = append(c.fin, j.Time/3600)
			}
		}
		c.total = len(c.fin)
	case len(r.Jobs) > 0:
		for _, j := range r.Jobs {
			if j.Finished {
				c.fin = append(c.fin, j.Time/3600)
			}
		}
		c.total = len(r.Jobs)
	default:
		for _, v := range r.JCTs {
			c.fin = append(c.fin, v/3600)
		}
		c.total = len(c.fin)
	}
	slices.Sort(c.fin)
	return c
}

// cdfBand returns, at each x, the mean over seeds of the share finished
// within x hours and its 95 % t-interval clipped to [0, 1] (NaN where no
// seed has a population). Separate because it is the statistics of the
// band, apart from drawing it.
func cdfBand(xs []float64, cdfs []seedCDF) (mean, lo, hi []float64) {
	mean, lo, hi = make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	vals := make([]float64, len(cdfs))
	for k, x := range xs {
		for s, c := range cdfs {
			vals[s] = math.NaN()
			if c.total > 0 {
				// Share finished within x (a JCT below the floor counts at it).
				done, _ := slices.BinarySearch(c.fin, math.Nextafter(x, math.Inf(1)))
				vals[s] = float64(done) / float64(c.total)
			}
		}
		iv := TInterval(vals)
		mean[k], lo[k], hi[k] = iv.Mean, math.Max(0, iv.Lo), math.Min(1, iv.Hi)
	}
	return mean, lo, hi
}

// shareText is finished/submitted per seed: exact when every seed has
// the same counts, else the means to one decimal.
func shareText(fin, tot, seeds int) string {
	mean := func(x int) string {
		if x%seeds == 0 {
			return strconv.Itoa(x / seeds)
		}
		return strconv.FormatFloat(float64(x)/float64(seeds), 'f', 1, 64)
	}
	return mean(fin) + "/" + mean(tot)
}

// timeSeriesSeeds plots, per group, the mean over seeds of the rolling
// series on a common time grid (each seed's value at a grid time is its
// last round's at or before it; a seed whose run has ended no longer
// counts), with the 95 % t-interval across seeds as a band.
func timeSeriesSeeds(yLabel string, groups []SeedGroup, window float64, value func(sim.RoundRecord) float64) (*Figure, error) {
	span := 0.0
	for _, g := range groups {
		for _, r := range g.Seeds {
			if k := len(r.Timeline); k > 0 {
				span = math.Max(span, r.Timeline[k-1].Time-r.Start)
			}
		}
	}
	div, window, xLabel := timeAxis(span, window)
	f := &Figure{}
	p := newPlot(xLabel, yLabel)
	f.Panels = []*plot.Plot{p}
	const points = 200
	xs := make([]float64, points)
	for k := range xs {
		xs[k] = span / div * float64(k) / float64(points-1)
	}
	n := len(groups[0].Seeds)
	top := 0.0
	for gi, g := range groups {
		series := make([]plotter.XYs, 0, n)
		for _, r := range g.Seeds {
			if len(r.Timeline) > 0 {
				series = append(series, rolling(r.Timeline, r.Start, div, window, value))
			}
		}
		if len(series) == 0 {
			continue
		}
		var gx, mean, lo, hi []float64
		vals := make([]float64, len(series))
		for _, x := range xs {
			for s, pts := range series {
				vals[s] = math.NaN()
				// The last point at or before x, while the run lasts.
				k, found := slices.BinarySearchFunc(pts, x, func(p plotter.XY, x float64) int {
					switch {
					case p.X < x:
						return -1
					case p.X > x:
						return 1
					}
					return 0
				})
				if !found {
					k--
				}
				if k >= 0 && x <= pts[len(pts)-1].X {
					vals[s] = pts[k].Y
				}
			}
			iv := TInterval(vals)
			if iv.N == 0 {
				continue
			}
			gx, mean, lo, hi = append(gx, x), append(mean, iv.Mean), append(lo, math.Max(0, iv.Lo)), append(hi, iv.Hi)
			top = math.Max(top, iv.Hi)
		}
		if len(gx) == 0 {
			continue
		}
		bd, err := band(gx, lo, hi, gi)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", g.Label, err)
		}
		pts := make(plotter.XYs, len(gx))
		for k := range gx {
			pts[k] = plotter.XY{X: gx[k], Y: mean[k]}
		}
		l, s, err := line(pts, gi, 6)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", g.Label, err)
		}
		p.Add(bd, l, s)
		f.addLegend(g.Label, l, s)
	}
	bandKey(f, n)
	p.X.Min = 0
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.05, 1)
	return f, nil
}
