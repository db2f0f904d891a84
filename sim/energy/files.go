package energy

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// The files a run with energy accounting adds to its results directory.
const (
	// JobsFileName: each job's energy, carbon and cost, one CSV row a job.
	JobsFileName = "energy_jobs.csv"
	// PowerFileName: the distribution of per-GPU power over GPU-time, one
	// CSV row per power level.
	PowerFileName = "energy_power.csv"
)

// FileNames are the files Files renders.
var FileNames = []string{JobsFileName, PowerFileName}

// Files renders the report's per-job table and power distribution as
// CSV, by file name (FileNames order). Numbers are Go's shortest
// round-trip form: the same run writes the same bytes.
func (r *Report) Files() [][]byte {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var jobs bytes.Buffer
	w := csv.NewWriter(&jobs)
	_ = w.Write([]string{"id", "tenant", "gpu_hours", "kwh", "kg_co2", "cost_usd"})
	for _, j := range r.Jobs {
		_ = w.Write([]string{strconv.Itoa(int(j.ID)), j.Tenant, g(j.GPUH), g(j.KWh), g(j.KgCO2), g(j.CostUSD)})
	}
	w.Flush()
	var power bytes.Buffer
	w = csv.NewWriter(&power)
	_ = w.Write([]string{"watts", "gpu_seconds"})
	for _, l := range r.Power {
		_ = w.Write([]string{g(l.Watts), g(l.GPUSeconds)})
	}
	w.Flush()
	return [][]byte{jobs.Bytes(), power.Bytes()}
}
