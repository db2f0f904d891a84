package importers

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

// endless repeats b for ever (/dev/zero, a stuck pipe).
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestImportersBounded is the class "reads that trust their input's
// size", for every importer: an endless line, an endless JSON record, an
// overlong field, a gzip bomb and too many rows each stop at their cap
// with a *input.LimitError naming the file (before: a 13 MB gzip bomb took
// > 3 GB in 4 s; one 200 MB job id > 3 GB).
func TestImportersBounded(t *testing.T) {
	input.InputCap.Set(8 << 20)
	input.RowsCap.Set(50)
	input.RecordCap.Set(1 << 20)
	defer func() { input.InputCap.Set(0); input.RowsCap.Set(0); input.RecordCap.Set(0) }()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	for i := 0; i < 100; i++ {
		zw.Write(bytes.Repeat([]byte("2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"), 1<<15)) // 120 MB of valid rows
	}
	zw.Close()
	pollux := "timestamp,duration,num_gpus,gpu_time,cluster\n"
	many := pollux + strings.Repeat("2017-10-09 07:01:55,66.0,1,66.0,11cb48\n", 200)
	for _, c := range []struct {
		name, format string
		r            func() io.Reader
		cap          *input.Cap
	}{
		{"pollux: endless line", "pollux", func() io.Reader { return io.MultiReader(strings.NewReader(pollux), endless('7')) }, input.LineCap},
		{"helios: endless first line", "helios", func() io.Reader { return endless(0) }, input.LineCap},
		{"pai: endless line", "pai", func() io.Reader { return endless('x') }, input.LineCap},
		{"gavel: endless line", "gavel", func() io.Reader { return endless('x') }, input.LineCap},
		{"alibaba2023: endless line", "alibaba2023", func() io.Reader { return endless('x') }, input.LineCap},
		{"arena: endless line", "arena", func() io.Reader { return endless('x') }, input.LineCap},
		{"philly: endless JSON record", "philly", func() io.Reader {
			return io.MultiReader(strings.NewReader(`[{"jobid": "`), endless('a'))
		}, input.RecordCap},
		{"pollux: overlong field", "pollux", func() io.Reader {
			return strings.NewReader(pollux + strings.Repeat("9", 5000) + ",100,1,100,philly\n")
		}, input.FieldCap},
		{"pollux: rows past the rows cap", "pollux", func() io.Reader { return strings.NewReader(many) }, input.RowsCap},
		{"pollux: gzip bomb", "pollux", func() io.Reader {
			r, err := Decompress("bomb.csv.gz", bytes.NewReader(bomb.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			return io.MultiReader(strings.NewReader(pollux), r)
		}, input.InputCap},
	} {
		t.Run(c.name, func(t *testing.T) {
			imp, err := Lookup(c.format)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{}
			if c.format == "pai" {
				opt.Tasks = endless('y')
			}
			if c.cap == input.InputCap {
				// Streamed, as trace import does: rows are not kept, so
				// only the input cap stops a bomb of valid rows.
				err = imp.Read("in.data", c.r(), opt, func(table.Job) error { return nil })
			} else {
				_, err = ReadAll(imp, "in.data", c.r(), opt)
			}
			var le *input.LimitError
			if !errors.As(err, &le) || le.Cap != c.cap {
				t.Fatalf("err %v, want the %s cap", err, c.cap.Name)
			}
			if !strings.Contains(err.Error(), c.cap.Env) || len(err.Error()) > 400 {
				t.Errorf("message %.300q: want the variable %s, short", err, c.cap.Env)
			}
		})
	}
}

// TestPhillyRecordsNeedNoLines: Philly's log on one line (as shipped) is
// read: the record cap, not the line cap, applies to JSON.
func TestPhillyRecordsNeedNoLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cluster_job_log.json"))
	if err != nil {
		t.Fatal(err)
	}
	input.LineCap.Set(64)
	defer input.LineCap.Set(0)
	imp, _ := Lookup("philly")
	oneLine := bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
	if _, err := ReadAll(imp, "log.json", bytes.NewReader(oneLine), Options{}); err != nil {
		t.Fatalf("one-line log: %v", err)
	}
}
