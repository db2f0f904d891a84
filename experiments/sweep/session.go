package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// Session is one 'arena sweep' over a plan: the runs (RunSweep), the
// perturbed runs of a sensitivity grid, the merge into summary.parquet and
// the report printed after it — the sequence every front end (the CLI, a
// test, a notebook's Go program) runs the same way.
type Session struct {
	Plan *Plan
	// Sweep is the pool's options (Out, Parallel, Shard, Resume,
	// RunTimeout); its Progress is set per phase from Phase.
	Sweep SweepOptions
	// Sensitivity, when set, adds the perturbed runs and the robustness
	// columns.
	Sensitivity *Sensitivity
	// Baseline turns the comparisons round (SetBaseline); Labels are the
	// policies' display names (the spec's labels:).
	Baseline string
	Labels   map[string]string
	// Phase, if set, is called at the start of each phase ("sweep NAME",
	// "sensitivity NAME") and returns its progress callback and the
	// function that ends it (a progress bar's).
	Phase func(desc string) (update func(done, total int, key string), end func())
	// Log receives one line per phase and the merge's (nil: none).
	Log io.Writer
}

// Run runs the session's phases and, unless the sweep is one shard of
// several, merges the runs: it returns the summary rows (nil for a shard)
// with the labels set.
func (s *Session) Run(ctx context.Context, reg runner.Policies) ([]SummaryRow, error) {
	desc := "sweep " + s.Plan.Name
	if s.Sweep.Shard.Count > 1 {
		desc += " shard " + s.Sweep.Shard.String()
	}
	rep, took, err := s.phase(ctx, reg, desc, s.Plan, s.Sweep)
	s.logf("sweep %s (shard %s): %d runs, %d already complete, %d ran, %d failed, in %.1fs; results in %s\n",
		s.Plan.Name, s.Sweep.Shard, rep.Total, rep.Skipped, rep.Ran, len(rep.Failed), took.Seconds(), filepath.Join(s.Sweep.Out, RunsDir))
	if err == nil && s.Sensitivity != nil {
		opt := s.Sweep
		opt.Out = SensitivityDir(s.Sweep.Out)
		sp := SensitivityPlan(s.Plan, *s.Sensitivity)
		for _, n := range sp.Notes {
			s.logf("sensitivity: %s\n", n)
		}
		rep, took, err = s.phase(ctx, reg, "sensitivity "+s.Plan.Name, sp, opt)
		s.logf("sensitivity (grid %s): %d perturbed runs, %d already complete, %d ran, %d failed, in %.1fs; in %s\n",
			s.Sensitivity, rep.Total, rep.Skipped, rep.Ran, len(rep.Failed), took.Seconds(), opt.Out)
	}
	if err != nil || s.Sweep.Shard.Count > 1 {
		return nil, err
	}
	rows, err := s.Merge(MergeOptions{Out: s.Sweep.Out})
	if err != nil {
		return nil, err
	}
	s.logf("%d runs in %s\n", len(rows), filepath.Join(s.Sweep.Out, SummaryParquet))
	return rows, nil
}

// Merge joins the complete runs into summary.parquet (MergeSweep, with the
// session's baseline and grid), records the session's baseline and labels
// in OUT/sweep.json for 'arena plot', and labels the rows.
func (s *Session) Merge(opt MergeOptions) ([]SummaryRow, error) {
	opt.Baseline, opt.Sensitivity = s.Baseline, s.Sensitivity
	rows, err := MergeSweep(s.Plan, opt)
	if err != nil {
		return nil, err
	}
	if err := WriteSweepRecord(opt.Out, SweepRecord{Spec: s.Plan.Name, Baseline: s.Baseline, Labels: s.Labels}); err != nil {
		return nil, err
	}
	SetLabels(rows, s.Labels)
	return rows, nil
}

func (s *Session) phase(ctx context.Context, reg runner.Policies, desc string, plan *Plan, opt SweepOptions) (SweepReport, time.Duration, error) {
	end := func() {}
	if s.Phase != nil {
		opt.Progress, end = s.Phase(desc)
	}
	start := time.Now()
	rep, err := RunSweep(ctx, reg, plan, opt)
	end()
	return rep, time.Since(start), err
}

func (s *Session) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format, args...)
	}
}

// SweepFile records, in a merged sweep's directory, what the spec said
// about presenting it: 'arena plot OUT' reads it, so figures, captions and
// the seed table it prints use the spec's baseline and labels without the
// spec at hand (its flags win).
const SweepFile = "sweep.json"

// SweepRecord is SweepFile's content.
type SweepRecord struct {
	Spec     string            `json:"spec"`
	Baseline string            `json:"baseline,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
}

// WriteSweepRecord writes OUT/sweep.json atomically.
func WriteSweepRecord(out string, rec SweepRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return resultsdir.WriteFileAtomic(filepath.Join(out, SweepFile), append(data, '\n'))
}

// ReadSweepRecord reads dir's sweep.json; false when dir has none (not a
// merged sweep, or one merged before the file was written).
func ReadSweepRecord(dir string) (SweepRecord, bool, error) {
	var rec SweepRecord
	file := filepath.Join(dir, SweepFile)
	data, err := input.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, false, fmt.Errorf("%s: %w", file, err)
	}
	return rec, true, nil
}

// WriteReport prints what a merged sweep's reader needs after its table is
// written: the seed table, the fairness table, the energy table, and warnings naming the
// runs that dropped or stranded jobs (with one seed; the seed table flags
// them otherwise), the runs whose faults gave them no node outage or
// fewer than one expected (runner.FewOutages), and the
// artifact-timing runs whose policy found one of
// the artifact's internal assertions false (their results are arena's, as
// 'arena simulate' says for a single run).
func WriteReport(w io.Writer, rows []SummaryRow) error {
	if err := WriteSeedTable(w, rows); err != nil {
		return err
	}
	if err := WriteFairnessSeedTable(w, rows); err != nil {
		return err
	}
	if err := WriteEnergySeedTable(w, rows); err != nil {
		return err
	}
	writeMeasureWarnings(w, rows)
	multi := false
	for _, r := range rows {
		multi = multi || r.Seeds > 1
	}
	var neglect, hit, quiet []string
	for _, r := range rows {
		if f := r.Faults; f != nil && r.FaultsName != "" && r.FaultsName != "none" {
			if runner.FewOutages(f) {
				exp := "no expectation: an events file"
				if e := f.ExpectedOutages; e != nil {
					exp = fmt.Sprintf("%.2f expected", *e)
				}
				quiet = append(quiet, fmt.Sprintf("%s (%d, %s)", r.Key, f.Outages, exp))
			}
		}
		if !multi && r.Neglects() {
			neglect = append(neglect, fmt.Sprintf("%s (%d dropped, %d left queued on an idle cluster, %d stuck)", r.Key, r.Dropped, r.StuckPending, r.JobsStuck))
		}
		if a := r.ArtifactAssertionsFailed; a != nil && *a > 0 {
			hit = append(hit, fmt.Sprintf("%s (%d)", r.Key, *a))
		}
	}
	if len(neglect) > 0 {
		fmt.Fprintf(w, "\n⚠ %d run(s) dropped, stranded or left stuck jobs; they count in submitted_mean_jct_s (the default comparison) at their charge, their age at the horizon plus their remaining work at its best rate:\n  %s\n", len(neglect), firstLines(neglect, "jobs_stuck"))
	}
	if len(quiet) > 0 {
		fmt.Fprintf(w, "\n⚠ %d run(s) with faults saw no node outage or expected fewer than one (outages, expected; columns outages, expected_outages): with none, a run's results are a fault-free run's; for more, run longer (horizon), on a bigger cluster, or at scaled rates (a faults spec with the preset's rates raised: arena faults show PRESET):\n  %s\n",
			len(quiet), firstLines(quiet, "outages"))
	}
	if len(hit) > 0 {
		fmt.Fprintf(w, "\n⚠ %d run(s) found an internal assertion of the artifact false (skipped, as in exact timing; count in parentheses, column artifact_assertions_failed): the artifact would have stopped on these workloads, so their artifact-timing results are arena's:\n  %s\n",
			len(hit), firstLines(hit, "artifact_assertions_failed"))
	}
	return nil
}

// CapRounds gives every run of plan the maxRounds cap (unless the spec
// sets its own max_rounds and the flag was not given) and refuses, at the
// spec's rounds or horizon key, a length over it.
func CapRounds(spec *Spec, plan *Plan, maxRounds int, flagGiven bool) error {
	for i := range plan.Runs {
		if r := &plan.Runs[i].Run; r.MaxRounds == 0 || flagGiven {
			r.MaxRounds = maxRounds
		}
	}
	for _, pr := range plan.Runs { // every run shares the spec's rounds
		if r := pr.Run.Rounds; r > 0 {
			key := "rounds"
			if spec.HasKey("horizon") {
				key = "horizon"
			}
			if err := runner.CheckRounds(r, pr.Run.MaxRounds, ""); err != nil {
				return spec.KeyError(key, err)
			}
		}
	}
	return nil
}
