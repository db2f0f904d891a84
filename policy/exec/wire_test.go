package exec

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// The hand-written decide encoding says what encoding/json says of the
// same struct (a guard against the two drifting apart): every field set,
// names with characters that need escaping, floats of every format.
func TestDecideEncodingMatchesEncodingJSON(t *testing.T) {
	st := stateV2{ID: 3, Status: "running", GPUs: []int{4, 5}, Grid: &Grid{GPU: "a40", Nodes: 1, PerNode: 2},
		Remaining: 17, Total: 40, FirstStart: 1e21, Reconfigs: 2, QueueTime: 1.5e-7}
	job := jobV2{stateV2: stateV2{ID: 4, Status: "pending", GPUs: []int{}, FirstStart: -1, QueueTime: 300},
		Name: `weird "name" <&> é`, Alias: "job_0005", Model: "gpt-2.6b", Batch: 256, Iterations: 1000, TraceIterations: 4000,
		GPU: "a100", NumGPUs: 8, Submit: 12.25, Deadline: 0, User: "u\n", VC: "vc", Best: Grid{GPU: "a100", Nodes: 1, PerNode: 8}, Estimates: 7}
	m := &decideV2{Type: "decide", Seq: 9, Round: 12, Now: 3600, RoundLength: 300, Full: true,
		Tables: []tableOut{{ID: 7, Estimates: []estimateRow{{"a100", 1, 8, 55.2, 4.637}}}},
		Jobs:   []jobV2{job}, Arrivals: []jobV2{job}, States: []stateV2{st}, Ended: []stateV2{st}, Gone: []sim.JobID{8},
		Occupant: []sim.JobID{-1, 3}, Slots: [][3]int{{0, 2, -1}}, Running: []sim.JobID{3}, Pending: []sim.JobID{4},
		RunningRemoved: []sim.JobID{1}, RunningAdded: []sim.JobID{3}, PendingRemoved: []sim.JobID{2}, PendingAdded: []sim.JobID{4},
		Check: &checkOut{Occupant: 1, Queues: math.MaxUint32, Jobs: 3},
		Nodes: []nodeAvailOut{{"up", 0}, {"draining", 3000.5}}, Interrupted: []sim.JobID{6},
		Contention: []contentionOut{{3, 1.25}, {9, 1e-7 + 1}}}
	for _, msg := range []*decideV2{m, {Type: "decide", Arrivals: []jobV2{}}} {
		want, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		got := msg.appendJSON(nil)
		var w, g any
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%v: %s", err, got)
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("hand-written:\n%s\nencoding/json:\n%s", got, want)
		}
	}
	for _, f := range []float64{0, -1, 300, 1.5, 1e-7, 1e21, 123456789.125, -2.5e-9, 1e20, math.SmallestNonzeroFloat64} {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendFloat(%v) = %s, encoding/json %s", f, got, want)
		}
	}
}
