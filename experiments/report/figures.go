package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"

	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/sim/clusterspec"
)

// FigureOptions say how figures are drawn and written.
type FigureOptions struct {
	Format string     // pdf, svg or png (default)
	Size   plots.Size // default plots.Column
	// Title above each figure ("" = none, the default).
	Title string
	// CDF population ("all" or "common") and the time series' rolling
	// window (plots.Options).
	CDF    string
	Window float64
	// Labels rename policies in legends and on axes (policy as run →
	// label), e.g. "exec:python3 sjf.py" → "SJF"; see ParseLabels.
	Labels map[string]string
}

// label is the name figures show for a policy.
func (o FigureOptions) label(policy string) string {
	if l, ok := o.Labels[policy]; ok {
		return l
	}
	return policy
}

// runLabel is r.Label() with its policy renamed.
func (o FigureOptions) runLabel(r *sweep.Results) string {
	return o.label(r.Summary.Policy) + strings.TrimPrefix(r.Label(), r.Summary.Policy)
}

// ParseLabels reads --label values "POLICY=LABEL" (split at the last "=",
// since policy names may hold one: "backfill(order=smallest)=Backfill").
func ParseLabels(vals []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range vals {
		i := strings.LastIndex(v, "=")
		if i < 0 {
			return nil, fmt.Errorf("label %q: want POLICY=LABEL, e.g. 'exec:python3 sjf.py=SJF'", v)
		}
		from, to := strings.TrimSpace(v[:i]), strings.TrimSpace(v[i+1:])
		if from == "" || to == "" {
			return nil, fmt.Errorf("label %q: want POLICY=LABEL with neither empty", v)
		}
		if prev, dup := out[from]; dup && prev != to {
			return nil, fmt.Errorf("label %q: policy %q already labelled %q", v, from, prev)
		}
		out[from] = to
	}
	return out, nil
}

func (o FigureOptions) render() plots.Render {
	return plots.Render{Size: o.Size}
}

func (o FigureOptions) ext() string {
	if o.Format == "" {
		return "png"
	}
	return o.Format
}

// PlotRun converts loaded results (with tables) into what plots draw.
func PlotRun(r *sweep.Results) plots.Run {
	start := 0.0
	if len(r.Timeline) > 0 {
		start = r.Timeline[0].Time
	}
	pr := plots.Run{
		Label: r.Label(), JCTs: r.Record.JCTs, MeanJCT: r.Summary.MeanJCT, CensoredMeanJCT: r.Summary.CensoredMeanJCT, PaddedMeanJCT: r.Summary.PaddedMeanJCT,
		Timeline: r.Timeline, Types: r.Types, Start: start, Utilization: r.Summary.Utilization,
		Allocations: r.Allocations,
	}
	// Unfinished jobs are censored at the horizon: their JCT is at least
	// the time from submission to the end of the simulated window.
	horizon := start + r.Summary.HorizonS
	for _, j := range r.Jobs {
		if j.State == "finished" {
			pr.Jobs = append(pr.Jobs, plots.Job{ID: j.ID, Time: j.JCT, Finished: true})
		} else {
			pr.Jobs = append(pr.Jobs, plots.Job{ID: j.ID, Time: max(0, horizon-j.Submit)})
		}
	}
	pr.GPUs = gpuLayout(r)
	return pr
}

// gpuLayout is the cluster's GPU slots as runs of one type, in slot order:
// from the cluster spec when it is built in or still on disk, else from
// the allocations seen.
func gpuLayout(r *sweep.Results) []plots.TypeCount {
	if spec, err := clusterspec.Load(r.Summary.Cluster); err == nil {
		var out []plots.TypeCount
		for _, p := range spec.Pools {
			n := p.Nodes * p.GPUsPerNode
			if k := len(out); k > 0 && out[k-1].Type == p.GPU {
				out[k-1].N += n
			} else {
				out = append(out, plots.TypeCount{Type: p.GPU, N: n})
			}
		}
		return out
	}
	hi := map[string]int32{}
	var order []string
	for _, a := range r.Allocations {
		if _, ok := hi[a.GPU]; !ok {
			order = append(order, a.GPU)
		}
		hi[a.GPU] = max(hi[a.GPU], a.FirstSlot+a.Slots)
	}
	sort.Slice(order, func(i, j int) bool { return hi[order[i]] < hi[order[j]] })
	var out []plots.TypeCount
	prev := int32(0)
	for _, t := range order {
		out = append(out, plots.TypeCount{Type: t, N: int(hi[t] - prev)})
		prev = hi[t]
	}
	return out
}

// FigureFile is one figure written by WriteFigures.
type FigureFile struct {
	Kind, Title, Path string
	// Notes are the drawing's compromises (plots.Figure.Notes), for the
	// user to see.
	Notes []string
}

// WriteFigures draws each kind for runs into dir as <prefix><kind>.<format>
// (the one-run occupancy figure: <prefix><policy>.occupancy.<format> for
// each run). Runs should be loaded with tables and padded (PadGroups)
// beforehand.
func WriteFigures(dir, prefix string, runs []*sweep.Results, kinds []string, o FigureOptions) ([]FigureFile, error) {
	pr := make([]plots.Run, len(runs))
	for i, r := range runs {
		pr[i] = PlotRun(r)
		pr[i].Label = o.runLabel(r)
	}
	po := plots.Options{Title: o.Title, CDF: o.CDF, Window: o.Window}
	var out []FigureFile
	for _, k := range kinds {
		if k == "occupancy" {
			for i, r := range pr {
				f, err := plots.Draw(k, []plots.Run{r}, po)
				if err != nil {
					return out, err
				}
				path := filepath.Join(dir, prefix+sweep.SanitizeKey(runs[i].Label())+"."+k+"."+o.ext())
				if err := f.Save(path, o.render()); err != nil {
					return out, err
				}
				out = append(out, FigureFile{Kind: k, Title: kindTitle[k] + ", " + r.Label, Path: path, Notes: f.Notes})
			}
			continue
		}
		f, err := plots.Draw(k, pr, po)
		if err != nil {
			return out, err
		}
		path := filepath.Join(dir, prefix+k+"."+o.ext())
		if err := f.Save(path, o.render()); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: k, Title: kindTitle[k], Path: path, Notes: f.Notes})
	}
	return out, nil
}

var kindTitle = map[string]string{
	"jct-cdf": "JCT CDF", "jct-bars": "mean JCT", "throughput": "cluster throughput",
	"queue": "queue length", "utilization": "GPU utilisation by type", "occupancy": "GPU occupancy",
	"load-jct": "padded mean JCT vs load", "load-throughput": "mean throughput vs load",
}

// LoadKinds are the load-sweep figure kinds.
var LoadKinds = []string{"load-jct", "load-throughput"}

// WriteLoadFigures draws the load-sweep curves (padded mean JCT and mean
// throughput against density, one line per policy) of runs that differ in
// density, one panel per trace (runs of different traces are never joined
// into one line); runs must be padded within their groups. Runs of one
// trace that differ in anything but policy and density (cluster, timing,
// rounds, seed, estimator) are refused: their points would zig-zag.
func WriteLoadFigures(dir, prefix string, runs []*sweep.Results, o FigureOptions) ([]FigureFile, error) {
	// Several seeds at a density give their mean with its 95 %
	// t-interval (plots.TInterval), from the runs as padded by the caller.
	var traceOrder []string
	byTrace := map[string][]*sweep.Results{}
	for _, r := range runs {
		t := r.Summary.Trace
		if _, ok := byTrace[t]; !ok {
			traceOrder = append(traceOrder, t)
		}
		byTrace[t] = append(byTrace[t], r)
	}
	var jctPanels, thrPanels []plots.Panel
	seedCounts := map[int]bool{}
	for _, t := range traceOrder {
		rs := byTrace[t]
		var policies []string
		byPolicy := map[string][]*sweep.Results{}
		for _, r := range rs {
			p := r.Summary.Policy
			if _, ok := byPolicy[p]; !ok {
				policies = append(policies, p)
			}
			byPolicy[p] = append(byPolicy[p], r)
		}
		var jct, thr []plots.Curve
		for _, p := range policies {
			cj, ct, err := loadCurves(t, p, byPolicy[p], o, seedCounts)
			if err != nil {
				return nil, err
			}
			jct, thr = append(jct, cj), append(thr, ct)
		}
		title := t
		if len(traceOrder) == 1 {
			title = ""
		}
		jctPanels = append(jctPanels, plots.Panel{Title: title, Curves: jct})
		thrPanels = append(thrPanels, plots.Panel{Title: title, Curves: thr})
	}
	var out []FigureFile
	for _, f := range []struct {
		kind, y string
		p       []plots.Panel
	}{{"load-jct", "padded mean JCT (h)", jctPanels}, {"load-throughput", "mean throughput (samples/s)", thrPanels}} {
		ciName := ""
		if len(seedCounts) == 1 {
			for n := range seedCounts {
				ciName = plots.IntervalName(n)
			}
		} else if len(seedCounts) > 1 {
			ciName = "95 % t-interval over each point's seeds"
		}
		fig, err := plots.LoadCurvesCI(f.y, f.p, ciName)
		if err != nil {
			return out, err
		}
		fig.Title = o.Title
		path := filepath.Join(dir, prefix+f.kind+"."+o.ext())
		if err := fig.Save(path, o.render()); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: f.kind, Title: kindTitle[f.kind], Path: path, Notes: fig.Notes})
	}
	return out, nil
}

// loadCurves is one policy's JCT and throughput curves over density on
// trace t, from its runs (sorted here by density): at a density with
// several seeds the mean and its 95 % t-interval (seedCounts gets the
// count), else the run's value. Runs at one density must differ in their
// seed only, and runs at different densities in their density only.
func loadCurves(t, p string, prs []*sweep.Results, o FigureOptions, seedCounts map[int]bool) (cj, ct plots.Curve, err error) {
	sort.SliceStable(prs, func(i, j int) bool { return prs[i].Record.Density < prs[j].Record.Density })
	cj, ct = plots.Curve{Label: o.label(p)}, plots.Curve{Label: o.label(p)}
	withCI := false
	for i := 0; i < len(prs); {
		k := i + 1
		for k < len(prs) && prs[k].Record.Density == prs[i].Record.Density {
			k++
		}
		// Runs at one density may differ in their seed only.
		seeds := map[int64]bool{}
		for _, r := range prs[i:k] {
			if loadCell(r) != loadCell(prs[i]) || seeds[r.Record.Seed] {
				return cj, ct, fmt.Errorf("load figure: trace %s, policy %s: runs %s and %s differ in more than the density and seed (%s vs %s); plot them separately, one directory per setting",
					t, p, prs[i].Dir, r.Dir, loadCell(prs[i]), loadCell(r))
			}
			seeds[r.Record.Seed] = true
		}
		if i > 0 && loadCell(prs[i]) != loadCell(prs[i-1]) {
			return cj, ct, fmt.Errorf("load figure: trace %s, policy %s: runs %s and %s differ in more than the density (%s vs %s); plot them separately, one directory per setting",
				t, p, prs[i-1].Dir, prs[i].Dir, loadCell(prs[i-1]), loadCell(prs[i]))
		}
		d := runner.Density(prs[i].Record.Density)
		cj.X, ct.X = append(cj.X, d), append(ct.X, d)
		if k-i > 1 {
			// Mean over seeds with its 95 % t-interval.
			var jv, tv []float64
			for _, r := range prs[i:k] {
				jv, tv = append(jv, r.Summary.PaddedMeanJCT/3600), append(tv, r.Summary.MeanThroughput)
			}
			ji, ti := plots.TInterval(jv), plots.TInterval(tv)
			cj.Y, ct.Y = append(cj.Y, ji.Mean), append(ct.Y, ti.Mean)
			cj.Lo, cj.Hi = append(cj.Lo, ji.Lo), append(cj.Hi, ji.Hi)
			ct.Lo, ct.Hi = append(ct.Lo, ti.Lo), append(ct.Hi, ti.Hi)
			withCI = true
			seedCounts[k-i] = true
		} else {
			s := prs[i].Summary
			cj.Y, ct.Y = append(cj.Y, s.PaddedMeanJCT/3600), append(ct.Y, s.MeanThroughput)
			cj.Lo, cj.Hi = append(cj.Lo, s.PaddedMeanJCT/3600), append(cj.Hi, s.PaddedMeanJCT/3600)
			ct.Lo, ct.Hi = append(ct.Lo, s.MeanThroughput), append(ct.Hi, s.MeanThroughput)
		}
		i = k
	}
	if !withCI {
		cj.Lo, cj.Hi, ct.Lo, ct.Hi = nil, nil, nil, nil
	}
	return cj, ct, nil
}

// SeedCell is the runs of one cell (trace, cluster, timing, rounds,
// density, estimator) over several seeds: the unit of a seed-aggregated
// figure.
type SeedCell struct {
	// Name is the cell's comparison group with its seed replaced by
	// "seeds" (e.g. philly.paper-1280.exact.rdef.d1.seeds).
	Name string
	// Policies in first-seen order; Seeds the seeds every policy ran, in
	// increasing order (a band needs the same workload draws throughout).
	Policies []string
	Seeds    []int64
	// Runs[policy][k] is the policy's run on Seeds[k].
	Runs map[string][]*sweep.Results
	// Groups are the comparison groups (one per seed) the cell covers.
	Groups []string
}

// SeedCells finds the cells of runs with at least two seeds that every
// policy of the cell ran. Groups outside them (one seed) keep their
// per-group figures.
func SeedCells(runs []*sweep.Results) []*SeedCell {
	rows := sweep.SummaryRowsAsPadded(runs)
	type acc struct {
		name     string
		policies []string
		bySeed   map[string]map[int64]*sweep.Results
	}
	var order []string
	cells := map[string]*acc{}
	for i, r := range runs {
		k := sweep.CellKey(&rows[i])
		c, ok := cells[k]
		if !ok {
			name := strings.Replace(r.Record.Group, ".s"+strconv.FormatInt(r.Record.Seed, 10), ".seeds", 1)
			c = &acc{name: name, bySeed: map[string]map[int64]*sweep.Results{}}
			cells[k] = c
			order = append(order, k)
		}
		p := r.Summary.Policy
		if c.bySeed[p] == nil {
			c.policies = append(c.policies, p)
			c.bySeed[p] = map[int64]*sweep.Results{}
		}
		if _, dup := c.bySeed[p][r.Record.Seed]; !dup {
			c.bySeed[p][r.Record.Seed] = r
		}
	}
	var out []*SeedCell
	for _, k := range order {
		c := cells[k]
		var seeds []int64
		for s := range c.bySeed[c.policies[0]] {
			every := true
			for _, p := range c.policies[1:] {
				if _, ok := c.bySeed[p][s]; !ok {
					every = false
				}
			}
			if every {
				seeds = append(seeds, s)
			}
		}
		if len(seeds) < 2 {
			continue
		}
		slices.Sort(seeds)
		sc := &SeedCell{Name: c.name, Policies: c.policies, Seeds: seeds, Runs: map[string][]*sweep.Results{}}
		groups := map[string]bool{}
		for _, p := range c.policies {
			for _, s := range seeds {
				r := c.bySeed[p][s]
				sc.Runs[p] = append(sc.Runs[p], r)
				if !groups[r.Record.Group] {
					groups[r.Record.Group] = true
					sc.Groups = append(sc.Groups, r.Record.Group)
				}
			}
		}
		out = append(out, sc)
	}
	return out
}

// SeedKinds are the kinds a seed cell is drawn in (occupancy is one
// run's picture: it stays per seed).
var SeedKinds = []string{"jct-cdf", "jct-bars", "throughput", "queue", "utilization"}

// WriteSeedFigures draws each kind of kinds (those of SeedKinds) for each
// cell as <cell>.<kind>.<format>: the mean over seeds with a band (CDF,
// time series) or whiskers (bars) of the 95 % t-interval over seeds
// (plots.TInterval, stated in the legend and the caption). Runs must be
// loaded with tables and padded within their groups.
func WriteSeedFigures(dir string, cells []*SeedCell, kinds []string, o FigureOptions) ([]FigureFile, error) {
	po := plots.Options{Title: o.Title, CDF: o.CDF, Window: o.Window}
	var out []FigureFile
	for _, c := range cells {
		n := len(c.Seeds)
		caption := func(k string) string {
			return fmt.Sprintf("%s, mean over %d seeds with its 95 %% t-interval", kindTitle[k], n)
		}
		for _, k := range kinds {
			if !slices.Contains(SeedKinds, k) {
				continue
			}
			var f *plots.Figure
			var err error
			switch k {
			case "jct-bars":
				f, err = plots.MeanJCTBarsCI(seedBarRuns(c, o), plots.IntervalName(n))
			case "utilization":
				f, err = plots.UtilizationCI(seedUtilRuns(c, o), plots.IntervalName(n))
			default:
				var groups []plots.SeedGroup
				for _, p := range c.Policies {
					g := plots.SeedGroup{Label: o.label(p)}
					for _, r := range c.Runs[p] {
						g.Seeds = append(g.Seeds, PlotRun(r))
					}
					groups = append(groups, g)
				}
				f, err = plots.DrawSeeds(k, groups, po)
			}
			if err != nil {
				return out, fmt.Errorf("%s: %w", c.Name, err)
			}
			f.Title = o.Title
			path := filepath.Join(dir, c.Name+"."+k+"."+o.ext())
			if err := f.Save(path, o.render()); err != nil {
				return out, err
			}
			out = append(out, FigureFile{Kind: k, Title: caption(k), Path: path, Notes: f.Notes})
		}
	}
	return out, nil
}

// seedBarRuns are a cell's per-policy mean JCTs over seeds with their
// t-intervals (finished-job, censored and padded means).
func seedBarRuns(c *SeedCell, o FigureOptions) []plots.Run {
	var pr []plots.Run
	for _, p := range c.Policies {
		var m, cm, pm []float64
		for _, r := range c.Runs[p] {
			s := r.Summary
			m, cm, pm = append(m, s.MeanJCT), append(cm, s.CensoredMeanJCT), append(pm, s.PaddedMeanJCT)
		}
		a, b, d := plots.TInterval(m), plots.TInterval(cm), plots.TInterval(pm)
		pr = append(pr, plots.Run{Label: o.label(p),
			MeanJCT: a.Mean, MeanJCTCI: [2]float64{a.Lo, a.Hi},
			CensoredMeanJCT: b.Mean, CensoredMeanJCTCI: [2]float64{b.Lo, b.Hi},
			PaddedMeanJCT: d.Mean, PaddedMeanJCTCI: [2]float64{d.Lo, d.Hi}})
	}
	return pr
}

// seedUtilRuns are a cell's per-policy mean busy shares per GPU type over
// seeds with their t-intervals.
func seedUtilRuns(c *SeedCell, o FigureOptions) []plots.Run {
	var pr []plots.Run
	for _, p := range c.Policies {
		r0 := c.Runs[p][0]
		run := plots.Run{Label: o.label(p), Types: r0.Types, Utilization: map[string]float64{}, UtilizationCI: map[string][2]float64{}}
		types := map[string]bool{}
		for _, r := range c.Runs[p] {
			for t := range r.Summary.Utilization {
				types[t] = true
			}
		}
		for t := range types {
			var xs []float64
			for _, r := range c.Runs[p] {
				xs = append(xs, r.Summary.Utilization[t])
			}
			iv := plots.TInterval(xs)
			run.Utilization[t] = iv.Mean
			run.UtilizationCI[t] = [2]float64{max(0, iv.Lo), min(1, iv.Hi)} // a share
		}
		pr = append(pr, run)
	}
	return pr
}

// loadCell names what a load curve's points must share.
func loadCell(r *sweep.Results) string {
	s := r.Summary
	rounds := s.Rounds
	if s.RoundsAsked > 0 { // drained: the rounds asked, not where each run stopped
		rounds = s.RoundsAsked
	}
	return fmt.Sprintf("cluster %s, %s timing, %d rounds%s, estimator %s", s.Cluster, s.Timing, rounds, map[bool]string{true: " (drained)"}[s.Drain], s.Estimator)
}

// ParseKinds validates a --kind list ("" or "all" = every per-group kind
// but occupancy; "load" = the load-sweep curves).
func ParseKinds(s string) ([]string, error) {
	if s == "" || s == "all" {
		// The tenant and fault figures are drawn where runs have them.
		return slices.Concat(plots.DefaultKinds, TenantKinds, FaultKinds), nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "all" {
			out = append(out, plots.DefaultKinds...)
			out = append(out, TenantKinds...)
			out = append(out, FaultKinds...)
			continue
		}
		if k == "faults" {
			out = append(out, FaultKinds...)
			continue
		}
		if k == "tenants" {
			out = append(out, TenantKinds...)
			continue
		}
		if k == "load" {
			out = append(out, LoadKinds...)
			continue
		}
		if !slices.Contains(plots.Kinds, k) && !slices.Contains(LoadKinds, k) && !slices.Contains(TenantKinds, k) && !slices.Contains(FaultKinds, k) {
			return nil, fmt.Errorf("kind %q: unknown (known: %s, load, %s, tenants, %s, faults)", k, strings.Join(plots.Kinds, ", "), strings.Join(TenantKinds, ", "), strings.Join(FaultKinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}
