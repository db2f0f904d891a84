package traces

import (
	"sort"

	"github.com/arena-sim/arena/traces/table"
)

// Mix is one tenant's share of a trace: its jobs and the GPU-hours they
// request (run time × GPUs, over the jobs with a run time).
type Mix struct {
	Name     string
	Jobs     int
	GPUHours float64
	// JobShare and WorkShare are its shares of the trace's jobs and of
	// the requested GPU-hours (0 when the trace requests none).
	JobShare, WorkShare float64
}

// TenantMix is a table's per-tenant mix: by virtual cluster and by user,
// each most requested GPU-hours first (ties by name), without the jobs
// that name none (a trace without tenants gives two empty lists).
func TenantMix(jobs []table.Job) (vcs, users []Mix) {
	return mixBy(jobs, func(j *table.Job) string { return j.VC }), mixBy(jobs, func(j *table.Job) string { return j.User })
}

func mixBy(jobs []table.Job, key func(*table.Job) string) []Mix {
	idx := map[string]int{}
	var out []Mix
	var total float64
	for i := range jobs {
		j := &jobs[i]
		if j.HasDuration() {
			total += j.Duration * j.GPUs / 3600
		}
		k := key(j)
		if k == "" {
			continue
		}
		n, ok := idx[k]
		if !ok {
			n = len(out)
			idx[k] = n
			out = append(out, Mix{Name: k})
		}
		out[n].Jobs++
		if j.HasDuration() {
			out[n].GPUHours += j.Duration * j.GPUs / 3600
		}
	}
	for i := range out {
		out[i].JobShare = float64(out[i].Jobs) / float64(len(jobs))
		if total > 0 {
			out[i].WorkShare = out[i].GPUHours / total
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].GPUHours != out[b].GPUHours {
			return out[a].GPUHours > out[b].GPUHours
		}
		return out[a].Name < out[b].Name
	})
	return out
}
