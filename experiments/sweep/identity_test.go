package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/experiments/ci"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// The input hash is a function of the inputs: the same run twice gives
// the same hash, a change of seed, density or policy another one.
func TestInputHashFollowsTheInputs(t *testing.T) {
	reg := policy.NewRegistry()
	run := func(r runner.Run) string {
		out, err := runner.Execute(context.Background(), reg, r)
		if err != nil {
			t.Fatal(err)
		}
		if out.Summary.Version != sim.Version() || len(out.Summary.InputHash) != 64 {
			t.Fatalf("summary identity %q %q", out.Summary.Version, out.Summary.InputHash)
		}
		return out.Summary.InputHash
	}
	base := runner.Run{Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 30}
	h := run(base)
	if again := run(base); again != h {
		t.Errorf("same inputs, hashes %s and %s", h, again)
	}
	for name, r := range map[string]runner.Run{
		"seed":    {Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 30, Seed: 1},
		"density": {Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 30, Density: 2},
		"policy":  {Trace: "pai", Cluster: "paper-1280", Policy: "srtf", Timing: sim.Exact, Rounds: 30},
		"rounds":  {Trace: "pai", Cluster: "paper-1280", Policy: "fcfs", Timing: sim.Exact, Rounds: 31},
	} {
		if run(r) == h {
			t.Errorf("a different %s gives the same input hash", name)
		}
	}
}

// --resume must not mix runs of two arena versions: a run directory whose
// summary names another version makes the sweep fail before running.
func TestResumeRefusesAnotherVersion(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	file := filepath.Join(RunDir(out, plan.Runs[2].Key), resultsdir.SummaryFile)
	data, _ := os.ReadFile(file)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["arena_version"] = "0.1.0+elsewhere"
	data, _ = json.Marshal(m)
	os.WriteFile(file, data, 0o644)
	_, err := RunSweep(context.Background(), policy.NewRegistry(), plan, SweepOptions{Out: out, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "0.1.0+elsewhere") || !strings.Contains(err.Error(), "another arena version") {
		t.Fatalf("resume over another version's run: %v", err)
	}
}

// summary.parquet has one utilization_<type> column per GPU type, the
// throughput columns carry their unit, and rows their identity.
func TestSummaryParquetColumns(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	rows := merge(t, plan, MergeOptions{Out: out})
	file := filepath.Join(out, SummaryParquet)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fl := range pf.Schema().Fields() {
		names = append(names, fl.Name())
	}
	all := strings.Join(names, ",")
	for _, want := range []string{"utilization_a100", "utilization_a10", "mean_throughput_samples_per_s", "arena_version", "input_hash"} {
		if !strings.Contains(","+all+",", ","+want+",") {
			t.Errorf("summary.parquet lacks %s: %s", want, all)
		}
	}
	back, err := ReadSummaryParquet(file)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		for ty, u := range rows[i].Utilization {
			if got := back.Cell(i, utilizationColumn(ty)); got != strconv.FormatFloat(u, 'f', -1, 64) || back.Cell(i, "input_hash") != rows[i].InputHash {
				t.Errorf("row %d: utilization %s %v read back as %v", i, ty, u, got)
			}
		}
	}
}

// The CSV copy has the Parquet file's columns and one line per row, and
// a reader without Parquet gets the same numbers back.
func TestExportCSV(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	merge(t, plan, MergeOptions{Out: out})
	files, err := ExportCSV([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1+3*len(plan.Runs) {
		t.Fatalf("%d files written, want summary.csv and 3 per run (%d runs)", len(files), len(plan.Runs))
	}
	dir := RunDir(out, plan.Runs[0].Key)
	jobs, err := parquet.ReadFile[sim.JobRecord](filepath.Join(dir, resultsdir.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(jobs)+1 || !strings.HasPrefix(lines[0], "policy,trace,cluster,timing,seed,density,arena_version,input_hash,id,") {
		t.Fatalf("jobs.csv: %d lines, header %q", len(lines), lines[0])
	}
	head := strings.Split(lines[0], ",")
	row := strings.Split(lines[1], ",")
	for i, h := range head {
		if h == "submit_s" && row[i] != strconv.FormatFloat(jobs[0].Submit, 'f', -1, 64) {
			t.Errorf("submit_s %s, want %v", row[i], jobs[0].Submit)
		}
	}
}

// TestSummaryParquetZeroIsNotNull: an optional column holding 0 (a
// count of 0, a confidence bound of exactly 0) reads back as 0, and a
// missing one as null. parquet-go wrote both as null while SummaryRow was
// embedded in the reflect.StructOf row type (found with the
// artifact_assertions_failed column: every 0 read back empty).
func TestSummaryParquetZeroIsNotNull(t *testing.T) {
	zero, three := 0, 3
	a := row("a", sim.Summary{ArtifactAssertionsFailed: &zero, SolverBudgetHits: &three, Utilization: map[string]float64{"a100": 0.5}})
	a.Compared = map[string]ci.Interval{"jct_reduction": {Mean: 0.1, Lo: 0, Hi: 0.2}}
	rows := []SummaryRow{a, row("b", sim.Summary{Utilization: map[string]float64{"a100": 0}})}
	data, err := EncodeSummaryParquet(rows)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), SummaryParquet)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummaryParquet(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row       int
		col, want string
	}{
		{0, "artifact_assertions_failed", "0"}, {0, "solver_budget_hits", "3"}, {0, "jct_reduction_ci_lo", "0"}, {0, "utilization_a100", "0.5"},
		{1, "artifact_assertions_failed", ""}, {1, "solver_budget_hits", ""}, {1, "jct_reduction_ci_lo", ""}, {1, "utilization_a100", "0"},
	} {
		if got := back.Cell(c.row, c.col); got != c.want {
			t.Errorf("row %d %s read back as %q, want %q (\"\" = null)", c.row, c.col, got, c.want)
		}
	}
}

// summary.parquet has a gpu_map column, right after estimator, when some
// run rewrote its trace's GPU types (each row its run's map, "" none), and
// none otherwise, so tables of sweeps without maps keep their columns.
func TestSummaryParquetGPUMapColumn(t *testing.T) {
	row := func(m string) SummaryRow {
		return SummaryRow{Key: "k" + m, Summary: sim.Summary{Policy: "fcfs", Estimator: "analytic", GPUMap: m, Utilization: map[string]float64{}}}
	}
	for _, tc := range []struct {
		maps []string
		has  bool
	}{{[]string{"", ""}, false}, {[]string{"", "a10=l20,a40=h100"}, true}, {[]string{"a10=a40"}, true}} {
		var rows []SummaryRow
		for _, m := range tc.maps {
			rows = append(rows, row(m))
		}
		data, err := EncodeSummaryParquet(rows)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), SummaryParquet)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSummaryParquet(file)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(back.Columns, "gpu_map")
		if (i >= 0) != tc.has || tc.has && back.Columns[i-1] != "estimator" {
			t.Errorf("maps %q: columns %v", tc.maps, back.Columns)
			continue
		}
		for r, m := range tc.maps {
			if back.Cell(r, "gpu_map") != m {
				t.Errorf("maps %q: row %d gpu_map %q", tc.maps, r, back.Cell(r, "gpu_map"))
			}
		}
	}
}
