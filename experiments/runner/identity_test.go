package runner

import (
	"fmt"
	"math"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces"
)

// jobFormat is the format appendJob replaces (the input hash of every
// results file written before it).
const jobFormat = "%d %q %v %s %d %d %s %d %v %q %q\n"

// appendJob writes the hashed text of a job exactly as fmt would with
// jobFormat: on every built-in trace's jobs and on values whose formatting
// differs between verbs (exponents, negative zero, quoting, non-finite).
func TestAppendJobIsTheFmtText(t *testing.T) {
	var jobs []sim.JobSpec
	for _, name := range traces.BuiltinNames() {
		tr, err := traces.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, tr.Jobs...)
	}
	m := jobs[0].Workload.Model
	for _, f := range []float64{0, math.Copysign(0, -1), 0.1, 1e-5, 123456.789, 1e20, 1e21, 1.5e300, 5e-324, -3, math.Inf(1), math.Inf(-1), math.NaN()} {
		jobs = append(jobs, sim.JobSpec{ID: -2, Name: "a \"b\"\t\u00e9\x01", Submit: sim.Time(f), Deadline: sim.Time(-f),
			Workload: estimator.Workload{Model: m, Batch: -1}, Iterations: math.MinInt64, GPU: "", GPUs: math.MaxInt, User: "\xff", VirtualCluster: "`x`"})
	}
	for _, j := range jobs {
		want := fmt.Sprintf(jobFormat, j.ID, j.Name, j.Submit, j.Workload.Model.Name(), j.Workload.Batch,
			j.Iterations, j.GPU, j.GPUs, j.Deadline, j.User, j.VirtualCluster)
		if got := string(appendJob(nil, j)); got != want {
			t.Fatalf("job %d: %q, fmt gives %q", j.ID, got, want)
		}
	}
}
