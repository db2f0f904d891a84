package sim

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Hand-worked holdings of one job under a scripted policy on testCluster
// (a100 slots 0–7, a40 slots 8–11), rounds of 300 s from t = 1000 to the
// horizon at 4000: a100 {0,1} for round 0, a40 {8,9} for round 1,
// suspended in round 2, then a100 {0,1,4,5} (two nodes: two runs of
// consecutive slots) to the horizon. Both timing modes decide at round
// starts, so both give the same rows.
func TestAllocationsRecordEveryHolding(t *testing.T) {
	want := []AllocRecord{
		{Job: 0, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 1000, End: 1300},
		{Job: 0, GPU: "a40", FirstSlot: 8, Slots: 2, Start: 1300, End: 1600},
		{Job: 0, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 1900, End: 4000},
		{Job: 0, GPU: "a100", FirstSlot: 4, Slots: 2, Start: 1900, End: 4000},
	}
	for _, timing := range []Timing{Exact, Artifact} {
		cfg := baseConfig(t, timing, 10)
		p := &scripted{byRound: map[int][]Action{
			0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
			1: {{Kind: Reallocate, Job: 0, GPUs: []int{8, 9}}},
			2: {{Kind: Suspend, Job: 0}},
			3: {{Kind: Start, Job: 0, GPUs: []int{5, 4, 1, 0}}},
			4: {{Kind: Reallocate, Job: 0, GPUs: []int{0, 1, 4, 5}}}, // same GPUs: no new holding
		}}
		res, err := Run(context.Background(), cfg, p, oneJob(t, 1e9))
		if err != nil {
			t.Fatal(err)
		}
		// Ready (when the job began computing) is checked apart: within
		// the holding, the holding's start in artifact timing.
		for i := range res.Allocations {
			a := &res.Allocations[i]
			if a.Ready < a.Start || a.Ready > a.End || (timing == Artifact && a.Ready != a.Start) {
				t.Errorf("%s: holding %d: ready %g outside [%g, %g]", timing, i, a.Ready, a.Start, a.End)
			}
			a.Ready = 0
		}
		if !reflect.DeepEqual(res.Allocations, want) {
			t.Errorf("%s: allocations\n got %+v\nwant %+v", timing, res.Allocations, want)
		}
	}
}

// TestGPUSecondsAcrossTypes is an anchor worked by hand on the holdings of
// TestAllocationsRecordEveryHolding: a100 {0,1} for 300 s (600
// GPU-seconds), a40 {8,9} for 300 s (600), suspended, then a100 on four
// GPUs from 1900 to the horizon at 4000 (8400): a100 9000, a40 600. It
// checks the job's counter kept in the job (addGPUSeconds): stored to the
// table when the type changes, the old type's reloaded when the job comes
// back to it, stored at the end for a job still running.
func TestGPUSecondsAcrossTypes(t *testing.T) {
	for _, timing := range []Timing{Exact, Artifact} {
		cfg := baseConfig(t, timing, 10)
		p := &scripted{byRound: map[int][]Action{
			0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
			1: {{Kind: Reallocate, Job: 0, GPUs: []int{8, 9}}},
			2: {{Kind: Suspend, Job: 0}},
			3: {{Kind: Start, Job: 0, GPUs: []int{5, 4, 1, 0}}},
		}}
		res, err := Run(context.Background(), cfg, p, oneJob(t, 1e9))
		if err != nil {
			t.Fatal(err)
		}
		j := res.Jobs[0]
		if j.GPUSeconds != 9600 || j.GPUSecondsBy != "a100=9000;a40=600" {
			t.Errorf("%s: GPU-seconds %g (%s), want 9600 (a100=9000;a40=600)", timing, j.GPUSeconds, j.GPUSecondsBy)
		}
		if res.BusyGPUSeconds["a100"] != 9000 || res.BusyGPUSeconds["a40"] != 600 {
			t.Errorf("%s: busy GPU-seconds %v", timing, res.BusyGPUSeconds)
		}
	}
}

// TestHoldingsNameTheirJob is worked by hand: of twoJobs, only j1 (ID 1,
// submitted at 1450, so it arrives for round 2 at 1600) runs: a100 {0,1}
// from 1600, a100 {4,5} from 1900 (a reallocation closes the first
// holding), suspended at 2200. Both holdings must name job 1, not job 0:
// it fails if the engine closed a holding under another job's id (the
// holding's job id is kept in the Job itself, beside its other fields).
func TestHoldingsNameTheirJob(t *testing.T) {
	cfg := baseConfig(t, Exact, 10)
	p := &scripted{byRound: map[int][]Action{
		2: {{Kind: Start, Job: 1, GPUs: []int{0, 1}}},
		3: {{Kind: Reallocate, Job: 1, GPUs: []int{4, 5}}},
		4: {{Kind: Suspend, Job: 1}},
	}}
	res, err := Run(context.Background(), cfg, p, twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []AllocRecord{
		{Job: 1, GPU: "a100", FirstSlot: 0, Slots: 2, Start: 1600, End: 1900},
		{Job: 1, GPU: "a100", FirstSlot: 4, Slots: 2, Start: 1900, End: 2200},
	}
	for i := range res.Allocations {
		res.Allocations[i].Ready = 0
	}
	if !reflect.DeepEqual(res.Allocations, want) {
		t.Errorf("allocations\n got %+v\nwant %+v", res.Allocations, want)
	}
}

// TestJobStateSize guards the per-job memory (each byte is a megabyte at a
// million jobs; the sizes are worked by hand from the field lists on a
// 64-bit machine) and the Job's layout: a Job is 320 bytes, five whole
// 64-byte lines (so that in the engine's array of Jobs every record starts
// on a line), Status, its last change, its queued and netLocal flags and
// its type index sharing one word after Spec, and the fields a
// reconfiguration's passes use (up to rpos) in the first three lines; a
// JobSpec 184.
func TestJobStateSize(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("sizes worked for 64-bit words")
	}
	var j Job
	if got := unsafe.Sizeof(j); got != 320 {
		t.Errorf("Job is %d bytes, want 320", got)
	}
	if off := unsafe.Offsetof(j.typ); off != 12 || unsafe.Offsetof(j.queued) != 10 || unsafe.Offsetof(j.GPUs) != 16 {
		t.Errorf("Status, change, queued, netLocal and typ do not share the word after Spec: typ at %d, GPUs at %d", off, unsafe.Offsetof(j.GPUs))
	}
	for name, off := range map[string]uintptr{"Config": unsafe.Offsetof(j.Config), "iterTime": unsafe.Offsetof(j.iterTime),
		"lastUpdate": unsafe.Offsetof(j.lastUpdate), "Remaining": unsafe.Offsetof(j.Remaining), "completion": unsafe.Offsetof(j.completion),
		"net": unsafe.Offsetof(j.net), "id": unsafe.Offsetof(j.id), "SubmitTime": unsafe.Offsetof(j.SubmitTime), "rpos": unsafe.Offsetof(j.rpos)} {
		if off >= 3*64 {
			t.Errorf("%s at byte %d: outside the record's first three lines", name, off)
		}
	}
	if got := unsafe.Sizeof(JobSpec{}); got != 184 {
		t.Errorf("JobSpec is %d bytes, want 184", got)
	}
}

// The GPU-second counters of the types a job left are kept only for jobs
// that left a type with GPU-seconds on it: with the holdings of
// TestGPUSecondsAcrossTypes for job 0 (a100, a40, suspended, a100) and
// job 1 on a100 throughout (two reallocations within the type), one row
// of counters (job 0's) is kept, not one per job and type, and the
// records' figures are the hand-worked ones: job 0 a100 9000 and a40 600
// (as TestGPUSecondsAcrossTypes), job 1 2 GPUs × 3000 s = 6000 on a100.
// Fails if the table is kept per job (a row for job 1) or a counter is
// lost or misplaced on a move.
func TestGPUSecondsRowsOnlyForTypeChanges(t *testing.T) {
	specs := append(oneJob(t, 1e9), JobSpec{ID: 1, Name: "j1", Submit: 1000, Workload: gpt13b(t), Iterations: 1e9, GPU: "a100", GPUs: 2})
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Start, Job: 1, GPUs: []int{2, 3}}},
		1: {{Kind: Reallocate, Job: 0, GPUs: []int{8, 9}}, {Kind: Reallocate, Job: 1, GPUs: []int{6, 7}}},
		2: {{Kind: Suspend, Job: 0}},
		3: {{Kind: Start, Job: 0, GPUs: []int{5, 4, 1, 0}}, {Kind: Reallocate, Job: 1, GPUs: []int{2, 3}}},
	}}
	e, err := newEngine(baseConfig(t, Exact, 10), p, specs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if T := len(e.cfg.Cluster.Types); len(e.leftRows) != T || e.leftRow[0] != 1 || e.leftRow[1] != 0 {
		t.Errorf("rows of left types: %d counters (want one row of %d), job rows %v", len(e.leftRows), T, e.leftRow)
	}
	got := []string{res.Jobs[0].GPUSecondsBy, res.Jobs[1].GPUSecondsBy}
	if want := []string{"a100=9000;a40=600", "a100=6000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GPU-seconds by type %q, want %q", got, want)
	}
}

// addGPUSeconds writes the breakdown as the join of "type=" + trimFloat
// of each positive counter, by type name, ";" between (the form it was
// built in before it wrote into a scratch buffer), for counters of every
// kind (zero, whole, fractional, tiny, huge) and its scratch reused from
// job to job. A self-referential check against that form.
func TestGPUSecondsByIsTheJoinedForm(t *testing.T) {
	r := &Result{Types: []string{"v100", "a40", "a100", "h100"}, BusyGPUSeconds: map[string]float64{}}
	vals := []float64{0, 1, 600, 0.1, 1234.5678, 1e-7, 3e15, 2.0 / 3}
	var sc gpuSecScratch
	for n := 0; n < 4096; n++ {
		counts := make([]float64, len(r.Types))
		for i := range counts {
			counts[i] = vals[(n>>(3*i))%len(vals)]
		}
		var rec JobRecord
		r.addGPUSeconds(&rec, counts, &sc)
		idx := []int{}
		for i, v := range counts {
			if v > 0 {
				idx = append(idx, i)
			}
		}
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(r.Types[a], r.Types[b]) })
		var parts []string
		for _, i := range idx {
			parts = append(parts, r.Types[i]+"="+trimFloat(counts[i]))
		}
		if want := strings.Join(parts, ";"); rec.GPUSecondsBy != want {
			t.Fatalf("counters %v: %q, want %q", counts, rec.GPUSecondsBy, want)
		}
	}
}
