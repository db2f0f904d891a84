package importers

import (
	"testing"

	"github.com/arena-sim/arena/traces"
)

// TestOpenArtifactBuiltins: the artifact's built-in traces are synthesis
// sources, read with the arena importer, job for job the same as
// traces.Load gives them to the engine (an independent reader: the artifact
// CSV parser of package traces), with each trace's own iteration scale.
func TestOpenArtifactBuiltins(t *testing.T) {
	for _, name := range traces.BuiltinNames() {
		ref, err := traces.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := Open(name, "", Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(jobs) != len(ref.Jobs) {
			t.Fatalf("%s: %d jobs, want %d", name, len(jobs), len(ref.Jobs))
		}
		for i, j := range jobs {
			r := ref.Jobs[i]
			if j.ID != r.Name || j.Submit != float64(r.Submit) || j.Iterations != r.Iterations ||
				j.GPUs != float64(r.GPUs) || j.GPUType != r.GPU || j.Model != r.Workload.Model.Name() ||
				j.Batch != int64(r.Workload.Batch) || j.IterationScale != ref.IterationScale {
				t.Fatalf("%s job %d: %+v, want %+v (scale %d)", name, i, j, r, ref.IterationScale)
			}
		}
	}
	if _, err := Open("philly", "pollux", Options{}); err == nil {
		t.Error("philly read as pollux: want an error naming the arena format")
	}
	names := SourceNames()
	for _, want := range []string{"philly", "philly-pollux", "testbed"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("SourceNames() = %v, missing %s", names, want)
		}
	}
}
