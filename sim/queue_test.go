package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/arena-sim/arena/estimator"
)

// The tests of the engine's job queues (queue.go) check them against a
// naive model, an ordered slice from which a job leaving is deleted in
// place (slices.Delete): no test here is a golden.

// TestJobQueueMatchesNaiveModel: random interleavings of pushes, lazy
// removals (any job, several per batch, a job removed and pushed again in
// one batch), compactions and renumberings (the ticket counter started
// near its bound) leave the queue, after each compaction, equal to the
// naive model, every job findable at its model position, the tickets
// increasing and each the one its job holds (so find's binary search, not
// its fallback scan, finds it).
func TestJobQueueMatchesNaiveModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		jobs := make([]Job, 40)
		for i := range jobs {
			jobs[i].Spec = &JobSpec{ID: JobID(i)}
		}
		q := jobQueue{ticketOf: func(j *Job) *int32 { return &j.qpos }}
		q.next = int32(maxTicket - rapid.IntRange(0, 60).Draw(rt, "headroom"))
		var model []*Job
		in := map[*Job]bool{}
		for range rapid.IntRange(1, 200).Draw(rt, "steps") {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0: // a job not in the queue joins its end
				j := &jobs[rapid.IntRange(0, len(jobs)-1).Draw(rt, "push")]
				if in[j] {
					continue
				}
				q.push(j)
				model = append(model, j)
				in[j] = true
			case 1: // a job in the queue leaves (lazily)
				if len(model) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(model)-1).Draw(rt, "remove")
				j := model[i]
				if !q.remove(j) {
					rt.Fatalf("job %d is in the queue but remove did not find it", j.Spec.ID)
				}
				model = slices.Delete(model, i, i+1)
				in[j] = false
			case 2:
				q.compact()
				if !slices.Equal(q.jobs, model) {
					rt.Fatalf("queue %v, model %v", ids(q.jobs), ids(model))
				}
				if !slices.IsSorted(q.seq) || len(q.seq) != len(q.jobs) {
					rt.Fatalf("tickets %v not increasing or not one per job", q.seq)
				}
				for i, j := range model {
					if q.seq[i] != j.qpos {
						rt.Fatalf("position %d: ticket %d kept, job %d holds %d", i, q.seq[i], j.Spec.ID, j.qpos)
					}
					if p := q.find(j); p != i {
						rt.Fatalf("job %d found at %d, is at %d", j.Spec.ID, p, i)
					}
				}
			}
		}
		q.compact()
		if !slices.Equal(q.jobs, model) {
			rt.Fatalf("queue %v, model %v", ids(q.jobs), ids(model))
		}
	})
}

func ids(js []*Job) []JobID {
	out := make([]JobID, len(js))
	for i, j := range js {
		out[i] = j.Spec.ID
	}
	return out
}

// queueModelPolicy wraps randomPolicy and keeps its own model of the two
// queues from the rules (DESIGN.md "Engine semantics"): a start moves a
// job to the running queue's end, a suspension to the pending queue's
// end, a drop or an end takes it out, a reallocation keeps its place, and
// the arrivals neither started nor dropped join the pending queue's end
// after the batch, in arrival order. Each decision's View must show
// exactly the modelled queues.
type queueModelPolicy struct {
	*randomPolicy
	running, pending []JobID
	checked          int
	numJobs          int // the trace's jobs: View.NumJobs must say so
}

func (p *queueModelPolicy) Schedule(v *View) ([]Action, error) {
	for _, j := range v.Ended {
		p.running = slices.DeleteFunc(p.running, func(id JobID) bool { return id == j.Spec.ID })
	}
	if got := ids(v.Running); !slices.Equal(got, p.running) {
		p.rt.Fatalf("round %d: View.Running %v, model %v", v.Round, got, p.running)
	}
	if got := ids(v.Pending); !slices.Equal(got, p.pending) {
		p.rt.Fatalf("round %d: View.Pending %v, model %v", v.Round, got, p.pending)
	}
	if v.NumJobs() != p.numJobs {
		p.rt.Fatalf("round %d: View.NumJobs %d, the trace has %d jobs", v.Round, v.NumJobs(), p.numJobs)
	}
	p.checked++
	batch, err := p.randomPolicy.Schedule(v)
	if err != nil {
		return nil, err
	}
	del := func(q []JobID, id JobID) []JobID {
		return slices.DeleteFunc(q, func(x JobID) bool { return x == id })
	}
	placed := map[JobID]bool{} // arrivals the batch started, dropped or suspended
	for _, a := range batch {
		switch a.Kind {
		case Start:
			p.pending = del(p.pending, a.Job)
			p.running = append(p.running, a.Job)
			placed[a.Job] = true
		case Suspend:
			p.running = del(p.running, a.Job)
			p.pending = append(p.pending, a.Job)
			placed[a.Job] = true
		case Drop:
			p.pending = del(p.pending, a.Job)
			placed[a.Job] = true
		}
	}
	for _, j := range v.Arrivals {
		if !placed[j.Spec.ID] {
			p.pending = append(p.pending, j.Spec.ID)
		}
	}
	return batch, nil
}

// TestQueuesFollowNaiveModel runs random batches of starts, suspensions,
// drops and reallocations, with jobs ending between decisions, in both
// timing modes, and checks the View's queues against queueModelPolicy's
// model at every decision.
func TestQueuesFollowNaiveModel(t *testing.T) {
	checked := 0
	rapid.Check(t, func(rt *rapid.T) {
		timing := []Timing{Exact, Artifact}[rapid.IntRange(0, 1).Draw(rt, "timing")]
		cfg := DefaultConfig(testCluster(t), optimal(t))
		cfg.IterationScale = 5
		cfg.Timing, cfg.Rounds, cfg.Check = timing, 150, true
		models := []string{"gpt-1.3b", "gpt-2.6b", "moe-1.3b"}
		var specs []JobSpec
		for i := range rapid.IntRange(1, 14).Draw(rt, "jobs") {
			m, err := estimator.ParseModel(models[rapid.IntRange(0, len(models)-1).Draw(rt, "model")])
			if err != nil {
				rt.Fatal(err)
			}
			specs = append(specs, JobSpec{
				ID: JobID(i), Name: fmt.Sprintf("q%d", i), Submit: Time(rapid.IntRange(0, 20000).Draw(rt, "submit")),
				Workload: estimator.Workload{Model: m, Batch: 128}, Iterations: int64(rapid.IntRange(50, 20000).Draw(rt, "iters")),
				GPU: "a100", GPUs: 2,
			})
		}
		inner := &randomPolicy{rt: rt, exec: cfg.Exec}
		p := &queueModelPolicy{randomPolicy: inner, numJobs: len(specs)}
		e, err := newEngine(cfg, p, specs)
		if err != nil {
			rt.Fatal(err)
		}
		inner.probe = func(batch []Action, arrivals []*Job) error {
			_, err := e.apply(batch, arrivals)
			return err
		}
		inner.state = func() string { return fmt.Sprint(ids(e.runq.jobs), ids(e.pendq.jobs)) }
		if _, err := e.run(context.Background()); err != nil {
			rt.Fatalf("%s timing: %v", timing, err)
		}
		checked += p.checked
	})
	if checked == 0 {
		t.Fatal("no decision checked")
	}
}
