package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim/input/pq"
	"github.com/arena-sim/arena/sim/resultsdir"
)

// ExportCSV writes a CSV copy of every Parquet table of the results in
// args (run directories, 'arena simulate --out' directories or sweeps,
// as FindResults expands them; a sweep's summary.parquet too), next to
// each table with the extension .csv. The header is the Parquet column
// names; a null cell (a confidence interval of one seed) is empty. It
// returns the files written.
func ExportCSV(args []string) ([]string, error) {
	dirs, err := FindResults(args)
	if err != nil {
		return nil, err
	}
	var tables []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, SummaryParquet)); err == nil {
			tables = append(tables, filepath.Join(a, SummaryParquet))
		}
	}
	for _, d := range dirs {
		for _, name := range []string{resultsdir.JobsFile, resultsdir.TimelineFile, resultsdir.AllocationsFile} {
			p := filepath.Join(d, name)
			if _, err := os.Stat(p); err == nil {
				tables = append(tables, p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	var written []string
	for _, t := range tables {
		out := strings.TrimSuffix(t, ".parquet") + ".csv"
		data, err := ParquetCSV(t)
		if err != nil {
			return written, err
		}
		if err := resultsdir.WriteFileAtomic(out, data); err != nil {
			return written, err
		}
		written = append(written, out)
	}
	return written, nil
}

// ParquetCSV renders a flat Parquet file as CSV: a header of column
// names, then one line per row; floats in Go's shortest round-trip form.
func ParquetCSV(file string) ([]byte, error) {
	pf, err := pq.Open(file)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	var head []string
	for _, c := range pf.Schema().Columns() {
		head = append(head, strings.Join(c, "."))
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(head)
	cells := make([]string, len(head))
	err = pf.EachRow(func(row parquet.Row) error {
		clear(cells)
		for _, v := range row {
			if c := v.Column(); c >= 0 && c < len(cells) {
				cells[c] = cell(v)
			}
		}
		return w.Write(cells)
	})
	if err != nil {
		return nil, err
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func cell(v parquet.Value) string {
	if v.IsNull() {
		return ""
	}
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'f', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'f', -1, 64)
	default:
		return string(v.ByteArray())
	}
}
