package sim

import (
	"context"
	"testing"

	"github.com/arena-sim/arena/estimator"
)

func TestOverheadFormula(t *testing.T) {
	o := Overhead{Fixed: 5, PerGPU: 10, Cap: 25, ByGPUs: map[int]Duration{1: 1, 4: 4, 8: 8},
		Actions: map[Change]Overhead{Migration: {Fixed: 2}}}
	for _, c := range []struct {
		name string
		ch   Change
		n    int
		want Duration
	}{
		{"listed count", Resize, 4, 5 + 25 + 4},
		{"count between entries pays the next larger", Resize, 3, 5 + 25 + 4},
		{"count above the table pays the largest", FirstStart, 16, 5 + 25 + 8},
		{"per-GPU part below its cap", Restart, 2, 5 + 20 + 4},
		{"action override replaces the formula", Migration, 8, 2},
	} {
		if got := o.Cost(c.ch, c.n); got != c.want {
			t.Errorf("%s: Cost(%s, %d) = %v, want %v", c.name, c.ch, c.n, got, c.want)
		}
	}
	if got := (Overhead{PerGPU: 7}).For(3); got != 21 {
		t.Errorf("no cap: For(3) = %v, want 21", got)
	}
	if got := o.Scale(2).Cost(Resize, 4); got != 68 {
		t.Errorf("Scale(2): %v, want 68", got)
	}
}

func TestChangeOf(t *testing.T) {
	none := estimator.Config{}
	a2 := estimator.Config{GPU: "a100", Nodes: 1, PerNode: 2}
	for _, c := range []struct {
		name     string
		ever     bool
		from, to estimator.Config
		want     Change
	}{
		{"never ran", false, none, a2, FirstStart},
		{"suspended before", true, none, a2, Restart},
		{"other type", true, a2, estimator.Config{GPU: "a40", Nodes: 1, PerNode: 2}, TypeChange},
		{"other count", true, a2, estimator.Config{GPU: "a100", Nodes: 1, PerNode: 4}, Resize},
		{"same shape elsewhere", true, a2, estimator.Config{GPU: "a100", Nodes: 2, PerNode: 1}, Migration},
	} {
		if got := ChangeOf(c.ever, c.from, c.to); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestExactOverheadByKindOfChange: in exact timing a job makes no progress
// during the overhead of each change, priced by its kind. Hand-worked:
// 2-GPU gpt-1.3b/128 on a100 runs 5.526 s per iteration (see iter13b).
func TestExactOverheadByKindOfChange(t *testing.T) {
	cfg := baseConfig(t, Exact, 20)
	cfg.IterationScale = 1
	cfg.Overhead = Overhead{Fixed: 100, Actions: map[Change]Overhead{Migration: {Fixed: 30}, Restart: {Fixed: 70}}}
	p := &scripted{byRound: map[int][]Action{
		0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}},      // first start: 100 s, then 200 s of work
		1: {{Kind: Reallocate, Job: 0, GPUs: []int{2, 3}}}, // migration: 30 s, then 270 s of work
		2: {{Kind: Suspend, Job: 0}},
		3: {{Kind: Start, Job: 0, GPUs: []int{4, 5}}}, // restart at 900 s: 70 s
	}}
	res, err := Run(context.Background(), cfg, p, oneJob(t, 200))
	if err != nil {
		t.Fatal(err)
	}
	// Work before the restart: 200 + 270 = 470 s = 470/5.526 iterations.
	left := 200 - 470/iter13b
	want := 900 + 70 + left*iter13b
	if len(res.JCTs) != 1 || !near(res.JCTs[0], want) {
		t.Fatalf("JCTs %v, want [%v]", res.JCTs, want)
	}
}

// TestIterationScaleRule: a job with fewer iterations than the scale keeps
// one iteration in exact timing; artifact timing keeps the artifact's
// integer division to 0 (ARENA.md §6: iter_num = trace // 5), so the job
// ends at the first progress update after its start (round 1), having
// paid its start overhead in round 0's throughput.
func TestIterationScaleRule(t *testing.T) {
	p := func() *scripted {
		return &scripted{byRound: map[int][]Action{0: {{Kind: Start, Job: 0, GPUs: []int{0, 1}}}}}
	}
	ex := baseConfig(t, Exact, 10) // scale 5, overhead 300 s on 2 GPUs
	res, err := Run(context.Background(), ex, p(), oneJob(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.JCTs) != 1 || !near(res.JCTs[0], 300+iter13b) {
		t.Errorf("exact: JCTs %v, want [%v] (overhead + one iteration)", res.JCTs, 300+iter13b)
	}
	ar := baseConfig(t, Artifact, 10)
	res, err = Run(context.Background(), ar, p(), oneJob(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.JCTs) != 1 || res.JCTs[0] != 300 {
		t.Errorf("artifact: JCTs %v, want [300] (0 iterations, ends in round 1)", res.JCTs)
	}
}

// TestOverheadCostMemo: the engine's memo of the overhead model gives
// Overhead.Cost for every change kind and GPU count, on first use and
// from the memo, within its range and past it (a self-check against Cost;
// fails if the memo is keyed by the count alone or by the kind alone).
func TestOverheadCostMemo(t *testing.T) {
	ov := Overhead{Fixed: 5, PerGPU: 10, Cap: 300, ByGPUs: map[int]Duration{1: 3, 8: 40},
		Actions: map[Change]Overhead{Migration: {Fixed: 7}, Resize: {PerGPU: 2}}}
	e := &engine{cfg: Config{Overhead: ov}}
	for range 2 {
		for c := FirstStart; c <= Migration; c++ {
			for n := 0; n <= costMemoGPUs+10; n++ {
				if got, want := e.overheadCost(c, n), ov.Cost(c, n); got != want {
					t.Fatalf("%v onto %d GPUs: memo %v, Cost %v", c, n, got, want)
				}
			}
		}
	}
}
