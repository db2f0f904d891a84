package traces

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/sim/input"

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
		{func(j *table.Job) { j.GPUs = 0 }, "gpus"},
		{func(j *table.Job) { j.GPUs = 0.5 }, "gpus"},
		{func(j *table.Job) { j.GPUs = 1<<20 + 1 }, "gpus"},
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

// Any whole GPU count runs (Philly's 12-, 24- and 128-GPU jobs, a
// 16,384-GPU pre-training job), and so does a size only the analytic
// model knows (gpt-175b).
func TestFromTableKeepsAnySize(t *testing.T) {
	var jobs []table.Job
	for i, n := range []float64{1, 3, 12, 24, 128, 16384} {
		jobs = append(jobs, table.Job{ID: fmt.Sprint(n), Submit: float64(i), Iterations: 5, IterationScale: 5, GPUs: n, GPUType: "h100", Model: "gpt-175b", Batch: 1536})
	}
	tr, err := FromTable("t", "t.csv", jobs)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range tr.Jobs {
		if j.GPUs != int(jobs[i].GPUs) || j.Workload.Model.Name() != "gpt-175b" {
			t.Errorf("job %d: %d GPUs of %s, want %v of gpt-175b", i, j.GPUs, j.Workload.Model.Name(), jobs[i].GPUs)
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

// Anchor (hand-worked): FromTable walks rows in submission order, so with
// two bad rows the one submitted first is named, wherever it sits in the
// file, and equal submissions keep file order. Rows stream into specs in
// file order (CSV) and are sorted at the end; both forms must name the
// same row, and a good unsorted table comes back sorted, stable, numbered.
func TestStreamedTableOrder(t *testing.T) {
	good := func(id string, submit float64) table.Job {
		return table.Job{ID: id, Submit: submit, Duration: -1, Iterations: 10, IterationScale: 1, GPUs: 1, GPUType: "a100", Model: "gpt-2.6b", Batch: 128, User: "u"}
	}
	badA, badB := good("badA", 300), good("badB", 100) // badB: file row 4, submitted first
	badA.Batch, badB.Iterations = 0, 0
	dir := t.TempDir()
	for _, name := range []string{"e.csv", "e.parquet"} {
		p := filepath.Join(dir, name)
		if err := table.WriteFile(p, []table.Job{good("a", 200), badA, badB, good("b", 50)}); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		var ie *input.Error
		if !errors.As(err, &ie) || ie.Line != 4 || ie.Field != "iterations" {
			t.Errorf("%s: %v, want line 4 (badB, submitted at 100) field iterations", name, err)
		}
	}
	p := filepath.Join(dir, "s.csv")
	if err := table.WriteFile(p, []table.Job{good("x", 20), good("y", 10), good("z", 20), good("w", 10)}); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for i, j := range tr.Jobs {
		if int(j.ID) != i || j.User != "u" {
			t.Errorf("job %d: %+v", i, j)
		}
		got += j.Name
	}
	if got != "ywxz" {
		t.Errorf("order %s, want ywxz (stable by submission)", got)
	}
}

// TestSizedTableIsTheStreamedOne: Load sizes a CSV table's jobs from the
// file's size once it has read sizeSample rows (tableBuilder.reserve). The
// specs must be those of the same rows read from Parquet (FromTable,
// sized by its row count, no estimate), in order: when the later rows are
// as long as the sampled ones (the table is sized within 5 % and used),
// much longer (room to spare) or much shorter (the estimate falls short:
// the rest goes to chunks, joined at the end), and with an unsorted tail.
// Self-checking against the Parquet path, no golden; it fails if reserve
// loses, repeats or reorders the rows it moves.
func TestSizedTableIsTheStreamedOne(t *testing.T) {
	n := sizeSample + 20_000
	row := func(i int, user string) table.Job {
		return table.Job{ID: fmt.Sprintf("j%d", i), Submit: float64(i) + 0.25, Duration: -1, Iterations: 10 + int64(i%7), IterationScale: 1,
			GPUs: float64(1 + i%4), GPUType: "a100", Model: "gpt-2.6b", Batch: 128, User: user}
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		user     func(i int) string
		unsorted bool
		sized    bool // the table is expected sized within 5 %
	}{
		{"same length", func(i int) string { return "u" + fmt.Sprint(i%10) }, false, true},
		{"longer later", func(i int) string {
			if i < sizeSample {
				return "u"
			}
			return fmt.Sprintf("user-with-a-much-longer-name-%060d", i)
		}, false, false},
		{"shorter later", func(i int) string {
			if i < sizeSample {
				return fmt.Sprintf("user-with-a-much-longer-name-%060d", i)
			}
			return ""
		}, true, false},
	} {
		jobs := make([]table.Job, n)
		for i := range jobs {
			jobs[i] = row(i, tc.user(i))
		}
		if tc.unsorted {
			jobs[n-1].Submit, jobs[n-2].Submit = 1.5, 0.5
		}
		csvPath, pqPath := filepath.Join(dir, "t.csv"), filepath.Join(dir, "t.parquet")
		for _, p := range []string{csvPath, pqPath} {
			if err := table.WriteFile(p, jobs); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Load(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(pqPath)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Jobs) != len(want.Jobs) {
			t.Fatalf("%s: %d jobs from CSV, %d from Parquet", tc.name, len(got.Jobs), len(want.Jobs))
		}
		for i := range got.Jobs {
			if got.Jobs[i] != want.Jobs[i] {
				t.Fatalf("%s: job %d from CSV %+v, from Parquet %+v", tc.name, i, got.Jobs[i], want.Jobs[i])
			}
		}
		c := cap(got.Jobs)
		t.Logf("%s: %d jobs, table capacity %d", tc.name, len(got.Jobs), c)
		if tc.sized && (c < n || c > n*21/20) {
			t.Errorf("%s: capacity %d for %d rows: the table was not sized from the file (or sized far off)", tc.name, c, n)
		}
	}
}
