package regress_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/traces/synth"
	"github.com/arena-sim/arena/traces/table"
)

// TestArtifactTimingReadsWholeSeconds is a property test over seeded
// synthetic workloads — Poisson arrivals and relative windows, with
// whole-second and fractional times, some with a fractional first
// submission (the round-0 timer): in artifact timing a run's results do
// not depend on how a time is written as long as the artifact, which reads
// submission times and deadlines with int() (trace_manager.py), reads the
// same whole second. Each workload is run as synthesised, with every time
// truncated (1000117.577 → 1000117), and with every fraction halved
// (→ 1000117.2885; the order of jobs stays as it was, which the artifact
// does see), for every policy that reads a submission time or a deadline;
// digests, job records, timelines, allocations and summaries must be
// identical. Anchor: the artifact's parser, not this code's output.
//
// Before artifact timing read whole seconds it departed on most of these
// workloads (a job submitted in the second after a round boundary joined
// the next round). The test also requires exact timing to see the
// difference on at least one workload, so it cannot pass by never
// exercising one.
func TestArtifactTimingReadsWholeSeconds(t *testing.T) {
	policies := []string{"fcfs", "arena", "elasticflow-ls", "arena-ddl", "elasticflow"}
	seeds := 8
	if testing.Short() {
		policies, seeds = []string{"fcfs", "elasticflow"}, 3
	}
	exactSaw := false
	for seed := range seeds {
		for _, kind := range []string{"poisson", "window"} {
			for _, whole := range []bool{false, true} {
				name := fmt.Sprintf("%s-seed%d-whole=%v", kind, seed, whole)
				jobs := timesWorkload(t, kind, uint64(seed), whole)
				dir := t.TempDir()
				variants := map[string][]table.Job{
					"as written": jobs,
					"truncated":  rewriteTimes(jobs, func(sec, frac float64) float64 { return sec }),
					"halved":     rewriteTimes(jobs, func(sec, frac float64) float64 { return sec + frac/2 }),
				}
				paths := map[string]string{}
				for v, js := range variants {
					paths[v] = filepath.Join(dir, v+".csv")
					if err := table.WriteFile(paths[v], js); err != nil {
						t.Fatal(err)
					}
				}
				for _, p := range policies {
					ref := runTimes(t, paths["as written"], p, sim.Artifact)
					for _, v := range []string{"truncated", "halved"} {
						got := runTimes(t, paths[v], p, sim.Artifact)
						if d := sameResults(ref, got); d != "" {
							t.Errorf("%s, %s, artifact timing: times %s differ from as written: %s", name, p, v, d)
						}
					}
				}
				if !whole && !exactSaw {
					a := runTimes(t, paths["as written"], "fcfs", sim.Exact)
					b := runTimes(t, paths["truncated"], "fcfs", sim.Exact)
					exactSaw = sameResults(a, b) != ""
				}
			}
		}
	}
	if !exactSaw {
		t.Error("exact timing gave the same results with fractions and without on every workload: the workloads do not exercise fractional times")
	}
}

// timesWorkload synthesises about 120 jobs (the arena recipe, deadlines
// 1.5 × duration) starting near 1,000,000 s: Poisson arrivals at 40 jobs/h,
// or the jobs of a 3-hour window of a longer Poisson stream. whole rounds
// every time down to a second; otherwise odd seeds also start at a
// fractional second.
func timesWorkload(t *testing.T, kind string, seed uint64, whole bool) []table.Job {
	t.Helper()
	start := 1e6
	if !whole && seed%2 == 1 {
		start += 0.37 + 0.05*float64(seed)
	}
	var jobs []table.Job
	var err error
	switch kind {
	case "poisson":
		jobs, err = synth.Run(nil, synth.Options{Seed: seed, Jobs: 120, Rate: 40, Durations: "gavel", GPUMix: "gavel", Recipe: "arena", Start: start})
	case "window":
		var base []table.Job
		base, err = synth.Run(nil, synth.Options{Seed: seed, Jobs: 400, Rate: 40, Durations: "gavel", GPUMix: "gavel"})
		if err == nil {
			jobs, err = synth.Run(base, synth.Options{Seed: seed, WindowMode: "relative", WindowStart: 2, WindowHours: 3, Recipe: "arena", Start: start})
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if whole {
		jobs = rewriteTimes(jobs, func(sec, _ float64) float64 { return sec })
	}
	return jobs
}

// rewriteTimes returns a copy of jobs with each submission time and
// deadline rewritten from its whole seconds and fraction.
func rewriteTimes(jobs []table.Job, f func(sec, frac float64) float64) []table.Job {
	out := make([]table.Job, len(jobs))
	for i, j := range jobs {
		sec, frac := math.Modf(j.Submit)
		j.Submit = f(sec, frac)
		if j.Deadline > 0 {
			sec, frac = math.Modf(j.Deadline)
			j.Deadline = f(sec, frac)
		}
		out[i] = j
	}
	return out
}

func runTimes(t *testing.T, path, pol string, timing sim.Timing) *runner.Outcome {
	t.Helper()
	o, err := runner.Execute(context.Background(), policy.NewRegistry(), runner.Run{
		Trace: path, Cluster: "paper-1280", Policy: pol, Timing: timing, Rounds: 120, Check: true,
	})
	if err != nil {
		t.Fatalf("%s on %s: %v", pol, path, err)
	}
	return o
}

// sameResults names the first result that differs between two runs ("" if
// none), the input's name and hash and the wall clock aside.
func sameResults(a, b *runner.Outcome) string {
	sa, sb := a.Summary, b.Summary
	// The inputs differ (that is the test): so do their hashes.
	sa.Trace, sa.InputHash, sa.WorkloadHash, sa.Wallclock = "", "", "", sim.Wallclock{}
	sb.Trace, sb.InputHash, sb.WorkloadHash, sb.Wallclock = "", "", "", sim.Wallclock{}
	switch {
	case string(a.Result.DigestCSV()) != string(b.Result.DigestCSV()):
		d, _ := sim.CompareDigests(a.Result.DigestCSV(), b.Result.DigestCSV())
		return "per-round digest: " + d.String()
	case !reflect.DeepEqual(a.Result.Jobs, b.Result.Jobs):
		return "job records"
	case !reflect.DeepEqual(a.Result.Timeline, b.Result.Timeline):
		return "timeline"
	case !reflect.DeepEqual(a.Result.Allocations, b.Result.Allocations):
		return "allocations"
	case !reflect.DeepEqual(sa, sb):
		return fmt.Sprintf("summary %+v vs %+v", sa, sb)
	}
	return ""
}
