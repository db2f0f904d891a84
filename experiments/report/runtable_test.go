package report

import (
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
)

// TestRelativeWording: "lower" only when lower (the old wording printed
// "-76.4% lower" for a higher value).
func TestRelativeWording(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want string
	}{
		{50, 200, "75.0% lower"},
		{200, 100, "100.0% higher"},
		{176.4, 100, "76.4% higher"},
		{7, 7, "equal"},
	} {
		if got := relative(c.a, c.b); got != c.want {
			t.Errorf("relative(%v, %v) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// TestNothingFinishedPrintsDash: with no finished job the JCT statistics
// over finished jobs are undefined ("–", not 0), and a queue left on an
// idle cluster is flagged in the table and below it.
func TestNothingFinishedPrintsDash(t *testing.T) {
	var b strings.Builder
	o := &runner.Outcome{Summary: sim.Summary{Policy: "gavel", Submitted: 3, Pending: 3, Unfinished: 3, StuckPending: 3, CensoredMeanJCT: 900}}
	WriteRunTable(&b, []*runner.Outcome{o}, RunTableOptions{})
	out := b.String()
	for _, want := range []string{"3 ⚠", "gavel ends with 3 pending jobs and nothing running"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "mean JCT, finished (s)") && !strings.HasSuffix(l, " –") ||
			strings.HasPrefix(l, "censored mean JCT (s)") && !strings.HasSuffix(l, " 900") {
			t.Errorf("row %q", l)
		}
	}
}
