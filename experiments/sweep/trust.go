package sweep

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim/input"
)

// The trust model of specs (docs/trust.md): a spec is data, and may be
// someone else's. What it names is read only inside its own directory
// (resolvePath), unless the user consents with --allow-outside-paths
// (AllowOutsidePaths), what arena writes goes only under the user's --out (run
// keys are sanitised names, PolicyDir and SanitizeKey), and a command it
// names runs only when the user says so: CheckExec below, which `arena
// sweep` calls unless --allow-exec is given.

// CheckExec refuses a spec that would run a command: any policy whose
// parsed tree holds a command (registry.Spec.Commands: exec:…, alone or
// wrapped at any depth the parser accepts). It is derived from the parsed
// values, and fails closed on what will run: every run of plan (the
// policy strings that will actually be built) is parsed again, and one it
// cannot parse is refused, not waved through. The spec's own entries are
// checked first only so that the error names the entry's line.
func (s *Spec) CheckExec(reg runner.Policies, plan *Plan) error {
	refuse := func(where string, cmd string) error {
		return s.pathError(where, fmt.Errorf(
			"runs the command %s on this machine; a spec's commands run only with --allow-exec — read the spec, then rerun with --allow-exec if you trust it (docs/trust.md)",
			input.ClipTo(cmd, input.ShowBytes)))
	}
	for i, pat := range s.Policies {
		if strings.HasPrefix(pat, "!") || policyGlob(pat) {
			continue
		}
		where := fmt.Sprintf("policies[%d]", i)
		ps, err := registry.ParseWith(reg.Lookup, pat)
		if err != nil {
			continue // Expand skipped or refused it; the runs below are what is built
		}
		if cmds := ps.Commands(); len(cmds) > 0 {
			return refuse(where, cmds[0])
		}
	}
	if plan == nil {
		return nil
	}
	for _, pr := range plan.Runs {
		ps, err := registry.ParseWith(reg.Lookup, pr.Run.Policy)
		if err != nil {
			return s.pathError("policies", fmt.Errorf("run %s: cannot tell whether its policy runs a command: %w", pr.Key, err))
		}
		if cmds := ps.Commands(); len(cmds) > 0 {
			return refuse("policies", cmds[0])
		}
	}
	return nil
}

// shorten clips a message of arena's own to 300 bytes.
func shorten(s string) string {
	if len(s) <= 300 {
		return s
	}
	cut := 300
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
