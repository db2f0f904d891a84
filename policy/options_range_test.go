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
}
