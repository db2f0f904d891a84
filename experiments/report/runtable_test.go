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

// The header line says how jobs were priced when it is not the paper's
// setup: a GPU map (the speeds the jobs borrowed) and an estimator other
// than the profile database; neither when the run has the defaults.
func TestRunHeaderShowsGPUMapAndEstimator(t *testing.T) {
	for _, tc := range []struct {
		est, gpuMap string
		want, not   []string
	}{
		{"profiledb", "", nil, []string{"GPU map", "estimator"}},
		{"analytic", "", []string{"; estimator analytic"}, []string{"GPU map"}},
		{"analytic", "a10=l20,a100=h100", []string{"; estimator analytic; GPU map a10=l20,a100=h100 (jobs run at the speeds of the types they are mapped to)"}, nil},
		{"profiledb", "a10=a40", []string{"; GPU map a10=a40"}, []string{"estimator"}},
	} {
		var b strings.Builder
		o := &runner.Outcome{Summary: sim.Summary{Policy: "fcfs", Trace: "philly", Cluster: "c", Timing: "exact", Estimator: tc.est, GPUMap: tc.gpuMap, Submitted: 1, Finished: 1}}
		WriteRunTable(&b, []*runner.Outcome{o}, RunTableOptions{})
		head, _, _ := strings.Cut(b.String(), "\n")
		for _, w := range tc.want {
			if !strings.Contains(head, w) {
				t.Errorf("%s/%q: header %q lacks %q", tc.est, tc.gpuMap, head, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(head, w) {
				t.Errorf("%s/%q: header %q has %q", tc.est, tc.gpuMap, head, w)
			}
		}
	}
}
