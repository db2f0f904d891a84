package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// counter is a Recorder of the caller's: it counts what it is told.
type counter struct {
	NopRecorder
	begins, roundStarts, roundEnds, holds, nodeEvents, jobs, faultJobs int
	ends                                                               []JobID
	slotSeconds                                                        float64
	jobIDs                                                             []int32
}

func (c *counter) Begin(*RunInfo)          { c.begins++ }
func (c *counter) RoundStart(*DigestRow)   { c.roundStarts++ }
func (c *counter) RoundEnd(*RoundRecord)   { c.roundEnds++ }
func (c *counter) JobEnd(id JobID, _ Time) { c.ends = append(c.ends, id) }
func (c *counter) NodeEvent(*AvailRecord)  { c.nodeEvents++ }
func (c *counter) Hold(h *Holding) {
	c.holds++
	c.slotSeconds += float64(len(h.GPUs)) * float64(h.Until-h.Since)
}
func (c *counter) Jobs(jobs []JobRecord, faults []JobFaultRecord) {
	c.jobs += len(jobs)
	for _, r := range jobs {
		c.jobIDs = append(c.jobIDs, r.ID)
	}
	c.faultJobs += len(faults)
}

// recorderRun is a run of the greedy policy on 400 short jobs over 16 a40
// nodes, with node failures (and checkpoints) when faulty: every kind of
// report happens in it.
func recorderRun(t *testing.T, timing Timing, faulty bool, rec Recorder) *Result {
	t.Helper()
	return recorderRunWith(t, timing, faulty, func(cfg *Config) { cfg.Recorder = rec })
}

// recorderSetting is recorderRun's cluster (16 nodes of 2 A40s) and its
// 400 jobs of gpt-760m asking for 1 or 2 GPUs, with the default
// configuration for them.
func recorderSetting(t *testing.T) (Config, []JobSpec) {
	t.Helper()
	m, err := estimator.ParseModel("gpt-760m")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(ClusterSpec{Name: "rec", Pools: []Pool{{GPU: "a40", Nodes: 16, GPUsPerNode: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	specs := make([]JobSpec, 400)
	for i := range specs {
		specs[i] = JobSpec{ID: JobID(i), Submit: Time(120 * i), Workload: estimator.Workload{Model: m, Batch: 128},
			Iterations: int64(500 + i%7*300), GPU: "a40", GPUs: 1 + i%2}
	}
	cfg := DefaultConfig(c, optimal(t))
	return cfg, specs
}

// recorderRunWith is recorderRun with set applied to its configuration.
func recorderRunWith(t *testing.T, timing Timing, faulty bool, set func(*Config)) *Result {
	t.Helper()
	cfg, specs := recorderSetting(t)
	cfg.Timing, cfg.Rounds, cfg.Check, cfg.IterationScale = timing, 150, true, 5
	cfg.Overhead = Overhead{PerGPU: 10, Cap: 40}
	if faulty {
		for n := 0; n < 16; n += 3 {
			at := Time(3000 + 1000*n)
			cfg.Events = append(cfg.Events, ClusterEvent{Time: at, Node: n, Kind: NodeDown, Cause: "gpu"},
				ClusterEvent{Time: at + 1800, Node: n, Kind: NodeUp})
		}
		cfg.Checkpoint = Checkpoint{Interval: 600, Cost: 30, Restore: 60}
	}
	set(&cfg)
	res, err := Run(context.Background(), cfg, greedy{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCustomRecorderSeesWhatDefaultKeeps: a recorder of the caller's, teed
// with the default one, is told of exactly what the default one keeps (the
// same rounds, job ends, job records, cluster events, slot-seconds of
// holdings), and the default one teed keeps what it keeps alone. Fails if
// the engine skips a report or makes one the default recorder drops.
func TestCustomRecorderSeesWhatDefaultKeeps(t *testing.T) {
	cases := []struct {
		name   string
		timing Timing
		faulty bool
	}{{"exact", Exact, false}, {"artifact", Artifact, false}, {"faults", Exact, true}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			alone := recorderRun(t, tc.timing, tc.faulty, nil)
			rr, cnt := NewResultRecorder(), &counter{}
			res := recorderRun(t, tc.timing, tc.faulty, Tee(rr, cnt))
			if len(res.Jobs) != 0 || len(res.Timeline) != 0 {
				t.Fatalf("a run with a caller's recorder has records in its Result: %d jobs, %d rounds", len(res.Jobs), len(res.Timeline))
			}
			rr.Fill(res)
			if !reflect.DeepEqual(res.Jobs, alone.Jobs) || !reflect.DeepEqual(res.Timeline, alone.Timeline) ||
				!reflect.DeepEqual(res.Allocations, alone.Allocations) || !reflect.DeepEqual(res.Digest, alone.Digest) {
				t.Fatal("the default recorder teed with another keeps other records than alone")
			}
			if len(alone.JCTs) == 0 || len(alone.Allocations) == 0 || (tc.faulty && len(alone.Faults.Availability) == 0) {
				t.Fatalf("the run exercises too little: %d finished, %d holdings", len(alone.JCTs), len(alone.Allocations))
			}
			if cnt.begins != 1 || cnt.roundStarts != len(alone.Digest) || cnt.roundEnds != len(alone.Timeline) ||
				len(cnt.ends) != len(alone.JCTs) || cnt.jobs != len(alone.Jobs) {
				t.Errorf("counted %d begins, %d round starts, %d round ends, %d job ends, %d jobs; the default kept %d digest rows, %d timeline rows, %d JCTs, %d jobs",
					cnt.begins, cnt.roundStarts, cnt.roundEnds, len(cnt.ends), cnt.jobs, len(alone.Digest), len(alone.Timeline), len(alone.JCTs), len(alone.Jobs))
			}
			for i, j := range alone.Jobs {
				if cnt.jobIDs[i] != j.ID {
					t.Fatalf("job record %d: told of job %d, default kept %d", i, cnt.jobIDs[i], j.ID)
				}
			}
			// Each holding is one or more allocation rows (runs of
			// consecutive slots): the slot-seconds agree.
			kept := 0.0
			for _, a := range alone.Allocations {
				kept += float64(a.Slots) * (a.End - a.Start)
			}
			if !near(cnt.slotSeconds, kept) || cnt.holds > len(alone.Allocations) {
				t.Errorf("holdings: %d of %g slot-seconds told, %d rows of %g kept", cnt.holds, cnt.slotSeconds, len(alone.Allocations), kept)
			}
			if tc.faulty {
				if cnt.nodeEvents != len(alone.Faults.Availability) || cnt.faultJobs != len(alone.Faults.Jobs) {
					t.Errorf("fault model: told %d node events, %d fault records; kept %d, %d",
						cnt.nodeEvents, cnt.faultJobs, len(alone.Faults.Availability), len(alone.Faults.Jobs))
				}
			} else if cnt.nodeEvents != 0 || cnt.faultJobs != 0 {
				t.Errorf("a run without faults told of %d node events, %d fault records", cnt.nodeEvents, cnt.faultJobs)
			}
		})
	}
}

// TestNopRecorderSameSummary: a recorder keeping nothing leaves the Result
// without records and its summary (all but the wall clock) as the default
// recorder's. Fails if the summary reads a record instead of the engine's
// figures.
func TestNopRecorderSameSummary(t *testing.T) {
	for _, tc := range []struct {
		timing Timing
		faulty bool
	}{{Exact, false}, {Artifact, false}, {Exact, true}} {
		def := recorderRun(t, tc.timing, tc.faulty, nil)
		nop := recorderRun(t, tc.timing, tc.faulty, NopRecorder{})
		if nop.Jobs != nil || nop.Timeline != nil || nop.Allocations != nil || nop.Digest != nil ||
			(nop.Faults != nil && (nop.Faults.Jobs != nil || nop.Faults.Availability != nil)) {
			t.Fatalf("%s faults=%v: a run with NopRecorder kept records", tc.timing, tc.faulty)
		}
		a, b := def.Summarize("t", 400, "e"), nop.Summarize("t", 400, "e")
		a.Wallclock, b.Wallclock = Wallclock{}, Wallclock{}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s faults=%v: summaries differ:\ndefault %+v\nnop     %+v", tc.timing, tc.faulty, a, b)
		}
		if a.Finished == 0 || a.MeanThroughput == 0 || (tc.faulty && a.Faults.Interruptions == 0) {
			t.Errorf("%s faults=%v: the run exercises too little: %+v", tc.timing, tc.faulty, a)
		}
	}
}

// TestNoAllocationsKeepsTheRest: with Config.NoAllocations the default
// recorder keeps no allocation record and everything else of the Result
// (job table, timeline, digest, JCT lists, fault records, summary) is what
// the run keeping them gives; the run keeping them has records (else the
// comparison says nothing). Fails if the option changes the run or keeps
// records anyway — including through the holdings it makes none of
// (engine.noHolds: endHold, recordHold and the horizon's holdings skipped).
// Self-generated comparison (the run keeping allocations is the definition).
func TestNoAllocationsKeepsTheRest(t *testing.T) {
	for _, timing := range []Timing{Exact, Artifact} {
		for _, faulty := range []bool{false, true} {
			if faulty && timing == Artifact {
				continue // the fault model needs exact timing
			}
			kept := recorderRunWith(t, timing, faulty, func(*Config) {})
			none := recorderRunWith(t, timing, faulty, func(cfg *Config) { cfg.NoAllocations = true })
			if len(kept.Allocations) == 0 {
				t.Fatalf("%v faulty=%t: the run keeping allocations has none", timing, faulty)
			}
			if len(none.Allocations) != 0 {
				t.Fatalf("%v faulty=%t: NoAllocations kept %d records", timing, faulty, len(none.Allocations))
			}
			sk, sn := kept.Summarize("t", 400, "e"), none.Summarize("t", 400, "e")
			sk.Wallclock, sn.Wallclock = Wallclock{}, Wallclock{}
			if !reflect.DeepEqual(sk, sn) {
				t.Errorf("%v faulty=%t: summaries differ:\n%+v\n%+v", timing, faulty, sk, sn)
			}
			kept.Allocations, kept.Wall, none.Wall = nil, 0, 0
			kept.DecisionNs, none.DecisionNs = nil, nil
			if !reflect.DeepEqual(kept, none) {
				t.Errorf("%v faulty=%t: results differ beyond the allocations", timing, faulty)
			}
		}
	}
}
