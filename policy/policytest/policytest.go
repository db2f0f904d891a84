// Package policytest is the conformance suite every scheduling policy's
// tests call, built-in or not, in Go or behind policy/exec:
//
//	func TestConformance(t *testing.T) {
//		policytest.Run(t, policy.NewRegistry(), "fcfs")
//	}
//
// It runs the policy, with the engine's invariant checker on, on small
// hand-built clusters and traces and checks that
//   - every run completes without an engine rejection or invariant
//     violation (no GPU held twice, feasible grids, every job accounted for);
//   - two runs of fresh instances give identical job records and per-round
//     digests (determinism);
//   - the policy does not modify what the View shares with the engine: the
//     Jobs (state and spec) and the Cluster (the View's slices are the
//     policy's own copies, which sim.View allows it to sort or edit);
//   - an empty cluster (no GPU at all), a cluster with no GPU of the
//     requested type, and jobs larger than any node or than the whole
//     cluster are handled (no error, no crash, nothing impossible started);
//   - a minimum workload — a few small jobs on an idle cluster — all finish
//     within the horizon (a policy that never starts anything fails);
//   - faults (exact timing; in artifact timing the rule checks that the
//     engine refuses them, naming exact timing):
//     nodes failing under running jobs and coming back, and drains with a
//     notice, with checkpoints on — every job still finishes, no job is
//     started on a node that is down or draining (the engine refuses it,
//     the checker asserts lost work and unavailable slots); and jobs
//     failing on their own (sim.JobFailures) with retries — every job
//     finishes or is given up, none is left waiting.
//
// The traces use workloads of the artifact's profile database on the
// testbed's GPU types (a40, a10), so any policy deciding with the built-in
// estimator has data for them. Each case is a subtest named after the rule
// it checks.
package policytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/estimator/analytic"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Run checks the policy named by the policy string p (a name, options, or
// exec:COMMAND) as reg builds it: each case is a subtest
// (<timing>/<rule>) that fails with the case's violations.
func Run(t *testing.T, reg *registry.Registry, p string) {
	t.Helper()
	name, overhead, newPolicy, err := Factory(reg, p)
	if err != nil {
		t.Fatal(err)
	}
	RunFactory(t, name, overhead, newPolicy)
}

// Factory resolves the policy string p in reg into what the suite runs: the
// canonical name, the overhead of its class in the artifact profile, and a
// constructor of fresh instances with p's options.
func Factory(reg *registry.Registry, p string) (string, sim.Overhead, func(registry.Options) (sim.Policy, error), error) {
	spec, err := reg.Parse(p)
	if err != nil {
		return "", sim.Overhead{}, nil, err
	}
	overhead, err := registry.Options{}.Resolve(spec.Entry.Overhead)
	if err != nil {
		return "", sim.Overhead{}, nil, fmt.Errorf("%s: overhead class %s: %w", spec, spec.Entry.Overhead, err)
	}
	return spec.String(), overhead, func(o registry.Options) (sim.Policy, error) {
		o.Values = spec.Values
		return spec.Entry.New(o)
	}, nil
}

// RunFactory checks the policies newPolicy builds (one per run), charged
// overhead (resolved, e.g. from the artifact profile); name labels failures.
func RunFactory(t *testing.T, name string, overhead sim.Overhead, newPolicy func(registry.Options) (sim.Policy, error)) {
	t.Helper()
	h, err := newHarness(name, overhead, newPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for _, timing := range Timings {
		t.Run(timing.String(), func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					for _, err := range c.Check(h, timing) {
						t.Error(err)
					}
				})
			}
		})
	}
}

// Timings are the timing modes every case runs in, in order.
var Timings = []sim.Timing{sim.Exact, sim.Artifact}

// Verdict is the outcome of one case of the suite: a rule in one timing
// mode, and its violations (none: the case passed).
type Verdict struct {
	Timing sim.Timing
	Rule   string
	Errs   []error
}

// Passed reports whether the case found no violation.
func (v Verdict) Passed() bool { return len(v.Errs) == 0 }

// Cases is the number of cases Check runs: every rule in every timing.
func Cases() int { return len(cases) * len(Timings) }

// Check runs the suite outside `go test` (arena policies check): every rule
// in every timing mode, in the order Run runs them, calling report with
// each case's verdict as soon as it is known. It returns the verdicts; an
// error only when the suite could not start (the estimator's data).
func Check(name string, overhead sim.Overhead, newPolicy func(registry.Options) (sim.Policy, error), report func(Verdict)) ([]Verdict, error) {
	h, err := newHarness(name, overhead, newPolicy)
	if err != nil {
		return nil, err
	}
	var out []Verdict
	for _, timing := range Timings {
		for _, c := range cases {
			v := Verdict{Timing: timing, Rule: c.Name, Errs: c.Check(h, timing)}
			out = append(out, v)
			if report != nil {
				report(v)
			}
		}
	}
	return out, nil
}

func newHarness(name string, overhead sim.Overhead, newPolicy func(registry.Options) (sim.Policy, error)) (*harness, error) {
	src, err := estimator.DefaultProfileDB()
	if err != nil {
		return nil, err
	}
	return &harness{name: name, overhead: overhead, newPolicy: newPolicy, src: src}, nil
}

// rule is one rule of the suite; Check returns its violations.
type rule struct {
	Name  string
	Check func(h *harness, timing sim.Timing) []error
}

// cases are the suite's rules, in the order they run.
var cases = []rule{
	{"minimum workload finishes under the checker", func(h *harness, timing sim.Timing) []error {
		res, err := h.run(twoTypes, minimumWorkload(), timing, 60, 0)
		if err != nil {
			return []error{err}
		}
		if fin := finished(res); fin != len(minimumWorkload()) {
			return []error{fmt.Errorf("%d of %d small jobs finished within 60 rounds on an idle 16-GPU cluster", fin, len(minimumWorkload()))}
		}
		return nil
	}},
	{"deterministic", func(h *harness, timing sim.Timing) []error {
		a, err := h.run(twoTypes, mixedWorkload(), timing, 80, 0)
		if err != nil {
			return []error{err}
		}
		b, err := h.run(twoTypes, mixedWorkload(), timing, 80, 0)
		if err != nil {
			return []error{err}
		}
		if !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Digest, b.Digest) {
			return []error{errors.New("two runs of fresh instances on the same input differ")}
		}
		return nil
	}},
	{"does not modify the view", func(h *harness, timing sim.Timing) []error {
		_, err := h.run(twoTypes, mixedWorkload(), timing, 80, watch)
		return unjoin(err)
	}},
	{"jobs larger than any node or the cluster", func(h *harness, timing sim.Timing) []error {
		res, err := h.run(twoTypes, oversized(), timing, 60, 0)
		if err != nil {
			return []error{err}
		}
		for _, j := range res.Jobs {
			if j.Name == "whole-cluster-plus" && j.FirstStart >= 0 && j.FinalN > 8 {
				return []error{errors.New("a job on more GPUs than the cluster has started")}
			}
		}
		return nil
	}},
	{"gangs of any size (hybrid estimator)", func(h *harness, timing sim.Timing) []error {
		// 3 and 6 GPUs on nodes of 4 (best localities 1×3 and 2×3),
		// priced by the analytic model where the database has no entry;
		// each must start on a uniform grid (the checker) and finish.
		hy, err := hybridHarness(h)
		if err != nil {
			return []error{err}
		}
		res, err := hy.run(twoTypes, anySize(), timing, 80, 0)
		if err != nil {
			return []error{err}
		}
		if fin := finished(res); fin != len(anySize()) {
			return []error{fmt.Errorf("%d of %d jobs of 3 and 6 GPUs finished within 80 rounds on an idle cluster of 4-GPU nodes", fin, len(anySize()))}
		}
		return nil
	}},
	{"no GPU of the requested type", func(h *harness, timing sim.Timing) []error {
		_, err := h.run(oneSmallNode, minimumWorkload(), timing, 20, 0)
		return unjoin(err)
	}},
	{"nodes failing under running jobs", func(h *harness, timing sim.Timing) []error {
		if timing != sim.Exact {
			return refusesFaults(h)
		}
		evs := []sim.ClusterEvent{
			{Time: 30, Node: 0, Kind: sim.NodeDown, Cause: "gpu"},
			{Time: 700, Node: 2, Kind: sim.NodeDown, Cause: "network"},
			{Time: 900, Node: 0, Kind: sim.NodeUp},
			{Time: 1300, Node: 2, Kind: sim.NodeUp},
			{Time: 1500, Node: 1, Kind: sim.NodeDown, Cause: "gpu"},
			{Time: 1900, Node: 3, Kind: sim.NodeDown, Cause: "hbm"},
			{Time: 2600, Node: 1, Kind: sim.NodeUp},
			{Time: 3000, Node: 3, Kind: sim.NodeUp},
		}
		res, err := h.runFaults(twoTypes, minimumWorkload(), 80, evs, sim.Checkpoint{Interval: 120, Cost: 10, Restore: 30})
		if err != nil {
			return []error{err}
		}
		if fin := finished(res); fin != len(minimumWorkload()) {
			return []error{fmt.Errorf("%d of %d small jobs finished within 80 rounds with nodes failing and coming back", fin, len(minimumWorkload()))}
		}
		// Under load: a queue, preemptions and failures together.
		_, err = h.runFaults(twoTypes, mixedWorkload(), 120, evs, sim.Checkpoint{Interval: 600, Cost: 20, Restore: 60})
		return unjoin(err)
	}},
	{"jobs failing on their own", func(h *harness, timing sim.Timing) []error {
		if timing != sim.Exact {
			return refusesFaults(h)
		}
		// Failures every 10 minutes of running on average, two retries
		// from checkpoints every 2 minutes: some jobs restart, some are
		// given up; none may be left behind.
		res, err := h.runWith(twoTypes, minimumWorkload(), sim.Exact, 80, 0, func(cfg *sim.Config) {
			cfg.Checkpoint = sim.Checkpoint{Interval: 120, Cost: 5, Restore: 20}
			cfg.JobFailures = sim.JobFailures{MTBF: 600, Retries: 2, Seed: 1}
		})
		if err != nil {
			return []error{err}
		}
		var errs []error
		for _, j := range res.Jobs {
			if j.State != "finished" && j.State != "failed" {
				errs = append(errs, fmt.Errorf("job %s is %s after 80 rounds with jobs failing and restarting", j.Alias, j.State))
			}
		}
		if res.Faults == nil || res.Faults.Summary.Interruptions == 0 {
			errs = append(errs, errors.New("no job failed: the case tested nothing (its seed or rates changed)"))
		}
		return errs
	}},
	{"drain with notice", func(h *harness, timing sim.Timing) []error {
		if timing != sim.Exact {
			return refusesFaults(h)
		}
		// Nodes 0 (a40) and 2 (a10) drained at 300 s with 20 minutes'
		// notice, back at 5000 s; node 3 absent until 2000 s.
		evs := []sim.ClusterEvent{
			{Time: 300, Node: 0, Kind: sim.NodeDrain, Notice: 1200, Cause: "maintenance"},
			{Time: 300, Node: 2, Kind: sim.NodeReclaim, Notice: 1200, Cause: "spot"},
			{Time: 2000, Node: 3, Kind: sim.NodeAdd},
			{Time: 5000, Node: 0, Kind: sim.NodeUp},
			{Time: 5000, Node: 2, Kind: sim.NodeUp},
		}
		res, err := h.runFaults(twoTypes, minimumWorkload(), 80, evs, sim.Checkpoint{})
		if err != nil {
			return []error{err}
		}
		if fin := finished(res); fin != len(minimumWorkload()) {
			return []error{fmt.Errorf("%d of %d small jobs finished within 80 rounds with two nodes drained for 80 minutes", fin, len(minimumWorkload()))}
		}
		c, _ := sim.NewCluster(twoTypes)
		var errs []error
		for _, a := range res.Allocations {
			n := c.NodeOf(int(a.FirstSlot))
			if !((n == 0 || n == 2) && a.Start >= 300 && a.Start < 5000 || n == 3 && a.Start < 2000) {
				continue
			}
			kept := true
			for s := a.FirstSlot; s < a.FirstSlot+a.Slots; s++ {
				kept = kept && keptAt(res.Allocations, a.Job, s, a.Start)
			}
			if !kept {
				errs = append(errs, fmt.Errorf("job %d got GPUs of node %d at %v s, while it took no new job", a.Job, n, a.Start))
			}
		}
		return errs
	}},
	{"empty cluster", func(h *harness, timing sim.Timing) []error {
		res, err := h.run(sim.ClusterSpec{Name: "conformance-empty"}, minimumWorkload(), timing, 10, 0)
		if err != nil {
			return []error{err}
		}
		if n := finished(res); n > 0 {
			return []error{fmt.Errorf("%d jobs finished on a cluster without GPUs", n)}
		}
		return nil
	}},
}

// keptAt reports whether job held slot s until t (a holding ending at t):
// a new holding from t is then the same GPU kept.
func keptAt(allocs []sim.AllocRecord, job, s int32, t float64) bool {
	for _, a := range allocs {
		if a.Job == job && a.End == t && s >= a.FirstSlot && s < a.FirstSlot+a.Slots {
			return true
		}
	}
	return false
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Clusters of the suite.
var (
	// twoTypes: 2 nodes × 4 a40 and 2 nodes × 4 a10.
	twoTypes = sim.ClusterSpec{Name: "conformance-2x4a40-2x4a10", Pools: []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 4}, {GPU: "a10", Nodes: 2, GPUsPerNode: 4}}}
	// oneSmallNode: one node of 2 a40 and no a10 at all.
	oneSmallNode = sim.ClusterSpec{Name: "conformance-1x2a40", Pools: []sim.Pool{{GPU: "a40", Nodes: 1, GPUsPerNode: 2}}}
)

// job builds a spec from the testbed trace's vocabulary.
func job(id int, name string, submit float64, model string, iters int64, gpu string, n int) sim.JobSpec {
	m, err := estimator.ParseModel(model)
	if err != nil {
		panic(err)
	}
	return sim.JobSpec{ID: sim.JobID(id), Name: name, Submit: sim.Time(submit), Workload: estimator.Workload{Model: m, Batch: 256},
		Iterations: iters, GPU: gpu, GPUs: n}
}

// minimumWorkload: four small jobs, one every 10 minutes, each under half
// an hour of work on 1–4 GPUs of its type; each is feasible on its request
// in every estimator view (the DP memory filter included), so every policy
// can run them.
func minimumWorkload() []sim.JobSpec {
	return []sim.JobSpec{
		job(0, "small-a40-1", 0, "moe__690M", 100, "a40", 1),
		job(1, "small-a10-2", 600, "moe__690M", 100, "a10", 2),
		job(2, "small-a40-4", 1200, "bert__1.3B", 100, "a40", 4),
		job(3, "small-a10-4", 1800, "moe__1.3B", 100, "a10", 4),
	}
}

// mixedWorkload: twelve jobs arriving together and over time, more than
// the cluster holds at once, so the policy queues, and (if it does)
// preempts, resizes or moves.
func mixedWorkload() []sim.JobSpec {
	models := []string{"bert__760M", "moe__690M", "bert__1.3B", "moe__1.3B", "wide_resnet__1B", "bert__2.6B"}
	gpus := []int{1, 2, 4, 8, 2, 4}
	var out []sim.JobSpec
	for i := range 12 {
		gpu := "a40"
		if i%3 == 1 {
			gpu = "a10"
		}
		out = append(out, job(i, fmt.Sprintf("mixed-%02d", i), float64(300*(i/4)), models[i%len(models)], int64(400+200*(i%5)), gpu, gpus[i%len(gpus)]))
	}
	return out
}

// oversized: a job spanning both a40 nodes, one larger than the whole
// cluster, and small jobs around them.
func oversized() []sim.JobSpec {
	return []sim.JobSpec{
		job(0, "small-before", 0, "moe__690M", 100, "a40", 1),
		job(1, "two-nodes", 0, "bert__1.3B", 200, "a40", 8),
		job(2, "whole-cluster-plus", 300, "moe__1.3B", 200, "a10", 32),
		job(3, "small-after", 600, "moe__690M", 100, "a10", 2),
	}
}

// anySize: jobs whose counts are no power of two, two of them spanning
// both nodes of their type, one after the other.
func anySize() []sim.JobSpec {
	return []sim.JobSpec{
		job(0, "three", 0, "moe__690M", 100, "a40", 3),
		job(1, "six", 900, "moe__690M", 100, "a40", 6),
		job(2, "six-a10", 1800, "moe__690M", 100, "a10", 6),
	}
}

// hybridHarness is h deciding and executing with the hybrid estimator
// (the database's exact entries, the analytic model elsewhere), the way
// `--estimator hybrid` runs jobs the database does not cover.
func hybridHarness(h *harness) (*harness, error) {
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		return nil, err
	}
	an, err := analytic.DefaultSource()
	if err != nil {
		return nil, err
	}
	hy := *h
	hy.src = &analytic.Hybrid{DB: db, Analytic: an}
	return &hy, nil
}

func finished(r *sim.Result) int {
	n := 0
	for _, j := range r.Jobs {
		if j.Finish >= 0 {
			n++
		}
	}
	return n
}

type harness struct {
	name      string
	overhead  sim.Overhead
	newPolicy func(registry.Options) (sim.Policy, error)
	src       estimator.Source
}

type runOption int

const watch runOption = 1 // wrap the policy in the view-mutation watcher

// run builds a fresh policy and simulates jobs on cs with the checker on.
func (h *harness) run(cs sim.ClusterSpec, jobs []sim.JobSpec, timing sim.Timing, rounds int, opt runOption) (res *sim.Result, err error) {
	return h.runWith(cs, jobs, timing, rounds, opt, func(*sim.Config) {})
}

// refusesFaults is a fault rule in artifact timing: the engine refuses
// cluster events there (the artifact's rounds know none) with an error
// saying so, before the policy runs.
func refusesFaults(h *harness) []error {
	_, err := h.runWith(twoTypes, minimumWorkload(), sim.Artifact, 10, 0, func(cfg *sim.Config) {
		cfg.Events = []sim.ClusterEvent{{Time: 300, Node: 0, Kind: sim.NodeDown}}
	})
	if err == nil || !strings.Contains(err.Error(), "exact timing") {
		return []error{fmt.Errorf("cluster events in artifact timing: got %v, want the engine's refusal naming exact timing", err)}
	}
	return nil
}

// runFaults is run in exact timing with cluster events and a checkpoint
// model.
func (h *harness) runFaults(cs sim.ClusterSpec, jobs []sim.JobSpec, rounds int, evs []sim.ClusterEvent, ck sim.Checkpoint) (*sim.Result, error) {
	return h.runWith(cs, jobs, sim.Exact, rounds, 0, func(cfg *sim.Config) {
		cfg.Events, cfg.Checkpoint, cfg.FaultModel = evs, ck, true
	})
}

// runWith is run with the engine's configuration adjusted by set.
func (h *harness) runWith(cs sim.ClusterSpec, jobs []sim.JobSpec, timing sim.Timing, rounds int, opt runOption, set func(*sim.Config)) (res *sim.Result, err error) {
	c, err := sim.NewCluster(cs)
	if err != nil {
		return nil, err
	}
	p, err := h.newPolicy(registry.Options{Cluster: c, Source: h.src, Timing: timing, Overhead: h.overhead})
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", h.name, err)
	}
	if cl, ok := p.(io.Closer); ok {
		defer func() {
			if cerr := cl.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("closing %s: %w", h.name, cerr)
			}
		}()
	}
	var w *watcher
	if opt == watch {
		w = &watcher{inner: p}
		p = w
	}
	cfg := sim.DefaultConfig(c, h.src.View(estimator.ViewOptimal))
	cfg.Timing, cfg.Rounds, cfg.Check, cfg.Overhead = timing, rounds, true, h.overhead
	set(&cfg)
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("%s on %s (%s timing) panicked: %v", h.name, cs.Name, timing, r)
		}
	}()
	res, err = sim.Run(context.Background(), cfg, p, jobs)
	if err != nil {
		return nil, fmt.Errorf("%s on %s (%s timing): %w", h.name, cs.Name, timing, err)
	}
	if w != nil {
		if w.calls == 0 {
			return res, errors.New("the policy was never called")
		}
		return res, errors.Join(w.errs...)
	}
	return res, nil
}

// watcher snapshots each View before the policy sees it and compares
// after: a policy must treat the View as read-only.
type watcher struct {
	inner sim.Policy
	calls int
	errs  []error
}

func (w *watcher) Name() string { return w.inner.Name() }

// ReportsThroughput forwards the artifact-fidelity hook, so that wrapping
// changes nothing the engine computes.
func (w *watcher) ReportsThroughput(v *sim.View, j *sim.Job) bool {
	if r, ok := w.inner.(sim.ThroughputReporter); ok {
		return r.ReportsThroughput(v, j)
	}
	return true
}

// ReadsViewOnly forwards sim.ViewReader, so a policy that promises to
// leave the View alone is run on the engine's own slices here too (and
// Check mode holds it to the promise).
func (w *watcher) ReadsViewOnly() bool {
	r, ok := w.inner.(sim.ViewReader)
	return ok && r.ReadsViewOnly()
}

type viewSnapshot struct {
	jobs  map[sim.JobID]jobSnapshot
	nodes []sim.Node
}

type jobSnapshot struct {
	spec sim.JobSpec
	job  sim.Job // exported fields compared, GPUs copied
	gpus []int
}

func snapshotView(v *sim.View) viewSnapshot {
	s := viewSnapshot{jobs: map[sim.JobID]jobSnapshot{}, nodes: slices.Clone(v.Cluster.Nodes)}
	for _, list := range [][]*sim.Job{v.Running, v.Pending, v.Arrivals, v.Ended} {
		for _, j := range list {
			s.jobs[j.Spec.ID] = jobSnapshot{spec: *j.Spec, job: *j, gpus: slices.Clone(j.GPUs)}
		}
	}
	return s
}

func (w *watcher) Schedule(v *sim.View) ([]sim.Action, error) {
	w.calls++
	before := snapshotView(v)
	actions, err := w.inner.Schedule(v)
	after := snapshotView(v)
	diff := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) && len(w.errs) < 5 {
			w.errs = append(w.errs, fmt.Errorf("round %d: the policy modified the View's %s", v.Round, what))
		}
	}
	// The View's slices are the policy's own copies (sim.View: it may sort
	// or edit them); the Jobs they point to and the Cluster are shared and
	// read-only.
	diff("Cluster nodes", before.nodes, after.nodes)
	for id, b := range before.jobs {
		a := after.jobs[id]
		diff(fmt.Sprintf("job %d spec", id), b.spec, a.spec)
		diff(fmt.Sprintf("job %d GPUs", id), b.gpus, a.gpus)
		bj, aj := b.job, a.job
		diff(fmt.Sprintf("job %d state", id),
			[]any{bj.Status, bj.Config, bj.SubmitTime, bj.IterNum, bj.Remaining, bj.ExecTime, bj.Deadline, bj.FirstStart, bj.Finish, bj.Reconfigs, bj.Rescheds, bj.TimeDebt, bj.QueueTime()},
			[]any{aj.Status, aj.Config, aj.SubmitTime, aj.IterNum, aj.Remaining, aj.ExecTime, aj.Deadline, aj.FirstStart, aj.Finish, aj.Reconfigs, aj.Rescheds, aj.TimeDebt, aj.QueueTime()})
	}
	return actions, err
}
