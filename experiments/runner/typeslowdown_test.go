package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// A factor per GPU type scales only that type's executed iteration
// times: h100 and l20 both ×1.25 is --slowdown 1.25 exactly (the same
// product of factors, so the same run job for job), while h100 alone
// ×1.25 is neither the plain run nor the global one; the run's input
// hash records it, a run without it keeps its hash.
func TestTypeSlowdownsScaleTheirTypeOnly(t *testing.T) {
	reg := policy.NewRegistry()
	base := Run{Trace: "testbed", Cluster: "h100-l20", Policy: "fcfs", Timing: sim.Exact, Rounds: 40, Drain: true,
		Estimator: "analytic", GPUMap: "a40=h100,a10=l20"}
	run := func(r Run) *Outcome {
		t.Helper()
		o, err := Execute(context.Background(), reg, r)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	plain := run(base)
	g := base
	g.Slowdown = 1.25
	global := run(g)
	both := base
	both.TypeSlowdowns = "h100=1.25,l20=1.25"
	bothO := run(both)
	h := base
	h.TypeSlowdowns = "h100=1.25"
	hO := run(h)
	jcts := func(o *Outcome) []float64 {
		var out []float64
		for _, j := range o.Result.Jobs {
			out = append(out, float64(j.JCT))
		}
		return out
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !same(jcts(global), jcts(bothO)) {
		t.Errorf("h100 and l20 ×1.25 differ from --slowdown 1.25: mean JCT %v vs %v", bothO.Summary.SubmittedMeanJCT, global.Summary.SubmittedMeanJCT)
	}
	if same(jcts(hO), jcts(plain)) || same(jcts(hO), jcts(global)) {
		t.Errorf("h100 ×1.25 alone is the plain or the global run: mean JCT %v (plain %v, global %v)", hO.Summary.SubmittedMeanJCT, plain.Summary.SubmittedMeanJCT, global.Summary.SubmittedMeanJCT)
	}
	if !(hO.Summary.SubmittedMeanJCT > plain.Summary.SubmittedMeanJCT) {
		t.Errorf("slower h100s, yet mean JCT %v ≤ the plain run's %v", hO.Summary.SubmittedMeanJCT, plain.Summary.SubmittedMeanJCT)
	}
	if hO.Summary.InputHash == plain.Summary.InputHash || bothO.Summary.InputHash == global.Summary.InputHash {
		t.Error("the input hash does not record the per-type slowdowns")
	}
}

// Bad per-type slowdowns are refused naming the field and what is wrong:
// a factor out of bounds, an unknown type, a type twice, a type the
// cluster lacks (naming it and the cluster's types).
func TestTypeSlowdownsRefused(t *testing.T) {
	f, _ := FieldByKey("type_slowdowns")
	for bad, want := range map[string]string{
		"h100=0":          "from 0.01 to 100",
		"h100=101":        "from 0.01 to 100",
		"h100":            "want TYPE=FACTOR",
		"k80x=1.2":        "unknown GPU type",
		"h100=1.2,H100=1": "h100 given twice",
		"h100=fast":       "from 0.01 to 100",
	} {
		var r Run
		if err := f.Set(&r, bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", bad, err, want)
		}
	}
	var r Run
	if err := f.Set(&r, " L20=0.8, h100=1.2 "); err != nil || r.TypeSlowdowns != "h100=1.2,l20=0.8" {
		t.Errorf("canonical form %q (%v), want h100=1.2,l20=0.8", r.TypeSlowdowns, err)
	}
	r = Run{Trace: "testbed", Cluster: "h100-l20", Policy: "fcfs", Timing: sim.Exact, Rounds: 3, Estimator: "analytic", GPUMap: "a40=h100,a10=l20", TypeSlowdowns: "a100=1.2,h100=1.1"}
	err := NewResolver(policy.NewRegistry()).Check(r)
	var ie *input.Error
	if !errors.As(err, &ie) || ie.Field != "type_slowdowns" || !strings.Contains(err.Error(), "a100 is not a GPU type of cluster h100-l20 (its types: h100, l20)") {
		t.Errorf("type not in the cluster: %v", err)
	}
	r.TypeSlowdowns = "h100=1e-3"
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "type_slowdowns") {
		t.Errorf("Validate: %v, want type_slowdowns refused", err)
	}
}
