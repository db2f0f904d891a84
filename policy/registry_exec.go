package policy

import (
	"errors"
	"time"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/exec"
	"github.com/arena-sim/arena/sim"
)

// execEntry registers the external-process adapter (policy/exec):
// "exec:COMMAND" is exec(cmd='COMMAND').
func execEntry() Entry {
	views := map[string]estimator.View{"optimal": estimator.ViewOptimal, "dp": estimator.ViewDataParallel, "dp-nomem": estimator.ViewDataParallelNoMemCheck}
	return Entry{
		Name: ExecName,
		Doc:  "a policy in any language: a child process speaking the JSON-lines protocol of docs/writing-a-policy.md; write exec:COMMAND",
		Options: []Option{
			{Name: "cmd", Type: String, Required: true, Help: "the command, split into words like a shell does (quotes, backslash) but run without one"},
			{Name: "timeout", Type: Duration, Default: "10m", Help: "wall-clock wait for one reply before the run fails (a safety net: it never changes a decision)"},
			{Name: "view", Type: Enum, Values: []string{"optimal", "dp", "dp-nomem"}, Default: "optimal", Help: "estimator view of the estimates sent with each arrival"},
			{Name: "dir", Type: String, Help: "working directory of the process (default: arena's)"},
			{Name: "max_line", Type: Int, Default: "67108864", Help: "cap in bytes on one reply line; a longer reply ends the run"},
		},
		Overhead: FullSearch("exec"),
		New: func(o Options) (sim.Policy, error) {
			argv, err := exec.SplitCommand(o.Values.String("cmd"))
			if err != nil {
				return nil, optionError(ExecName, "cmd", err)
			}
			if len(argv) == 0 {
				return nil, optionError(ExecName, "cmd", errors.New("empty; write exec:COMMAND, e.g. exec:python3 my_policy.py"))
			}
			timeout := time.Duration(float64(o.Values.Duration("timeout")) * float64(time.Second))
			if timeout <= 0 {
				return nil, optionError(ExecName, "timeout", errors.New("want a positive duration"))
			}
			if o.Values.Int("max_line") <= 0 {
				return nil, optionError(ExecName, "max_line", errors.New("want a positive number of bytes"))
			}
			return exec.Start(o.Cluster, o.Source, o.Timing, exec.Config{
				Command: argv, Dir: o.Values.String("dir"), Timeout: timeout, View: views[o.Values.String("view")],
				Context: o.Context, MaxLine: o.Values.Int("max_line"),
			})
		},
	}
}
