package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arena-sim/arena/sim/resultsdir"
)

// CompareSweeps checks that two output directories of the same plan hold
// the same results: every run's files byte for byte (summary.json without
// its "wallclock" section) and summary.parquet row for row (without the
// wall_* columns), if either has one. It returns the differences found,
// one line each; none means the sweeps agree. Parquet files record the
// writer's build, so compare directories written by the same binary.
func CompareSweeps(plan *Plan, a, b string) ([]string, error) {
	var diffs []string
	for _, r := range plan.Runs {
		da, db := RunDir(a, r.Key), RunDir(b, r.Key)
		fa, err := resultFiles(da)
		if err != nil {
			return nil, err
		}
		fb, err := resultFiles(db)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(fa, fb) {
			diffs = append(diffs, fmt.Sprintf("%s: files [%s] in %s, [%s] in %s", r.Key, strings.Join(fa, " "), a, strings.Join(fb, " "), b))
			continue
		}
		for _, f := range fa {
			x, err := os.ReadFile(filepath.Join(da, f))
			if err != nil {
				return nil, err
			}
			y, err := os.ReadFile(filepath.Join(db, f))
			if err != nil {
				return nil, err
			}
			if f == resultsdir.SummaryFile {
				if x, err = dropWallclock(filepath.Join(da, f), x); err != nil {
					return nil, err
				}
				if y, err = dropWallclock(filepath.Join(db, f), y); err != nil {
					return nil, err
				}
			}
			if !bytes.Equal(x, y) {
				diffs = append(diffs, fmt.Sprintf("%s/%s differs", r.Key, f))
			}
		}
	}
	pa, pb := filepath.Join(a, SummaryParquet), filepath.Join(b, SummaryParquet)
	_, errA := os.Stat(pa)
	_, errB := os.Stat(pb)
	switch {
	case errA != nil && errB != nil:
	case errA != nil || errB != nil:
		diffs = append(diffs, fmt.Sprintf("%s: present in one directory only", SummaryParquet))
	default:
		ra, err := ReadSummaryParquet(pa)
		if err != nil {
			return nil, err
		}
		rb, err := ReadSummaryParquet(pb)
		if err != nil {
			return nil, err
		}
		ra, rb = ra.WithoutWallclock(), rb.WithoutWallclock()
		switch {
		case !slices.Equal(ra.Columns, rb.Columns):
			diffs = append(diffs, fmt.Sprintf("%s: columns differ (%d in %s, %d in %s)", SummaryParquet, len(ra.Columns), a, len(rb.Columns), b))
		case len(ra.Rows) != len(rb.Rows):
			diffs = append(diffs, fmt.Sprintf("%s: %d rows in %s, %d in %s", SummaryParquet, len(ra.Rows), a, len(rb.Rows), b))
		default:
			for i := range ra.Rows {
				if k := slices.IndexFunc(ra.Columns, func(c string) bool { return ra.Cell(i, c) != rb.Cell(i, c) }); k >= 0 {
					diffs = append(diffs, fmt.Sprintf("%s: row %d (%s) differs in %s", SummaryParquet, i, ra.Cell(i, "run"), ra.Columns[k]))
				}
			}
		}
	}
	return diffs, nil
}

// resultFiles lists a run directory's result files (not temporaries).
func resultFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// dropWallclock re-encodes a summary.json without its wallclock section.
func dropWallclock(file string, data []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	delete(m, "wallclock")
	return json.Marshal(m)
}
