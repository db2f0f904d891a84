package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
)

// randomPolicy proposes random, often invalid, batches of actions. Each
// batch is judged by oracleVerdict (an independent model of the rules of
// DESIGN.md "Engine semantics", written from the rules, not from the
// engine's code). An invalid batch is handed to the engine's validator
// (probe) directly, which must reject it with an *ActionError naming the
// job the oracle names and change nothing; the first valid batch of the
// round is returned to the engine, which must accept it (else the run
// fails). The invariant checker runs after every event.
type randomPolicy struct {
	rt      *rapid.T
	exec    estimator.Estimator
	probe   func([]Action, []*Job) error
	state   func() string // a fingerprint of the engine's state
	rounds  int
	valid   int // non-empty valid batches
	invalid int
	// spread: grids start at a random node and take every first, second
	// or third node (jobs then span racks and share uplinks).
	spread bool
}

func (p *randomPolicy) Name() string { return "random" }

func (p *randomPolicy) Schedule(v *View) ([]Action, error) {
	p.rounds++
	for try := 0; try < 4; try++ {
		batch := p.batch(v)
		bad, msg := oracleVerdict(v, p.exec, batch)
		if bad == nil {
			if len(batch) > 0 {
				p.valid++
			}
			return batch, nil
		}
		p.invalid++
		before := p.state()
		err := p.probe(batch, v.Arrivals)
		var ae *ActionError
		if !errors.As(err, &ae) {
			p.rt.Fatalf("round %d: batch %v is invalid (%s: job %d) but the engine said %v", v.Round, batch, msg, *bad, err)
		}
		if ae.Action.Job != *bad || ae.Policy != "random" || !strings.Contains(ae.Error(), "job ") {
			p.rt.Fatalf("round %d: batch %v: the engine blamed job %d (%v), the oracle job %d (%s)", v.Round, batch, ae.Action.Job, err, *bad, msg)
		}
		if after := p.state(); after != before {
			p.rt.Fatalf("round %d: a rejected batch changed the engine's state", v.Round)
		}
	}
	return nil, nil
}

// batch draws 0–4 actions: mostly plausible (a pending job on free,
// grid-shaped GPUs; a running job suspended or moved), sometimes not
// (finished or unknown jobs, random slots, repeated slots).
func (p *randomPolicy) batch(v *View) []Action {
	n := rapid.IntRange(0, 4).Draw(p.rt, "n")
	nJobs := len(v.jobs)
	var out []Action
	for range n {
		var a Action
		switch rapid.IntRange(0, 9).Draw(p.rt, "pick") {
		case 0: // any job id, even out of range, any kind (4 is none)
			a.Job = JobID(rapid.IntRange(-1, nJobs).Draw(p.rt, "job"))
			a.Kind = ActionKind(rapid.IntRange(0, 4).Draw(p.rt, "kind"))
		case 1, 2, 3, 4, 5:
			pend := append(slices.Clone(v.Pending), v.Arrivals...)
			if len(pend) == 0 {
				continue
			}
			a.Job = pend[rapid.IntRange(0, len(pend)-1).Draw(p.rt, "pj")].Spec.ID
			a.Kind = []ActionKind{Start, Start, Start, Start, Start, Drop, Suspend}[rapid.IntRange(0, 6).Draw(p.rt, "pk")]
		default:
			if len(v.Running) == 0 {
				continue
			}
			a.Job = v.Running[rapid.IntRange(0, len(v.Running)-1).Draw(p.rt, "rj")].Spec.ID
			a.Kind = []ActionKind{Reallocate, Reallocate, Suspend, Start, Drop}[rapid.IntRange(0, 4).Draw(p.rt, "rk")]
		}
		if a.Kind == Start || a.Kind == Reallocate {
			a.GPUs = p.gpus(v)
		}
		out = append(out, a)
	}
	return out
}

// gpus draws a GPU set: usually a grid on free slots of one type
// (nodes × per-node), else random slots (repeats and out-of-range ones
// included).
func (p *randomPolicy) gpus(v *View) []int {
	c := v.Cluster
	if rapid.IntRange(0, 3).Draw(p.rt, "shape") == 0 {
		k := rapid.IntRange(1, 4).Draw(p.rt, "k")
		out := make([]int, k)
		for i := range out {
			out[i] = rapid.IntRange(-1, c.NumSlots()).Draw(p.rt, "slot")
		}
		return out
	}
	gpu := c.Types[rapid.IntRange(0, len(c.Types)-1).Draw(p.rt, "type")]
	perNode := []int{1, 2, 4}[rapid.IntRange(0, 2).Draw(p.rt, "per")]
	nodes := rapid.IntRange(1, 2).Draw(p.rt, "nodes")
	var out []int
	order := c.NodesOfType(gpu)
	if p.spread {
		off := rapid.IntRange(0, len(order)-1).Draw(p.rt, "off")
		stride := rapid.IntRange(1, 3).Draw(p.rt, "stride")
		var o []int
		for i := 0; i < len(order); i++ {
			o = append(o, order[(off+i*stride)%len(order)])
		}
		order = o
	}
	for _, ni := range order {
		if len(out) == nodes*perNode {
			break
		}
		node := c.Nodes[ni]
		var free []int
		for s := node.FirstSlot; s < node.FirstSlot+node.Capacity; s++ {
			if v.Occupant[s] == NoJob {
				free = append(free, s)
			}
		}
		if len(free) >= perNode {
			out = append(out, free[:perNode]...)
		}
	}
	if len(out) == 0 {
		out = []int{c.Nodes[c.NodesOfType(gpu)[0]].FirstSlot}
	}
	return out
}

// oracleVerdict decides a batch from the rules: actions apply in order to
// each job's status (start and drop need a pending job, reallocate and
// suspend a running one); the GPUs of a start or reallocation must be
// distinct slots of one type, the same number on each node used, and a
// grid the estimator finds feasible; and on the batch's final state no
// GPU may be held twice (so a swap within a batch is fine). It returns the
// job the first broken rule concerns, or nil.
func oracleVerdict(v *View, exec estimator.Estimator, batch []Action) (*JobID, string) {
	status := map[JobID]Status{}
	final := map[JobID][]int{}
	var touched []JobID
	for _, a := range batch {
		id := a.Job
		if id < 0 || int(id) >= len(v.jobs) {
			return &id, "no such job"
		}
		st, ok := status[id]
		if !ok {
			st = v.Job(id).Status
			final[id] = slices.Clone(v.Job(id).GPUs)
			touched = append(touched, id)
		}
		need := map[ActionKind]Status{Start: Pending, Reallocate: Running, Suspend: Running, Drop: Pending}
		want, known := need[a.Kind]
		if !known {
			return &id, "unknown kind"
		}
		if st != want {
			return &id, fmt.Sprintf("%s of a %s job", a.Kind, st)
		}
		switch a.Kind {
		case Start, Reallocate:
			status[id], final[id] = Running, a.GPUs
			if msg := oracleShape(v, exec, id, a.GPUs); msg != "" {
				return &id, msg
			}
		case Suspend:
			status[id], final[id] = Pending, nil
		case Drop:
			status[id], final[id] = Dropped, nil
		}
	}
	occ := slices.Clone(v.Occupant)
	for _, id := range touched {
		for s, o := range occ {
			if o == id {
				occ[s] = NoJob
			}
		}
	}
	for _, id := range touched {
		for _, s := range final[id] {
			if occ[s] != NoJob {
				return &id, fmt.Sprintf("GPU %d held twice", s)
			}
			occ[s] = id
		}
	}
	return nil, ""
}

func oracleShape(v *View, exec estimator.Estimator, id JobID, gpus []int) string {
	c := v.Cluster
	if len(gpus) == 0 {
		return "no GPUs"
	}
	perNode := map[int]int{}
	seen := map[int]bool{}
	gpu := ""
	for _, s := range gpus {
		if s < 0 || s >= c.NumSlots() || seen[s] {
			return "slot out of range or repeated"
		}
		seen[s] = true
		n := c.NodeOf(s)
		if gpu == "" {
			gpu = c.Nodes[n].GPU
		} else if c.Nodes[n].GPU != gpu {
			return "mixed GPU types"
		}
		perNode[n]++
	}
	q := perNode[c.NodeOf(gpus[0])]
	for _, k := range perNode {
		if k != q {
			return "uneven nodes"
		}
	}
	cfg := estimator.Config{GPU: gpu, Nodes: len(perNode), PerNode: q}
	if !exec.Estimate(v.Job(id).Spec.Workload, cfg).Feasible() {
		return "infeasible grid"
	}
	return ""
}

// TestRandomActionsProperty runs the random policy for 150 rounds per case
// (about 40 cases: thousands of decisions, each with up to four batches
// judged) in both timing modes, with the invariant checker on.
func TestRandomActionsProperty(t *testing.T) {
	steps, valid, invalid := 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		timing := []Timing{Exact, Artifact}[rapid.IntRange(0, 1).Draw(rt, "timing")]
		cfg := DefaultConfig(testCluster(t), optimal(t))
		cfg.IterationScale = 5
		cfg.Timing, cfg.Rounds, cfg.Check = timing, 150, true
		cfg.Overhead = Overhead{PerGPU: 10, Cap: 40}
		models := []string{"gpt-1.3b", "gpt-2.6b", "moe-1.3b"}
		var specs []JobSpec
		for i := range rapid.IntRange(1, 14).Draw(rt, "jobs") {
			m, err := estimator.ParseModel(models[rapid.IntRange(0, len(models)-1).Draw(rt, "model")])
			if err != nil {
				rt.Fatal(err)
			}
			specs = append(specs, JobSpec{
				ID: JobID(i), Name: fmt.Sprintf("r%d", i), Submit: Time(rapid.IntRange(0, 20000).Draw(rt, "submit")),
				Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(rapid.IntRange(50, 20000).Draw(rt, "iters")),
				GPU: "a100", GPUs: 2,
			})
		}
		p := &randomPolicy{rt: rt, exec: cfg.Exec}
		e, err := newEngine(cfg, p, specs)
		if err != nil {
			rt.Fatal(err)
		}
		p.probe = func(batch []Action, arrivals []*Job) error {
			_, err := e.apply(batch, arrivals)
			return err
		}
		p.state = func() string {
			var b strings.Builder
			fmt.Fprint(&b, e.occupant, len(e.runq.jobs), len(e.pendq.jobs))
			for _, j := range e.jobs {
				fmt.Fprint(&b, j.Status, j.GPUs, j.Remaining)
			}
			return b.String()
		}
		if _, err := e.run(context.Background()); err != nil {
			rt.Fatalf("%s timing: the engine rejected an oracle-valid batch or broke an invariant: %v", timing, err)
		}
		steps, valid, invalid = steps+p.rounds, valid+p.valid, invalid+p.invalid
	})
	t.Logf("%d decisions, %d non-empty valid batches accepted, %d invalid batches rejected", steps, valid, invalid)
	if valid == 0 || invalid == 0 {
		t.Errorf("degenerate generator: %d valid, %d invalid batches", valid, invalid)
	}
}
