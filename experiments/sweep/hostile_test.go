package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/outdir"
	"github.com/arena-sim/arena/traces"
)

// TestSweepLocksOut: a second sweep on an OUT another process writes fails
// at once, naming the holder, and touches nothing (before: it deleted the
// first sweep's in-flight temporaries and both failed).
func TestSweepLocksOut(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	lock, err := outdir.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	inflight := filepath.Join(out, RunsDir, ".arena-tmp-"+plan.Runs[0].Key+"-0000000000000abc")
	os.MkdirAll(inflight, 0o755)
	_, err = RunSweep(context.Background(), policy.NewRegistry(), plan, SweepOptions{Out: out, Parallel: 1})
	if !errors.Is(err, outdir.ErrInUse) || !strings.Contains(err.Error(), "in use by pid") {
		t.Fatalf("second sweep: %v", err)
	}
	if _, err := MergeSweep(plan, MergeOptions{Out: out, Partial: true}); !errors.Is(err, outdir.ErrInUse) {
		t.Fatalf("merge during a sweep: %v", err)
	}
	if _, err := os.Stat(inflight); err != nil {
		t.Errorf("the other writer's temporary was removed: %v", err)
	}
	lock.Unlock()
}

// TestMergeCleansStaleTemporaries: what a killed merge or run left in OUT
// (.arena-tmp-summary.parquet-*, runs/.arena-tmp-<key>-*, runs/.arena-old-<key>-*)
// is removed by the next merge.
func TestMergeCleansStaleTemporaries(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	stale := []string{
		filepath.Join(out, ".arena-tmp-summary.parquet-00000000000001a2"),
		filepath.Join(out, RunsDir, ".arena-tmp-"+plan.Runs[0].Key+"-00000000000000ff"),
		filepath.Join(out, RunsDir, ".arena-old-"+plan.Runs[0].Key+"-00000000000000ff"),
	}
	for _, s := range stale {
		staleTemporary(t, s)
	}
	merge(t, plan, MergeOptions{Out: out})
	for _, s := range stale {
		if _, err := os.Stat(s); err == nil {
			t.Errorf("stale temporary %s survived the merge", filepath.Base(s))
		}
	}
	// A resumed sweep removes its own runs' temporaries too.
	staleTemporary(t, stale[1])
	sweep(t, plan, out, Shard{}, true)
	if _, err := os.Stat(stale[1]); err == nil {
		t.Error("stale run temporary survived --resume")
	}
}

// TestRoundsCap: one outlier timestamp makes the trace's default length
// huge; the run is refused before it starts, naming the trace and the
// flag that raises the cap (before: millions of rounds, or "Rounds must be
// positive, got 0" after an integer overflow).
func TestRoundsCap(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "outlier.csv")
	os.WriteFile(trace, []byte("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\n"+
		"a,0,100,bert__1.3B,0,128,2,a100\nb,1e9,100,bert__1.3B,0,128,2,a100\n"), 0o644)
	_, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{Trace: trace, Cluster: "paper-1280", Policy: "fcfs"})
	if err == nil || !strings.Contains(err.Error(), "trace outlier: its default length") || !strings.Contains(err.Error(), "over the cap of 100000 rounds") || !strings.Contains(err.Error(), "--max-rounds") {
		t.Fatalf("err = %v", err)
	}
	if err := runner.CheckRounds(1_000_000_000, 0, "--rounds 1000000000"); err == nil {
		t.Error("rounds 1e9 accepted")
	}
	if err := runner.CheckRounds(200_000, 300_000, "x"); err != nil {
		t.Errorf("an explicit higher cap is refused: %v", err)
	}
}

// TestHorizonBounds: hand-picked values around the bounds.
func TestHorizonBounds(t *testing.T) {
	for _, bad := range []string{"1e99d", "Infd", "NaNd", "-1d", "0d", "2562047h", "36501d", "0s", "500ms", "", "d", "7"} {
		if d, err := runner.ParseHorizon(bad); err == nil {
			t.Errorf("ParseHorizon(%q) = %v, want an error", bad, d)
		}
	}
	for in, rounds := range map[string]int{"7d": 2016, "36h": 432, "90m": 18, "1s": 1, "36500d": 10512000} {
		d, err := runner.ParseHorizon(in)
		if err != nil || runner.HorizonRounds(d) != rounds {
			t.Errorf("ParseHorizon(%q) → %d rounds, %v; want %d", in, runner.HorizonRounds(d), err, rounds)
		}
	}
	// 36500d parses, and is then refused by the rounds cap.
	if err := runner.CheckRounds(10512000, 0, "--horizon 36500d"); err == nil {
		t.Error("a 100-year horizon passed the rounds cap")
	}
}

// TestDensityBounds: density 1e300 once wrapped every job to 1 iteration.
func TestDensityBounds(t *testing.T) {
	tr := smallJobs(t)
	for _, d := range []float64{1e300, 1e-300, 1001, -1} {
		if _, err := runner.ScaleIterations(tr, d); err == nil {
			t.Errorf("density %g accepted", d)
		}
	}
	if _, err := ParseSpec("s.yaml", "", []byte("traces: pai\nclusters: paper-1280\npolicies: fcfs\ntiming: exact\ndensity: 1e300\n")); err == nil ||
		!strings.Contains(err.Error(), "s.yaml:5") {
		t.Errorf("spec density 1e300: %v", err)
	}
	big := []sim.JobSpec{{Name: "x", Iterations: 1 << 61}}
	if _, err := runner.ScaleIterations(big, 1000); err == nil || !strings.Contains(err.Error(), "job x") {
		t.Errorf("overflowing iterations: %v", err)
	}
	if out, err := runner.ScaleIterations(tr, 0.5); err != nil || out[0].Iterations != tr[0].Iterations/2 {
		t.Errorf("density 0.5: %v", err)
	}
}

func smallJobs(t *testing.T) []sim.JobSpec {
	t.Helper()
	tr, err := traces.Load("pai")
	if err != nil {
		t.Fatal(err)
	}
	return tr.Jobs
}

// TestSpecHostile: multi-document YAML, names that climb out of results/,
// references outside the spec's directory (absolute, .., symlinked), and a
// referenced file's content never echoed. Hand-written cases.
func TestSpecHostile(t *testing.T) {
	dir := t.TempDir()
	specDir := filepath.Join(dir, "specs")
	os.Mkdir(specDir, 0o755)
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("root:$6$secret-hash:19000:0:99999:7:::\n"), 0o600)
	os.Symlink(secret, filepath.Join(specDir, "link.yaml"))
	os.WriteFile(filepath.Join(specDir, "inside.yaml"), []byte("root:$6$secret-hash:19000:0:99999:7:::\n"), 0o644)
	base := "traces: pai\npolicies: fcfs\ntiming: exact\n"
	cases := []struct{ name, spec, want string }{
		{"multi-document", base + "clusters: paper-1280\n---\nname: other\n", "s.yaml:5: a second YAML document"},
		{"name climbs", base + "clusters: paper-1280\nname: ../../x\n", `s.yaml:5: key name: (a value of 7 bytes, not shown: not a plain word): want a plain name`},
		{"name with slash", base + "clusters: paper-1280\nname: a/b\n", "want a plain name"},
		{"absolute path", base + "clusters: [" + secret + "]\n", "a path outside the spec's directory"},
		{"dotdot path", base + "clusters: [../secret.txt]\n", "a path outside the spec's directory"},
		{"symlink out", base + "clusters: [link.yaml]\n", "a path outside the spec's directory"},
		{"content not echoed", base + "clusters: [inside.yaml]\n", "inside.yaml:1: key (a value of 37 bytes, not shown: not a plain word): unknown key"},
	}
	for _, c := range cases {
		file := filepath.Join(specDir, "s.yaml")
		os.WriteFile(file, []byte(c.spec), 0o644)
		s, err := LoadSpec(file)
		if err == nil {
			_, err = s.Expand(policy.NewRegistry())
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "secret-hash") {
			t.Errorf("%s: the error echoes a file's content: %v", c.name, err)
		}
	}
}
