package experiments

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/outdir"
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
	inflight := filepath.Join(out, RunsDir, "."+plan.Runs[0].Key+".tmp-abc")
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
// (.summary.parquet.tmp-*, runs/.<key>.tmp-*) is removed by the next merge.
func TestMergeCleansStaleTemporaries(t *testing.T) {
	plan := smallPlan(t)
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	stale := []string{
		filepath.Join(out, ".summary.parquet.tmp-1x2y"),
		filepath.Join(out, RunsDir, "."+plan.Runs[0].Key+".tmp-zz"),
		filepath.Join(out, RunsDir, "."+plan.Runs[0].Key+".old-zz"),
	}
	for _, s := range stale {
		os.WriteFile(s, []byte("half"), 0o644)
	}
	merge(t, plan, MergeOptions{Out: out})
	for _, s := range stale {
		if _, err := os.Stat(s); err == nil {
			t.Errorf("stale temporary %s survived the merge", filepath.Base(s))
		}
	}
	// A resumed sweep removes its own runs' temporaries too.
	os.WriteFile(stale[1], []byte("half"), 0o644)
	sweep(t, plan, out, Shard{}, true)
	if _, err := os.Stat(stale[1]); err == nil {
		t.Error("stale run temporary survived --resume")
	}
}
