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

// A faults run that saw no outage says so once below the table (every
// policy of it saw the same events), and the table shows the outages
// beside the expectation.
func TestRunTableWarnsOfFaultsThatGaveNothing(t *testing.T) {
	e := 0.4
	var outcomes []*runner.Outcome
	for _, p := range []string{"arena", "fcfs"} {
		outcomes = append(outcomes, &runner.Outcome{Run: runner.Run{Faults: "llama3"}, Summary: sim.Summary{Policy: p, Cluster: "h100-l20", Submitted: 1, Finished: 1,
			Faults: &sim.FaultSummary{ExpectedOutages: &e}}})
	}
	var b strings.Builder
	WriteRunTable(&b, outcomes, RunTableOptions{})
	out := b.String()
	if n := strings.Count(out, "⚠ faults llama3: 0 node outages in the run's window, 0.40 expected"); n != 1 {
		t.Errorf("the faults warning appears %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "node outages (expected)") || !strings.Contains(out, "0 (0.40)") {
		t.Errorf("no outages row:\n%s", out)
	}
	outcomes[0].Summary.Faults = &sim.FaultSummary{Outages: 3, ExpectedOutages: new(float64)}
	*outcomes[0].Summary.Faults.ExpectedOutages = 2.5
	b.Reset()
	WriteRunTable(&b, outcomes, RunTableOptions{})
	if strings.Contains(b.String(), "⚠ faults") {
		t.Errorf("warned with 3 outages of 2.5 expected:\n%s", b.String())
	}
}

// TestSplitHandWorked: the headline change splits into the jobs both runs
// finished and the others, in points that add up to it. Worked by hand:
// four jobs; b's charges 100, 100, 400, 400 (sum 1000), a's 50, 100, 100,
// 400. Jobs 0 and 1 both finished: a − b = −50, 0. Job 2 b never started
// (charged), a finished: −300. Job 3 both unfinished (a started it): 0.
// a's sum is 650: change (650 − 1000)/1000 = −35 %, that is −5 pts on the 2 jobs both finished (−50/1000; −25 % on them alone,
// −50/200) and −30 pts on the 2 others.
func TestSplitHandWorked(t *testing.T) {
	rec := func(id int32, state string, charge float64, started bool) sim.JobRecord {
		r := sim.JobRecord{ID: id, State: state, Charge: charge, FirstStart: -1}
		if started {
			r.FirstStart = 0
		}
		return r
	}
	a := &sim.Result{Jobs: []sim.JobRecord{rec(0, "finished", 50, true), rec(1, "finished", 100, true), rec(2, "finished", 100, true), rec(3, "running", 400, true)}}
	b := &sim.Result{Jobs: []sim.JobRecord{rec(0, "finished", 100, true), rec(1, "finished", 100, true), rec(2, "pending", 400, false), rec(3, "pending", 400, false)}}
	d, ok := splitReduction(a, b)
	if !ok {
		t.Fatal("no split")
	}
	near := func(x, y float64) bool { return x-y < 1e-12 && y-x < 1e-12 }
	if !near(d.change, -0.35) || !near(d.onBoth, -0.05) || !near(d.onOthers, -0.30) || !near(d.bothAlone, -0.25) ||
		d.both != 2 || d.others != 2 || d.neverB != 2 || d.neverA != 0 || d.unfinA != 1 || d.unfinB != 0 {
		t.Errorf("split %+v", d)
	}
	want := "35.0% lower = 5.0 pts on the 2 jobs both finished (25.0% lower on those alone) +30.0 pts on the 2 jobs not both finished (b never started 2, left 0 unfinished after a start; a 0, 1)"
	if got := d.String("a", "b"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Job tables of different runs (another trace) do not split.
	b.Jobs[3].ID = 9
	if _, ok := splitReduction(a, b); ok {
		t.Error("split of runs that submitted different jobs")
	}
}

// TestStuckShareWarns: a run with more than 1 % of its submitted jobs
// stuck is flagged in the table's row, below it and in the comparison,
// though jobs still run at the end (the idle-cluster rule misses it).
func TestStuckShareWarns(t *testing.T) {
	s := sim.Summary{Policy: "starve", Submitted: 100, Finished: 40, Running: 1, Pending: 59, Unfinished: 60, JobsStuck: 2, StuckShare: 0.02,
		SubmittedMeanJCT: 900, MeanThroughput: 1, PeakThroughput: 1}
	ok := sim.Summary{Policy: "arena", Submitted: 100, Finished: 90, Running: 10, Unfinished: 10, JobsStuck: 1, StuckShare: 0.01,
		SubmittedMeanJCT: 500, MeanThroughput: 1, PeakThroughput: 1}
	var b strings.Builder
	WriteRunTable(&b, []*runner.Outcome{{Summary: ok}, {Summary: s}}, RunTableOptions{NoReference: true})
	out := b.String()
	for _, want := range []string{"2 ⚠", "starve left 2 of 100 submitted jobs (2.0%", "arena vs starve ⚠", "· 2 stuck ·"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "arena ⚠") || strings.Contains(out, "arena left") {
		t.Errorf("arena, 1 %% stuck (not over the threshold), flagged:\n%s", out)
	}
}

// A comparison with a run stopped at its drain cap reads "inconclusive"
// on its own line, naming the run; one without reads as before.
func TestCappedRunMakesTheComparisonInconclusive(t *testing.T) {
	run := func(policy string, capped bool) *runner.Outcome {
		return &runner.Outcome{Result: &sim.Result{}, Summary: sim.Summary{Policy: policy, Submitted: 2, Finished: 2, SubmittedMeanJCT: 100,
			MeanThroughput: 10, PeakThroughput: 20, Drain: true, DrainCapReached: capped}}
	}
	for _, capped := range []bool{false, true} {
		var b strings.Builder
		WriteRunTable(&b, []*runner.Outcome{run("arena", false), run("fcfs", capped)}, RunTableOptions{})
		line := ""
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.Contains(l, "arena vs fcfs") {
				line = l
			}
		}
		if got := strings.HasPrefix(line, "inconclusive (fcfs reached the drain cap with measured jobs unfinished): arena vs fcfs"); got != capped || line == "" {
			t.Errorf("capped %v: %q", capped, line)
		}
	}
}

// TestEnergyComparisonIsPerSample is hand-worked: run a spends twice b's
// kWh but does four times b's samples, so per sample it spends half the
// energy and carbon; its GPU cost is three times b's over four times the
// samples, 25 % lower. Totals would call a "higher" for doing more work.
func TestEnergyComparisonIsPerSample(t *testing.T) {
	b := &sim.Summary{Energy: &sim.Energy{KWh: 10, KgCO2: 4, GPUCostUSD: 100, JoulesPerSample: 10 * 3.6e6 / 1000, MgCO2PerSample: 4e6 / 1000}}
	a := &sim.Summary{Energy: &sim.Energy{KWh: 20, KgCO2: 8, GPUCostUSD: 300, JoulesPerSample: 20 * 3.6e6 / 4000, MgCO2PerSample: 8e6 / 4000}}
	got := energyComparison(a, b)
	if want := ", per sample: energy 50.0% lower, CO2 50.0% lower, GPU cost 25.0% lower"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := energyComparison(a, &sim.Summary{}); got != "" {
		t.Errorf("without b's energy: %q, want nothing", got)
	}
}
