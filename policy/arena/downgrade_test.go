package arena

import (
	"math"
	"slices"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestShapedTrialRelaxed: a type-change trial whose search ends relaxed is
// told from the search's shape only where the job may run at the relaxed
// locality. Hand-worked (an anchor): one A100 node (job 0 on all 4 GPUs)
// and three A40 nodes of 4, where job 1 holds 2 GPUs on each. Job 0 tried
// on 4 A40s: no idle node, no node with 4 idle GPUs; the RHD pass pairs
// the first two partial nodes and aborts (job 1 spans a third node), so
// the search relaxes to 2 GPUs on each of 2 nodes: gain thr(A40 2×2) −
// thr(A100 1×4) = 36 − 40, the whole pass limit (256) used. Where 2×2 is
// infeasible for job 0's model the search fails, budget untouched.
func TestShapedTrialRelaxed(t *testing.T) {
	c := testCluster(t, sim.Pool{GPU: "a100", Nodes: 1, GPUsPerNode: 4}, sim.Pool{GPU: "a40", Nodes: 3, GPUsPerNode: 4})
	jobs := []testJob{{"gpt-1.3b", "a100", 4, seq(0, 3)}, {"moe-1.3b", "a40", 6, []int{4, 5, 8, 9, 12, 13}}}
	a100, a40 := 0, 1
	for _, tc := range []struct {
		name     string
		feasible bool
	}{{"relaxed placement", true}, {"relaxed locality infeasible", false}} {
		t.Run(tc.name, func(t *testing.T) {
			est := uniformRates("gpt-1.3b", "moe-1.3b")
			est.infeasible["gpt-1.3b a40:2x2"] = !tc.feasible
			r := newTestRound(t, c, est, jobs)
			tb := r.real.clone()
			before := slices.Clone(tb.occ)
			job := r.registered(0)
			job.t = a40
			if _, known := r.directFit(tb, job); known {
				t.Fatal("directFit tells this trial: the test does not reach the shape")
			}
			shaped := r.typeChangeTrial(job, tb, 4096, 256, a100, loc{1, 4}, []int{0})
			literal := r.literalTrial(job, tb, 4096, 256, []int{0})
			if !slices.Equal(tb.occ, before) {
				t.Fatal("the trials left the table changed")
			}
			for _, m := range []struct {
				how string
				m   migration
			}{{"shaped", shaped}, {"literal", literal}} {
				switch {
				case tc.feasible && (!m.m.ok || !m.m.relaxed || math.Abs(m.m.gain+4) > 1e-9 || m.m.budget != 4096-256):
					t.Errorf("%s: ok=%v relaxed=%v gain %v budget %d; want relaxed, −4, 3840", m.how, m.m.ok, m.m.relaxed, m.m.gain, m.m.budget)
				case !tc.feasible && (m.m.ok || m.m.budget != 4096):
					t.Errorf("%s: ok=%v budget %d; want a failure, 4096", m.how, m.m.ok, m.m.budget)
				}
			}
		})
	}
}
