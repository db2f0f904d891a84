package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
)

// A run's GPU map reaches its summary in the canonical form (sorted, lower
// case), whatever order and case it was given in, and summary.json holds
// it as gpu_map; a run without a map has no gpu_map key.
func TestSummaryRecordsTheGPUMap(t *testing.T) {
	reg := policy.NewRegistry()
	base := Run{Trace: "testbed", Cluster: "h100-l20", Policy: "fcfs", Timing: sim.Exact, Rounds: 3, Estimator: "analytic"}
	for given, want := range map[string]string{
		"":                     "",
		"a40=h100,a10=l20":     "a10=l20,a40=h100",
		" A10=L20 , a40=h100 ": "a10=l20,a40=h100",
	} {
		r := base
		r.GPUMap = given
		o, err := Execute(context.Background(), reg, r)
		if err != nil {
			t.Fatalf("map %q: %v", given, err)
		}
		if o.Summary.GPUMap != want {
			t.Errorf("map %q: summary has %q, want %q", given, o.Summary.GPUMap, want)
		}
		data, err := json.Marshal(o.Summary)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(data), `"gpu_map":`); has != (want != "") || want != "" && !strings.Contains(string(data), `"gpu_map":"`+want+`"`) {
			t.Errorf("map %q: summary.json %s", given, data)
		}
	}
}
