package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/arena-sim/arena/experiments/data/reference"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/experiments/sweep"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// printSummaries prints the side-by-side table, the warnings and the
// comparisons (against baseline, or the paper's arena against each when
// baseline is "").
func printSummaries(w io.Writer, outcomes []*runner.Outcome, withReference bool, baseline string) {
	s0 := outcomes[0].Summary
	fmt.Fprintf(w, "trace %s (%d jobs, %d submitted in the window) on %s, %s timing, %d rounds of 300 s (%s)\n\n",
		s0.Trace, s0.JobsInTrace, s0.Submitted, s0.Cluster, s0.Timing, s0.Rounds, sim.Duration(s0.HorizonS))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "metric\t"
	for _, o := range outcomes {
		head += o.Summary.Policy + "\t"
		if withReference {
			head += "(artifact)\t"
		}
	}
	fmt.Fprintln(tw, head)
	rows := summaryRows(s0.UntilDone)
	if s0.Faults != nil {
		rows = append(rows, faultRows(outcomes)...)
	}
	for _, r := range rows {
		line := r.name + "\t"
		for _, o := range outcomes {
			line += r.get(&o.Summary) + "\t"
			if withReference {
				ref, ok := reference.Philly(o.Summary.Policy)
				if ok && r.ref != nil {
					line += r.ref(ref) + "\t"
				} else {
					line += "\t"
				}
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	printWarnings(w, outcomes)
	printComparisons(w, outcomes, baseline)
	if withReference {
		printDigestComparisons(w, outcomes)
	}
}

// summaryRow is one metric of the side-by-side table: its name, its value
// for a run, and (ref non-nil) the artifact's stored value for comparison.
type summaryRow struct {
	name string
	get  func(s *sim.Summary) string
	ref  func(r reference.Run) string
}

// summaryRows returns the table's metrics in the order printed (with the
// rounds simulated first when runs go until done). Separate because it is
// the table's definition, apart from laying it out.
func summaryRows(untilDone bool) []summaryRow {
	f0 := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	f1 := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	// JCT statistics over finished jobs are undefined when none finished.
	jct := func(get func(s *sim.Summary) float64) func(s *sim.Summary) string {
		return func(s *sim.Summary) string {
			if s.Finished == 0 {
				return "–"
			}
			return f0(get(s))
		}
	}
	rows := []summaryRow{
		{"jobs finished", func(s *sim.Summary) string { return fmt.Sprint(s.Finished) }, func(r reference.Run) string { return fmt.Sprint(len(r.JCT)) }},
		{"jobs running at end", func(s *sim.Summary) string { return fmt.Sprint(s.Running) }, nil},
		{"jobs pending at end", func(s *sim.Summary) string {
			if s.StuckPending > 0 {
				return fmt.Sprintf("%d ⚠", s.Pending)
			}
			return fmt.Sprint(s.Pending)
		}, nil},
		{"jobs dropped", func(s *sim.Summary) string {
			if s.Dropped > 0 {
				return fmt.Sprintf("%d ⚠", s.Dropped)
			}
			return fmt.Sprint(s.Dropped)
		}, nil},
		// The default comparison metric first: every submitted job.
		{"mean JCT, all submitted (s)", func(s *sim.Summary) string { return f0(s.SubmittedMeanJCT) }, nil},
		{"p50 JCT, all submitted (s)", func(s *sim.Summary) string { return f0(s.SubmittedP50JCT) }, nil},
		{"p95 JCT, all submitted (s)", func(s *sim.Summary) string { return f0(s.SubmittedP95JCT) }, nil},
		{"p99 JCT, all submitted (s)", func(s *sim.Summary) string { return f0(s.SubmittedP99JCT) }, nil},
		{"censored mean JCT (s)", func(s *sim.Summary) string { return f0(s.CensoredMeanJCT) }, nil},
		{"mean JCT, finished (s)", jct(func(s *sim.Summary) float64 { return s.MeanJCT }), func(r reference.Run) string { return f0(stat.Mean(r.JCT, nil)) }},
		{"artifact padded mean JCT (s)", jct(func(s *sim.Summary) float64 { return s.PaddedMeanJCT }), nil},
		{"median JCT (s)", jct(func(s *sim.Summary) float64 { return s.MedianJCT }), nil},
		{"p95 JCT (s)", jct(func(s *sim.Summary) float64 { return s.P95JCT }), nil},
		{"p99 JCT (s)", jct(func(s *sim.Summary) float64 { return s.P99JCT }), nil},
		{"mean / p99 bounded slowdown", func(s *sim.Summary) string {
			if s.Finished == 0 {
				return "–"
			}
			return f1(s.MeanBoundedSlowdown) + " / " + f1(s.P99BoundedSlowdown)
		}, nil},
		{"makespan (s)", func(s *sim.Summary) string {
			if s.MakespanLowerBound {
				return "≥ " + f0(s.Makespan)
			}
			return f0(s.Makespan)
		}, nil},
		// The stored lists cover every admitted job, except FCFS's, which
		// holds finished jobs only; each reference value sits in its row.
		{"mean queueing, admitted (s)", func(s *sim.Summary) string { return f0(s.MeanQueueing) }, func(r reference.Run) string {
			if len(r.Queueing) == len(r.JCT) {
				return ""
			}
			return f0(stat.Mean(r.Queueing, nil))
		}},
		{"mean queueing, finished (s)", func(s *sim.Summary) string { return f0(s.MeanQueueingFinished) }, func(r reference.Run) string {
			if len(r.Queueing) != len(r.JCT) {
				return ""
			}
			return f0(stat.Mean(r.Queueing, nil))
		}},
		{"mean throughput (samples/s)", func(s *sim.Summary) string { return f1(s.MeanThroughput) }, func(r reference.Run) string { return f1(stat.Mean(r.Thr, nil)) }},
		{"peak throughput (samples/s)", func(s *sim.Summary) string { return f1(s.PeakThroughput) }, func(r reference.Run) string { return f1(floats.Max(r.Thr)) }},
		{"reconfigurations", func(s *sim.Summary) string { return fmt.Sprint(s.Reconfigurations) }, nil},
		{"wall time (s)", func(s *sim.Summary) string { return fmt.Sprintf("%.2f", s.Wallclock.RunS) }, nil},
		{"decision p99 (ms)", func(s *sim.Summary) string { return fmt.Sprintf("%.2f", s.Wallclock.DecisionP99*1e3) }, nil},
	}
	if untilDone {
		// Each run ends when its jobs do: lengths (and the rounds the
		// throughput means average over) differ.
		rows = append([]summaryRow{{"rounds simulated (until done)", func(s *sim.Summary) string { return fmt.Sprint(s.Rounds) }, nil}}, rows...)
	}
	return rows
}

// faultRows are the table's rows for runs with the fault model (summary's
// faults section, docs/faults.md), after the others. A run of the table
// has one if any has: the runs of one command share their fault inputs.
func faultRows(outcomes []*runner.Outcome) []summaryRow {
	get := func(f func(fs *sim.FaultSummary) string) func(s *sim.Summary) string {
		return func(s *sim.Summary) string {
			if s.Faults == nil {
				return "–"
			}
			return f(s.Faults)
		}
	}
	rows := []summaryRow{
		{"cluster events", get(func(fs *sim.FaultSummary) string { return fmt.Sprint(fs.ClusterEvents) }), nil},
		{"interruptions (jobs hit)", get(func(fs *sim.FaultSummary) string { return fmt.Sprintf("%d (%d)", fs.Interruptions, fs.JobsInterrupted) }), nil},
	}
	// Jobs given up exist only under a job-failure model (--job-mtbf).
	for _, o := range outcomes {
		if o.Summary.Faults != nil && o.Summary.Faults.JobsGivenUp > 0 {
			rows = append(rows, summaryRow{"jobs failed past retries", get(func(fs *sim.FaultSummary) string { return fmt.Sprint(fs.JobsGivenUp) }), nil})
			break
		}
	}
	return append(rows, []summaryRow{
		{"GPU-hours lost (redone + restart)", get(func(fs *sim.FaultSummary) string {
			return fmt.Sprintf("%.0f (%.0f + %.0f)", fs.LostGPUHours, fs.LostWorkGPUHours, fs.RecoveryGPUHours)
		}), nil},
		{"effective training time", get(func(fs *sim.FaultSummary) string { return fmt.Sprintf("%.1f%%", 100*fs.EffectiveTrainingTimeRatio) }), nil},
		{"goodput (samples/s)", get(func(fs *sim.FaultSummary) string { return fmt.Sprintf("%.1f", fs.Goodput) }), nil},
	}...)
}

// printDigestComparisons prints, for each run the authors have a stored
// per-round digest of, how ours compares with it, then a blank line.
// Separate because it is the comparison with the authors' stored run,
// printed only when the reference is (withReference).
func printDigestComparisons(w io.Writer, outcomes []*runner.Outcome) {
	for _, o := range outcomes {
		if ref, err := reference.Digest(o.Summary.Trace, o.Summary.Policy); err == nil {
			if d, err := sim.CompareDigests(ref, o.Result.DigestCSV()); err == nil {
				fmt.Fprintf(w, "\n%s per-round digest vs the authors' run: %s", o.Summary.Policy, d)
			}
		}
	}
	fmt.Fprintln(w)
}

// printWarnings notes runs whose figures need care: a queue left on an
// idle cluster (the policy may never place those jobs) and an until-done
// run stopped by its cap, and artifact-timing results the artifact could
// not have produced (an internal assertion of its was false).
func printWarnings(w io.Writer, outcomes []*runner.Outcome) {
	for _, o := range outcomes {
		s := &o.Summary
		if s.Dropped > 0 {
			fmt.Fprintf(w, "⚠ %s dropped %d of %d submitted jobs: they count in the mean JCT over all submitted jobs (the default comparison) at their age at the horizon, as if still waiting; the means over finished or admitted jobs leave them out and flatter it\n", s.Policy, s.Dropped, s.Submitted)
		}
		if s.StuckPending > 0 {
			fmt.Fprintf(w, "⚠ %s ends with %d pending jobs and nothing running: it may never place them; they count in the censored mean at their age, not in the mean over finished jobs\n", s.Policy, s.StuckPending)
		}
		if s.UntilDoneCapReached {
			fmt.Fprintf(w, "⚠ %s: --until-done stopped at the --max-rounds cap (%d rounds) with %d jobs unfinished\n", s.Policy, s.Rounds, s.Unfinished)
		}
		if a := s.ArtifactAssertionsFailed; a != nil && *a > 0 {
			fmt.Fprintf(w, "⚠ %s: an internal assertion of the artifact was false %s (skipped, as in exact timing): the artifact would have stopped on this workload, so these artifact-timing results are arena's, not the artifact's\n", s.Policy, times(*a))
		}
	}
}

// relative says how a is placed against b in words: "12.3% lower",
// "4.0% higher" or "equal".
func relative(a, b float64) string {
	switch {
	case a < b:
		return fmt.Sprintf("%.1f%% lower", 100*(b-a)/b)
	case a > b:
		return fmt.Sprintf("%.1f%% higher", 100*(a-b)/b)
	}
	return "equal"
}

// printComparisons states each comparison on the default metric (the mean
// JCT over every submitted job, independent of which runs are compared),
// beside the jobs behind it, then the artifact's padded mean JCT (the
// paper's metric; it depends on the group) and the ratio of mean and peak
// throughput. With baseline "" it is the paper's form, arena against each
// other policy; otherwise each policy against baseline. A side that dropped
// or stranded jobs is marked ⚠.
func printComparisons(w io.Writer, outcomes []*runner.Outcome, baseline string) {
	if len(outcomes) < 2 {
		return
	}
	var ref *sim.Summary
	name := baseline
	if name == "" {
		name = sweep.RefPolicy
	}
	for _, o := range outcomes {
		if o.Summary.Policy == name {
			ref = &o.Summary
		}
	}
	if ref == nil {
		return
	}
	mark := func(s *sim.Summary) string {
		if s.Neglects() {
			return s.Policy + " ⚠"
		}
		return s.Policy
	}
	fmt.Fprintln(w)
	if baseline != "" {
		fmt.Fprintf(w, "against the baseline %s (one seed: no interval; a sweep over seeds gives paired t-intervals):\n", baseline)
	}
	for _, o := range outcomes {
		s := &o.Summary
		if s == ref {
			continue
		}
		a, b := ref, s // the paper's form: arena against each
		if baseline != "" {
			a, b = s, ref
		}
		if b.SubmittedMeanJCT == 0 || b.MeanThroughput == 0 || b.PeakThroughput == 0 {
			continue
		}
		line := fmt.Sprintf("%s vs %s: mean JCT over all submitted jobs %s (%s: %s; %s: %s)", mark(a), mark(b),
			relative(a.SubmittedMeanJCT, b.SubmittedMeanJCT), a.Policy, a.Accounting(), b.Policy, b.Accounting())
		if b.PaddedMeanJCT > 0 && a.PaddedMeanJCT > 0 {
			line += fmt.Sprintf(", artifact padded mean %s", relative(a.PaddedMeanJCT, b.PaddedMeanJCT))
		}
		fmt.Fprintf(w, "%s, mean throughput %.2fx, peak %.2fx\n", line, a.MeanThroughput/b.MeanThroughput, a.PeakThroughput/b.PeakThroughput)
	}
}

// printPlotCaptions writes OUT/captions.txt — per comparison group, each
// policy's mean JCT over all submitted jobs beside its jobs finished /
// unfinished / dropped, for the figures' captions — prints its path, and
// prints the seed table (means with t-intervals, paired comparisons) when
// the runs have several seeds.
func printPlotCaptions(w io.Writer, out string, rows []sweep.SummaryRow) error {
	var b strings.Builder
	if err := sweep.WriteCaptions(&b, rows); err != nil {
		return err
	}
	path := filepath.Join(out, "captions.txt")
	if err := resultsdir.WriteFileAtomic(path, []byte(b.String())); err != nil {
		return err
	}
	fmt.Fprintln(w, path)
	if err := sweep.WriteSeedTable(w, rows); err != nil {
		return err
	}
	return sweep.WriteFairnessSeedTable(w, rows)
}
