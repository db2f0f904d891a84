package table

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim/input"
)

var sample = []Job{
	{ID: "application_1_1", Submit: 1507046340, Duration: 4200, IterationScale: 1, GPUs: 8, User: "a1b2c3", VC: "ee9e8c", Status: "Pass", Zone: "America/Los_Angeles", Source: "philly"},
	{ID: "application_1_2", Submit: 1507046341, Duration: 60, IterationScale: 1, GPUs: 1, Status: "Failed", Source: "philly", Outcome: OutcomeFailed},
	{ID: "pod, \"quoted\"", Submit: 0.5, Duration: -1, Censored: true, Iterations: 120, IterationScale: 5, GPUs: 0.46, GPUType: "a40",
		Model: "gpt-2.6b", Batch: 256, Deadline: 99.25, Attempt: 2, Source: "arena"},
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"jobs.csv", "jobs.parquet"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, sample); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, sample) {
			t.Errorf("%s: read back %+v, wrote %+v", name, got, sample)
		}
	}
}

func TestCSVHeaderIsDocumented(t *testing.T) {
	var buf bytes.Buffer
	w := NewCSVWriter(&buf)
	w.Close()
	if got := strings.TrimSpace(buf.String()); got != "id,submit_s,duration_s,censored,iterations,iteration_scale,gpus,gpu_type,model,batch,deadline_s,user,vc,status,attempt,zone,source,outcome,checkpoint_interval_s,checkpoint_cost_s,checkpoint_restore_s" {
		t.Errorf("header %q differs from the one doc.go and README document", got)
	}
}

func TestReadErrors(t *testing.T) {
	head := strings.Join(Columns, ",") + "\n"
	row := func(mod func([]string)) string {
		r := sample[2].Record()
		r[0] = "pod-1"
		mod(r)
		return strings.Join(r, ",") + "\n"
	}
	cases := []struct {
		body  string
		line  int
		field string
	}{
		{"", 1, ""},
		{"id,submit_s\n", 1, "duration_s"},
		{head + row(func(r []string) { r[1] = "-4" }), 2, "submit_s"},
		{head + row(func(r []string) {}) + row(func(r []string) { r[2] = "-3" }), 3, "duration_s"},
		{head + row(func(r []string) { r[5] = "0" }), 2, "iteration_scale"},
		{head + row(func(r []string) { r[3] = "maybe" }), 2, "censored"},
		{head + row(func(r []string) { r[6] = "NaN" }), 2, "gpus"},
		{head + row(func(r []string) { r[0] = "" }), 2, "id"},
		{head + row(func(r []string) { r[17] = "crashed" }), 2, "outcome"},
		{head + row(func(r []string) { r[18] = "-600" }), 2, "checkpoint_interval_s"},
		{head + row(func(r []string) { r[19] = "soon" }), 2, "checkpoint_cost_s"},
		{head + row(func(r []string) { r[20] = "Inf" }), 2, "checkpoint_restore_s"},
	}
	for _, c := range cases {
		_, err := ReadCSV("t.csv", strings.NewReader(c.body))
		var fe *input.Error
		if !errors.As(err, &fe) || fe.Line != c.line || fe.Field != c.field || fe.File != "t.csv" {
			t.Errorf("%q: error %v, want t.csv line %d field %q", c.body, err, c.line, c.field)
		}
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x.csv"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(sample[0])
	f.Abort()
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("abort left %v", m)
	}
}

func FuzzReadCSV(f *testing.F) {
	var buf bytes.Buffer
	w := NewCSVWriter(&buf)
	for _, j := range sample {
		w.Write(j)
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, err := ReadCSV("f", bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		w := NewCSVWriter(&out)
		for _, j := range jobs {
			w.Write(j)
		}
		w.Close()
		back, err := ReadCSV("back", &out)
		if err != nil || len(back) != len(jobs) {
			t.Fatalf("accepted rows do not survive a write and read: %v", err)
		}
	})
}

// oldJob is the table's row before the outcome column.
type oldJob struct {
	ID             string  `parquet:"id"`
	Submit         float64 `parquet:"submit_s"`
	Duration       float64 `parquet:"duration_s"`
	Censored       bool    `parquet:"censored"`
	Iterations     int64   `parquet:"iterations"`
	IterationScale int64   `parquet:"iteration_scale"`
	GPUs           float64 `parquet:"gpus"`
	GPUType        string  `parquet:"gpu_type"`
	Model          string  `parquet:"model"`
	Batch          int64   `parquet:"batch"`
	Deadline       float64 `parquet:"deadline_s"`
	User           string  `parquet:"user"`
	VC             string  `parquet:"vc"`
	Status         string  `parquet:"status"`
	Attempt        int32   `parquet:"attempt"`
	Zone           string  `parquet:"zone"`
	Source         string  `parquet:"source"`
}

// Tables written before the outcome column read as before, with no
// outcome: the CSV header without it and a Parquet file without the
// column. (Fails on a reader that requires the column.)
func TestTablesWithoutOutcomeRead(t *testing.T) {
	old := "id,submit_s,duration_s,censored,iterations,iteration_scale,gpus,gpu_type,model,batch,deadline_s,user,vc,status,attempt,zone,source\n" +
		"j1,10,20,false,0,1,2,,,0,0,u,v,Failed,0,,philly\n"
	jobs, err := ReadCSV("old.csv", strings.NewReader(old))
	if err != nil || len(jobs) != 1 || jobs[0].Status != "Failed" || jobs[0].Outcome != "" {
		t.Fatalf("old CSV: %+v %v", jobs, err)
	}
	path := filepath.Join(t.TempDir(), "old.parquet")
	if err := parquet.WriteFile(path, []oldJob{{ID: "j1", Submit: 10, Duration: 20, IterationScale: 1, GPUs: 2, Status: "Killed", Source: "philly"}}); err != nil {
		t.Fatal(err)
	}
	jobs, err = ReadFile(path)
	if err != nil || len(jobs) != 1 || jobs[0].ID != "j1" || jobs[0].Status != "Killed" || jobs[0].Outcome != "" || jobs[0].CheckpointInterval != 0 {
		t.Fatalf("old Parquet: %+v %v", jobs, err)
	}
}

// TestCheckpointColumns: a job's own checkpoint model round-trips through
// CSV (empty = the run's, 0) and Parquet.
func TestCheckpointColumns(t *testing.T) {
	j := sample[2]
	j.CheckpointInterval, j.CheckpointRestore = 1800, 120
	rec := j.Record()
	if got := strings.Join(rec[18:], ","); got != "1800,,120" {
		t.Errorf("CSV checkpoint fields %q, want 1800,,120", got)
	}
	var body bytes.Buffer
	cw := NewCSVWriter(&body)
	if err := cw.Write(j); err != nil {
		t.Fatal(err)
	}
	cw.Close()
	jobs, err := ReadCSV("ck.csv", &body)
	if err != nil || len(jobs) != 1 || jobs[0].CheckpointInterval != 1800 || jobs[0].CheckpointCost != 0 || jobs[0].CheckpointRestore != 120 {
		t.Fatalf("CSV: %+v %v", jobs, err)
	}
	path := filepath.Join(t.TempDir(), "ck.parquet")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(j); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	jobs, err = ReadFile(path)
	if err != nil || len(jobs) != 1 || jobs[0].CheckpointInterval != 1800 || jobs[0].CheckpointRestore != 120 {
		t.Fatalf("Parquet: %+v %v", jobs, err)
	}
}

// plainName is a shortcut of input.Name: every string it passes, input.Name
// passes too (checked for every byte value, alone and inside a name, and
// at the field cap's edge).
func TestPlainNameAgreesWithInputName(t *testing.T) {
	max := input.FieldCap.Value()
	try := func(s string) {
		if plainName(s, max) && input.Name(s) != nil {
			t.Errorf("plainName passes %q, input.Name refuses it: %v", s, input.Name(s))
		}
	}
	for b := 0; b < 256; b++ {
		try(string([]byte{byte(b)}))
		try("job-" + string([]byte{byte(b)}) + "-1")
	}
	try(strings.Repeat("a", int(max)))
	try(strings.Repeat("a", int(max)+1))
	if plainName("job\x7f", max) || plainName("j\u200bob", max) || !plainName("job-1 (a/b)", max) {
		t.Error("plainName: DEL or a zero-width space passed, or a plain name refused")
	}
}
