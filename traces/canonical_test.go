package traces

import (
	"errors"
	"github.com/arena-sim/arena/sim/input"
	"os"
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/traces/table"
)

// An artifact trace written as a canonical table (through the arena
// importer's mapping, by hand here) loads back into the same job specs,
// sorted by submission, with the table's iteration scale.
func TestLoadCanonicalTable(t *testing.T) {
	jobs := []table.Job{
		{ID: "late", Submit: 200, Duration: -1, Iterations: 900, IterationScale: 1, GPUs: 2, GPUType: "a40", Model: "moe-10b", Batch: 256, VC: "v1"},
		{ID: "early", Submit: 100, Duration: -1, Iterations: 50, IterationScale: 1, GPUs: 1, GPUType: "a100", Model: "gpt-2.6b", Batch: 128, Deadline: 400},
	}
	dir := t.TempDir()
	for _, name := range []string{"w.csv", "w.parquet"} {
		p := filepath.Join(dir, name)
		if err := table.WriteFile(p, jobs); err != nil {
			t.Fatal(err)
		}
		tr, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Name != "w" || tr.IterationScale != 1 || len(tr.Jobs) != 2 {
			t.Fatalf("%s: %+v", name, tr)
		}
		e, l := tr.Jobs[0], tr.Jobs[1]
		if e.Name != "early" || e.ID != 0 || e.Workload.Model.Name() != "gpt-2.6b" || e.Workload.Batch != 128 || e.GPUs != 1 || e.GPU != "a100" || e.Deadline != 400 ||
			l.Name != "late" || l.ID != 1 || l.Iterations != 900 || l.VirtualCluster != "v1" {
			t.Errorf("%s: jobs %+v", name, tr.Jobs)
		}
	}
}

func TestFromTableNeedsRunnableRows(t *testing.T) {
	ok := table.Job{ID: "a", Iterations: 5, IterationScale: 5, GPUs: 1, GPUType: "a10", Model: "gpt-760m", Batch: 128}
	cases := []struct {
		mod    func(*table.Job)
		column string
	}{
		{func(j *table.Job) { j.Model = "" }, "model"},
		{func(j *table.Job) { j.GPUs = 3 }, "gpus"},
		{func(j *table.Job) { j.GPUs = 0.5 }, "gpus"},
		{func(j *table.Job) { j.Iterations = 0 }, "iterations"},
		{func(j *table.Job) { j.GPUType = "k80" }, "gpu_type"},
		{func(j *table.Job) { j.IterationScale = 1 }, "iteration_scale"},
	}
	for _, c := range cases {
		bad := ok
		c.mod(&bad)
		_, err := FromTable("t", "t.csv", []table.Job{ok, bad})
		var pe *input.Error
		if !errors.As(err, &pe) || pe.Line != 3 || pe.Field != c.column || !errors.Is(err, ErrNotRunnable) {
			t.Errorf("%s: %v, want t.csv line 3 column %s", c.column, err, c.column)
		}
	}
}

// A CSV that is not a table still loads as the artifact's format.
func TestLoadArtifactCSVUnchanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.csv")
	os.WriteFile(p, []byte("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\na,1,50,bert__1.3B,0,128,2,a100\n"), 0o644)
	tr, err := Load(p)
	if err != nil || len(tr.Jobs) != 1 {
		t.Fatalf("%v %v", tr, err)
	}
}
