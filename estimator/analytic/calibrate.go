package analytic

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/arena-sim/arena/estimator"
)

// Entry is one measurement of the profile database.
type Entry struct {
	Workload estimator.Workload
	Config   estimator.Config
	// Seconds is the stored iteration time; Seconds < 0 means out of memory.
	Seconds float64
}

// OOM reports whether the database stores the entry as out of memory.
func (e Entry) OOM() bool { return e.Seconds < 0 }

// DatabaseEntries parses the embedded profile database into entries, in a
// deterministic order (key, then config).
func DatabaseEntries() ([]Entry, error) {
	var raw struct {
		Optimal map[string]map[string]float64 `json:"optimal"`
	}
	if err := json.Unmarshal(estimator.ProfileDBJSON(), &raw); err != nil {
		return nil, fmt.Errorf("analytic: profile database: %w", err)
	}
	var out []Entry
	for _, key := range sortedKeys(raw.Optimal) {
		w, err := parseDBKey(key)
		if err != nil {
			return nil, err
		}
		for _, ck := range sortedKeys(raw.Optimal[key]) {
			c, err := parseConfigKey(ck)
			if err != nil {
				return nil, fmt.Errorf("analytic: profile database key %s: %w", key, err)
			}
			out = append(out, Entry{Workload: w, Config: c, Seconds: raw.Optimal[key][ck]})
		}
	}
	return out, nil
}

// parseDBKey reads "bert_2.6B_256" / "wide_resnet_500M_256".
func parseDBKey(key string) (estimator.Workload, error) {
	i := strings.LastIndex(key, "_")
	if i < 0 {
		return estimator.Workload{}, fmt.Errorf("analytic: profile database key %q: want <model>_<size>_<batch>", key)
	}
	batch, err := strconv.Atoi(key[i+1:])
	if err != nil {
		return estimator.Workload{}, fmt.Errorf("analytic: profile database key %q: batch: %w", key, err)
	}
	rest := key[:i]
	j := strings.LastIndex(rest, "_")
	m, err := estimator.ParseModel(rest[:j] + "__" + rest[j+1:])
	if err != nil {
		return estimator.Workload{}, fmt.Errorf("analytic: profile database key %q: %w", key, err)
	}
	return estimator.Workload{Model: m, Batch: batch}, nil
}

// parseConfigKey reads "2_a40_2_n_2_d".
func parseConfigKey(k string) (estimator.Config, error) {
	f := strings.Split(k, "_")
	if len(f) != 6 || f[3] != "n" || f[5] != "d" {
		return estimator.Config{}, fmt.Errorf("config %q: want <H>_<gpu>_<H>_n_<D>_d", k)
	}
	h, err1 := strconv.Atoi(f[0])
	d, err2 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || h <= 0 || d <= 0 {
		return estimator.Config{}, fmt.Errorf("config %q: bad node or GPU count", k)
	}
	return estimator.Config{GPU: f[1], Nodes: h, PerNode: d}, nil
}

// candidate is one plan frozen for fast re-evaluation under new parameters.
type candidate struct {
	arch   *Arch
	st     []stageAgg
	shape  Shape
	micro  int
	batch  int
	gpu    estimator.GPUType
	nodes  int
	perN   int
	family estimator.Family
}

func (c *candidate) time(p *Params) float64 {
	hw := newHardware(c.gpu, c.nodes, c.perN, c.family, p)
	return planCost(c.arch, c.st, c.shape, c.micro, c.batch, &hw).IterTime
}

// topPlans returns the k fastest plans over every grid of a locality.
func (pl Planner) topPlans(j Job, c estimator.Config, k int) []candidate {
	gpu, err := estimator.LookupGPU(c.GPU)
	if err != nil {
		return nil
	}
	type scored struct {
		t float64
		c candidate
	}
	var all []scored
	for _, g := range Grids(j, c) {
		hw := newHardware(gpu, g.Nodes, g.PerNode, j.Arch.Family, pl.Params)
		eachPlan(j, g, func(_ []int, st []stageAgg, sh Shape, m int) {
			r := planCost(j.Arch, st, sh, m, j.Batch, &hw)
			if !r.Fits {
				return
			}
			if len(all) >= 4*k {
				sort.Slice(all, func(a, b int) bool { return all[a].t < all[b].t })
				all = all[:k]
			}
			if len(all) >= k && r.IterTime >= all[k-1].t && len(all) == k {
				return
			}
			all = append(all, scored{r.IterTime, candidate{arch: j.Arch, st: st, shape: sh, micro: m, batch: j.Batch, gpu: gpu, nodes: g.Nodes, perN: g.PerNode, family: j.Arch.Family}})
		})
	}
	sort.Slice(all, func(a, b int) bool { return all[a].t < all[b].t })
	if len(all) > k {
		all = all[:k]
	}
	out := make([]candidate, len(all))
	for i, s := range all {
		out[i] = s.c
	}
	return out
}

// parameter vector layout: log efficiency per (calibrated gpu, family) that
// has data, log layer latency per family, log comm efficiencies, logit of
// DPExposed.
type layout struct {
	effKeys [][2]string
	gpus    []string
}

func newLayout(entries []Entry) layout {
	seen := map[[2]string]bool{}
	var l layout
	for _, e := range entries {
		k := [2]string{e.Config.GPU, e.Workload.Model.Family.String()}
		if !seen[k] {
			seen[k] = true
			l.effKeys = append(l.effKeys, k)
		}
	}
	sort.Slice(l.effKeys, func(a, b int) bool {
		if l.effKeys[a][0] != l.effKeys[b][0] {
			return l.effKeys[a][0] < l.effKeys[b][0]
		}
		return l.effKeys[a][1] < l.effKeys[b][1]
	})
	for _, k := range l.effKeys {
		if len(l.gpus) == 0 || l.gpus[len(l.gpus)-1] != k[0] {
			l.gpus = append(l.gpus, k[0])
		}
	}
	return l
}

func (l layout) dim() int { return len(l.effKeys) + 2*len(Families) + 2*len(l.gpus) + 1 }

func (l layout) encode(p *Params) []float64 {
	x := make([]float64, 0, l.dim())
	for _, k := range l.effKeys {
		x = append(x, math.Log(p.efficiency(k[0], familyByName(k[1]))))
	}
	for _, f := range Families {
		x = append(x, math.Log(math.Max(p.LayerLatency[f], 1e-6)))
	}
	for _, f := range Families {
		x = append(x, math.Log(math.Max(p.HalfWidth[f], 1)))
	}
	for _, g := range l.gpus {
		c := p.commEff(g)
		x = append(x, math.Log(c.Intra), math.Log(c.Inter))
	}
	dp := math.Min(math.Max(p.DPExposed, 1e-3), 1-1e-3)
	return append(x, math.Log(dp/(1-dp)))
}

func (l layout) decode(x []float64) *Params {
	p := &Params{Efficiency: map[string]map[string]float64{}, LayerLatency: map[string]float64{}, HalfWidth: map[string]float64{}, CommEfficiency: map[string]CommEff{}}
	for i, k := range l.effKeys {
		if p.Efficiency[k[0]] == nil {
			p.Efficiency[k[0]] = map[string]float64{}
		}
		p.Efficiency[k[0]][k[1]] = math.Min(math.Exp(x[i]), 1)
	}
	n := len(l.effKeys)
	for i, f := range Families {
		p.LayerLatency[f] = math.Exp(x[n+i])
	}
	n += len(Families)
	for i, f := range Families {
		p.HalfWidth[f] = math.Exp(x[n+i])
	}
	n += len(Families)
	for i, g := range l.gpus {
		p.CommEfficiency[g] = CommEff{Intra: math.Min(math.Exp(x[n+2*i]), 1), Inter: math.Min(math.Exp(x[n+2*i+1]), 1)}
	}
	n += 2 * len(l.gpus)
	p.DPExposed = 1 / (1 + math.Exp(-x[n]))
	return p
}

func familyByName(s string) estimator.Family {
	switch s {
	case "gpt":
		return estimator.GPT
	case "moe":
		return estimator.MoE
	}
	return estimator.WideResNet
}

// missPenalty is the squared log error charged when the model finds no
// feasible plan for a measured-feasible entry.
const missPenalty = 4.0

// commPrior and commPriorWeight form a weak ridge prior on the log
// communication efficiencies: few entries per GPU type span nodes, so
// without it a type's inter-node efficiency can drift to an arbitrary
// bound where no entry constrains it.
const (
	commPrior       = 0.3
	commPriorWeight = 0.05
)

// objective is the sum of squared log errors over the entries' candidate
// plans (the best candidate is the prediction), skipping index `skip`,
// plus the communication prior.
func objective(l layout, cands [][]candidate, meas []float64, skip int) func([]float64) float64 {
	lc := math.Log(commPrior)
	off := len(l.effKeys) + 2*len(Families)
	return func(x []float64) float64 {
		p := l.decode(x)
		var sum float64
		for i := off; i < off+2*len(l.gpus); i++ {
			d := x[i] - lc
			sum += commPriorWeight * d * d
		}
		for i, cs := range cands {
			if i == skip || meas[i] <= 0 {
				continue
			}
			best := math.Inf(1)
			for k := range cs {
				best = math.Min(best, cs[k].time(p))
			}
			if math.IsInf(best, 1) {
				sum += missPenalty
				continue
			}
			d := math.Log(best / meas[i])
			sum += d * d
		}
		return sum
	}
}

// Fit is a calibration result.
type Fit struct {
	Params  *Params
	Entries []Entry
	// Predicted is the in-sample prediction per entry (+Inf = no feasible plan).
	Predicted []float64
	Evals     int
	cands     [][]candidate
	layout    layout
}

// FitOptions tune the calibration.
type FitOptions struct {
	// Rounds of (re-search candidates, optimise); default 3.
	Rounds int
	// Candidates per entry kept for the optimiser; default 6.
	Candidates int
	// MaxEvaluations per optimisation; default 4000.
	MaxEvaluations int
}

func (o *FitOptions) defaults() {
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Candidates <= 0 {
		o.Candidates = 6
	}
	if o.MaxEvaluations <= 0 {
		o.MaxEvaluations = 4000
	}
}

// Calibrate fits the free parameters to the entries with gonum's
// Nelder–Mead, starting from start. Each round re-runs the exhaustive
// search under the current parameters, keeps each entry's fastest plans as
// candidates, and minimises the squared log error of the best candidate.
func Calibrate(entries []Entry, start *Params, opt FitOptions) (*Fit, error) {
	opt.defaults()
	l := newLayout(entries)
	x := l.encode(start)
	meas := make([]float64, len(entries))
	jobs := make([]Job, len(entries))
	for i, e := range entries {
		meas[i] = e.Seconds
		j, err := JobFor(e.Workload)
		if err != nil {
			return nil, err
		}
		jobs[i] = j
	}
	fit := &Fit{Entries: entries, layout: l}
	var err error
	for round := 0; round < opt.Rounds; round++ {
		p := l.decode(x)
		fit.cands = searchCandidates(Planner{Params: p}, jobs, entries, opt.Candidates)
		res, err := minimize(objective(l, fit.cands, meas, -1), x, opt.MaxEvaluations, 0.3)
		if err != nil {
			return nil, err
		}
		x = res.X
		fit.Evals += res.FuncEvaluations
	}
	fit.Params = l.decode(x)
	if fit.Params.DPMemory, err = CalibrateDPMemory(start.DPMemory); err != nil {
		return nil, err
	}
	fit.Predicted = predictAll(Planner{Params: fit.Params}, jobs, entries)
	return fit, nil
}

func minimize(f func([]float64) float64, x0 []float64, maxEval int, simplex float64) (*optimize.Result, error) {
	settings := &optimize.Settings{
		FuncEvaluations: maxEval,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-7, Relative: 1e-7, Iterations: 200},
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f}, x0, settings, &optimize.NelderMead{SimplexSize: simplex})
	if err != nil && res == nil {
		return nil, fmt.Errorf("analytic: calibration: %w", err)
	}
	return res, nil
}

func parallel(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

func searchCandidates(pl Planner, jobs []Job, entries []Entry, k int) [][]candidate {
	out := make([][]candidate, len(entries))
	parallel(len(entries), func(i int) {
		if entries[i].Seconds > 0 {
			out[i] = pl.topPlans(jobs[i], entries[i].Config, k)
		}
	})
	return out
}

func predictAll(pl Planner, jobs []Job, entries []Entry) []float64 {
	out := make([]float64, len(entries))
	parallel(len(entries), func(i int) {
		out[i] = pl.Best(jobs[i], entries[i].Config).Result.IterTime
	})
	return out
}

// CrossValidate predicts each measured-feasible entry with parameters
// fitted without it (leave-one-out), warm-started from the full fit and
// using the full fit's candidate plans; the prediction itself is a full
// exhaustive search under the refitted parameters. Memory feasibility does
// not depend on fitted parameters, so OOM entries keep the full model's
// verdict. maxEval bounds each refit (default 1500).
func (f *Fit) CrossValidate(maxEval int) []float64 {
	return f.CrossValidateSome(nil, maxEval)
}

// CrossValidateSome is CrossValidate restricted to the entries whose
// indices are in only (nil: every entry); the others keep the full fit's
// prediction. Tests use it to check a subsample cheaply.
func (f *Fit) CrossValidateSome(only []int, maxEval int) []float64 {
	if maxEval <= 0 {
		maxEval = 1500
	}
	want := map[int]bool{}
	for _, i := range only {
		want[i] = true
	}
	x0 := f.layout.encode(f.Params)
	meas := make([]float64, len(f.Entries))
	for i, e := range f.Entries {
		meas[i] = e.Seconds
	}
	out := make([]float64, len(f.Entries))
	parallel(len(f.Entries), func(i int) {
		if meas[i] <= 0 || (only != nil && !want[i]) {
			out[i] = f.Predicted[i]
			return
		}
		res, err := minimize(objective(f.layout, f.cands, meas, i), x0, maxEval, 0.05)
		if err != nil {
			out[i] = f.Predicted[i]
			return
		}
		j, err := JobFor(f.Entries[i].Workload)
		if err != nil {
			out[i] = math.Inf(1)
			return
		}
		out[i] = Planner{Params: f.layout.decode(res.X)}.Best(j, f.Entries[i].Config).Result.IterTime
	})
	return out
}

// ErrorStats summarises predictions against the database.
type ErrorStats struct {
	Entries, Feasible, Agree  int
	Median, P90, Mean         float64
	Agreement                 float64
	MissedFeasible, MissedOOM int
	PerGroup                  map[string][]float64 // "gpu/family" → abs errors
}

// Errors compares predictions (seconds, +Inf = no plan fits) with entries.
// Relative error is |pred − meas| / meas over entries both sides call
// feasible.
func Errors(entries []Entry, pred []float64) ErrorStats {
	s := ErrorStats{Entries: len(entries), PerGroup: map[string][]float64{}}
	var errs []float64
	for i, e := range entries {
		predFeasible := !math.IsInf(pred[i], 1) && pred[i] <= 300
		switch {
		case e.OOM() && !predFeasible:
			s.Agree++
		case e.OOM():
			s.MissedOOM++
		case !predFeasible:
			s.MissedFeasible++
		default:
			s.Agree++
			s.Feasible++
			a := math.Abs(pred[i]-e.Seconds) / e.Seconds
			errs = append(errs, a)
			k := e.Config.GPU + "/" + e.Workload.Model.Family.String()
			s.PerGroup[k] = append(s.PerGroup[k], a)
		}
	}
	s.Agreement = float64(s.Agree) / float64(len(entries))
	s.Median, s.P90, s.Mean = quantile(errs, 0.5), quantile(errs, 0.9), mean(errs)
	return s
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// dpMemRow is one measured data-parallel memory need.
type dpMemRow struct {
	arch     *Arch
	batch, n int
	needGB   float64
}

func dpMemRows() ([]dpMemRow, error) {
	var parts []map[string][]float64
	if err := json.Unmarshal(estimator.DPMemJSON(), &parts); err != nil {
		return nil, fmt.Errorf("analytic: dp_mem table: %w", err)
	}
	var out []dpMemRow
	for _, part := range parts {
		for _, key := range sortedKeys(part) {
			w, err := parseDBKey(key)
			if err != nil {
				return nil, err
			}
			a, err := ArchOf(w.Model)
			if err != nil {
				return nil, err
			}
			for i, need := range part[key] {
				if need > 0 {
					out = append(out, dpMemRow{a, w.Batch, 1 << i, need})
				}
			}
		}
	}
	return out, nil
}

// CalibrateDPMemory fits the data-parallel replica memory model to the
// artifact's dp_mem.json by Nelder–Mead on squared log error over rows
// with a recorded need (rows marked −1 say only "did not fit" on an
// unnamed GPU, so they only enter the agreement check).
func CalibrateDPMemory(start DPMemory) (DPMemory, error) {
	rows, err := dpMemRows()
	if err != nil {
		return start, err
	}
	decode := func(x []float64) DPMemory {
		return DPMemory{BytesPerParam: math.Exp(x[0]), ExpertBytesPerParam: math.Exp(x[1]), ActivationScale: math.Exp(x[2]), OverheadGB: math.Exp(x[3])}
	}
	f := func(x []float64) float64 {
		m := decode(x)
		var sum float64
		for _, r := range rows {
			d := math.Log(DPReplicaMemory(r.arch, r.batch, r.n, m) / 1e9 / r.needGB)
			sum += d * d
		}
		return sum
	}
	x0 := []float64{math.Log(start.BytesPerParam), math.Log(start.ExpertBytesPerParam), math.Log(start.ActivationScale), math.Log(math.Max(start.OverheadGB, 0.01))}
	res, err := minimize(f, x0, 4000, 0.5)
	if err != nil {
		return start, err
	}
	return decode(res.X), nil
}
