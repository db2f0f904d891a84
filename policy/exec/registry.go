package exec

import (
	"errors"
	"time"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/energy"
)

// Entry is the external-process adapter's registry entry:
// "exec:COMMAND" is exec(cmd='COMMAND') (registry.ExecPrefix).
func Entry() registry.Entry {
	views := map[string]estimator.View{"optimal": estimator.ViewOptimal, "dp": estimator.ViewDataParallel, "dp-nomem": estimator.ViewDataParallelNoMemCheck}
	return registry.Entry{
		Name: registry.ExecName,
		Doc:  "a policy in any language: a child process speaking the JSON-lines protocol of docs/writing-a-policy.md; write exec:COMMAND",
		Options: []registry.Option{
			{Name: "cmd", Type: registry.String, Required: true, Command: true, Help: "the command, split into words like a shell does (quotes, backslash) but run without one"},
			{Name: "timeout", Type: registry.Duration, Default: "10m", Min: "0", MinOpen: true, Max: "30d", Help: "wall-clock wait for one reply before the run fails (a safety net: it never changes a decision)"},
			{Name: "view", Type: registry.Enum, Values: []string{"optimal", "dp", "dp-nomem"}, Default: "optimal", Help: "estimator view of the estimates sent with each arrival"},
			{Name: "dir", Type: registry.String, Path: true, Help: "working directory of the process (default: arena's)"},
			{Name: "energy", Type: registry.String, Path: true, PathBuiltins: energy.BuiltinModels(), Help: "send prices, GPU power and carbon intensity in the hello: default, de-2020-06 or an energy file (docs/energy.md), over the cluster spec's energy section if it has one; empty: none"},
			{Name: "max_line", Type: registry.Int, Default: "67108864", Min: "1", Max: "1073741824", Help: "cap in bytes on one reply line (at most 1 GiB); a longer reply ends the run"},
		},
		Overhead: registry.FullSearch("exec"),
		New: func(o registry.Options) (sim.Policy, error) {
			argv, err := SplitCommand(o.Values.String("cmd"))
			if err != nil {
				return nil, registry.NewOptionError(registry.ExecName, "cmd", err)
			}
			if len(argv) == 0 {
				return nil, registry.NewOptionError(registry.ExecName, "cmd", errors.New("empty; write exec:COMMAND, e.g. exec:python3 my_policy.py"))
			}
			timeout := time.Duration(float64(o.Values.Duration("timeout")) * float64(time.Second))
			if timeout <= 0 {
				return nil, registry.NewOptionError(registry.ExecName, "timeout", errors.New("want a positive duration"))
			}
			if o.Values.Int("max_line") <= 0 {
				return nil, registry.NewOptionError(registry.ExecName, "max_line", errors.New("want a positive number of bytes"))
			}
			var em *energy.Model
			if name := o.Values.String("energy"); name != "" {
				base := o.Energy // the cluster spec's energy section, as --energy combines with it
				if base == nil {
					base = energy.Default()
				}
				if em, err = energy.LoadOnto(base, name); err != nil {
					return nil, registry.NewOptionError(registry.ExecName, "energy", err)
				}
			}
			return Start(o.Cluster, o.Source, o.Timing, Config{Energy: em,
				Command: argv, Dir: o.Values.String("dir"), Timeout: timeout, View: views[o.Values.String("view")],
				Context: o.Context, MaxLine: o.Values.Int("max_line"),
			})
		},
	}
}
