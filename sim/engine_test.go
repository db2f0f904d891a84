package sim

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

// testCluster: 2 A100 nodes × 4 GPUs (slots 0–7) and 2 A40 nodes × 2 (8–11).
func testCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := NewCluster(ClusterSpec{Name: "test", Pools: []Pool{
		{GPU: "a100", Nodes: 2, GPUsPerNode: 4},
		{GPU: "a40", Nodes: 2, GPUsPerNode: 2},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func optimal(t testing.TB) estimator.Estimator {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	return db.View(estimator.ViewOptimal)
}

func gpt13b(t testing.TB) estimator.Workload {
	m, err := estimator.ParseModel("gpt-1.3b")
	if err != nil {
		t.Fatal(err)
	}
	return estimator.Workload{Model: m, Batch: 128}
}

// scripted is a policy that returns fixed actions per round.
type scripted struct {
	byRound map[int][]Action
	hook    func(v *View)
}

func (s *scripted) Name() string { return "scripted" }
func (s *scripted) Schedule(v *View) ([]Action, error) {
	if s.hook != nil {
		s.hook(v)
	}
	return s.byRound[v.Round], nil
}

func oneJob(t *testing.T, iterations int64) []JobSpec {
	return []JobSpec{{ID: 0, Name: "j0", Submit: 1000, Workload: gpt13b(t), Iterations: iterations, GPU: "a100", GPUs: 2}}
}

func baseConfig(t *testing.T, timing Timing, rounds int) Config {
	cfg := DefaultConfig(testCluster(t), optimal(t))
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Timing, cfg.Rounds, cfg.Check = timing, rounds, true
	cfg.Overhead = Overhead{PerGPU: 150, Cap: 600}
	return cfg
}

// gpt-1.3b/128 on a100 1×2: thr = round(128/5.525832176208496, 3) = 23.164,
// iteration time round(128/23.164, 3) = 5.526 s.
const iter13b = 5.526

func TestExactTimingJCT(t *testing.T) {
	cfg := baseConfig(t, Exact, 10)
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	res, err := Run(context.Background(), cfg, p, oneJob(t, 500)) // 500/5 = 100 iterations
	if err != nil {
		t.Fatal(err)
	}
	// Overhead min(150·2, 600) = 300 s, then 100 iterations × 5.526 s.
	want := 300 + 100*iter13b
	if len(res.JCTs) != 1 || !near(res.JCTs[0], want) {
		t.Fatalf("JCTs %v, want [%v]", res.JCTs, want)
	}
	// Round 0 window [0, 300): all overhead, no samples; round 1: 300 s of work.
	if res.Timeline[0].Throughput != 0 {
		t.Errorf("round 0 throughput %v, want 0 (reconfiguring)", res.Timeline[0].Throughput)
	}
	if got := res.Timeline[1].Throughput; !near(got, 128/iter13b) {
		t.Errorf("round 1 throughput %v, want %v", got, 128/iter13b)
	}
}

func TestArtifactTimingJCT(t *testing.T) {
	cfg := baseConfig(t, Artifact, 10)
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	res, err := Run(context.Background(), cfg, p, oneJob(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	// Round 1: exec 300 → remaining 100 − ⌊300/5.526⌋ = 46; round 2: exec 600
	// → 100 − 108 < 0, detected at round 2: JCT = 2·300.
	if len(res.JCTs) != 1 || res.JCTs[0] != 600 {
		t.Fatalf("JCTs %v, want [600]", res.JCTs)
	}
	// Overhead 300 s ≤ 300: round 0 throughput × (300−300)/300 = 0, no debt.
	if res.Timeline[0].Throughput != 0 || res.Timeline[1].Throughput != 23.164 {
		t.Errorf("throughput rounds 0,1 = %v, %v; want 0, 23.164", res.Timeline[0].Throughput, res.Timeline[1].Throughput)
	}
}

func TestArtifactTimeDebtSkipsOneProgressUpdate(t *testing.T) {
	cfg := baseConfig(t, Artifact, 10)
	// 4 GPUs: overhead min(600, 600) = 600 s > 300 → debt: throughput 0 for
	// two rounds and the next round's progress update is skipped.
	specs := []JobSpec{{ID: 0, Name: "j0", Submit: 1000, Workload: gpt13b(t), Iterations: 5000, GPU: "a100", GPUs: 4}}
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}}}}
	var execAt []float64
	p.hook = func(v *View) {
		if len(v.Running) > 0 {
			execAt = append(execAt, v.Running[0].ExecTime)
		}
	}
	res, err := Run(context.Background(), cfg, p, specs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Timeline[0].Throughput != 0 || res.Timeline[1].Throughput != 0 || res.Timeline[2].Throughput == 0 {
		t.Errorf("throughput %v %v %v; want 0, 0, >0", res.Timeline[0].Throughput, res.Timeline[1].Throughput, res.Timeline[2].Throughput)
	}
	// ExecTime seen at rounds 1, 2, 3: 0 (skipped), 300, 600.
	if len(execAt) < 3 || execAt[0] != 0 || execAt[1] != 300 || execAt[2] != 600 {
		t.Errorf("exec time by round %v, want [0 300 600 …]", execAt)
	}
}

func TestRejectsInvalidActions(t *testing.T) {
	two := []JobSpec{oneJob(t, 500)[0], {ID: 1, Name: "j1", Submit: 1000, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 2}}
	cases := []struct {
		name    string
		actions []Action
		want    string
	}{
		{"double-booked GPU", []Action{{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Start, Job: 1, GPUs: []int{1, 2}}}, "held twice"},
		{"mixed GPU types", []Action{{Kind: Start, Job: 0, GPUs: []int{0, 8}}}, "uniform grid"},
		{"uneven nodes", []Action{{Kind: Start, Job: 0, GPUs: []int{0, 1, 4}}}, "uniform grid"},
		{"infeasible grid", []Action{{Kind: Start, Job: 0, GPUs: []int{0}}}, "infeasible"}, // gpt-1.3b/128 has no 1-GPU A100 entry
		{"slot out of range", []Action{{Kind: Start, Job: 0, GPUs: []int{99}}}, "out of range"},
		{"start a running job", []Action{{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Start, Job: 0, GPUs: []int{2, 3}}}, "not pending"},
		{"suspend a pending job", []Action{{Kind: Suspend, Job: 1}}, "not running"},
		{"unknown job", []Action{{Kind: Drop, Job: 7}}, "no such job"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig(t, Artifact, 3)
			_, err := Run(context.Background(), cfg, &scripted{byRound: map[int][]Action{0: c.actions}}, two)
			var ae *ActionError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *ActionError", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "policy scripted") {
				t.Errorf("error %q does not say %q and name the policy", err, c.want)
			}
		})
	}
}

func TestSwapInOneBatchIsValid(t *testing.T) {
	two := []JobSpec{oneJob(t, 50000)[0], {ID: 1, Name: "j1", Submit: 1000, Workload: gpt13b(t), Iterations: 50000, GPU: "a100", GPUs: 2}}
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Start, Job: 1, GPUs: []int{4, 5}}},
		1: {{Kind: Reallocate, Job: 0, GPUs: []int{4, 5}}, {Kind: Reallocate, Job: 1, GPUs: []int{0, 1}}},
	}}
	if _, err := Run(context.Background(), baseConfig(t, Artifact, 3), p, two); err != nil {
		t.Fatalf("a swap validated on the final state was rejected: %v", err)
	}
}

func TestEventOrder(t *testing.T) {
	var q eventQueue
	q.push(&event{at: 10, kind: evRound})
	q.push(&event{at: 10, kind: evArrival})
	q.push(&event{at: 5, kind: evRound})
	q.push(&event{at: 10, kind: evCompletion})
	q.push(&event{at: 10, kind: evArrival, round: 1})
	cancel := &event{at: 7, kind: evCompletion}
	q.push(cancel)
	q.remove(cancel)
	var got []string
	for q.Len() > 0 {
		e := q.pop()
		got = append(got, strings.Join([]string{trimFloat(float64(e.at)), []string{"completion", "cluster", "job-failure", "arrival", "round", "horizon"}[e.kind], trimFloat(float64(e.round))}, "/"))
	}
	want := "5/round/0 10/completion/0 10/arrival/0 10/arrival/1 10/round/0"
	if strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(got, " "), want)
	}
}

// TestMoveIsRemoveAndPush: moving a queued event to a new time
// (eventQueue.move, what scheduleCompletion does to a job's completion at
// each reconfiguration) pops the events in the order that removing it and
// pushing a fresh one at that time gives. Random interleavings of pushes,
// moves (to earlier, later and equal times: ties break on the sequence
// number), removals and pops; fails if move kept the old sequence number
// or left the heap unordered.
func TestMoveIsRemoveAndPush(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 38))
	for trial := range 200 {
		var a, b eventQueue // a moves, b removes and pushes
		var ea, eb []*event // live events, parallel: the same job id
		var got, want []string
		pop := func(q *eventQueue, live *[]*event, out *[]string) {
			ev := q.pop()
			*out = append(*out, fmt.Sprintf("%v/%d/%d/%d", ev.at, ev.kind, ev.seq, ev.round))
			*live = slices.DeleteFunc(*live, func(x *event) bool { return x == ev })
		}
		for op := range 300 {
			switch k := rng.IntN(10); {
			case k < 4 || len(ea) == 0:
				at, kind := Time(rng.IntN(20)), eventKind(rng.IntN(3)*2)
				x, y := &event{at: at, kind: kind, round: op}, &event{at: at, kind: kind, round: op}
				a.push(x)
				b.push(y)
				ea, eb = append(ea, x), append(eb, y)
			case k < 7:
				i, at := rng.IntN(len(ea)), Time(rng.IntN(20))
				ea[i].at = at
				a.move(ea[i])
				old := eb[i]
				b.remove(old)
				eb[i] = &event{at: at, kind: old.kind, round: old.round}
				b.push(eb[i])
			case k < 8:
				i := rng.IntN(len(ea))
				a.remove(ea[i])
				b.remove(eb[i])
				ea, eb = slices.Delete(ea, i, i+1), slices.Delete(eb, i, i+1)
			default:
				pop(&a, &ea, &got)
				pop(&b, &eb, &want)
			}
		}
		for a.Len() > 0 {
			pop(&a, &ea, &got)
			pop(&b, &eb, &want)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: move pops\n%v\nremove and push pop\n%v", trial, got, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

func TestScheduleOnEventsStartsAtCompletion(t *testing.T) {
	specs := []JobSpec{
		{ID: 0, Name: "a", Submit: 1000, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 4},
		{ID: 1, Name: "b", Submit: 1000, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 4},
	}
	c, err := NewCluster(ClusterSpec{Name: "one", Pools: []Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[bool]float64{}
	for _, onEvents := range []bool{false, true} {
		cfg := DefaultConfig(c, optimal(t))
		cfg.IterationScale = 5 // the artifact simulation traces' ÷5
		cfg.Rounds, cfg.Check, cfg.ScheduleOnEvents = 20, true, onEvents
		cfg.Overhead = Overhead{PerGPU: 10, Cap: 40}
		res, err := Run(context.Background(), cfg, greedy{}, specs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Jobs[1].State != "finished" {
			t.Fatalf("job 1 %s", res.Jobs[1].State)
		}
		starts[onEvents] = res.Jobs[1].FirstStart
		if onEvents && res.Jobs[1].FirstStart != res.Jobs[0].Finish {
			t.Errorf("with ScheduleOnEvents job 1 starts at %v, want job 0's finish %v", res.Jobs[1].FirstStart, res.Jobs[0].Finish)
		}
	}
	// a100 1×4: iteration time round(128/43.302, 3) = 2.956 s; job 0 runs
	// 40 s + 100 × 2.956 = 335.6 s, so without event scheduling job 1
	// waits for the round at 600 s.
	if starts[false] != 1600 {
		t.Errorf("without ScheduleOnEvents job 1 starts at %v, want the next round (1600)", starts[false])
	}
}

// A suspended job must not be credited with progress for the time it waited
// (exact timing).
func TestExactNoProgressWhileSuspended(t *testing.T) {
	specs := []JobSpec{{ID: 0, Name: "a", Submit: 1000, Workload: gpt13b(t), Iterations: 5000, GPU: "a100", GPUs: 4}} // 1000 iterations
	c, _ := NewCluster(ClusterSpec{Name: "one", Pools: []Pool{{GPU: "a100", Nodes: 1, GPUsPerNode: 4}}})
	cfg := DefaultConfig(c, optimal(t))
	cfg.IterationScale = 5 // the artifact simulation traces' ÷5
	cfg.Rounds, cfg.Check, cfg.Overhead = 40, true, Overhead{}
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}},
		1: {{Kind: Suspend, Job: 0}},
		3: {{Kind: Start, Job: 0, GPUs: []int{0, 1, 2, 3}}},
	}}
	res, err := Run(context.Background(), cfg, p, specs)
	if err != nil {
		t.Fatal(err)
	}
	// a100 1×4: 2.956 s per iteration, 1000 iterations = 2956 s of work,
	// interrupted between t = 1300 and t = 1900 (600 s suspended).
	if got, want := res.Jobs[0].Finish, 1000+600+2956.0; !near(got, want) {
		t.Errorf("finish %v, want %v", got, want)
	}
}

// TestExactLateArrivalsArePending: a job submitted after the last decision
// but before the horizon is pending at the end (in the queue, with its
// queueing time counted up to the horizon), and the end-of-run check holds.
// Hand-worked: 2 rounds of 300 s from T0 = 1000, so the horizon is 1600; the
// job submitted at 1450 waits 150 s.
func TestExactLateArrivalsArePending(t *testing.T) {
	cfg := baseConfig(t, Exact, 2)
	specs := []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1450, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 2},
	}
	res, err := Run(context.Background(), cfg, &scripted{}, specs)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[1]; got.State != "pending" || got.Queueing != 150 {
		t.Errorf("late arrival: state %s, queueing %v s; want pending, 150", got.State, got.Queueing)
	}
	if got := res.Jobs[0].Queueing; got != 600 {
		t.Errorf("first job queueing %v s, want 600", got)
	}
}

// TestOutOfOrderSubmissions: exact timing starts at the earliest submission
// whatever the row order, and hands arrivals to the policy in submission
// order; artifact timing keeps the artifact's walk (T0 = first row, a row
// never goes to a chunk before the previous row's; ARENA.md §6).
func TestOutOfOrderSubmissions(t *testing.T) {
	w := gpt13b(t)
	specs := []JobSpec{
		{ID: 0, Name: "late", Submit: 1700, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "early", Submit: 1000, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "next", Submit: 1100, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
	}
	t.Run("exact", func(t *testing.T) {
		var seen [][]JobID
		p := &scripted{hook: func(v *View) {
			var ids []JobID
			for _, j := range v.Arrivals {
				ids = append(ids, j.Spec.ID)
			}
			seen = append(seen, ids)
		}}
		res, err := Run(context.Background(), baseConfig(t, Exact, 4), p, specs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Start != 1000 {
			t.Errorf("T0 = %v, want the earliest submission 1000", res.Start)
		}
		// Rounds at 1000, 1300, 1600, 1900: arrivals [1], [2], [], [0].
		want := [][]JobID{{1}, {2}, nil, {0}}
		if len(seen) != 4 || !slices.Equal(seen[0], want[0]) || !slices.Equal(seen[1], want[1]) || len(seen[2]) != 0 || !slices.Equal(seen[3], want[3]) {
			t.Errorf("arrivals per round %v, want %v", seen, want)
		}
	})
	t.Run("artifact", func(t *testing.T) {
		var seen [][]JobID
		p := &scripted{hook: func(v *View) {
			var ids []JobID
			for _, j := range v.Arrivals {
				ids = append(ids, j.Spec.ID)
			}
			seen = append(seen, ids)
		}}
		res, err := Run(context.Background(), baseConfig(t, Artifact, 4), p, specs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Start != 1700 {
			t.Errorf("T0 = %v, want the first row's 1700", res.Start)
		}
		// All three in chunk 0: the first row defines T0, the others are earlier.
		if len(seen) == 0 || !slices.Equal(seen[0], []JobID{0, 1, 2}) {
			t.Errorf("arrivals per round %v, want all three in round 0", seen)
		}
	})
	t.Run("artifact chunk walk", func(t *testing.T) {
		walk := []JobSpec{
			{ID: 0, Name: "a", Submit: 1000, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2},
			{ID: 1, Name: "b", Submit: 1650, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2}, // chunk 2
			{ID: 2, Name: "c", Submit: 1350, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2}, // formula: chunk 1; walk: 2
			{ID: 3, Name: "d", Submit: 1950, Workload: w, Iterations: 500, GPU: "a100", GPUs: 2}, // chunk 3
		}
		var seen [][]JobID
		p := &scripted{hook: func(v *View) {
			var ids []JobID
			for _, j := range v.Arrivals {
				ids = append(ids, j.Spec.ID)
			}
			seen = append(seen, ids)
		}}
		if _, err := Run(context.Background(), baseConfig(t, Artifact, 4), p, walk); err != nil {
			t.Fatal(err)
		}
		if len(seen) != 4 || !slices.Equal(seen[0], []JobID{0}) || len(seen[1]) != 0 || !slices.Equal(seen[2], []JobID{1, 2}) || !slices.Equal(seen[3], []JobID{3}) {
			t.Errorf("arrivals per round %v, want [[0] [] [1 2] [3]]", seen)
		}
	})
}

// TestSuspendKeepsIterations: suspending a job resets the artifact's
// iter_num (IterNum) but not the job's whole work: jobs.parquet's
// `iterations` stays trace ÷ 5 and Progress stays 1 − Remaining/Iterations.
func TestSuspendKeepsIterations(t *testing.T) {
	for _, timing := range []Timing{Exact, Artifact} {
		t.Run(timing.String(), func(t *testing.T) {
			p := &scripted{byRound: map[int][]Action{
				0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
				3: {{Kind: Suspend, Job: 0}},
			}}
			var progress []float64
			p.hook = func(v *View) {
				if v.Round == 4 {
					j := v.Job(0)
					progress = append(progress, j.Progress(), float64(j.Remaining))
				}
			}
			res, err := Run(context.Background(), baseConfig(t, timing, 6), p, oneJob(t, 5000)) // 1000 iterations
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Jobs[0].Iterations; got != 1000 {
				t.Errorf("jobs.parquet iterations = %d after a suspension, want 1000", got)
			}
			if len(progress) != 2 || progress[0] <= 0 || !near(progress[0], 1-progress[1]/1000) {
				t.Errorf("progress after suspension %v, want 1 − remaining/1000", progress)
			}
		})
	}
}

func TestUnknownKindsPrint(t *testing.T) {
	if got := ActionKind(7).String(); got != "ActionKind(7)" {
		t.Errorf("ActionKind(7).String() = %q", got)
	}
	if got := Status(-1).String(); got != "Status(-1)" {
		t.Errorf("Status(-1).String() = %q", got)
	}
}

// TestUtilization: hand-worked GPU-seconds. One gpt-1.3b job on 2 of the 8
// A100s from T0, 4 rounds (1200 s). Exact: 300 s overhead + 100 × 5.526 s =
// 852.6 s held → 2 × 852.6 / (8 × 1200) = 0.177625. Artifact: running after
// the decisions of rounds 0 and 1 (completion detected at round 2) →
// 2 × 600 / 9600 = 0.125. A40: 0.
func TestUtilization(t *testing.T) {
	for _, c := range []struct {
		timing Timing
		want   float64
	}{{Exact, 2 * (300 + 100*iter13b) / 9600}, {Artifact, 0.125}} {
		t.Run(c.timing.String(), func(t *testing.T) {
			cfg := baseConfig(t, c.timing, 4)
			p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
			res, err := Run(context.Background(), cfg, p, oneJob(t, 500))
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summarize("t", 1, "e")
			res.SetUtilization(&s, cfg.Cluster)
			if !near(s.Utilization["a100"], c.want) || s.Utilization["a40"] != 0 {
				t.Errorf("utilisation %v, want a100 %v, a40 0", s.Utilization, c.want)
			}
		})
	}
}

// TestBeforeReleaseExact: in exact timing a job that ends between rounds is
// in the next decision's Ended, its GPUs free in Occupant and still its own
// in BeforeRelease (the slot table as the previous decision left it), as in
// artifact timing.
func TestBeforeReleaseExact(t *testing.T) {
	for _, timing := range []Timing{Exact, Artifact} {
		t.Run(timing.String(), func(t *testing.T) {
			p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
			var ok bool
			p.hook = func(v *View) {
				if len(v.Ended) == 1 {
					ok = v.Occupant[0] == NoJob && v.Occupant[1] == NoJob && v.BeforeRelease[0] == 0 && v.BeforeRelease[1] == 0
				}
			}
			if _, err := Run(context.Background(), baseConfig(t, timing, 4), p, oneJob(t, 500)); err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Error("at the decision that sees the job end, want its GPUs free in Occupant and held in BeforeRelease")
			}
		})
	}
}

type budgeted struct{ scripted }

func (budgeted) BudgetHits() int { return 3 }

// TestBudgetHitsInSummary: a policy's budget hits reach the summary; a
// policy without a budget has none (the field is absent from summary.json).
func TestBudgetHitsInSummary(t *testing.T) {
	res, err := Run(context.Background(), baseConfig(t, Exact, 2), &budgeted{}, oneJob(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize("t", 1, "e"); s.SolverBudgetHits == nil || *s.SolverBudgetHits != 3 {
		t.Errorf("solver_budget_hits = %v, want 3", s.SolverBudgetHits)
	}
	res, err = Run(context.Background(), baseConfig(t, Exact, 2), &scripted{}, oneJob(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize("t", 1, "e"); s.SolverBudgetHits != nil {
		t.Errorf("solver_budget_hits = %v for a policy without a budget, want absent", *s.SolverBudgetHits)
	}
}

func twoJobs(t *testing.T) []JobSpec {
	return []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1450, Workload: gpt13b(t), Iterations: 500, GPU: "a100", GPUs: 2},
	}
}

// TestCensoredMeanAndMakespan, hand-worked in exact timing: T0 = 1000, 4
// rounds (horizon 2200). j0 starts at 1000: 300 s overhead + 100 × 5.526 s
// → JCT 852.6. j1 (submitted 1450) never starts: age at the horizon 750.
// Censored mean (852.6 + 750)/2 = 801.3; mean over finished 852.6; one
// unfinished, pending on an idle cluster; makespan unknown: ≥ 2200 − 1000.
func TestCensoredMeanAndMakespan(t *testing.T) {
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	res, err := Run(context.Background(), baseConfig(t, Exact, 4), p, twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize("t", 2, "e")
	jct := 300 + 100*iter13b
	if !near(s.MeanJCT, jct) || !near(s.CensoredMeanJCT, (jct+750)/2) || s.Unfinished != 1 || s.StuckPending != 1 {
		t.Errorf("mean %v, censored %v, unfinished %d, stuck %d; want %v, %v, 1, 1", s.MeanJCT, s.CensoredMeanJCT, s.Unfinished, s.StuckPending, jct, (jct+750)/2)
	}
	if s.Makespan != 1200 || !s.MakespanLowerBound {
		t.Errorf("makespan %v (lower bound %v), want ≥ 1200", s.Makespan, s.MakespanLowerBound)
	}
	// One of the two submitted jobs never held a GPU.
	if s.NeverStartedShare != 0.5 {
		t.Errorf("never_started_share %v, want 0.5", s.NeverStartedShare)
	}
}

// TestUntilDone, hand-worked: as above but j1 starts at round 3 (t = 1900):
// it ends at 1900 + 300 + 552.6 = 2752.6 (JCT 1302.6), in round 5's window;
// the run is extended to 7 rounds (round 6 sees every job ended). Makespan
// 2752.6 − 1000 = 1752.6. With a cap of 5 rounds it stops there, flagged.
// A policy that never starts j1 stops after IdleStop idle rounds.
func TestUntilDone(t *testing.T) {
	start := func() *scripted {
		return &scripted{byRound: map[int][]Action{
			0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
			3: {{Kind: Start, Job: 1, GPUs: []int{2, 3}}},
		}}
	}
	cfg := baseConfig(t, Exact, 4)
	cfg.UntilDone = true
	res, err := Run(context.Background(), cfg, start(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize("t", 2, "e")
	if s.Rounds != 7 || s.Finished != 2 || s.UntilDoneCapReached || !near(s.Makespan, 1752.6) || s.MakespanLowerBound {
		t.Errorf("rounds %d, finished %d, makespan %v (bound %v); want 7, 2, 1752.6", s.Rounds, s.Finished, s.Makespan, s.MakespanLowerBound)
	}
	if !near(res.JCTs[1], 1302.6) || !near(s.CensoredMeanJCT, s.MeanJCT) {
		t.Errorf("JCTs %v, censored %v, mean %v", res.JCTs, s.CensoredMeanJCT, s.MeanJCT)
	}

	cfg.MaxRounds = 5
	res, err = Run(context.Background(), cfg, start(), twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize("t", 2, "e"); s.Rounds != 5 || !s.UntilDoneCapReached || s.Unfinished != 1 {
		t.Errorf("capped: rounds %d, cap reached %v, unfinished %d; want 5, true, 1", s.Rounds, s.UntilDoneCapReached, s.Unfinished)
	}

	cfg.MaxRounds = 1000
	p := &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	res, err = Run(context.Background(), cfg, p, twoJobs(t))
	if err != nil {
		t.Fatal(err)
	}
	// j0 ends in round 2's window; rounds 3 … 102 are idle with j1 queued.
	if s := res.Summarize("t", 2, "e"); s.Rounds != 3+IdleStop || s.UntilDoneCapReached || s.StuckPending != 1 {
		t.Errorf("stuck: rounds %d, cap reached %v, stuck %d; want %d, false, 1", s.Rounds, s.UntilDoneCapReached, s.StuckPending, 3+IdleStop)
	}

	for _, timing := range []Timing{Artifact} {
		cfg := baseConfig(t, timing, 4)
		cfg.UntilDone = true
		res, err := Run(context.Background(), cfg, start(), twoJobs(t))
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Summarize("t", 2, "e"); s.Finished != 2 || s.MakespanLowerBound {
			t.Errorf("%s: finished %d, makespan lower bound %v; want 2, false", timing, s.Finished, s.MakespanLowerBound)
		}
	}
}

// TestArtifactQueueTime: in artifact timing a job's queue time is 300 s for
// every round whose step 6 finds it pending (the artifact's eager sum; the
// engine adds it lazily), on the View as in the results. Hand-worked, 10
// rounds, all three jobs submitted in round 0:
//   - j0 starts in round 2 (rounds 0, 1 counted: 600 s), is suspended in
//     round 4 and restarts in round 7 (rounds 4, 5, 6: 900 s): 1500 s;
//     the View in round 6 shows 600 + 2·300 = 1200 s;
//   - j1 is dropped in round 5: rounds 0–4, 1500 s;
//   - j2 never starts: rounds 0–9, 3000 s; the View in round 3 shows 900 s.
func TestArtifactQueueTime(t *testing.T) {
	cfg := baseConfig(t, Artifact, 10)
	specs := []JobSpec{
		{ID: 0, Name: "j0", Submit: 1000, Workload: gpt13b(t), Iterations: 1_000_000, GPU: "a100", GPUs: 2},
		{ID: 1, Name: "j1", Submit: 1000, Workload: gpt13b(t), Iterations: 1_000_000, GPU: "a100", GPUs: 2},
		{ID: 2, Name: "j2", Submit: 1000, Workload: gpt13b(t), Iterations: 1_000_000, GPU: "a100", GPUs: 2},
	}
	seen := map[int]float64{}
	p := &scripted{
		byRound: map[int][]Action{
			2: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
			4: {{Kind: Suspend, Job: 0}},
			5: {{Kind: Drop, Job: 1}},
			7: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},
		},
		hook: func(v *View) {
			switch v.Round {
			case 3:
				seen[3] = v.Job(2).QueueTime()
			case 6:
				seen[6] = v.Job(0).QueueTime()
			}
		},
	}
	res, err := Run(context.Background(), cfg, p, specs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1500, 1500, 3000} {
		if got := res.Jobs[i].Queueing; got != want {
			t.Errorf("j%d queueing %v s, want %v", i, got, want)
		}
	}
	if seen[3] != 900 || seen[6] != 1200 {
		t.Errorf("View queue times: j2 in round 3 %v s (want 900), j0 in round 6 %v s (want 1200)", seen[3], seen[6])
	}
}

// accrue is the artifact's one-by-one sum of queue-time steps, bit for bit:
// with whole-number steps (the closed form) up to and across 2^53, and with
// fractional ones (the additions themselves).
func TestAccrueIsTheStepwiseSum(t *testing.T) {
	stepwise := func(q float64, n int, L float64) float64 {
		for ; n > 0; n-- {
			q += L
		}
		return q
	}
	for _, c := range []struct {
		q float64
		n int
		L float64
	}{
		{0, 0, 300}, {0, 1, 300}, {600, 2000, 300}, {0, 1_000_000, 300}, {1<<53 - 3000, 12, 300},
		{1<<53 - 900, 3, 300}, {1<<53 - 1200, 7, 300}, {0, 1000, 0.1}, {0.5, 100, 300}, {7, 333, 2.5},
	} {
		if got, want := accrue(c.q, c.n, c.L), stepwise(c.q, c.n, c.L); got != want {
			t.Errorf("accrue(%v, %d, %v) = %v, the stepwise sum %v", c.q, c.n, c.L, got, want)
		}
	}
}

// TestBatchStateForgetsLastBatch: simulateBatch's table, kept across
// batches, says no job is touched after a reset, also when its generation
// counter wraps; a job touched again gets a fresh entry. Fails if a stale
// mark survived (the next batch would read another batch's tentative
// state).
func TestBatchStateForgetsLastBatch(t *testing.T) {
	var b batchState
	touch := func(id JobID) {
		b.mark[id] = batchMark{b.gen, int32(len(b.ts))}
		b.ts = append(b.ts, tentative{status: Running})
		b.order = append(b.order, id)
	}
	b.reset(8, 0)
	touch(3)
	touch(5)
	for _, gen := range []uint32{b.gen, math.MaxUint32} {
		b.gen = gen
		for _, id := range []JobID{3, 5} {
			b.mark[id].gen = gen
		}
		b.reset(8, 0)
		for id := range JobID(8) {
			if b.mark[id].gen == b.gen {
				t.Fatalf("after a reset from generation %d, job %d reads as touched", gen, id)
			}
		}
		if len(b.ts) != 0 || len(b.order) != 0 {
			t.Fatalf("after a reset: %d states, %d in order", len(b.ts), len(b.order))
		}
	}
}

// refQueue is the event queue as first written: pointers to the events,
// container/heap's functions. The oracle of TestQueueIsContainerHeap.
type refQueue struct {
	items []*event
	seq   int64
}

func (q *refQueue) Len() int { return len(q.items) }
func (q *refQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (q *refQueue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index = i
	q.items[j].index = j
}
func (q *refQueue) Push(x any) {
	ev := x.(*event)
	ev.index = len(q.items)
	q.items = append(q.items, ev)
}
func (q *refQueue) Pop() any {
	n := len(q.items)
	ev := q.items[n-1]
	q.items = q.items[:n-1]
	ev.index = -1
	return ev
}

// TestQueueIsContainerHeap: the event queue (keys kept in the heap's
// array, container/heap's sift steps written out) has, after every push,
// pop, move and removal of random interleavings, the layout the queue as
// first written (pointers, container/heap) has — entry for entry, so the
// events pop in the same order even where keys do not order (NaN times,
// which no run should make). Fails if a sift step differs from
// container/heap's or a move leaves a stale key in the array.
func TestQueueIsContainerHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 44))
	times := []float64{0, 1, 2, 3, 5, 8, math.NaN()}
	for trial := range 300 {
		var q eventQueue
		var r refQueue
		var eq, er []*event // live events, parallel
		for op := range 200 {
			switch k := rng.IntN(10); {
			case k < 4 || len(eq) == 0:
				at, kind := Time(times[rng.IntN(len(times))]), eventKind(rng.IntN(4))
				x, y := &event{at: at, kind: kind, round: op}, &event{at: at, kind: kind, round: op}
				q.push(x)
				r.seq++
				y.seq = r.seq
				heap.Push(&r, y)
				eq, er = append(eq, x), append(er, y)
			case k < 7:
				i, at := rng.IntN(len(eq)), Time(times[rng.IntN(len(times))])
				eq[i].at, er[i].at = at, at
				q.move(eq[i])
				r.seq++
				er[i].seq = r.seq
				heap.Fix(&r, er[i].index)
			case k < 8:
				i := rng.IntN(len(eq))
				q.remove(eq[i])
				heap.Remove(&r, er[i].index)
				eq, er = slices.Delete(eq, i, i+1), slices.Delete(er, i, i+1)
			default:
				x, y := q.pop(), heap.Pop(&r).(*event)
				if x.round != y.round {
					t.Fatalf("trial %d op %d: popped event %d, container/heap pops %d", trial, op, x.round, y.round)
				}
				eq = slices.DeleteFunc(eq, func(e *event) bool { return e == x })
				er = slices.DeleteFunc(er, func(e *event) bool { return e == y })
			}
			if len(q.items) != len(r.items) {
				t.Fatalf("trial %d op %d: %d entries, container/heap %d", trial, op, len(q.items), len(r.items))
			}
			for i := range q.items {
				a, b := q.items[i], r.items[i]
				if a.ev.round != b.round || a.ev.index != i || a.seq != a.ev.seq || a.kind != a.ev.kind ||
					!(a.at == a.ev.at || a.at != a.at && a.ev.at != a.ev.at) {
					t.Fatalf("trial %d op %d: entry %d is event %d (index %d, key %v/%d/%d of %v/%d/%d), container/heap's event %d",
						trial, op, i, a.ev.round, a.ev.index, a.at, a.kind, a.seq, a.ev.at, a.ev.kind, a.ev.seq, b.round)
				}
			}
		}
	}
}

// TestBatchKnowsWhichMovesReconfigure: a Start or Reallocate costs a
// reconfiguration exactly when its GPUs are not the ones the job holds as
// the action is committed, also when simulateBatch answered that for the
// job's first action of the batch (batchState.same) and when a job has
// several actions in one batch (the later ones asked at the commit).
// Anchor, hand-worked: j0 starts (1), is moved onto its own GPUs in
// another order (no change), then suspended and started again on the same
// GPUs in one batch (1: it held none); j1 starts (1), moves away and back
// in one batch (2), then onto its own GPUs again (none): 2 and 3.
func TestBatchKnowsWhichMovesReconfigure(t *testing.T) {
	two := []JobSpec{oneJob(t, 50000)[0], {ID: 1, Name: "j1", Submit: 1000, Workload: gpt13b(t), Iterations: 50000, GPU: "a100", GPUs: 2}}
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}, {Kind: Start, Job: 1, GPUs: []int{4, 5}}},
		1: {{Kind: Reallocate, Job: 0, GPUs: []int{1, 0}}, {Kind: Reallocate, Job: 1, GPUs: []int{6, 7}}, {Kind: Reallocate, Job: 1, GPUs: []int{4, 5}}},
		2: {{Kind: Suspend, Job: 0}, {Kind: Start, Job: 0, GPUs: []int{0, 1}}},
		3: {{Kind: Reallocate, Job: 1, GPUs: []int{5, 4}}},
	}}
	res, err := Run(context.Background(), baseConfig(t, Exact, 5), p, two)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 || res.Jobs[0].Reconfigs != 2 || res.Jobs[1].Reconfigs != 3 {
		t.Fatalf("reconfigurations %+v, want j0 2 and j1 3", res.Jobs)
	}
}
