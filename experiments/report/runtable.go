package report

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
	"github.com/arena-sim/arena/sim/metrics"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// The side-by-side table of 'arena simulate': one column per run, one row
// per metric of the catalogue (sim/metrics) with a table label, the
// artifact's stored values beside them in artifact timing on the paper's
// Philly setup, then warnings and the comparisons on the default metric.

// RunTableOptions control WriteRunTable.
type RunTableOptions struct {
	// Baseline turns the comparisons round ("" the paper's form, arena
	// against each).
	Baseline string
	// NoReference leaves out the authors' stored results, which are
	// otherwise shown where the runs are the paper's setup in artifact
	// timing (Philly: values and per-round digests; PAI: digests).
	NoReference bool
}

// paperSetup says whether runs are the paper's setup of trace (its
// rounds on paper-1280, artifact timing), the only runs the authors'
// stored results describe.
func paperSetup(s *sim.Summary, trace string, rounds int) bool {
	return s.Timing == sim.Artifact.String() && s.Trace == trace && s.Rounds == rounds && s.Cluster == "paper-1280"
}

// WriteRunTable prints the side-by-side table of outcomes, the warnings
// and the comparisons (against the baseline, or the paper's arena against
// each), and beside them the authors' stored results where they exist.
func WriteRunTable(w io.Writer, outcomes []*runner.Outcome, opt RunTableOptions) {
	writeRunTable(w, outcomes, !opt.NoReference && paperSetup(&outcomes[0].Summary, "philly", 2000), opt.Baseline)
	if !opt.NoReference && paperSetup(&outcomes[0].Summary, "pai", 500) {
		// The authors' PAI runs are stored as per-round digests only.
		for _, o := range outcomes {
			if ref, err := reference.Digest("pai", o.Summary.Policy); err == nil {
				if d, err := sim.CompareDigests(ref, o.Result.DigestCSV()); err == nil {
					fmt.Fprintf(w, "\n%s per-round digest vs the authors' run: %s", o.Summary.Policy, d)
				}
			}
		}
		fmt.Fprintln(w)
	}
}

func writeRunTable(w io.Writer, outcomes []*runner.Outcome, withReference bool, baseline string) {
	s0 := outcomes[0].Summary
	fmt.Fprintf(w, "trace %s (%d jobs, %d submitted in the window) on %s, %s timing, %d rounds of 300 s (%s)%s\n\n",
		s0.Trace, s0.JobsInTrace, s0.Submitted, s0.Cluster, s0.Timing, s0.Rounds, sim.Duration(s0.HorizonS), runModel(&s0))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "metric\t"
	for _, o := range outcomes {
		head += o.Summary.Policy + "\t"
		if withReference {
			head += "(artifact)\t"
		}
	}
	fmt.Fprintln(tw, head)
	runs := make([]*sim.Summary, len(outcomes))
	for i, o := range outcomes {
		runs[i] = &o.Summary
	}
	for i := range metrics.Catalogue {
		m := &metrics.Catalogue[i]
		if !m.Shown(runs) {
			continue
		}
		line := m.Label + "\t"
		for _, s := range runs {
			line += m.Cell(s) + "\t"
			if withReference {
				ref, ok := reference.Philly(s.Policy)
				if get := artifactValues[m.Key]; ok && get != nil {
					line += get(ref) + "\t"
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

// runModel is the header's note of how jobs were priced when it is not
// the paper's setup: the estimator unless the profile database, and the
// GPU map, whose speeds the jobs borrowed.
func runModel(s *sim.Summary) string {
	var out string
	if s.Estimator != "" && s.Estimator != "profiledb" {
		out += "; estimator " + s.Estimator
	}
	if s.GPUMap != "" {
		out += "; GPU map " + s.GPUMap + " (jobs run at the speeds of the types they are mapped to)"
	}
	return out
}

// artifactValues are the artifact's stored values (reference.Run) shown
// beside a metric of the side-by-side table with --timing artifact, by
// metric key (sim/metrics). The stored queueing lists cover every admitted
// job, except FCFS's, which holds finished jobs only; each reference value
// sits in its row.
var artifactValues = map[string]func(r reference.Run) string{
	"jobs_finished": func(r reference.Run) string { return fmt.Sprint(len(r.JCT)) },
	"mean_jct_s":    func(r reference.Run) string { return fmt.Sprintf("%.0f", stat.Mean(r.JCT, nil)) },
	"mean_queueing_s": func(r reference.Run) string {
		if len(r.Queueing) == len(r.JCT) {
			return ""
		}
		return fmt.Sprintf("%.0f", stat.Mean(r.Queueing, nil))
	},
	"mean_queueing_finished_s": func(r reference.Run) string {
		if len(r.Queueing) != len(r.JCT) {
			return ""
		}
		return fmt.Sprintf("%.0f", stat.Mean(r.Queueing, nil))
	},
	"mean_throughput": func(r reference.Run) string { return fmt.Sprintf("%.1f", stat.Mean(r.Thr, nil)) },
	"peak_throughput": func(r reference.Run) string { return fmt.Sprintf("%.1f", floats.Max(r.Thr)) },
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
// idle cluster (the policy may never place those jobs), the measurement
// window's and the horizon's notes (printMeasureWarnings), and artifact-timing results the artifact could
// not have produced (an internal assertion of its was false).
func printWarnings(w io.Writer, outcomes []*runner.Outcome) {
	// Every policy of the table saw the same cluster events.
	if msg := outcomes[0].FaultsWarning(); msg != "" {
		fmt.Fprintf(w, "⚠ %s\n", msg)
	}
	printMeasureWarnings(w, outcomes)
	for _, o := range outcomes {
		s := &o.Summary
		if s.Dropped > 0 {
			fmt.Fprintf(w, "⚠ %s dropped %d of %d submitted jobs: they count in the mean JCT over all submitted jobs (the default comparison) at their charge, their age at the horizon plus their work at its best rate; the means over finished or admitted jobs leave them out and flatter it\n", s.Policy, s.Dropped, s.Submitted)
		}
		if s.StuckPending > 0 {
			fmt.Fprintf(w, "⚠ %s ends with %d pending jobs and nothing running: it may never place them; they count in the censored mean at their age, not in the mean over finished jobs\n", s.Policy, s.StuckPending)
		}
		if s.StuckShare > sim.StuckThreshold {
			fmt.Fprintf(w, "⚠ %s left %d of %d submitted jobs (%.1f%%, over the %.0f%% threshold) stuck: never started, though after some decision idle GPUs could have held them; they count in the mean over all submitted jobs at their charge, not in the means over finished jobs\n",
				s.Policy, s.JobsStuck, s.Submitted, 100*s.StuckShare, 100*sim.StuckThreshold)
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
	var refOut *runner.Outcome
	name := baseline
	if name == "" {
		name = sweep.RefPolicy
	}
	for _, o := range outcomes {
		if o.Summary.Policy == name {
			refOut = o
		}
	}
	if refOut == nil {
		return
	}
	ref := &refOut.Summary
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
		ra, rb := refOut.Result, o.Result
		if baseline != "" {
			a, b, ra, rb = s, ref, rb, ra
		}
		if b.SubmittedMeanJCT == 0 || b.MeanThroughput == 0 || b.PeakThroughput == 0 {
			continue
		}
		line := fmt.Sprintf("%s vs %s: mean JCT over all submitted jobs %s (%s: %s; %s: %s)", mark(a), mark(b),
			relative(a.SubmittedMeanJCT, b.SubmittedMeanJCT), a.Policy, behind(a), b.Policy, behind(b))
		if b.PaddedMeanJCT > 0 && a.PaddedMeanJCT > 0 {
			line += fmt.Sprintf(", artifact padded mean %s", relative(a.PaddedMeanJCT, b.PaddedMeanJCT))
		}
		// A run stopped at its drain cap with measured jobs left is no
		// basis for a conclusion: say so on the line itself, not only in
		// a warning above it.
		var capped []string
		for _, x := range []*sim.Summary{a, b} {
			if x.DrainCapReached {
				capped = append(capped, x.Policy)
			}
		}
		if len(capped) > 0 {
			line = fmt.Sprintf("inconclusive (%s reached the drain cap with measured jobs unfinished): %s", strings.Join(capped, " and "), line)
		}
		fmt.Fprintf(w, "%s, mean throughput %.2fx, peak %.2fx%s\n", line, a.MeanThroughput/b.MeanThroughput, a.PeakThroughput/b.PeakThroughput, energyComparison(a, b))
		if d, ok := splitReduction(ra, rb); ok {
			fmt.Fprintf(w, "  %s\n", d.String(a.Policy, b.Policy))
		}
	}
}

// energyComparison is the comparison line's energy part ("" unless both
// runs have energy accounting, --energy): a's energy, CO₂ and GPU cost per
// useful sample against b's. Per sample, because totals over a window
// reward doing less work: a policy that leaves GPUs idle and jobs queued
// spends less energy in the same hours.
func energyComparison(a, b *sim.Summary) string {
	ea, eb := a.Energy, b.Energy
	if ea == nil || eb == nil || ea.JoulesPerSample == 0 || eb.JoulesPerSample == 0 || eb.MgCO2PerSample == 0 || eb.GPUCostUSD == 0 {
		return ""
	}
	// useful samples = facility joules ÷ joules per sample (one accounting).
	costPerSample := func(e *sim.Energy) float64 { return e.GPUCostUSD * e.JoulesPerSample / (e.KWh * 3.6e6) }
	return fmt.Sprintf(", per sample: energy %s, CO2 %s, GPU cost %s", relative(ea.JoulesPerSample, eb.JoulesPerSample), relative(ea.MgCO2PerSample, eb.MgCO2PerSample), relative(costPerSample(ea), costPerSample(eb)))
}

// behind is what stands behind a run's mean in a comparison: its
// accounting, its stuck jobs and the work it did (GPU-hours held).
func behind(s *sim.Summary) string {
	return fmt.Sprintf("%s · %d stuck · %.0f GPU-h of work", s.Accounting(), s.JobsStuck, s.WorkDoneGPUHours)
}

// split decomposes the change of one run's mean JCT over all submitted
// jobs against another's (a against b, on the same submitted jobs) into
// the part from the jobs both finished and the part from the others,
// which one run or both charged (JobRecord.Charge): with C the charges,
// (ΣCa − ΣCb)/ΣCb = Σ_both(Ca − Cb)/ΣCb + Σ_others(Ca − Cb)/ΣCb.
type split struct {
	change           float64 // (ΣCa − ΣCb)/ΣCb
	both, others     int     // jobs
	onBoth, onOthers float64 // the two terms, fractions of ΣCb
	// bothAlone is the change on the jobs both finished alone:
	// Σ_both(Ca − Cb)/Σ_both Cb.
	bothAlone float64
	// neverA, neverB: jobs of others run a (b) never started (pending
	// or dropped since submission); unfinA, unfinB: started, not finished.
	neverA, neverB, unfinA, unfinB int
}

// splitReduction computes the split of a against b from their job
// tables; false when either run has none (a recorder of the caller's) or
// they did not submit the same jobs.
func splitReduction(a, b *sim.Result) (split, bool) {
	var d split
	if a == nil || b == nil || len(a.Jobs) == 0 || len(a.Jobs) != len(b.Jobs) {
		return d, false
	}
	var sumB, sumBothA, sumBothB, dBoth, dOthers float64
	for i := range a.Jobs {
		ja, jb := &a.Jobs[i], &b.Jobs[i]
		if ja.ID != jb.ID {
			return d, false
		}
		sumB += jb.Charge
		diff := ja.Charge - jb.Charge
		if ja.State == "finished" && jb.State == "finished" {
			d.both++
			dBoth += diff
			sumBothA += ja.Charge
			sumBothB += jb.Charge
			continue
		}
		d.others++
		dOthers += diff
		for _, x := range []struct {
			j            *sim.JobRecord
			never, unfin *int
		}{{ja, &d.neverA, &d.unfinA}, {jb, &d.neverB, &d.unfinB}} {
			switch {
			case x.j.State == "finished":
			case x.j.FirstStart < 0:
				*x.never++
			default:
				*x.unfin++
			}
		}
	}
	if sumB <= 0 {
		return d, false
	}
	d.change, d.onBoth, d.onOthers = (dBoth+dOthers)/sumB, dBoth/sumB, dOthers/sumB
	if sumBothB > 0 {
		d.bothAlone = (sumBothA - sumBothB) / sumBothB
	}
	return d, true
}

// String is "81.8% lower = 30.7 pts on the 367 jobs both finished (65.8%
// lower on those alone) + 51.1 pts on the 13 jobs not both finished (sia
// never started 13, left 0 unfinished after a start; arena 0, 0)": points
// of the headline change, signed so they add up to it.
func (d split) String(a, b string) string {
	word, sign := "lower", -1.0
	if d.change > 0 {
		word, sign = "higher", 1
	}
	alone := fmt.Sprintf("%.1f%% lower", -100*d.bothAlone)
	if d.bothAlone > 0 {
		alone = fmt.Sprintf("%.1f%% higher", 100*d.bothAlone)
	}
	return fmt.Sprintf("%.1f%% %s = %.1f pts on the %d jobs both finished (%s on those alone) %+.1f pts on the %d jobs not both finished (%s never started %d, left %d unfinished after a start; %s %d, %d)",
		100*sign*d.change, word, 100*sign*d.onBoth, d.both, alone, 100*sign*d.onOthers, d.others, b, d.neverB, d.unfinB, a, d.neverA, d.unfinA)
}

// WriteCaptionsFile writes OUT/captions.txt — per comparison group, each
// policy's mean JCT over all submitted jobs beside its jobs finished /
// unfinished / dropped, for the figures' captions — prints its path, and
// prints the seed table (means with t-intervals, paired comparisons) when
// the runs have several seeds.
func WriteCaptionsFile(w io.Writer, out string, rows []sweep.SummaryRow) error {
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
	if err := sweep.WriteFairnessSeedTable(w, rows); err != nil {
		return err
	}
	return sweep.WriteEnergySeedTable(w, rows)
}

// times renders a count of occurrences: "once", "16 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
