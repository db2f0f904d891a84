package traces

import (
	"errors"
	"github.com/arena-sim/arena/sim/input"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/traces/table"
)

// TestOneValidator is the class "canonical tables skip checks the artifact
// CSV makes": each bad value is refused by the artifact CSV reader and by
// the canonical table (CSV and Parquet) alike, naming the line and the
// column, in a short message (before: the table took times of 1e19 s, ids
// with escape sequences, bidi or zero-width characters, and a 10 MB model
// name became a 42 MB error).
func TestOneValidator(t *testing.T) {
	type bad struct {
		name     string
		artifact [2]string // artifact CSV column, value
		table    [2]string // canonical column, value
	}
	long := strings.Repeat("m", 10<<20)
	cases := []bad{
		{"submit time 1e16", [2]string{"submission_time", "1e16"}, [2]string{"submit_s", "1e16"}},
		{"submit time 1e300", [2]string{"submission_time", "1e300"}, [2]string{"submit_s", "1e300"}},
		{"deadline 1e19", [2]string{"deadline", "1e19"}, [2]string{"deadline_s", "1e19"}},
		{"id with an escape sequence", [2]string{"job_id", "j\x1b[2J"}, [2]string{"id", "j\x1b[2J"}},
		{"id with a bidi override", [2]string{"job_id", "j\u202etxt.exe"}, [2]string{"id", "j\u202etxt.exe"}},
		{"id with a zero-width space", [2]string{"job_id", "j\u200b1"}, [2]string{"id", "j\u200b1"}},
		{"id not UTF-8", [2]string{"job_id", "j\xff"}, [2]string{"id", "j\xff"}},
		{"a 10 MB model name", [2]string{"model_name", long}, [2]string{"model", long}},
		{"a 5 KB model name", [2]string{"model_name", long[:5000]}, [2]string{"model", long[:5000]}},
	}
	artifactRow := map[string]string{"job_id": "j1", "submission_time": "0", "num_iteration": "100", "model_name": "bert__1.3B",
		"deadline": "0", "batch_size": "128", "num_gpu": "2", "gpu_type": "a100"}
	good := table.Job{ID: "j1", Duration: 100, Iterations: 100, IterationScale: 1, GPUs: 2, GPUType: "a100", Model: "bert__1.3B", Batch: 128}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var vals []string
			for _, col := range arenaColumns {
				v := artifactRow[col]
				if col == c.artifact[0] {
					v = c.artifact[1]
				}
				vals = append(vals, v)
			}
			_, aerr := ReadArenaCSV("a.csv", strings.NewReader(strings.Join(arenaColumns, ",")+"\n"+strings.Join(vals, ",")+"\n"))
			rec := good.Record()
			for i, col := range table.Columns {
				if col == c.table[0] {
					rec[i] = c.table[1]
				}
			}
			_, terr := table.ReadCSV("t.csv", strings.NewReader(strings.Join(table.Columns, ",")+"\n"+strings.Join(rec, ",")+"\n"))
			errs := map[string]error{"artifact CSV": aerr, "table CSV": terr}
			// The Parquet form holds what CSV cannot spell (any string,
			// any float): it must be refused the same way.
			if pj, ok := parseGood(good, c.table); ok {
				p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".parquet")
				if err := table.WriteFile(p, []table.Job{pj}); err != nil {
					t.Fatal(err)
				}
				_, errs["table Parquet"] = table.ReadFile(p)
				os.Remove(p)
			}
			for form, err := range errs {
				if err == nil {
					t.Errorf("%s accepted it", form)
					continue
				}
				if len(err.Error()) > 500 || strings.ContainsAny(err.Error(), "\x1b\u202e\u200b") {
					t.Errorf("%s: a %d-byte message or raw control characters: %.200q", form, len(err.Error()), err)
				}
				if !strings.Contains(err.Error(), c.artifact[0]) && !strings.Contains(err.Error(), c.table[0]) && !strings.Contains(err.Error(), "line cap") {
					t.Errorf("%s: %v does not name the column", form, err)
				}
			}
		})
	}
	var pe *input.Error
	if _, err := ReadArenaCSV("a.csv", strings.NewReader("")); !errors.As(err, &pe) {
		t.Errorf("empty: %v", err)
	}
}

// parseGood sets column col of j to a value, for the string and time
// columns the cases use.
func parseGood(j table.Job, cv [2]string) (table.Job, bool) {
	switch cv[0] {
	case "id":
		j.ID = cv[1]
	case "model":
		j.Model = cv[1]
	case "submit_s", "deadline_s":
		var f float64
		switch cv[1] {
		case "1e16":
			f = 1e16
		case "1e300":
			f = 1e300
		case "1e19":
			f = 1e19
		}
		if cv[0] == "submit_s" {
			j.Submit = f
		} else {
			j.Deadline = f
		}
	default:
		return j, false
	}
	return j, true
}
