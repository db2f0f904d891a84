package energy

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/sim/input"
)

// DefaultName is the Run.Energy value of the built-in model.
const DefaultName = "default"

// Load returns the model name stands for: DefaultName, a built-in series'
// name (the default model with that hourly intensity), or an energy file
// (YAML) whose keys override the built-in model:
//
//	pue: 1.2
//	server_watts_per_gpu: 150
//	usd_per_kwh: 0.10
//	price_tier: spot            # on-demand (default), reserved, spot
//	carbon: 57                  # g CO₂eq/kWh, constant
//	carbon_series: grid.csv     # or an hourly series (ReadSeries), relative to this file, or a built-in one (de-2020-06)
//	no_kernel: 0                # share of computing time without a kernel; or by job size {1: .29, 4: .28, 8: .2, 16: .26}
//	gpus:
//	  a100: {tdp: 400, idle: 60, compute: 0.95, comm: 0.4, reconfig: 0.112}
//	prices:
//	  a100: {on_demand: 2.7447, reserved: 1.7401, spot: 0.8489}
//
// A GPU or price entry replaces only the fields it names. Errors name the
// file, line and key.
func Load(name string) (*Model, error) { return LoadOnto(Default(), name) }

// LoadOnto is Load with base in place of the built-in model: DefaultName
// is base itself, a built-in series' name base with that intensity, an
// energy file base with the file's keys applied over it (a GPU or price
// entry replacing only the fields it names). A cluster spec's energy
// section is such a base (sim/clusterspec). base is not changed.
func LoadOnto(base *Model, name string) (*Model, error) {
	m := base.Clone()
	if name == DefaultName {
		return m, nil
	}
	if slices.Contains(builtinSeries, name) {
		in, err := Series(name)
		if err != nil {
			return nil, err
		}
		m.Name, m.Intensity = name, in
		return m, nil
	}
	data, err := input.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ParseOnto(m, name, data)
}

// Parse reads the energy file name holding data (Load's format); a
// relative carbon_series is read next to name.
func Parse(name string, data []byte) (*Model, error) { return ParseOnto(Default(), name, data) }

// ParseOnto is Parse over base instead of the built-in model.
func ParseOnto(base *Model, name string, data []byte) (*Model, error) {
	m := base.Clone()
	root, err := input.OneDocument(name, "an energy file", data)
	if err != nil {
		return nil, err
	}
	m.Name = filepath.Base(name)
	if root == nil {
		return m, nil
	}
	if err := Apply(m, name, "", root); err != nil {
		return nil, err
	}
	return m, nil
}

// Apply applies the energy keys of the YAML mapping n, read from file,
// over m (Load's format) and checks the result; prefix ("" or "energy.")
// starts the keys errors name. A relative carbon_series is read next to
// file. On error m may be partly changed.
func Apply(m *Model, file, prefix string, n *yaml.Node) error {
	name := file
	carbonAt := 0
	seriesAt := 0
	err := input.Mapping(name, prefix, n, fileKeys, nil, func(key string, k, v *yaml.Node) error {
		switch key {
		case "pue":
			return number(name, prefix+key, v, 1, 10, &m.PUE)
		case "server_watts_per_gpu":
			return number(name, prefix+key, v, 0, 1e5, &m.ServerWattsPerGPU)
		case "usd_per_kwh":
			return number(name, prefix+key, v, 0, 1e3, &m.USDPerKWh)
		case "price_tier":
			if !slices.Contains(Tiers, v.Value) || v.Kind != yaml.ScalarNode {
				return input.At(name, v, prefix+key, "want one of %s, got %s", strings.Join(Tiers, ", "), input.ShowValue(v.Value))
			}
			m.Tier = v.Value
		case "carbon":
			carbonAt = k.Line
			m.Intensity = Intensity{}
			return number(name, prefix+key, v, 0, 1e4, &m.Intensity.Constant)
		case "carbon_series":
			seriesAt = k.Line
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return input.At(name, v, prefix+key, "want a CSV file name")
			}
			p := v.Value
			if !filepath.IsAbs(p) && !slices.Contains(builtinSeries, p) {
				p = filepath.Join(filepath.Dir(name), p)
			}
			in, err := Series(p)
			if err != nil {
				return input.At(name, v, prefix+key, "%w", err)
			}
			m.Intensity = in
		case "gpus":
			return input.Mapping(name, prefix+"gpus.", v, nil, nil, func(t string, _, g *yaml.Node) error {
				p := m.GPUs[t]
				p.Compute, p.Comm, p.Reconfig = orDefault(p.Compute, activityCompute), orDefault(p.Comm, activityComm), orDefault(p.Reconfig, activityReconfig)
				err := fields(name, prefix+"gpus."+t+".", g, map[string]*float64{"tdp": &p.TDP, "idle": &p.Idle, "compute": &p.Compute, "comm": &p.Comm, "reconfig": &p.Reconfig})
				m.GPUs[t] = p
				return err
			})
		case "no_kernel":
			if v.Kind == yaml.ScalarNode {
				var x float64
				if err := number(name, prefix+key, v, 0, 1, &x); err != nil {
					return err
				}
				m.NoKernel = NoKernelShares{x, x, x, x}
				return nil
			}
			return input.Mapping(name, prefix+key+".", v, NoKernelBuckets, nil, func(b string, _, x *yaml.Node) error {
				return number(name, prefix+key+"."+b, x, 0, 1, &m.NoKernel[slices.Index(NoKernelBuckets, b)])
			})
		case "prices":
			return input.Mapping(name, prefix+"prices.", v, nil, nil, func(t string, _, g *yaml.Node) error {
				p := m.Prices[t]
				err := fields(name, prefix+"prices."+t+".", g, map[string]*float64{"on_demand": &p.OnDemand, "reserved": &p.Reserved, "spot": &p.Spot})
				m.Prices[t] = p
				return err
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if carbonAt > 0 && seriesAt > 0 {
		return &input.Error{File: name, Line: max(carbonAt, seriesAt), Kind: "key", Field: prefix + "carbon_series", Err: fmt.Errorf("give carbon (a constant) or carbon_series, not both")}
	}
	if err := m.Check(); err != nil {
		e := &input.Error{File: name, Err: err}
		if prefix != "" {
			e.Line, e.Kind, e.Field = n.Line, "key", strings.TrimSuffix(prefix, ".")
		}
		return e
	}
	return nil
}

var fileKeys = []string{"pue", "server_watts_per_gpu", "usd_per_kwh", "price_tier", "carbon", "carbon_series", "no_kernel", "gpus", "prices"}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// fields reads a mapping of numbers ≥ 0 into dst's pointers.
func fields(file, prefix string, n *yaml.Node, dst map[string]*float64) error {
	known := make([]string, 0, len(dst))
	for k := range dst {
		known = append(known, k)
	}
	slices.Sort(known)
	return input.Mapping(file, prefix, n, known, nil, func(key string, _, v *yaml.Node) error {
		return number(file, prefix+key, v, 0, 1e5, dst[key])
	})
}

// number reads a scalar in [lo, hi].
func number(file, key string, v *yaml.Node, lo, hi float64, dst *float64) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(x) || x < lo || x > hi {
		return input.At(file, v, key, "want a number in [%g, %g], got %s", lo, hi, input.ShowValue(v.Value))
	}
	*dst = x
	return nil
}
