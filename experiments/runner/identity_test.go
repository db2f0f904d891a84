package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
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

// The workload hash covers the jobs and the iteration scale and nothing
// else: a changed job or scale changes it; the policy, cluster and engine
// parameters, which change the input hash, do not reach it (it takes none
// of them). That arena and fcfs of one seed record the same hash is
// checked end to end in experiments/sweep (TestPartialMergeNamesPopulationAndN).
func TestWorkloadHash(t *testing.T) {
	tr, err := traces.Load("testbed")
	if err != nil {
		t.Fatal(err)
	}
	jobs := tr.Jobs
	a := WorkloadHash(5, jobs)
	if b := WorkloadHash(5, append([]sim.JobSpec(nil), jobs...)); a != b {
		t.Error("the same jobs hash differently")
	}
	if b := WorkloadHash(1, jobs); a == b {
		t.Error("the iteration scale does not change the workload hash")
	}
	changed := append([]sim.JobSpec(nil), jobs...)
	changed[3].Iterations++
	if b := WorkloadHash(5, changed); a == b {
		t.Error("a changed job does not change the workload hash")
	}
	r := Run{Trace: "testbed", Cluster: "testbed-64", Timing: sim.Exact, Rounds: 10}
	cfg := sim.DefaultConfig(nil, nil)
	if InputHash(r, "fcfs", sim.ClusterSpec{}, cfg, jobs) == InputHash(r, "arena", sim.ClusterSpec{}, cfg, jobs) {
		t.Error("the input hash does not cover the policy")
	}
}

// TestHashes: the two hashes taken together in one pass are each the
// SHA-256 of its text, anchored on sha256.Sum256 of the whole text built
// with fmt (jobFormat), not on the chunked writer: the built-in Philly
// trace's jobs are three 64 KiB chunks of lines.
func TestHashes(t *testing.T) {
	tr, err := traces.Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	fmt.Fprintf(&text, "arena workload v1\niteration-scale %d\n", tr.IterationScale)
	for _, j := range tr.Jobs {
		fmt.Fprintf(&text, jobFormat, j.ID, j.Name, j.Submit, j.Workload.Model.Name(), j.Workload.Batch,
			j.Iterations, j.GPU, j.GPUs, j.Deadline, j.User, j.VirtualCluster)
	}
	if text.Len() < 2*64<<10 {
		t.Fatalf("%d bytes of lines: the test exercises too little", text.Len())
	}
	sum := sha256.Sum256([]byte(text.String()))
	r := Run{Trace: "philly", Cluster: "paper-1280", Timing: sim.Exact, Rounds: 10}
	cfg := sim.DefaultConfig(nil, nil)
	cfg.IterationScale = tr.IterationScale
	input, workload := Hashes(r, "fcfs", sim.ClusterSpec{}, cfg, tr.Jobs)
	if want := hex.EncodeToString(sum[:]); workload != want {
		t.Errorf("workload hash %s, want %s", workload, want)
	}
	if want := WorkloadHash(tr.IterationScale, tr.Jobs); workload != want {
		t.Errorf("workload hash %s, WorkloadHash gives %s", workload, want)
	}
	if want := InputHash(r, "fcfs", sim.ClusterSpec{}, cfg, tr.Jobs); input != want {
		t.Errorf("input hash %s, InputHash gives %s", input, want)
	}
}

// FuzzAppendQuote: appendQuote is strconv.AppendQuote byte for byte (the
// reference), on any text, after any prefix.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"", "31566~0", "7f04ca", "a \"b\"", `back\slash`, "tab\t", "\x7f", "\u00e9", "\xff", "~ !"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendQuote([]byte("p"), s)), string(strconv.AppendQuote([]byte("p"), s)); got != want {
			t.Fatalf("appendQuote(%q) = %s, strconv.AppendQuote %s", s, got, want)
		}
	})
}
