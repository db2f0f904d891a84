package cli

import (
	"fmt"
	"io"

	"github.com/arena-sim/arena/traces"
	"github.com/arena-sim/arena/traces/table"
)

// maxMixRows bounds the per-tenant lines inspect prints per kind (PAI has
// thousands of users); the rest are summed on one line.
const maxMixRows = 20

// printTenantMix prints the trace's per-tenant mix — jobs and requested
// GPU-hours per virtual cluster and per user, with their shares — when
// its jobs name tenants (docs/tenants.md); nothing otherwise.
func printTenantMix(w io.Writer, jobs []table.Job) {
	vcs, users := traces.TenantMix(jobs)
	for _, kind := range []struct {
		name string
		mix  []traces.Mix
	}{{"virtual clusters", vcs}, {"users", users}} {
		if len(kind.mix) == 0 {
			continue
		}
		named := 0
		for _, m := range kind.mix {
			named += m.Jobs
		}
		fmt.Fprintf(w, "  %s: %d (%d of %d jobs name one); jobs, requested GPU-hours and their shares:\n", kind.name, len(kind.mix), named, len(jobs))
		for i, m := range kind.mix {
			if i == maxMixRows && len(kind.mix) > maxMixRows+1 {
				var rest traces.Mix
				for _, r := range kind.mix[i:] {
					rest.Jobs += r.Jobs
					rest.GPUHours += r.GPUHours
					rest.JobShare += r.JobShare
					rest.WorkShare += r.WorkShare
				}
				fmt.Fprintf(w, "    %-16s %8d jobs (%5.1f %%) %12.0f GPU-h (%5.1f %%)\n", fmt.Sprintf("%d more", len(kind.mix)-i), rest.Jobs, 100*rest.JobShare, rest.GPUHours, 100*rest.WorkShare)
				break
			}
			fmt.Fprintf(w, "    %-16s %8d jobs (%5.1f %%) %12.0f GPU-h (%5.1f %%)\n", m.Name, m.Jobs, 100*m.JobShare, m.GPUHours, 100*m.WorkShare)
		}
	}
}
