package fairness

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/arena-sim/arena/sim/resultsdir"
)

// The files a run with tenants adds to its results directory.
const (
	// FileName is the report's figures as JSON (sim.Fairness's keys).
	FileName = "fairness.json"
	// JobsFileName is each rated job's ρ, one CSV row a job (the ρ CDF).
	JobsFileName = "fairness_jobs.csv"
	// ShareFileName is each tenant's GPUs held at every timeline row, one
	// CSV column a tenant (the share-over-time figure).
	ShareFileName = "tenant_gpus.csv"
)

// FileNames are the files Files writes.
var FileNames = []string{FileName, JobsFileName, ShareFileName}

// jobsHeader is fairness_jobs.csv's header.
var jobsHeader = []string{"id", "tenant", "jct_s", "alone_s", "contending", "ideal_s", "rho"}

// Files renders the report and share (nil: no share file) as results
// files. Numbers are Go's shortest round-trip form: the same run writes
// the same bytes.
func (r *Report) Files(share *Series) ([]resultsdir.File, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	out := []resultsdir.File{{Name: FileName, Data: append(data, '\n')}}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(jobsHeader)
	for _, j := range r.Jobs {
		_ = w.Write([]string{strconv.Itoa(j.ID), j.Tenant, g(j.JCT), g(j.Alone), g(j.N), g(j.Ideal), g(j.Rho)})
	}
	w.Flush()
	out = append(out, resultsdir.File{Name: JobsFileName, Data: bytes.Clone(b.Bytes())})
	if share != nil {
		b.Reset()
		w := csv.NewWriter(&b)
		_ = w.Write(append([]string{"time_s"}, share.Tenants...))
		row := make([]string, 1+len(share.Tenants))
		for i, at := range share.Times {
			row[0] = g(at)
			for t := range share.Tenants {
				row[1+t] = g(share.GPUs[t][i])
			}
			_ = w.Write(row)
		}
		w.Flush()
		out = append(out, resultsdir.File{Name: ShareFileName, Data: bytes.Clone(b.Bytes())})
	}
	return out, nil
}

// ReadJobs reads dir's fairness_jobs.csv.
func ReadJobs(dir string) ([]Job, error) {
	file := filepath.Join(dir, JobsFileName)
	rows, err := readCSV(file, jobsHeader)
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(rows))
	for i, row := range rows {
		var j Job
		var errs [6]error
		j.ID, errs[0] = strconv.Atoi(row[0])
		j.Tenant = row[1]
		j.JCT, errs[1] = strconv.ParseFloat(row[2], 64)
		j.Alone, errs[2] = strconv.ParseFloat(row[3], 64)
		j.N, errs[3] = strconv.ParseFloat(row[4], 64)
		j.Ideal, errs[4] = strconv.ParseFloat(row[5], 64)
		j.Rho, errs[5] = strconv.ParseFloat(row[6], 64)
		for k, e := range errs {
			if e != nil {
				col := []int{0, 2, 3, 4, 5, 6}[k]
				return nil, fmt.Errorf("%s:%d: field %s: want a number, got %q", file, i+2, jobsHeader[col], row[col])
			}
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// ReadShare reads dir's tenant_gpus.csv.
func ReadShare(dir string) (*Series, error) {
	file := filepath.Join(dir, ShareFileName)
	rows, err := readCSV(file, nil)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) < 1 || rows[0][0] != "time_s" {
		return nil, fmt.Errorf("%s:1: want a header time_s,<tenant>,…", file)
	}
	s := &Series{Tenants: rows[0][1:], GPUs: make([][]float64, len(rows[0])-1)}
	for i, row := range rows[1:] {
		at, err := strconv.ParseFloat(row[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field time_s: want a number, got %q", file, i+2, row[0])
		}
		s.Times = append(s.Times, at)
		for t := range s.Tenants {
			v, err := strconv.ParseFloat(row[1+t], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: field %s: want a number, got %q", file, i+2, s.Tenants[t], row[1+t])
			}
			s.GPUs[t] = append(s.GPUs[t], v)
		}
	}
	return s, nil
}

// readCSV reads file's rows, checking the header when given (and then
// returning the rows after it).
func readCSV(file string, header []string) ([][]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if header == nil {
		return rows, nil
	}
	if len(rows) == 0 || fmt.Sprint(rows[0]) != fmt.Sprint(header) {
		return nil, fmt.Errorf("%s:1: want the header %v", file, header)
	}
	return rows[1:], nil
}
