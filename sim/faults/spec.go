package faults

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// Spec is a faults spec: the seeded processes that synthesise a run's
// cluster events. Its YAML form is in docs/faults.md; the built-in
// presets are Specs written in that form (presets/*.yaml).
type Spec struct {
	Name        string
	Failures    []Failure
	Maintenance []Maintenance
	Spot        []Spot
}

// Failure is a failure process: nodes of a GPU type ("" = every type)
// fail with Weibull inter-failure times (Shape 1 = exponential) of mean
// MTBF seconds, per GPU (a node fails when any of its GPUs does) or per
// node; a failed node is repaired after a Repair time and is then as new.
// Each failure's cause is drawn from Causes by weight.
type Failure struct {
	GPU    string
	PerGPU bool
	MTBF   float64 // seconds, of one GPU (PerGPU) or one node
	Shape  float64
	Repair dist
	Causes []Cause
}

// Cause is a failure class and its relative weight.
type Cause struct {
	Name   string
	Weight float64
}

// Maintenance is planned maintenance: each node of the GPU type is
// drained Notice seconds before a window of Duration starts. Windows are
// periodic (Every > 0: at Phase + k·Every, Phase drawn per node when
// RandomPhase) or Poisson (Every = 0: a mean of Mean seconds between
// windows of one node, or of one GPU when PerGPU: a node of G GPUs then
// sees G times the rate).
type Maintenance struct {
	GPU         string
	PerGPU      bool
	Every       float64
	Mean        float64
	Phase       float64
	RandomPhase bool
	Notice      float64
	Duration    dist
	Cause       string
}

// Spot is spot capacity: each node of the GPU type is reclaimed with
// Notice seconds of warning, a mean of Mean seconds between reclaims
// (Poisson), and comes back Returns after it went down.
type Spot struct {
	GPU     string
	Mean    float64
	Notice  float64
	Returns dist
	Cause   string
	// Priced: the nodes are spot capacity whose GPU-hours sim/energy
	// prices at Price, $ per GPU-hour, or with Price 0 at the energy
	// model's spot price for their type (the key `price: spot`).
	Priced bool
	Price  float64
}

// MaxSpecBytes bounds a faults spec file.
const MaxSpecBytes = 1 << 20

// ParseSpec reads a faults spec (YAML; docs/faults.md). Parsing is strict:
// one document, no unknown or repeated key, rates and durations finite
// and in range; errors are *input.Error naming file, line and key.
func ParseSpec(file string, data []byte) (*Spec, error) {
	if len(data) > MaxSpecBytes {
		return nil, &input.Error{File: file, Err: fmt.Errorf("%d bytes; a faults spec is at most %d", len(data), MaxSpecBytes)}
	}
	doc, err := input.OneDocument(file, "a faults spec", data)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, &input.Error{File: file, Err: errors.New("empty; want a mapping with keys name, failures, maintenance, spot")}
	}
	p := &specParser{file: file}
	s := &Spec{}
	err = input.Mapping(file, "", doc, []string{"name", "failures", "maintenance", "spot"}, nil, func(key string, k, v *yaml.Node) error {
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || !plainWord(v.Value, 64) {
				return input.At(file, v, "name", "want a short name (letters, digits, . _ -)")
			}
			s.Name = v.Value
		case "failures":
			return p.list(v, key, func(prefix string, n *yaml.Node) error {
				f, err := p.failure(prefix, n)
				s.Failures = append(s.Failures, f)
				return err
			})
		case "maintenance":
			return p.list(v, key, func(prefix string, n *yaml.Node) error {
				m, err := p.maintenance(prefix, n)
				s.Maintenance = append(s.Maintenance, m)
				return err
			})
		case "spot":
			return p.list(v, key, func(prefix string, n *yaml.Node) error {
				sp, err := p.spot(prefix, n)
				s.Spot = append(s.Spot, sp)
				return err
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(s.Failures)+len(s.Maintenance)+len(s.Spot) == 0 {
		return nil, &input.Error{File: file, Line: doc.Line, Err: errors.New("no process: want at least one entry under failures, maintenance or spot")}
	}
	return s, nil
}

type specParser struct{ file string }

func (p *specParser) at(n *yaml.Node, key, format string, args ...any) error {
	return input.At(p.file, n, key, format, args...)
}

func (p *specParser) list(v *yaml.Node, key string, item func(prefix string, n *yaml.Node) error) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return p.at(v, key, "want a non-empty list of processes")
	}
	for i, n := range v.Content {
		if err := item(fmt.Sprintf("%s[%d].", key, i), n); err != nil {
			return err
		}
	}
	return nil
}

func (p *specParser) scalar(v *yaml.Node, key string) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", p.at(v, key, "want a single value")
	}
	return v.Value, nil
}

func (p *specParser) gpu(v *yaml.Node, key string) (string, error) {
	s, err := p.scalar(v, key)
	if err != nil {
		return "", err
	}
	g, lerr := estimator.LookupGPU(strings.ToLower(s))
	if lerr != nil {
		return "", p.at(v, key, "unknown GPU type %s; want one of %s (omit the key for every type)", input.ShowValue(s), strings.Join(estimator.GPUNames(), ", "))
	}
	return g.Name, nil
}

func (p *specParser) duration(v *yaml.Node, key string, positive bool) (float64, error) {
	s, err := p.scalar(v, key)
	if err != nil {
		return 0, err
	}
	d, derr := parseDuration(s)
	if derr != nil {
		return 0, p.at(v, key, "%s: %v", input.ShowValue(s), derr)
	}
	if positive && d == 0 {
		return 0, p.at(v, key, "0: want a duration > 0")
	}
	return d, nil
}

// positive reads a finite number > 0 ("rate: -1" and "rate: .nan" are
// refused).
func (p *specParser) positive(v *yaml.Node, key string) (float64, error) {
	s, err := p.scalar(v, key)
	if err != nil {
		return 0, err
	}
	x, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return 0, p.at(v, key, "%s: want a finite number > 0", input.ShowValue(s))
	}
	return x, nil
}

// rateOrMean reads the pair rate (events per hour) / mtbf (a duration)
// of one process: exactly one must be given. It returns the mean time
// between events in seconds.
func (p *specParser) rateOrMean(n *yaml.Node, prefix string, rate, mean *yaml.Node, rateKey, meanKey string) (float64, error) {
	switch {
	case rate != nil && mean != nil:
		return 0, p.at(mean, prefix+meanKey, "give %s or %s, not both", rateKey, meanKey)
	case rate != nil:
		r, err := p.positive(rate, prefix+rateKey)
		if err != nil {
			return 0, err
		}
		return 3600 / r, nil
	case mean != nil:
		return p.duration(mean, prefix+meanKey, true)
	}
	return 0, p.at(n, strings.TrimSuffix(prefix, "."), "missing %s (events per hour) or %s (mean time between events)", rateKey, meanKey)
}

// dist reads a duration distribution: a plain duration (constant) or
// {dist: constant|exponential|lognormal, mean: D, sigma: S}.
func (p *specParser) dist(v *yaml.Node, key string) (dist, error) {
	if v.Kind == yaml.ScalarNode {
		d, err := p.duration(v, key, true)
		return dist{kind: distConstant, mean: d}, err
	}
	var d dist
	var have struct{ kind, mean, sigma bool }
	err := input.Mapping(p.file, key+".", v, []string{"dist", "mean", "sigma"}, nil, func(k string, kn, vn *yaml.Node) error {
		var err error
		switch k {
		case "dist":
			s, serr := p.scalar(vn, key+".dist")
			if serr != nil {
				return serr
			}
			i := indexOf(distNames, s)
			if i < 0 {
				return p.at(vn, key+".dist", "%s: want one of %s", input.ShowValue(s), strings.Join(distNames, ", "))
			}
			d.kind, have.kind = distKind(i), true
		case "mean":
			d.mean, err = p.duration(vn, key+".mean", true)
			have.mean = true
		case "sigma":
			d.sigma, err = p.positive(vn, key+".sigma")
			have.sigma = true
		}
		return err
	})
	if err != nil {
		return d, err
	}
	switch {
	case !have.kind || !have.mean:
		return d, p.at(v, key, "want {dist: %s, mean: DURATION}", strings.Join(distNames, "|"))
	case d.kind == distLognormal && !have.sigma:
		return d, p.at(v, key, "a lognormal needs sigma (the standard deviation of the log)")
	case d.kind != distLognormal && have.sigma:
		return d, p.at(v, key+".sigma", "only a lognormal takes sigma")
	case d.kind == distLognormal && d.sigma > 10:
		return d, p.at(v, key+".sigma", "%v: want at most 10", d.sigma)
	}
	return d, nil
}

func (p *specParser) cause(v *yaml.Node, key string) (string, error) {
	s, err := p.scalar(v, key)
	if err == nil && !plainWord(s, 40) {
		err = p.at(v, key, "%s: want a short word (letters, digits, . _ -)", input.ShowValue(s))
	}
	return s, err
}

func (p *specParser) failure(prefix string, n *yaml.Node) (Failure, error) {
	f := Failure{PerGPU: true, Shape: 1, Causes: []Cause{{"failure", 1}}}
	var rate, mean, repair *yaml.Node
	err := input.Mapping(p.file, prefix, n, []string{"gpu", "per", "rate", "mtbf", "shape", "repair", "causes"}, nil, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "gpu":
			f.GPU, err = p.gpu(v, prefix+key)
		case "per":
			s, serr := p.scalar(v, prefix+key)
			if serr != nil {
				return serr
			}
			switch s {
			case "gpu":
				f.PerGPU = true
			case "node":
				f.PerGPU = false
			default:
				return p.at(v, prefix+key, "%s: want gpu or node", input.ShowValue(s))
			}
		case "rate":
			rate = v
		case "mtbf":
			mean = v
		case "shape":
			f.Shape, err = p.positive(v, prefix+key)
			if err == nil && (f.Shape < 0.1 || f.Shape > 10) {
				err = p.at(v, prefix+key, "%v: want a Weibull shape in [0.1, 10] (1 = exponential)", f.Shape)
			}
		case "repair":
			repair = v
			f.Repair, err = p.dist(v, prefix+key)
		case "causes":
			f.Causes, err = p.causes(v, prefix+key)
		}
		return err
	})
	if err != nil {
		return f, err
	}
	if f.MTBF, err = p.rateOrMean(n, prefix, rate, mean, "rate", "mtbf"); err != nil {
		return f, err
	}
	if repair == nil {
		return f, p.at(n, strings.TrimSuffix(prefix, "."), "missing repair (the time a failed node is out)")
	}
	return f, nil
}

func (p *specParser) causes(v *yaml.Node, key string) ([]Cause, error) {
	var out []Cause
	err := input.Mapping(p.file, key+".", v, nil, nil, func(name string, k, w *yaml.Node) error {
		if !plainWord(name, 40) {
			return p.at(k, key+"."+name, "want a cause as a short word (letters, digits, . _ -)")
		}
		x, err := p.positive(w, key+"."+name)
		out = append(out, Cause{name, x})
		return err
	})
	if err == nil && len(out) == 0 {
		err = p.at(v, key, "want at least one cause: weight")
	}
	return out, err
}

func (p *specParser) maintenance(prefix string, n *yaml.Node) (Maintenance, error) {
	m := Maintenance{RandomPhase: true, Cause: "maintenance"}
	var every, rate, duration, per, phase *yaml.Node
	err := input.Mapping(p.file, prefix, n, []string{"gpu", "every", "rate", "per", "phase", "notice", "duration", "cause"}, nil, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "per":
			per = v
			s, serr := p.scalar(v, prefix+key)
			if serr != nil {
				return serr
			}
			if s != "gpu" && s != "node" {
				return p.at(v, prefix+key, "%s: want gpu or node", input.ShowValue(s))
			}
			m.PerGPU = s == "gpu"
		case "gpu":
			m.GPU, err = p.gpu(v, prefix+key)
		case "every":
			every = v
			m.Every, err = p.duration(v, prefix+key, true)
		case "rate":
			rate = v
			var r float64
			r, err = p.positive(v, prefix+key)
			m.Mean = 3600 / r
		case "phase":
			phase = v
			if v.Kind == yaml.ScalarNode && v.Value == "random" {
				m.RandomPhase = true
				return nil
			}
			m.RandomPhase = false
			m.Phase, err = p.duration(v, prefix+key, false)
		case "notice":
			m.Notice, err = p.duration(v, prefix+key, false)
		case "duration":
			duration = v
			m.Duration, err = p.dist(v, prefix+key)
		case "cause":
			m.Cause, err = p.cause(v, prefix+key)
		}
		return err
	})
	if err != nil {
		return m, err
	}
	where := strings.TrimSuffix(prefix, ".")
	switch {
	case every != nil && rate != nil:
		return m, p.at(rate, prefix+"rate", "give every (periodic windows) or rate (Poisson windows), not both")
	case every == nil && rate == nil:
		return m, p.at(n, where, "missing every (periodic windows) or rate (windows per node-hour)")
	case duration == nil:
		return m, p.at(n, where, "missing duration (how long a window keeps the node down)")
	case every != nil && m.Every < m.Notice+m.Duration.mean:
		return m, p.at(every, prefix+"every", "%s: shorter than notice + duration (%s); windows would overlap", showDur(m.Every), showDur(m.Notice+m.Duration.mean))
	case rate != nil && phase != nil:
		return m, p.at(phase, prefix+"phase", "phase applies to periodic windows (every) only")
	case every != nil && per != nil:
		return m, p.at(per, prefix+"per", "per applies to Poisson windows (rate) only; periodic windows are per node")
	case every != nil && !m.RandomPhase && m.Phase >= m.Every:
		return m, p.at(phase, prefix+"phase", "%s: want less than every (%s)", showDur(m.Phase), showDur(m.Every))
	}
	return m, nil
}

func (p *specParser) spot(prefix string, n *yaml.Node) (Spot, error) {
	s := Spot{Cause: "spot"}
	var rate, mean, returns *yaml.Node
	err := input.Mapping(p.file, prefix, n, []string{"gpu", "rate", "mtbr", "notice", "returns", "cause", "price"}, nil, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "price":
			s.Priced = true
			s.Price, err = p.price(v, prefix+key)
		case "gpu":
			s.GPU, err = p.gpu(v, prefix+key)
		case "rate":
			rate = v
		case "mtbr":
			mean = v
		case "notice":
			s.Notice, err = p.duration(v, prefix+key, false)
		case "returns":
			returns = v
			s.Returns, err = p.dist(v, prefix+key)
		case "cause":
			s.Cause, err = p.cause(v, prefix+key)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	if s.Mean, err = p.rateOrMean(n, prefix, rate, mean, "rate", "mtbr"); err != nil {
		return s, err
	}
	if returns == nil {
		return s, p.at(n, strings.TrimSuffix(prefix, "."), "missing returns (the time until reclaimed capacity is back)")
	}
	return s, nil
}

// price reads a spot process's price: `spot` (0: the energy model's spot
// price for the node's type) or $ per GPU-hour in (0, MaxPrice].
func (p *specParser) price(v *yaml.Node, key string) (float64, error) {
	s, err := p.scalar(v, key)
	if err != nil {
		return 0, err
	}
	if strings.TrimSpace(s) == "spot" {
		return 0, nil
	}
	x, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if perr != nil || !(x > 0 && x <= MaxPrice) {
		return 0, p.at(v, key, "%s: want spot (the energy model's spot price for the type) or $ per GPU-hour in (0, %d]", input.ShowValue(s), MaxPrice)
	}
	return x, nil
}

// SpotNodes returns the cluster's nodes that a priced spot process covers
// (node index → $ per GPU-hour, 0 for the energy model's spot price of
// the node's type; nil when no spot process has a price): the first such
// process of the node's type, in the spec's order. sim/energy prices
// their GPU-hours at it over the whole run.
func (s *Spec) SpotNodes(c *sim.Cluster) map[int]float64 {
	var out map[int]float64
	for _, gpu := range c.Types {
		for i := range s.Spot {
			sp := &s.Spot[i]
			if !sp.Priced || sp.GPU != "" && sp.GPU != gpu {
				continue
			}
			for _, node := range c.NodesOfType(gpu) {
				if out == nil {
					out = map[int]float64{}
				}
				out[node] = sp.Price
			}
			break
		}
	}
	return out
}

// plainWord reports whether s is a non-empty word of letters, digits and
// . _ - of at most max bytes (names and causes end up in result files).
func plainWord(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return false
		}
	}
	return true
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
