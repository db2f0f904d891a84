package traces

import (
	"math"
	"testing"

	"github.com/arena-sim/arena/traces/table"
)

// TestTenantMix, worked by hand: VC a has a 2-GPU job of 1 h and a 1-GPU
// job of 2 h (4 GPU-h), VC b one 4-GPU job of 1.5 h (6 GPU-h), and a job
// without a VC (1 GPU-h) counts in the shares' totals of jobs but not in
// any tenant's; b requests 6/11 of the GPU-hours, a 4/11.
func TestTenantMix(t *testing.T) {
	h := 3600.0
	jobs := []table.Job{
		{VC: "a", User: "u1", GPUs: 2, Duration: h},
		{VC: "a", User: "u2", GPUs: 1, Duration: 2 * h},
		{VC: "b", User: "u1", GPUs: 4, Duration: 1.5 * h},
		{GPUs: 1, Duration: h},
	}
	vcs, users := TenantMix(jobs)
	if len(vcs) != 2 || vcs[0].Name != "b" || vcs[1].Name != "a" {
		t.Fatalf("VCs %+v, want b then a (most GPU-hours first)", vcs)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	if vcs[0].Jobs != 1 || !near(vcs[0].GPUHours, 6) || !near(vcs[0].WorkShare, 6.0/11) || !near(vcs[0].JobShare, 0.25) {
		t.Errorf("b = %+v, want 1 job (25 %%), 6 GPU-h (6/11)", vcs[0])
	}
	if vcs[1].Jobs != 2 || !near(vcs[1].GPUHours, 4) || !near(vcs[1].WorkShare, 4.0/11) {
		t.Errorf("a = %+v, want 2 jobs, 4 GPU-h (4/11)", vcs[1])
	}
	if len(users) != 2 || users[0].Name != "u1" || !near(users[0].GPUHours, 8) {
		t.Errorf("users %+v, want u1 first with 8 GPU-h", users)
	}
	if v, u := TenantMix([]table.Job{{GPUs: 1, Duration: h}}); len(v)+len(u) != 0 {
		t.Errorf("a trace without tenants has a mix: %v %v", v, u)
	}
}
