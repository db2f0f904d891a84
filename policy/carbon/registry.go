package carbon

import (
	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
)

// DefaultSeries is the intensity series when the carbon option is not
// given.
const DefaultSeries = "de-2020-06"

// Entry is the carbon-aware baseline's registry entry: its series, slack
// and tolerance, and the full-search overhead class (as FCFS).
func Entry() registry.Entry {
	return registry.Entry{
		Name:     "carbon-aware",
		Doc:      "FCFS on the requested GPUs that holds a job back, within a slack after its arrival, until the grid's carbon intensity is at its lowest before the slack runs out (Let's Wait Awhile, GAIA)",
		Overhead: registry.FullSearch("carbon-aware"),
		Options: []registry.Option{
			{Name: "carbon", Type: registry.String, Path: true, PathBuiltins: []string{DefaultSeries},
				Help: "hourly carbon-intensity series (docs/energy.md): a built-in one (de-2020-06, the default) or a CSV file hour,g_co2_per_kwh"},
			{Name: "slack", Type: registry.Duration, Default: "6h", Min: "0", Max: "30d", Help: "how long after its arrival a job may be held back"},
			{Name: "tolerance", Type: registry.Float, Default: "0", Min: "0", Max: "10", Help: "start when the intensity is at most the window's lowest × (1 + tolerance)"},
		},
		New: func(o registry.Options) (sim.Policy, error) {
			series := o.Values.String("carbon")
			if series == "" {
				series = DefaultSeries
			}
			in, err := energy.Series(series)
			if err != nil {
				return nil, registry.NewOptionError("carbon-aware", "carbon", err)
			}
			return New(o.Source.View(estimator.ViewOptimal), Config{Intensity: in, Slack: float64(o.Values.Duration("slack")), Tolerance: o.Values.Float("tolerance")}), nil
		},
	}
}
