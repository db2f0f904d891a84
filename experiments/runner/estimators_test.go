package runner

import (
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
)

func TestSourceForEveryEstimatorName(t *testing.T) {
	m, err := estimator.ParseModel("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	w := estimator.Workload{Model: m, Batch: 128}
	onDB := estimator.Config{GPU: "a100", Nodes: 1, PerNode: 4}  // exact database entry
	offDB := estimator.Config{GPU: "h100", Nodes: 1, PerNode: 8} // no database data
	for _, name := range EstimatorNames() {
		src, err := SourceFor(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e := src.View(estimator.ViewOptimal).Estimate(w, onDB)
		if !e.Feasible() {
			t.Errorf("%s: %s on %s infeasible: %+v", name, w, onDB, e)
		}
		h := src.View(estimator.ViewOptimal).Estimate(w, offDB)
		if (name == "profiledb") == h.Feasible() {
			t.Errorf("%s: %s on %s: %+v", name, w, offDB, h)
		}
	}
	if _, err := SourceFor("nope"); err == nil {
		t.Error("unknown estimator accepted")
	}
}

func TestProfilingDelay(t *testing.T) {
	delay, err := ProfilingDelay()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := estimator.ParseModel("wresnet-1b")
	d := delay(&sim.JobSpec{Workload: estimator.Workload{Model: m, Batch: 256}, GPU: "a40", GPUs: 4})
	if !(d > 60 && d < 20000) {
		t.Errorf("profiling delay %v s for wresnet-1b on a40", d)
	}
}
