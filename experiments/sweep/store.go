package sweep

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// RunFile is written into each run's results directory next to the files
// of resultsdir.Write: the run's parameters and its JCTs in finish order (what
// padded means need).
const RunFile = "run.json"

// RunRecord is the content of run.json.
type RunRecord struct {
	Key       string  `json:"key"`
	Group     string  `json:"group"`
	Trace     string  `json:"trace"`
	Cluster   string  `json:"cluster"`
	Policy    string  `json:"policy"`
	Timing    string  `json:"timing"`
	Rounds    int     `json:"rounds"`
	Density   float64 `json:"density"`
	Seed      int64   `json:"seed"`
	Estimator string  `json:"estimator"`
	// Run is the whole description the run was executed from (absent
	// from run.json files written before it was recorded).
	Run *runner.Run `json:"run,omitempty"`
	// JCTs of the jobs finished in the window, in the order they finished.
	JCTs []float64 `json:"jcts_finish_order"`
}

// ExecuteTo runs pr and stores its results as the directory dir: run.json
// and the files of resultsdir.Write, swapped in whole, so dir holds either this
// run's complete results or what it held before. Without tenants or energy
// its allocation rows and its job table are streamed
// (runner.Scenario.StreamAllocations, StreamJobs): the Outcome's Result has
// neither.
func ExecuteTo(ctx context.Context, reg runner.Policies, pr PlannedRun, dir string) (*runner.Outcome, error) {
	return executeTo(ctx, runner.NewResolver(reg), pr, dir)
}

func executeTo(ctx context.Context, rv *runner.Resolver, pr PlannedRun, dir string) (*runner.Outcome, error) {
	sc, err := rv.Resolve(pr.Run)
	if err != nil {
		return nil, err
	}
	if pr.Run.Tenants == "" && sc.Energy == nil {
		// Nothing but the results files reads the allocation rows or
		// the job table: they are encoded as the run goes, not kept.
		sc.StreamAllocations, sc.StreamJobs = dir, true
	}
	out, err := sc.Execute(ctx, pr.Run.OnRound)
	if err != nil {
		return nil, err
	}
	run := pr.Run
	run.OnRound = nil
	rec := RunRecord{
		Key: pr.Key, Group: pr.Group, Trace: out.Summary.Trace, Cluster: out.Summary.Cluster, Policy: out.Summary.Policy,
		Timing: out.Summary.Timing, Rounds: out.Summary.Rounds, Density: runner.Density(pr.Run.Density), Seed: pr.Run.Seed,
		Estimator: out.Summary.Estimator, Run: &run, JCTs: out.Result.JCTs,
	}
	if rec.JCTs == nil {
		rec.JCTs = []float64{}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		out.DiscardStreams()
		return nil, fmt.Errorf("results: run.json: %w", err)
	}
	extra, err := out.ExtraFiles()
	if err != nil {
		out.DiscardStreams()
		return nil, err
	}
	files := append([]resultsdir.File{{Name: RunFile, Data: append(data, '\n')}}, extra...)
	if err := resultsdir.WriteDirs([]resultsdir.RunDir{{Dir: dir, Result: out.Result, Summary: out.Summary, Extra: files, Allocations: out.Allocations, Jobs: out.Jobs}}); err != nil {
		return nil, err
	}
	return out, nil
}

// WritePolicyDirs writes each outcome's results as out/<policy>/ (the
// layout of 'arena simulate --out'): all the policies' directories or
// none, so a failure part-way (a full disk) leaves no new run beside an
// old one (resultsdir.WriteDirs).
func WritePolicyDirs(out string, outcomes []*runner.Outcome) error {
	runs := make([]resultsdir.RunDir, len(outcomes))
	for i, o := range outcomes {
		runs[i] = resultsdir.RunDir{Dir: filepath.Join(out, PolicyDir(o.Summary.Policy)), Result: o.Result, Summary: o.Summary, Allocations: o.Allocations, Jobs: o.Jobs}
		extra, err := o.ExtraFiles()
		if err != nil {
			for _, o := range outcomes {
				o.DiscardStreams()
			}
			return err
		}
		runs[i].Extra = extra
	}
	return resultsdir.WriteDirs(runs)
}

// Complete reports whether dir holds the finished results of the run
// named key: its files as written (the manifest's sizes and SHA-256s) and
// its run record of that key. Merge and --resume check more, the record
// against the plan's run (CompleteRun).
func Complete(dir, key string) bool { return incomplete(dir, key, nil) == nil }

// CompleteRun reports whether dir holds the finished results of the
// planned run pr: Complete, and its run.json records pr's key, group and
// run description exactly, so a directory whose record contradicts the
// plan is neither merged nor kept by --resume.
func CompleteRun(dir string, pr PlannedRun) bool { return incomplete(dir, pr.Key, &pr) == nil }

// incomplete says why dir does not hold key's complete results (nil when
// it does). Every file must be as written — the manifest's sizes and
// SHA-256s (outdir.Verify: regular files only, read no further than
// recorded, the manifest parsed strictly), or, for directories written
// before manifests recorded sizes, a jobs.parquet framed as Parquet at
// both ends — so a run truncated by a full disk or a copy cut short is
// redone by --resume and refused by --merge, not trusted. Its run record
// must name key and, when want is given, record want's group and run;
// its summary must read back.
func incomplete(dir, key string, want *PlannedRun) error {
	if _, err := os.Lstat(dir); err != nil {
		return err
	}
	err := outdir.Verify(dir, RunFile, resultsdir.SummaryFile, resultsdir.JobsFile)
	legacy := errors.Is(err, outdir.ErrNoManifest) || errors.Is(err, outdir.ErrNoSizes)
	if err != nil && !legacy {
		return err
	}
	rec, err := readRunRecord(dir)
	if err != nil {
		return err
	}
	if rec.Key != key {
		return fmt.Errorf("%s: the run record is of %s", dir, clip(rec.Key))
	}
	if want != nil {
		if err := sameRun(dir, rec, *want); err != nil {
			return err
		}
	}
	if _, err := readSummary(dir); err != nil {
		return err
	}
	if legacy {
		return parquetFramed(filepath.Join(dir, resultsdir.JobsFile))
	}
	return nil
}

// sameRun checks a run record against the planned run it claims to be:
// the same group and the same run description, field for field (their
// JSON forms are equal).
func sameRun(dir string, rec RunRecord, pr PlannedRun) error {
	path := filepath.Join(dir, RunFile)
	if rec.Group != pr.Group {
		return fmt.Errorf("%s: group %s, the plan's is %s; not the planned run", path, clip(rec.Group), clip(pr.Group))
	}
	if rec.Run == nil {
		return fmt.Errorf("%s: records no run description (written before arena recorded it), so it cannot be checked against the plan", path)
	}
	planned := pr.Run
	planned.OnRound = nil
	a, err1 := json.Marshal(*rec.Run)
	b, err2 := json.Marshal(planned)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%s: its run %s differs from the plan's %s; not the planned run", path, clip(string(a)), clip(string(b)))
	}
	return nil
}

// parquetFramed checks a Parquet file's frame: the magic PAR1 at both
// ends and a footer length that fits the file. Only a regular file is
// opened (outdir.OpenRegular).
func parquetFramed(path string) error {
	f, err := outdir.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var head, tail [8]byte
	if fi.Size() < 12 {
		return fmt.Errorf("%s: %d bytes, too short for Parquet (truncated?)", path, fi.Size())
	}
	if _, err := f.ReadAt(head[:4], 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail[:], fi.Size()-8); err != nil {
		return err
	}
	footer := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" || footer > fi.Size()-12 {
		return fmt.Errorf("%s: not a whole Parquet file (truncated?)", path)
	}
	return nil
}

func readRunRecord(dir string) (RunRecord, error) {
	var rec RunRecord
	data, err := readSmall(filepath.Join(dir, RunFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", filepath.Join(dir, RunFile), err)
	}
	return rec, nil
}

func readSummary(dir string) (sim.Summary, error) {
	var s sim.Summary
	data, err := readSmall(filepath.Join(dir, resultsdir.SummaryFile))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, resultsdir.SummaryFile), err)
	}
	return s, nil
}

// readSmall reads a results directory's run.json or summary.json: a
// regular file only (a link, a FIFO or a device is refused, naming it),
// at most the spec-file cap (input.SpecCap).
func readSmall(path string) ([]byte, error) {
	return outdir.ReadRegular(path, input.SpecCap.Value())
}

// Results is one run's results directory read back.
type Results struct {
	Dir     string
	Record  RunRecord // from run.json; for directories of 'arena simulate' filled from the summary
	Summary sim.Summary
	// Jobs and Timeline are read by LoadResults when asked.
	Jobs     []sim.JobRecord
	Timeline []sim.RoundRecord
	// Allocations (allocations.parquet; nil for results written before it).
	Allocations []sim.AllocRecord
	// Types names the Busy columns of Timeline.
	Types []string
}

// Label names the run in legends: its policy, plus the density when not 1.
func (r *Results) Label() string {
	if r.Record.Density != 0 && r.Record.Density != 1 {
		return fmt.Sprintf("%s ×%g", r.Summary.Policy, r.Record.Density)
	}
	return r.Summary.Policy
}

// LoadResults reads a results directory (summary.json, and run.json when
// present); withTables also reads jobs.parquet and timeline.parquet.
func LoadResults(dir string, withTables bool) (*Results, error) {
	s, err := readSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", dir, err)
	}
	r := &Results{Dir: dir, Summary: s}
	rec, err := readRunRecord(dir)
	switch {
	case err == nil:
		r.Record = rec
	case errors.Is(err, fs.ErrNotExist):
		r.Record = RunRecord{Key: filepath.Base(dir), Trace: s.Trace, Cluster: s.Cluster, Policy: s.Policy, Timing: s.Timing,
			Rounds: s.Rounds, Density: 1, Estimator: s.Estimator}
		r.Record.Group = GroupKey(s.Trace, s.Cluster, timingOf(s.Timing), s.Rounds, 1, 0, s.Estimator)
	default:
		return nil, err
	}
	if !withTables {
		return r, nil
	}
	if r.Jobs, err = pq.ReadAll[sim.JobRecord](filepath.Join(dir, resultsdir.JobsFile)); err != nil {
		return nil, fmt.Errorf("results %s: %s: %w", dir, resultsdir.JobsFile, err)
	}
	if r.Record.JCTs == nil {
		for _, j := range r.Jobs {
			if j.State == "finished" {
				r.Record.JCTs = append(r.Record.JCTs, j.JCT)
			}
		}
	}
	if a, err := pq.ReadAll[sim.AllocRecord](filepath.Join(dir, resultsdir.AllocationsFile)); err == nil {
		r.Allocations = a
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("results %s: %s: %w", dir, resultsdir.AllocationsFile, err)
	}
	if err := r.readTimeline(); err != nil {
		return nil, fmt.Errorf("results %s: %s: %w", dir, resultsdir.TimelineFile, err)
	}
	return r, nil
}

func timingOf(s string) sim.Timing {
	t, _ := sim.ParseTiming(s)
	return t
}

// readTimeline decodes timeline.parquet, whose busy_<type> columns depend
// on the cluster.
func (r *Results) readTimeline() error {
	pf, err := pq.Open(filepath.Join(r.Dir, resultsdir.TimelineFile))
	if err != nil {
		return err
	}
	defer pf.Close()
	col := map[string]int{}
	var busyCols []int
	for i, fl := range pf.Schema().Fields() {
		col[fl.Name()] = i
		if t, ok := strings.CutPrefix(fl.Name(), "busy_gpus_"); ok {
			busyCols = append(busyCols, i)
			r.Types = append(r.Types, r.typeName(t))
		} else if t, ok := strings.CutPrefix(fl.Name(), "busy_"); ok { // results before 0.9
			busyCols = append(busyCols, i)
			r.Types = append(r.Types, r.typeName(t))
		}
	}
	if _, ok := col["throughput_samples_per_s"]; ok {
		col["throughput"] = col["throughput_samples_per_s"]
	}
	for _, need := range []string{"round", "time_s", "throughput", "running", "pending"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("missing column %q", need)
		}
	}
	nfields := len(pf.Schema().Fields())
	return pf.EachRow(func(row parquet.Row) error {
		if len(row) < nfields {
			return fmt.Errorf("a row of %d values; the schema has %d columns", len(row), nfields)
		}
		rr := sim.RoundRecord{
			Round: row[col["round"]].Int32(), Time: row[col["time_s"]].Double(), Throughput: row[col["throughput"]].Double(),
			Running: row[col["running"]].Int32(), Pending: row[col["pending"]].Int32(),
		}
		for _, c := range busyCols {
			rr.Busy = append(rr.Busy, row[c].Int32())
		}
		r.Timeline = append(r.Timeline, rr)
		return nil
	})
}

// typeName maps a busy_<col> suffix back to the GPU type (sim writes "-"
// as "_").
func (r *Results) typeName(col string) string {
	for t := range r.Summary.Utilization {
		if strings.ReplaceAll(t, "-", "_") == col {
			return t
		}
	}
	return col
}

// FindResults expands command-line arguments into results directories: a
// run directory (with summary.json), the output of 'arena simulate --out'
// (one directory per policy) or of a sweep (runs/<key>/), in a stable
// order.
func FindResults(args []string) ([]string, error) {
	var dirs []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, resultsdir.SummaryFile)); err == nil {
			dirs = append(dirs, a)
			continue
		}
		base := a
		if st, err := os.Stat(filepath.Join(a, RunsDir)); err == nil && st.IsDir() {
			base = filepath.Join(a, RunsDir)
		}
		entries, err := os.ReadDir(base)
		if err != nil {
			return nil, fmt.Errorf("results %s: %w", a, err)
		}
		var found []string
		for _, e := range entries {
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(base, e.Name(), resultsdir.SummaryFile)); err == nil {
					found = append(found, filepath.Join(base, e.Name()))
				}
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("results %s: no summary.json in it or in its subdirectories", a)
		}
		sort.Strings(found)
		dirs = append(dirs, found...)
	}
	return slices.Compact(dirs), nil
}
