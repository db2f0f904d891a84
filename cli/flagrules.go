package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// flagRule is the range of a flag a user names a count or a size with:
// one table for every command, checked before the command runs (before
// anything is allocated or started), so a flag that means the same thing
// in two commands has the same rule in both. A rule applies to the flag
// of that name in every command; commands must not reuse a name for
// something else (TestFlagRulesNamesMeanOneThing).
type flagRule struct {
	rule  string // said in the error and in docs/limits.md
	check func(v string) error
}

// MaxParallel bounds --parallel: concurrent runs each hold a trace and a
// cluster; more than this many on one machine only thrash.
const MaxParallel = 1024

// MinProgressEvery is the floor of --progress (0 = never aside): a line
// every nanosecond wrote 42 MB in 5 s.
const MinProgressEvery = time.Second

func intRule(min, max int64, rule string) flagRule {
	return flagRule{rule, func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number")
		}
		return input.CountRange("", n, min, max)
	}}
}

var flagRules = map[string]flagRule{
	"parallel":   intRule(0, MaxParallel, fmt.Sprintf("0 (every core) to %d", MaxParallel)),
	"max-rounds": intRule(1, 1<<40, "a positive whole number of rounds"),
	"nodes":      intRule(0, sim.MaxNodes, fmt.Sprintf("0 (every uniform locality) to %d", sim.MaxNodes)),
	"gpus":       intRule(1, sim.MaxClusterGPUs, fmt.Sprintf("1 to %d", sim.MaxClusterGPUs)),
	"batch":      intRule(1, 1<<30, "a positive batch size"),
	"copies":     intRule(1, input.CountCap.Default, fmt.Sprintf("1 to %d (the count cap)", input.CountCap.Default)),
	"progress": {fmt.Sprintf("0 (never) or at least %v", MinProgressEvery), func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d != 0 && d < MinProgressEvery {
			return fmt.Errorf("want 0 (never) or at least %v", MinProgressEvery)
		}
		return nil
	}},
}

// checkFlagRules applies flagRules to the flags the user set on cmd, and
// reports a malformed ARENA_MAX_* variable (docs/limits.md).
func checkFlagRules(cmd *cobra.Command) error {
	if err := input.CheckEnv(); err != nil {
		return err
	}
	var first error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		r, ok := flagRules[f.Name]
		if !ok || first != nil {
			return
		}
		if err := r.check(f.Value.String()); err != nil {
			first = fmt.Errorf("--%s %s: want %s", f.Name, input.Clip(f.Value.String()), r.rule)
		}
	})
	return first
}
