package regress

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/placement"
	"github.com/arena-sim/arena/sim"
)

// Gaming the default metric (issue 35). Honest SJF and four variants that
// win a JCT figure by neglecting work, each run on a small synthesised
// workload at a short and a long horizon over several seeds. Each variant
// must lose to honest SJF on the default comparison metric or be flagged
// ⚠ (sim.Summary.Neglects). Before the charge (unfinished jobs at their age
// alone, ⚠ only for drops and a queue left on an idle cluster) the
// abandoning and starving variants beat honest SJF unflagged, and
// starting every job small gave the best bounded slowdown.

// sjf is non-preemptive shortest-job-first on the jobs' requests: every
// decision it orders the waiting jobs by their run time on their request
// (remaining iterations × the request's iteration time at the best
// locality) and starts each that fits, on its requested GPU type and
// count. The variants change which jobs it starts and how.
type sjf struct {
	name string
	est  estimator.Estimator
	// horizon: the run's end (abandon only).
	horizon sim.Time
	// abandon: never start a job that cannot finish before the horizon,
	// unless nothing would run otherwise (it keeps one job running, so the
	// cluster is never left idle with a queue).
	abandon bool
	// big: the jobs starve never starts and dropBig drops on arrival.
	big            map[sim.JobID]bool
	starve, drop   bool
	small          bool // start every job on its smallest feasible grid
	requestedIters func(j *sim.Job) float64
}

func (p *sjf) Name() string { return p.name }

func (p *sjf) runTime(c *sim.Cluster, j *sim.Job) float64 {
	return float64(j.Remaining) * p.est.Estimate(j.Spec.Workload, placement.Best(c, j.Spec.GPU, j.Spec.GPUs)).IterTime
}

func (p *sjf) Schedule(v *sim.View) ([]sim.Action, error) {
	var acts []sim.Action
	var waiting []*sim.Job
	for _, j := range v.Arrivals {
		if p.drop && p.big[j.Spec.ID] {
			acts = append(acts, sim.Action{Kind: sim.Drop, Job: j.Spec.ID, Reason: "big"})
			continue
		}
		waiting = append(waiting, j)
	}
	waiting = append(waiting, v.Pending...)
	rt := make(map[sim.JobID]float64, len(waiting))
	for _, j := range waiting {
		rt[j.Spec.ID] = p.runTime(v.Cluster, j)
	}
	sort.SliceStable(waiting, func(a, b int) bool {
		ra, rb := rt[waiting[a].Spec.ID], rt[waiting[b].Spec.ID]
		if ra != rb {
			return ra < rb
		}
		return waiting[a].Spec.ID < waiting[b].Spec.ID
	})
	table := placement.FromView(v)
	running := len(v.Running)
	for _, j := range waiting {
		if p.starve && p.big[j.Spec.ID] {
			continue
		}
		if p.abandon && running > 0 && float64(v.Now)+rt[j.Spec.ID] > float64(p.horizon) {
			continue
		}
		cfg := placement.Best(v.Cluster, j.Spec.GPU, j.Spec.GPUs)
		if p.small {
			for n := 1; n <= j.Spec.GPUs; n *= 2 {
				if c := placement.Best(v.Cluster, j.Spec.GPU, n); p.est.Estimate(j.Spec.Workload, c).Feasible() {
					cfg = c
					break
				}
			}
		}
		if slots, ok := table.PlaceMostFree(j.Spec.ID, cfg); ok {
			acts = append(acts, sim.Action{Kind: sim.Start, Job: j.Spec.ID, GPUs: slots})
			running++
		}
	}
	return acts, nil
}

// gamingCluster is 4 nodes of 4 A100s.
func gamingCluster(t *testing.T) *sim.Cluster {
	t.Helper()
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "gaming-16", Pools: []sim.Pool{{GPU: "a100", Nodes: 4, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gamingJobs synthesises 100 jobs for seed: Poisson arrivals over 40 h
// (the first at 0), gpt-760m/128 or moe-690m/256, 1, 2 or 4 A100s (half,
// 30 %, 20 %), run times on the request log-uniform in [10 min, 20 h]:
// about 3 M GPU-seconds, 1.3 × the cluster's 16 GPUs over the 40 h.
func gamingJobs(t *testing.T, seed uint64, est estimator.Estimator, c *sim.Cluster) []sim.JobSpec {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 35))
	var ws []estimator.Workload
	for _, m := range []struct {
		name  string
		batch int
	}{{"gpt-760m", 128}, {"moe-690m", 256}} {
		model, err := estimator.ParseModel(m.name)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, estimator.Workload{Model: model, Batch: m.batch})
	}
	const n, window = 100, 40 * 3600.0
	jobs := make([]sim.JobSpec, n)
	at := 0.0
	for i := range jobs {
		w := ws[rng.IntN(len(ws))]
		gpus := 1
		switch u := rng.Float64(); {
		case u > 0.8:
			gpus = 4
		case u > 0.5:
			gpus = 2
		}
		run := 600 * math.Exp(rng.Float64()*math.Log(120))
		it := est.Estimate(w, placement.Best(c, "a100", gpus)).IterTime
		jobs[i] = sim.JobSpec{ID: sim.JobID(i), Name: fmt.Sprint("g", i), Submit: sim.Time(at), Workload: w,
			Iterations: max(1, int64(run/it)), GPU: "a100", GPUs: gpus}
		at += rng.ExpFloat64() * window / n
	}
	return jobs
}

// biggest are the jobs whose work (GPU-seconds on their request) is among
// the largest share of them.
func biggest(jobs []sim.JobSpec, est estimator.Estimator, c *sim.Cluster, share float64) map[sim.JobID]bool {
	work := make([]float64, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		work[i] = float64(j.Iterations) * est.Estimate(j.Workload, placement.Best(c, j.GPU, j.GPUs)).IterTime * float64(j.GPUs)
	}
	sorted := slices.Clone(work)
	sort.Float64s(sorted)
	cut := sorted[int(float64(len(sorted))*(1-share))]
	big := map[sim.JobID]bool{}
	for i, w := range work {
		if w >= cut {
			big[jobs[i].ID] = true
		}
	}
	return big
}

type gamingOutcome struct {
	variant string
	rounds  int
	runs    []sim.Summary // by seed
}

// runGaming runs every variant at each horizon over the seeds.
func runGaming(t *testing.T) (honest map[int][]sim.Summary, variants []gamingOutcome) {
	t.Helper()
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	est := db.View(estimator.ViewOptimal)
	c := gamingCluster(t)
	seeds := []uint64{1, 2, 3, 4, 5}
	names := []string{"abandon", "starve", "drop-big", "start-small"}
	honest = map[int][]sim.Summary{}
	for _, rounds := range []int{60, 400} { // 5 h and 33 h 20 min
		outs := make([]gamingOutcome, len(names))
		for _, seed := range seeds {
			jobs := gamingJobs(t, seed, est, c)
			big := biggest(jobs, est, c, 0.26)
			cfg := sim.DefaultConfig(c, est)
			cfg.Timing, cfg.Rounds = sim.Exact, rounds
			cfg.Overhead = sim.Overhead{PerGPU: 30, Cap: 120}
			horizon := sim.Time(float64(rounds) * float64(cfg.RoundLength))
			pols := []*sjf{
				{name: "sjf"},
				{name: "abandon", abandon: true},
				{name: "starve", starve: true},
				{name: "drop-big", drop: true},
				{name: "start-small", small: true},
			}
			for i, p := range pols {
				p.est, p.horizon, p.big = est, horizon, big
				res, err := sim.Run(context.Background(), cfg, p, jobs)
				if err != nil {
					t.Fatalf("%s seed %d: %v", p.name, seed, err)
				}
				s := res.Summarize("gaming", len(jobs), "profiledb")
				if i == 0 {
					honest[rounds] = append(honest[rounds], s)
					continue
				}
				outs[i-1].variant, outs[i-1].rounds = p.name, rounds
				outs[i-1].runs = append(outs[i-1].runs, s)
			}
		}
		variants = append(variants, outs...)
	}
	return honest, variants
}

// pairedChange is the mean over seeds of (v − h)/h with its 95 %
// Student-t interval (4 degrees of freedom for 5 seeds: t = 2.776).
func pairedChange(v, h []float64) (mean, lo, hi float64) {
	d := make([]float64, len(v))
	for i := range v {
		d[i] = (v[i] - h[i]) / h[i]
		mean += d[i]
	}
	mean /= float64(len(d))
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	half := 2.776 * math.Sqrt(ss/float64(len(d)-1)/float64(len(d)))
	return mean, mean - half, mean + half
}

// TestGamingLosesToHonestSJF: every gaming variant, at each horizon, has a
// higher default metric than honest SJF (mean paired change over the
// seeds > 0), or is flagged ⚠ in some seed; honest SJF itself is never
// flagged. (The table it logs adds the same comparison on the previous,
// age-only charge, the throughput ratio and the bounded slowdowns.)
func TestGamingLosesToHonestSJF(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs")
	}
	honest, variants := runGaming(t)
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %6s  %-28s %-28s %-10s %-8s %s\n", "variant", "rounds", "default metric vs honest SJF", "age-only (old) charge", "thr ratio", "⚠ seeds", "bounded slowdown (honest)")
	for _, o := range variants {
		h := honest[o.rounds]
		var vs, hs, thr, olds, oldh []float64
		var bs, bh float64
		flagged := 0
		for i := range o.runs {
			bs += o.runs[i].MeanBoundedSlowdown / float64(len(o.runs))
			bh += h[i].MeanBoundedSlowdown / float64(len(o.runs))
			olds = append(olds, o.runs[i].SubmittedMeanAgeJCT)
			oldh = append(oldh, h[i].SubmittedMeanAgeJCT)
			vs = append(vs, o.runs[i].ComparisonJCT())
			hs = append(hs, h[i].ComparisonJCT())
			thr = append(thr, o.runs[i].MeanThroughput/h[i].MeanThroughput)
			if o.runs[i].Neglects() {
				flagged++
			}
			if h[i].Neglects() {
				t.Errorf("honest SJF, %d rounds, seed %d: flagged ⚠ (%+v)", o.rounds, i+1, h[i])
			}
		}
		m, lo, hi := pairedChange(vs, hs)
		om, olo, ohi := pairedChange(olds, oldh)
		meanThr := 0.0
		for _, x := range thr {
			meanThr += x / float64(len(thr))
		}
		fmt.Fprintf(&table, "%-12s %6d  %+6.1f %% [%+.1f, %+.1f]%s %+6.1f %% [%+.1f, %+.1f]%s %.2f×      %d/%d      %.2f (%.2f)\n", o.variant, o.rounds,
			100*m, 100*lo, 100*hi, pad(m, lo, hi), 100*om, 100*olo, 100*ohi, pad(om, olo, ohi), meanThr, flagged, len(o.runs), bs, bh)
		if m <= 0 && flagged == 0 {
			t.Errorf("%s at %d rounds beats honest SJF on %s by %.1f %% [%.1f, %.1f] with %.2f× its throughput, unflagged",
				o.variant, o.rounds, sim.ComparisonJCTName, -100*m, -100*hi, -100*lo, meanThr)
		}
	}
	t.Logf("gaming variants against honest SJF (5 seeds, paired change of the default metric with its 95 %% t-interval; + = worse than honest):\n%s", table.String())
}

// TestGamingBeatsTheOldCharge: on the same workload, some variant beats
// honest SJF on the previous default metric (unfinished jobs at their
// age alone) without the previous ⚠ (drops, a queue on an idle cluster):
// the workload does exercise the gaming the charge and the stuck count
// guard against.
func TestGamingBeatsTheOldCharge(t *testing.T) {
	if testing.Short() {
		t.Skip("50 runs")
	}
	honest, variants := runGaming(t)
	gamed := false
	for _, o := range variants {
		var vs, hs []float64
		oldFlag := false
		for i, s := range o.runs {
			vs = append(vs, s.SubmittedMeanAgeJCT)
			hs = append(hs, honest[o.rounds][i].SubmittedMeanAgeJCT)
			oldFlag = oldFlag || s.Dropped > 0 || s.StuckPending > 0
		}
		if m, _, _ := pairedChange(vs, hs); m < 0 && !oldFlag {
			t.Logf("%s at %d rounds: %.1f %% better than honest SJF on the age-only mean, no old ⚠", o.variant, o.rounds, -100*m)
			gamed = true
		}
	}
	if !gamed {
		t.Error("no variant beat honest SJF on the old charge unflagged: the workload no longer exercises the gaming")
	}
}

// pad aligns the table's interval columns.
func pad(m, lo, hi float64) string {
	n := len(fmt.Sprintf("%+6.1f %% [%+.1f, %+.1f]", 100*m, 100*lo, 100*hi))
	return strings.Repeat(" ", max(1, 29-n))
}
