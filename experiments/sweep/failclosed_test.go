package sweep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/outdir"
)

// staleTemporary makes path a temporary as a killed arena leaves one: a
// directory with arena's provisional manifest and a half-written file.
func staleTemporary(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, outdir.ManifestFile), []byte("arena-files 2\n"), 0o644)
	os.WriteFile(filepath.Join(path, "half"), []byte("half"), 0o644)
}

// rewriteRun rewrites a run directory as arena would (a manifest that
// matches its files), with run.json changed by edit: only the check of
// the record against the plan can then tell.
func rewriteRun(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != outdir.ManifestFile {
			files[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
		}
	}
	var rec map[string]any
	if err := json.Unmarshal(files[RunFile], &rec); err != nil {
		t.Fatal(err)
	}
	edit(rec)
	files[RunFile], _ = json.Marshal(rec)
	if err := outdir.ReplaceDir(dir, nil, func(tmp string) error {
		for n, d := range files {
			if err := os.WriteFile(filepath.Join(tmp, n), d, 0o666); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A run.json that contradicts the plan — its run description, or its
// group — is neither merged nor kept by --resume, though its key is the
// planned run's and every file matches the manifest. Before: only the key
// was compared, so the merge took the contradicting record (exit 0) and
// --resume skipped it as complete.
func TestRunRecordCheckedAgainstThePlan(t *testing.T) {
	plan := smallPlan(t)
	plan.Runs = plan.Runs[:2]
	for _, c := range []struct {
		name string
		edit func(map[string]any)
	}{
		{"another policy", func(r map[string]any) { r["run"].(map[string]any)["policy"] = "srtf" }},
		{"another seed", func(r map[string]any) { r["run"].(map[string]any)["seed"] = 7 }},
		{"another group", func(r map[string]any) { r["group"] = "elsewhere" }},
		{"no run description", func(r map[string]any) { delete(r, "run") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			sweep(t, plan, out, Shard{}, false)
			dir := RunDir(out, plan.Runs[0].Key)
			rewriteRun(t, dir, c.edit)
			if err := outdir.Verify(dir); err != nil {
				t.Fatalf("the rewritten run does not verify: %v", err)
			}
			_, err := MergeSweep(plan, MergeOptions{Out: out})
			if err == nil || !strings.Contains(err.Error(), plan.Runs[0].Key) || !strings.Contains(err.Error(), RunFile) {
				t.Errorf("merge: %v, want %s refused for its %s", err, plan.Runs[0].Key, RunFile)
			}
			rep, err := RunSweep(context.Background(), policy.NewRegistry(), plan, SweepOptions{Out: out, Parallel: 1, Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Ran != 1 || rep.Skipped != 1 {
				t.Errorf("--resume ran %d, skipped %d; want the contradicting run redone (1, 1)", rep.Ran, rep.Skipped)
			}
			merge(t, plan, MergeOptions{Out: out})
		})
	}
}

// A manifest whose line endings were converted (git autocrlf, a Windows
// copy) stops the merge with an error naming the manifest and its line,
// and --resume redoes the run. Before: the CRLF manifest was read as the
// old names-only form, the size and hash check was off, and a truncated
// jobs.parquet was merged with exit 0 — the Parquet frame check of
// manifest-less directories was skipped too.
func TestConvertedManifestIsAnError(t *testing.T) {
	plan := smallPlan(t)
	plan.Runs = plan.Runs[:1]
	out := t.TempDir()
	sweep(t, plan, out, Shard{}, false)
	dir := RunDir(out, plan.Runs[0].Key)
	m := filepath.Join(dir, outdir.ManifestFile)
	data, _ := os.ReadFile(m)
	os.WriteFile(m, []byte(strings.ReplaceAll(string(data), "\n", "\r\n")), 0o644)
	jobs := filepath.Join(dir, "jobs.parquet")
	fi, _ := os.Stat(jobs)
	os.Truncate(jobs, fi.Size()-100)
	_, err := MergeSweep(plan, MergeOptions{Out: out})
	if err == nil || !strings.Contains(err.Error(), m+" line 1") {
		t.Errorf("merge: %v, want the manifest %s named with its line", err, m)
	}
	// --resume cannot replace a directory whose manifest it cannot read:
	// it says so, naming the manifest, rather than trusting or deleting it.
	_, err = RunSweep(context.Background(), policy.NewRegistry(), plan, SweepOptions{Out: out, Parallel: 1, Resume: true})
	if err == nil || !strings.Contains(err.Error(), m) {
		t.Errorf("--resume: %v, want the manifest named", err)
	}
}
