package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// partsRecorder records the parts of the job table the engine hands over
// (Recorder.Jobs): their sizes, where each part's first record lives, and
// a copy of every record and fault record, in the order told.
type partsRecorder struct {
	NopRecorder
	sizes  []int
	first  []*JobRecord
	jobs   []JobRecord
	faults []JobFaultRecord
	nilF   int // parts told with nil fault records
}

func (p *partsRecorder) Jobs(jobs []JobRecord, faults []JobFaultRecord) {
	p.sizes = append(p.sizes, len(jobs))
	if len(jobs) > 0 {
		p.first = append(p.first, &jobs[0])
	}
	p.jobs = append(p.jobs, jobs...)
	if faults == nil {
		p.nilF++
	}
	p.faults = append(p.faults, faults...)
}

// The engine hands the job table over in parts of at most jobChunk
// records, built in one buffer it reuses (so a recorder that streams the
// table, resultsdir.JobStream, never has it whole in memory), and the
// parts, one after the other, are the table the default recorder keeps:
// the same records (and, with the fault model, fault records) in trace
// order. 2,600 jobs make two full parts and a partial one. Fails if the
// engine builds the table whole (one part, or a part's buffer not reused),
// drops or repeats a part, or lets a stale field of the previous part's
// record through (the default recorder's table is compared whole). A
// self-referential check (the default recorder's table is the reference;
// TestCustomRecorderSeesWhatDefaultKeeps anchors it for a 400-job run).
func TestJobTableInParts(t *testing.T) {
	for _, faulty := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "faults"}[faulty]
		t.Run(name, func(t *testing.T) {
			const n = 2600
			m, err := estimator.ParseModel("gpt-760m")
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewCluster(ClusterSpec{Name: "parts", Pools: []Pool{{GPU: "a40", Nodes: 16, GPUsPerNode: 2}}})
			if err != nil {
				t.Fatal(err)
			}
			specs := make([]JobSpec, n)
			for i := range specs {
				// Some jobs never arrive within the rounds (the table holds
				// only those that did), some finish, some run or wait.
				specs[i] = JobSpec{ID: JobID(i), Submit: Time(i * 6), Workload: estimator.Workload{Model: m, Batch: 128},
					Iterations: int64(50 + i%11*400), GPU: "a40", GPUs: 1 + i%2}
			}
			run := func(rec Recorder) *Result {
				cfg := DefaultConfig(c, optimal(t))
				cfg.Timing, cfg.Rounds, cfg.Recorder = Exact, 45, rec
				if faulty {
					cfg.Events = []ClusterEvent{{Time: 3000, Node: 3, Kind: NodeDown, Cause: "gpu"}, {Time: 6000, Node: 3, Kind: NodeUp}}
				}
				res, err := Run(context.Background(), cfg, greedy{}, specs)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			alone := run(nil)
			parts := &partsRecorder{}
			run(parts)
			arrived := len(alone.Jobs)
			if arrived <= 2*jobChunk || arrived == n {
				t.Fatalf("%d of %d jobs arrived: want more than two parts' worth and not all", arrived, n)
			}
			if len(alone.JCTs) == 0 || len(alone.JCTs) == arrived {
				t.Fatalf("%d of %d jobs finished: want some, not all", len(alone.JCTs), arrived)
			}
			want := (arrived + jobChunk - 1) / jobChunk
			if len(parts.sizes) != want {
				t.Fatalf("%d parts %v, want %d of at most %d", len(parts.sizes), parts.sizes, want, jobChunk)
			}
			for i, s := range parts.sizes {
				if s > jobChunk || (i < len(parts.sizes)-1 && s != jobChunk) {
					t.Errorf("part %d has %d records (parts %v)", i, s, parts.sizes)
				}
				if parts.first[i] != parts.first[0] {
					t.Errorf("part %d built in another buffer than part 0: the table is not built in one reused part", i)
				}
			}
			// Each record on its own, against what its job did (the
			// default recorder's table is built from the same parts, so
			// these catch what one part leaves in the buffer for the
			// next): a job never started holds no final shape and no
			// GPU-seconds, and the records' GPU-seconds add up to the
			// run's busy GPU-seconds, counted apart.
			never, busy, held := 0, 0.0, 0.0
			for _, v := range alone.BusyGPUSeconds {
				busy += v
			}
			for i := range parts.jobs {
				r := &parts.jobs[i]
				held += r.GPUSeconds
				if r.FirstStart < 0 {
					never++
					if r.FinalGPU != "" || r.FinalN != 0 || r.GPUSeconds != 0 || r.GPUSecondsBy != "" {
						t.Fatalf("job %d never started, its record says %s×%d, %g GPU-seconds (%q)", r.ID, r.FinalGPU, r.FinalN, r.GPUSeconds, r.GPUSecondsBy)
					}
				}
				if r.Stuck && r.State == "finished" {
					t.Fatalf("job %d finished and stuck", r.ID)
				}
			}
			if never == 0 || !near(held, busy) {
				t.Errorf("%d jobs never started (want some); %g GPU-seconds in the records, %g busy", never, held, busy)
			}
			if !reflect.DeepEqual(parts.jobs, alone.Jobs) {
				t.Error("the parts, one after the other, are not the default recorder's table")
			}
			if faulty {
				if parts.nilF != 0 || !reflect.DeepEqual(parts.faults, alone.Faults.Jobs) || len(parts.faults) != arrived {
					t.Errorf("fault records: %d told (%d parts without), %d kept", len(parts.faults), parts.nilF, len(alone.Faults.Jobs))
				}
			} else if parts.nilF != len(parts.sizes) {
				t.Errorf("a run without the fault model told fault records in %d of %d parts", len(parts.sizes)-parts.nilF, len(parts.sizes))
			}
		})
	}
}
