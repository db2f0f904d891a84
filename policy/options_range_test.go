package policy_test

import (
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// TestOptionRanges is the class "counts and values a user names": every
// nonsense or oversized option value is refused when the policy string
// is parsed, before a constructor allocates anything (before: queues=1e9
// took > 3 GB in 10 s; growth ≤ 0 and gap −1 were accepted).
func TestOptionRanges(t *testing.T) {
	reg := policy.NewRegistry()
	for _, c := range []struct{ policy, want string }{
		{"tiresias(queues=1000000000)", "want at most 64"},
		{"tiresias(queues=-3)", "want at least 1"},
		{"tiresias(queues=0)", "want at least 1"},
		{"tiresias(growth=0)", "want more than 1"},
		{"tiresias(growth=-2)", "want more than 1"},
		{"tiresias(growth=NaN)", "want a number"},
		{"tiresias(promote=-1)", "want at least 0"},
		{"gavel(gap=-1)", "want at least 0"},
		{"gavel(gap=2)", "want at most 1"},
		{"tiresias(queues=" + strings.Repeat("9", 5000) + ")", "… (5000 bytes)"},
		// Every duration option has a range (grace=-1s was accepted, and a
		// huge grace echoed as "--8s").
		{"quota(fcfs,grace=-1s)", "want at least 0"},
		{"quota(fcfs,grace=1e20)", "want at most 3650d"},
		{"quota(fcfs,grace=3651d)", "want at most 3650d"},
		{"ftf(lease=-1)", "want at least 0"},
		{"tiresias(threshold=-1h)", "want at least 0"},
		{"tiresias(threshold=2e10)", "want at most 1e10"},
		{"exec(cmd=p,timeout=0)", "want more than 0"},
		{"exec(cmd=p,timeout=31d)", "want at most 30d"},
	} {
		_, err := reg.Parse(c.policy)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: %v, want an error with %q", c.policy, err, c.want)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%.60s: a %d-byte message", c.policy, len(err.Error()))
		}
	}
	for _, ok := range []string{"tiresias(queues=64,growth=1.5)", "gavel(gap=0.01)"} {
		if _, err := reg.Parse(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	// At the bounds, a duration is echoed as written.
	for in, want := range map[string]string{"quota(fcfs,grace=3650d)": "quota(fcfs,grace=3650d)", "quota(fcfs,grace=0)": "quota(fcfs)",
		"tiresias(threshold=1e10)": "tiresias(threshold=115740d17h46m40s)", "exec(cmd=p,timeout=30d)": "exec(cmd=p,timeout=30d)"} {
		p, err := reg.Parse(in)
		if err != nil || p.String() != want {
			t.Errorf("%s: %v, %v; want %s", in, p, err, want)
		}
	}
}
