package sweep

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy/registry"
)

// The trust model of specs (docs/trust.md): a spec is data, and may be
// someone else's. What it names is read only inside its own directory
// (resolvePath), what arena writes goes only under the user's --out (run
// keys are sanitised names, PolicyDir and SanitizeKey), and a command it
// names runs only when the user says so: CheckExec below, which `arena
// sweep` calls unless --allow-exec is given.

// CheckExec refuses a spec that would run a command: an exec policy among
// its policies, alone or wrapped (quota(exec:…)). The error names the
// spec file, the line of the entry and the command. Globs never match exec
// (it needs its command), so only entries written out can run one.
func (s *Spec) CheckExec(reg runner.Policies) error {
	for i, pat := range s.Policies {
		if strings.HasPrefix(pat, "!") {
			continue
		}
		ps, err := registry.ParseWith(reg.Lookup, pat)
		if err != nil {
			continue // not a policy string Expand accepts: it reports it
		}
		if cmd, ok := execCommand(reg, ps, 0); ok {
			return s.pathError(fmt.Sprintf("policies[%d]", i), fmt.Errorf(
				"runs the command %s on this machine; a spec's commands run only with --allow-exec — read the spec, then rerun with --allow-exec if you trust it (docs/trust.md)",
				quoteClipped(cmd)))
		}
	}
	return nil
}

// execCommand returns the command a policy runs, looking inside wrapped
// policies (depth bounds a pathological nesting).
func execCommand(reg runner.Policies, ps registry.Spec, depth int) (string, bool) {
	if ps.Entry.Name == registry.ExecName {
		return ps.Values.String("cmd"), true
	}
	if ps.Entry.Wraps == "" || depth > 16 {
		return "", false
	}
	inner, err := registry.ParseWith(reg.Lookup, ps.Values.String(ps.Entry.Wraps))
	if err != nil {
		return "", false
	}
	return execCommand(reg, inner, depth+1)
}

// quoteClipped shows a command the user must see to judge it: quoted
// (control characters escaped), its first 300 bytes at most.
func quoteClipped(s string) string {
	const max = 300
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
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
