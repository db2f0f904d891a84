package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/resultsdir"
)

// TestCompareSweeps: two sweeps of one plan agree although their
// wall-clock fields differ; a changed byte in a run's file, a changed
// summary field, a missing file and a summary.parquet on one side only
// are each reported (every mutation is made by hand here).
func TestCompareSweeps(t *testing.T) {
	plan := smallPlan(t)
	a, b := t.TempDir(), t.TempDir()
	sweep(t, plan, a, Shard{}, false)
	sweep(t, plan, b, Shard{}, false)
	merge(t, plan, MergeOptions{Out: a})
	merge(t, plan, MergeOptions{Out: b})
	key := plan.Runs[0].Key
	summary := filepath.Join(RunDir(b, key), resultsdir.SummaryFile)
	edit := func(f func(m map[string]any)) {
		data, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		data, _ = json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(summary, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, n int, sub string) {
		t.Helper()
		diffs, err := CompareSweeps(plan, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) != n || (n > 0 && !strings.Contains(strings.Join(diffs, "\n"), sub)) {
			t.Errorf("%s: differences %q, want %d naming %q", what, diffs, n, sub)
		}
	}
	// A wall-clock difference alone is no difference; the re-encoding of
	// summary.json is not either (both sides are re-encoded).
	edit(func(m map[string]any) { m["wallclock"] = map[string]any{"run_s": 1e6} })
	want("wall clock", 0, "")
	edit(func(m map[string]any) { m["policy"] = "other" })
	want("summary field", 1, key+"/summary.json")

	sweep(t, plan, b, Shard{}, false) // rewrite b
	merge(t, plan, MergeOptions{Out: b})
	digest := filepath.Join(RunDir(b, key), resultsdir.DigestFile)
	data, _ := os.ReadFile(digest)
	data[len(data)/2] ^= 1
	os.WriteFile(digest, data, 0o644)
	want("one byte", 1, key+"/"+resultsdir.DigestFile)
	os.Remove(digest)
	want("missing file", 1, key+": files")

	sweep(t, plan, b, Shard{}, false)
	merge(t, plan, MergeOptions{Out: b})
	os.Remove(filepath.Join(a, SummaryParquet))
	want("summary.parquet on one side", 1, SummaryParquet)
}
