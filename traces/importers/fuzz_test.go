package importers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// fuzzImporter checks that a reader never panics, and that whatever it
// accepts is a valid canonical table (it survives a CSV write and read).
func fuzzImporter(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		data, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	imp, err := Lookup(format)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{}
		if format == "pai" {
			// the same bytes serve as the task table: both are header-less
			opt.Tasks = bytes.NewReader(data)
		}
		jobs, err := ReadAll(imp, "fuzz", bytes.NewReader(data), opt)
		if err != nil {
			var fe *input.Error
			if !errors.As(err, &fe) && len(data) > 0 && !bytes.Contains([]byte(err.Error()), []byte("fuzz")) {
				t.Fatalf("error %v does not name the input", err)
			}
			return
		}
		var buf bytes.Buffer
		w := table.NewCSVWriter(&buf)
		for _, j := range jobs {
			if err := w.Write(j); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := table.ReadCSV("back.csv", &buf)
		if err != nil {
			t.Fatalf("imported jobs do not form a valid table: %v", err)
		}
		if len(back) != len(jobs) {
			t.Fatalf("%d jobs read back, %d written", len(back), len(jobs))
		}
	})
}

func FuzzPhilly(f *testing.F)      { fuzzImporter(f, "philly", "cluster_job_log.json") }
func FuzzPollux(f *testing.F)      { fuzzImporter(f, "pollux", "philly.csv") }
func FuzzHelios(f *testing.F)      { fuzzImporter(f, "helios", "cluster_log.csv") }
func FuzzPAI(f *testing.F)         { fuzzImporter(f, "pai", "pai_job_table.csv", "pai_task_table.csv") }
func FuzzAlibaba2023(f *testing.F) { fuzzImporter(f, "alibaba2023", "openb_pod_list_default.csv") }
func FuzzGavel(f *testing.F)       { fuzzImporter(f, "gavel", "gavel_7.trace", "gavel_10.trace") }
func FuzzArena(f *testing.F)       { fuzzImporter(f, "arena", "arena.csv") }

func FuzzCapacityFiles(f *testing.F) {
	for _, s := range []string{"cluster_machine_list", "pai_machine_spec.csv", "cluster_gpu_number.csv"} {
		data, _ := os.ReadFile(filepath.Join("testdata", s))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ReadPhillyMachines("m", bytes.NewReader(data)); err == nil && c.GPUs() <= 0 {
			t.Fatal("accepted a machine list without GPUs")
		}
		if c, err := ReadPAIMachines("m", bytes.NewReader(data)); err == nil && c.GPUs() <= 0 {
			t.Fatal("accepted a machine spec without GPUs")
		}
		if total, _, err := ReadHeliosCapacity("m", bytes.NewReader(data)); err == nil && total < 0 {
			t.Fatal("negative capacity")
		}
	})
}
