package regress

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

var update = flag.Bool("update", false, "rewrite the golden summaries in testdata/golden with the current results")

func testRegistry() *registry.Registry { return policy.NewRegistry() }

func goldenFilesForTest(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.json"))
	if len(files) == 0 {
		t.Fatal("no golden files in testdata/golden")
	}
	return files
}

// TestGolden is the regression check `make test` runs: every committed
// golden run must still produce its summary, exactly. Results are
// byte-identical run to run, so any move of any metric is a change; the
// files' tolerances are for `arena regress` users (other machines, other
// builds), not for this test. The runs' anchors (outside figures or guard
// only) are TestGoldenAnchors'. After an intended change, regenerate with:
// go test ./experiments -run Golden -update
func TestGolden(t *testing.T) {
	for _, file := range goldenFilesForTest(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			g, err := LoadGolden(file)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := UpdateGolden(context.Background(), testRegistry(), g); err != nil {
					t.Fatal(err)
				}
				data, err := g.Encode()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, data, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("updated %s", file)
				return
			}
			// A zero tolerance, and every deviation counted, even one
			// Regress would let through: exact, not "within 1e-9".
			rep, err := Regress(context.Background(), testRegistry(), g, &Tolerance{})
			if err != nil && !errors.Is(err, ErrRegression) {
				t.Fatal(err)
			}
			if rep.Runs != len(g.Runs) {
				t.Errorf("checked %d runs of %d", rep.Runs, len(g.Runs))
			}
			for _, d := range rep.Deviations {
				t.Errorf("%s (compared exactly; the file's tolerance %q is for arena regress)", d, g.Tolerance)
			}
			for _, r := range rep.Relations {
				if !r.OK {
					t.Error(r)
				}
			}
			if t.Failed() {
				t.Log("after an intended change: go test ./experiments -run Golden -update")
			}
		})
	}
}

// plantedRegistry serves FCFS with the no-prune ablation's overhead class
// (twice its own reconfiguration constants): the kind of slip (a changed
// constant) the check must catch.
type plantedRegistry struct{ *registry.Registry }

func (p plantedRegistry) Lookup(name string) (registry.Entry, error) {
	e, err := p.Registry.Lookup(name)
	if err == nil && e.Name == "fcfs" {
		e.Overhead = sim.OverheadClass{"noprune"}
	}
	return e, err
}

func TestRegressFailsOnPlantedRegressionNamingTheMetric(t *testing.T) {
	g, err := LoadGolden(filepath.Join("..", "testdata", "golden", "fcfs.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.Runs = g.Runs[:1] // PAI, exact timing
	rep, err := Regress(context.Background(), plantedRegistry{policy.NewRegistry()}, g, nil)
	if !errors.Is(err, ErrRegression) {
		t.Fatalf("want ErrRegression, got %v", err)
	}
	var jct *Deviation
	for i, d := range rep.Failures() {
		if d.Metric == "mean_jct_s" {
			jct = &rep.Failures()[i]
		}
	}
	if jct == nil {
		t.Fatalf("mean_jct_s not among the failures: %v", err)
	}
	if !(jct.Change > 0.02) || math.IsNaN(jct.Change) {
		t.Errorf("mean JCT change %+.3f: want a rise beyond 2%%", jct.Change)
	}
	msg := err.Error()
	for _, want := range []string{"mean_jct_s", "fcfs/pai/paper-1280/exact", "%", "tolerance 2%"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// A tolerance wide enough for the slip passes it.
	if _, err := Regress(context.Background(), plantedRegistry{policy.NewRegistry()}, g, &Tolerance{Rel: 10}); err != nil {
		t.Errorf("with a 1000%% tolerance: %v", err)
	}
}

func TestRegressPerMetricToleranceAndMissingMetric(t *testing.T) {
	g, err := LoadGolden(filepath.Join("..", "testdata", "golden", "fcfs.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.Runs = g.Runs[:1]
	fin := g.Runs[0].Summary["jobs_finished"]
	g.Runs[0].Summary["jobs_finished"] = 1000
	g.Runs[0].Summary["no_such_metric"] = 1
	_, err = Regress(context.Background(), testRegistry(), g, nil)
	if err == nil || !strings.Contains(err.Error(), "jobs_finished") || !strings.Contains(err.Error(), "no_such_metric") {
		t.Fatalf("want failures naming jobs_finished and no_such_metric, got %v", err)
	}
	g.Runs[0].Summary["jobs_finished"] = fin
	delete(g.Runs[0].Summary, "no_such_metric")
	g.Runs[0].Summary["mean_jct_s"] = 1.0
	g.Tolerances = map[string]string{"mean_jct_s": "1e9"}
	if _, err := Regress(context.Background(), testRegistry(), g, &Tolerance{}); err != nil {
		t.Errorf("an absolute per-metric tolerance must apply: %v", err)
	}
}

func TestParseTolerance(t *testing.T) {
	for in, want := range map[string]Tolerance{"2%": {Rel: 0.02}, "0.5": {Abs: 0.5}, " 10 % ": {Rel: 0.1}, "0": {}} {
		got, err := ParseTolerance(in)
		if err != nil || math.Abs(got.Rel-want.Rel) > 1e-12 || got.Abs != want.Abs {
			t.Errorf("ParseTolerance(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x%", "-1", "two"} {
		if _, err := ParseTolerance(bad); err == nil {
			t.Errorf("ParseTolerance(%q) accepted", bad)
		}
	}
}

// A golden run without a summary compares nothing: it must be refused,
// not reported as matching.
func TestGoldenWithoutSummariesFails(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "empty.json")
	os.WriteFile(file, []byte(`{"runs": [{"run": {"trace": "pai", "cluster": "paper-1280", "policy": "fcfs", "timing": "exact"}}]}`), 0o644)
	if _, err := LoadGolden(file); err == nil || !strings.Contains(err.Error(), "no summary to compare") {
		t.Errorf("golden with no summary: %v", err)
	}
}

// A tolerance or bound names a metric of the catalogue by its
// summary.json path: a typo, a column name that is not the path, or the
// wall clock is refused (before, "mean_jtc_s" bounded nothing and the
// golden passed whatever the run did); the catalogue's names and family
// members are accepted.
func TestGoldenNamesKnownMetrics(t *testing.T) {
	dir := t.TempDir()
	load := func(extra string) error {
		file := filepath.Join(dir, "g.json")
		os.WriteFile(file, []byte(`{`+extra+`, "runs": [{"run": {"trace": "pai", "cluster": "paper-1280", "policy": "fcfs", "timing": "exact"}, "summary": {"mean_jct_s": 1}}]}`), 0o644)
		_, err := LoadGolden(file)
		return err
	}
	for _, bad := range []struct{ extra, want string }{
		{`"bounds": {"mean_jtc_s": {"max_increase": "2%"}}`, `no metric "mean_jtc_s"`},
		{`"tolerances": {"lost_gpu_hours": "1%"}`, `write "faults.lost_gpu_hours"`},
		{`"tolerances": {"mean_throughput_samples_per_s": "1%"}`, `write "mean_throughput"`},
		{`"tolerances": {"wallclock.run_s": "1%"}`, "wall clock"},
	} {
		if err := load(bad.extra); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an error saying %s", bad.extra, err, bad.want)
		}
	}
	for _, good := range []string{`"bounds": {"faults.lost_gpu_hours": {"max_increase": "2%"}}`, `"tolerances": {"utilization.a100": "1%", "jobs_finished": "0"}`} {
		if err := load(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// One-sided bounds: the planted FCFS slip raises the mean JCT. A
// max_decrease bound alone lets it pass (only decreases are limited); a
// max_increase bound catches it and names the bound.
func TestRegressOneSidedBounds(t *testing.T) {
	g, err := LoadGolden(filepath.Join("..", "testdata", "golden", "fcfs.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.Runs = g.Runs[:1]
	for k := range g.Runs[0].Summary {
		if k != "mean_jct_s" {
			delete(g.Runs[0].Summary, k)
		}
	}
	g.Bounds = map[string]Bound{"mean_jct_s": {MaxDecrease: "0"}}
	if _, err := Regress(context.Background(), plantedRegistry{policy.NewRegistry()}, g, nil); err != nil {
		t.Errorf("a rise under a max_decrease-only bound must pass: %v", err)
	}
	g.Bounds = map[string]Bound{"mean_jct_s": {MaxIncrease: "2%"}}
	_, err = Regress(context.Background(), plantedRegistry{policy.NewRegistry()}, g, nil)
	if !errors.Is(err, ErrRegression) || !strings.Contains(err.Error(), "bound max_increase 2%") || !strings.Contains(err.Error(), ", worse; exceeds") {
		t.Errorf("a rise beyond max_increase 2%%: %v", err)
	}
	// The unplanted run improves on a golden inflated by 50 %: an
	// improvement is not a regression under max_increase.
	v, _ := g.Runs[0].Summary["mean_jct_s"].(json.Number).Float64()
	g.Runs[0].Summary["mean_jct_s"] = 1.5 * v
	if _, err := Regress(context.Background(), testRegistry(), g, nil); err != nil {
		t.Errorf("an improvement flagged: %v", err)
	}
}

// Hand-worked relations on PAI, exact timing, 300 rounds: SRTF's and
// FCFS's summaries are computed by the runs themselves, so the checks
// are relative: x >= 1 * x holds, x > 1.01 * x fails.
func TestRegressRelations(t *testing.T) {
	run := func(p string) GoldenRun {
		return GoldenRun{Run: GoldenRunSpec{Trace: "pai", Cluster: "paper-1280", Policy: p, Timing: sim.Exact, Rounds: 300}}
	}
	g := &Golden{Runs: []GoldenRun{run("fcfs"), run("srtf")}, Relations: []string{
		"fcfs.mean_throughput >= 1 * fcfs.mean_throughput",
		"srtf.jobs_finished >= 0.5 * fcfs.jobs_finished",
	}}
	rep, err := Regress(context.Background(), testRegistry(), g, nil)
	if err != nil || len(rep.Relations) != 2 || !rep.Relations[0].OK {
		t.Fatalf("relations: %+v, %v", rep, err)
	}
	g.Relations = []string{"fcfs.mean_throughput > 1.01 * fcfs.mean_throughput"}
	_, err = Regress(context.Background(), testRegistry(), g, nil)
	if !errors.Is(err, ErrRegression) || !strings.Contains(err.Error(), "FAILS") {
		t.Errorf("a false relation: %v", err)
	}
	for _, bad := range []string{"fcfs.mean_throughput", "gavel.mean_jct_s < 1", "1 < 2", "fcfs.x * fcfs.y > 1", "fcfs. > 1"} {
		if _, err := parseRelation(bad, g); err == nil {
			t.Errorf("relation %q accepted", bad)
		}
	}
	g.Relations = []string{"fcfs.no_such_metric > 1"}
	if _, err := Regress(context.Background(), testRegistry(), g, nil); err == nil || !strings.Contains(err.Error(), "no_such_metric") {
		t.Errorf("unknown metric: %v", err)
	}
}

// A golden run on a cluster its estimator cannot price is refused before
// it runs, as every run is (runner.Resolve), naming the types and the fix:
// a golden file cannot pin the results of a run that drops every job.
func TestGoldenRunOnAnUnpricedClusterIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h100.json")
	os.WriteFile(file, []byte(`{"runs": [{"run": {"trace": "testbed", "cluster": "h100-l20", "policy": "fcfs", "timing": "exact", "rounds": 5}, "summary": {"jobs_finished": 0}}]}`), 0o644)
	g, err := LoadGolden(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Regress(context.Background(), testRegistry(), g, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot price: h100, l20") || !strings.Contains(err.Error(), "--estimator analytic") {
		t.Errorf("Regress: %v; want the unpriced types and the fix", err)
	}
}
