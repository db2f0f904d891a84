package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// smallSpec is a fast sweep: FCFS on PAI and the testbed trace, both
// timing modes, two densities (8 runs, well under a second in all).
const smallSpec = `
name: small
traces: [pai, testbed]
clusters: [paper-1280]
policies: [fcfs]
timing: [artifact, exact]
density: [1, 2]
rounds: 300
`

func smallPlan(t *testing.T) *Plan {
	t.Helper()
	s, err := ParseSpec("small.yaml", "", []byte(smallSpec))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func sweep(t *testing.T, plan *Plan, out string, shard Shard, resume bool) SweepReport {
	t.Helper()
	rep, err := RunSweep(context.Background(), policy.NewRegistry(), plan, SweepOptions{Out: out, Parallel: 2, Shard: shard, Resume: resume})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func merge(t *testing.T, plan *Plan, opt MergeOptions) []SummaryRow {
	t.Helper()
	rows, err := MergeSweep(plan, opt)
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadSummaryParquet(filepath.Join(opt.Out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	again, err := EncodeSummaryParquet(rows)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(opt.Out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, file) || len(read.Rows) != len(rows) {
		t.Fatal("summary.parquet is not the rows MergeSweep returned")
	}
	for i := range rows {
		if read.Cell(i, "run") != rows[i].Key {
			t.Fatalf("row %d of summary.parquet is %s, want %s", i, read.Cell(i, "run"), rows[i].Key)
		}
	}
	return rows
}

// sameResults compares two sweep outputs run by run: every file byte for
// byte, except summary.json whose wallclock section is zeroed first.
func sameResults(t *testing.T, plan *Plan, a, b string) {
	t.Helper()
	for _, r := range plan.Runs {
		for _, f := range []string{RunFile, resultsdir.JobsFile, resultsdir.TimelineFile, resultsdir.DigestFile, resultsdir.SummaryFile} {
			x, errA := os.ReadFile(filepath.Join(RunDir(a, r.Key), f))
			y, errB := os.ReadFile(filepath.Join(RunDir(b, r.Key), f))
			if errA != nil || errB != nil {
				t.Fatalf("%s/%s: %v %v", r.Key, f, errA, errB)
			}
			if f == resultsdir.SummaryFile {
				x, y = zeroWallclock(t, x), zeroWallclock(t, y)
			}
			if !bytes.Equal(x, y) {
				t.Errorf("%s/%s differs between the two sweeps", r.Key, f)
			}
		}
	}
}

func zeroWallclock(t *testing.T, data []byte) []byte {
	t.Helper()
	var s sim.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	s.Wallclock = sim.Wallclock{}
	out, _ := json.Marshal(s)
	return out
}

func TestShardsMergedEqualUnshardedSweep(t *testing.T) {
	plan := smallPlan(t)
	whole := t.TempDir()
	sweep(t, plan, whole, Shard{}, false)
	want := merge(t, plan, MergeOptions{Out: whole})
	if len(want) != len(plan.Runs) {
		t.Fatalf("%d rows, want %d", len(want), len(plan.Runs))
	}

	// Two shards on "two machines" (separate directories), merged into a third.
	s0, s1, merged := t.TempDir(), t.TempDir(), t.TempDir()
	r0 := sweep(t, plan, s0, Shard{0, 2}, false)
	r1 := sweep(t, plan, s1, Shard{1, 2}, false)
	if r0.Total+r1.Total != len(plan.Runs) || r0.Total == 0 || r1.Total == 0 {
		t.Fatalf("shards ran %d + %d runs of %d", r0.Total, r1.Total, len(plan.Runs))
	}
	if _, err := MergeSweep(plan, MergeOptions{Out: s0}); err == nil {
		t.Error("merging one shard alone must report the missing runs")
	}
	got := merge(t, plan, MergeOptions{Out: merged, From: []string{s0, s1}})
	if !bytes.Equal(encodedWithoutWall(t, got), encodedWithoutWall(t, want)) {
		t.Error("merged shards differ from the unsharded sweep")
	}
	sameResults(t, plan, whole, merged)

	// Both shards into one shared directory (a Slurm array on a shared
	// file system), merged in place.
	shared := t.TempDir()
	sweep(t, plan, shared, Shard{0, 2}, false)
	sweep(t, plan, shared, Shard{1, 2}, false)
	if got := merge(t, plan, MergeOptions{Out: shared}); !bytes.Equal(encodedWithoutWall(t, got), encodedWithoutWall(t, want)) {
		t.Error("shards merged in a shared directory differ from the unsharded sweep")
	}
}

func TestResumeSkipsCompleteRunsAndRedoesBrokenOnes(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	// Break one run as a kill in the middle of resultsdir.Write would: its
	// summary.json gone, a temporary file left behind.
	broken := RunDir(out, plan.Runs[3].Key)
	os.Remove(filepath.Join(broken, resultsdir.SummaryFile))
	staleTemporary(t, filepath.Join(broken, ".arena-tmp-jobs.parquet-0000000000000123"))
	rep := sweep(t, plan, out, Shard{}, true)
	if rep.Ran != 1 || rep.Skipped != len(plan.Runs)-1 {
		t.Errorf("resume ran %d and skipped %d, want 1 and %d", rep.Ran, rep.Skipped, len(plan.Runs)-1)
	}
	if !Complete(broken, plan.Runs[3].Key) {
		t.Error("the broken run was not redone")
	}
	if m, _ := filepath.Glob(filepath.Join(broken, ".arena-tmp-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	fresh := t.TempDir()
	sweep(t, plan, fresh, Shard{}, false)
	sameResults(t, plan, out, fresh)
}

func TestPaddedMeansWithinGroups(t *testing.T) {
	a := &Results{Record: RunRecord{Group: "g", JCTs: []float64{10, 20}}}
	b := &Results{Record: RunRecord{Group: "g", JCTs: []float64{30}}}
	c := &Results{Record: RunRecord{Group: "h", JCTs: []float64{1000}}}
	PadGroups([]*Results{a, b, c})
	if a.Summary.PaddedMeanJCT != 15 || b.Summary.PaddedMeanJCT != 30 || c.Summary.PaddedMeanJCT != 1000 {
		t.Errorf("padded means %v %v %v, want 15 30 1000 (pad within a group only)", a.Summary.PaddedMeanJCT, b.Summary.PaddedMeanJCT, c.Summary.PaddedMeanJCT)
	}
}

func TestEmit(t *testing.T) {
	for _, kind := range []string{"slurm", "k8s"} {
		text, err := Emit(kind, EmitOptions{Spec: "s.yaml", Name: "My Sweep", Out: "res", Shards: 4, CPUs: 2, Runs: 40})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"sweep s.yaml", "--out", "--resume", "--shard"} {
			if !bytes.Contains([]byte(text), []byte(want)) {
				t.Errorf("%s: missing %q:\n%s", kind, want, text)
			}
		}
	}
	slurm, _ := Emit("slurm", EmitOptions{Spec: "s.yaml", Shards: 4})
	if !bytes.Contains([]byte(slurm), []byte("--array=0-3")) || !bytes.Contains([]byte(slurm), []byte("${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}")) {
		t.Errorf("slurm script:\n%s", slurm)
	}
	k8s, _ := Emit("k8s", EmitOptions{Spec: "s.yaml", Shards: 4})
	if !bytes.Contains([]byte(k8s), []byte("completionMode: Indexed")) || !bytes.Contains([]byte(k8s), []byte("${JOB_COMPLETION_INDEX}/4")) {
		t.Errorf("k8s manifest:\n%s", k8s)
	}
	var manifest struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Completions int `yaml:"completions"`
			Template    struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(k8s), &manifest); err != nil {
		t.Fatalf("k8s manifest is not YAML: %v\n%s", err, k8s)
	}
	if manifest.Kind != "Job" || manifest.Spec.Completions != 4 || len(manifest.Spec.Template.Spec.Containers) != 1 ||
		!strings.Contains(manifest.Spec.Template.Spec.Containers[0].Args[0], "--shard \"${JOB_COMPLETION_INDEX}/4\"") {
		t.Errorf("k8s manifest: %+v", manifest)
	}
	if _, err := Emit("pbs", EmitOptions{}); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestRunTimeoutAbandonsLongRuns(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	rep, err := RunSweep(context.Background(), testRegistry(), plan, SweepOptions{Out: out, Parallel: 2, RunTimeout: time.Nanosecond})
	if err == nil || len(rep.Failed) != len(plan.Runs) {
		t.Fatalf("with a 1 ns budget every run must time out; failed %d of %d (%v)", len(rep.Failed), len(plan.Runs), err)
	}
	for k, e := range rep.Failed {
		if !errors.Is(e, ErrRunTimeout) || Complete(RunDir(out, k), k) {
			t.Errorf("%s: %v (complete: %v)", k, e, Complete(RunDir(out, k), k))
		}
	}
}

// encodedWithoutWall is rows' summary.parquet without the wall-clock
// figures: identical sweeps give identical bytes.
func encodedWithoutWall(t *testing.T, rows []SummaryRow) []byte {
	t.Helper()
	data, err := EncodeSummaryParquet(WithoutWallclock(rows))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
