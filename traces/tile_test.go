package traces

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestTile checks the scale-up against the original trace it is built
// from (the anchor): every copy has the original's jobs with their gaps,
// requests and deadline budgets, the first copy keeps the original times,
// and the whole is sorted with IDs equal to positions.
func TestTile(t *testing.T) {
	orig, err := Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	const copies = 5
	big, err := Tile(orig, TileOptions{Copies: copies, Overlap: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Jobs) != copies*len(orig.Jobs) {
		t.Fatalf("%d jobs, want %d", len(big.Jobs), copies*len(orig.Jobs))
	}
	if big.Jobs[0].Submit != orig.Jobs[0].Submit {
		t.Errorf("first submission %v, want the original's %v", big.Jobs[0].Submit, orig.Jobs[0].Submit)
	}
	byName := map[string]int{}
	for i, j := range big.Jobs {
		if int(j.ID) != i {
			t.Fatalf("job %d has ID %d", i, j.ID)
		}
		if i > 0 && j.Submit < big.Jobs[i-1].Submit {
			t.Fatalf("job %d submitted before job %d", i, i-1)
		}
		byName[j.Name] = i
	}
	span := float64(orig.Jobs[len(orig.Jobs)-1].Submit - orig.Jobs[0].Submit)
	for k := 0; k < copies; k++ {
		var shift float64
		for i, o := range orig.Jobs {
			name := o.Name + "#" + string(rune('0'+k))
			idx, ok := byName[name]
			if !ok {
				t.Fatalf("copy %d lacks job %s", k, o.Name)
			}
			j := big.Jobs[idx]
			d := float64(j.Submit - o.Submit)
			if i == 0 {
				shift = d
				// copy k lies in slot [k·W, (k+1)·W), W = span/overlap.
				if lo, hi := float64(k)*span/2, float64(k+1)*span/2; d < lo || d >= hi {
					t.Errorf("copy %d shifted by %.0f s, outside [%.0f, %.0f)", k, d, lo, hi)
				}
			} else if d != shift {
				t.Fatalf("copy %d job %s shifted by %v, the copy's first by %v", k, o.Name, d, shift)
			}
			if o.Deadline > 0 && float64(j.Deadline-o.Deadline) != shift {
				t.Errorf("copy %d job %s: deadline moved by %v, want %v", k, o.Name, j.Deadline-o.Deadline, shift)
			}
			if j.Workload != o.Workload || j.Iterations != o.Iterations || j.GPU != o.GPU || j.GPUs != o.GPUs {
				t.Fatalf("copy %d job %s: request changed", k, o.Name)
			}
		}
	}
	again, _ := Tile(orig, TileOptions{Copies: copies, Overlap: 2, Seed: 7})
	if !reflect.DeepEqual(big, again) {
		t.Error("same seed, different traces")
	}
	other, _ := Tile(orig, TileOptions{Copies: copies, Overlap: 2, Seed: 8})
	if reflect.DeepEqual(big.Jobs, other.Jobs) {
		t.Error("seeds 7 and 8 give the same trace")
	}
	// Regular: copy k is shifted by exactly k·span/overlap, the seed
	// notwithstanding (hand-worked from the original's span).
	reg, err := Tile(orig, TileOptions{Copies: copies, Overlap: 2, Seed: 7, Regular: true})
	if err != nil {
		t.Fatal(err)
	}
	regByName := map[string]sim.JobSpec{}
	for _, j := range reg.Jobs {
		regByName[j.Name] = j
	}
	for k := 0; k < copies; k++ {
		for _, o := range orig.Jobs {
			j := regByName[o.Name+"#"+string(rune('0'+k))]
			if want := o.Submit + sim.Time(float64(k)*span/2); j.Submit != want {
				t.Fatalf("regular copy %d job %s: submitted at %v, want %v", k, o.Name, j.Submit, want)
			}
		}
	}
	for _, bad := range []TileOptions{{Copies: 0}, {Copies: 2, Overlap: -1}, {Copies: 2, Overlap: 3}} {
		if _, err := Tile(orig, bad); err == nil {
			t.Errorf("Tile(%+v) accepted", bad)
		}
	}
}

// TestWriteArenaCSVRoundTrip: what WriteArenaCSV writes, ReadArenaCSV reads
// back to the same jobs and iteration scale (testbed: 1, not the default 5).
func TestWriteArenaCSVRoundTrip(t *testing.T) {
	for _, name := range []string{"philly", "testbed"} {
		roundTrip(t, name)
	}
}

func roundTrip(t *testing.T, name string) {
	orig, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteArenaCSV(&buf, orig); err != nil {
		t.Fatal(err)
	}
	back, err := ReadArenaCSV(name, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.IterationScale != orig.IterationScale {
		t.Errorf("%s: scale %d read back as %d", name, orig.IterationScale, back.IterationScale)
	}
	if !reflect.DeepEqual(orig.Jobs, back.Jobs) {
		for i := range orig.Jobs {
			if !reflect.DeepEqual(orig.Jobs[i], back.Jobs[i]) {
				t.Fatalf("job %d: wrote %+v, read %+v", i, orig.Jobs[i], back.Jobs[i])
			}
		}
	}
}
