package fairness

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/tenants"
)

// QuotaCounts are the quota wrapper's counts for a run (policy/quota.Stats).
type QuotaCounts = sim.QuotaCounts

// Options tune the computation.
type Options struct {
	// Overhead is the policy's start overhead, charged once to T_alone.
	Overhead sim.Overhead
	// Quota, if the run was under the quota wrapper.
	Quota *QuotaCounts
}

// Job is one job's ρ.
type Job struct {
	ID     int     `json:"id"`
	Tenant string  `json:"tenant"`
	JCT    float64 `json:"jct_s"`
	Alone  float64 `json:"alone_s"`    // T_alone
	N      float64 `json:"contending"` // N_j
	Ideal  float64 `json:"ideal_s"`    // T_id
	Rho    float64 `json:"rho"`
}

// Tenant is one tenant's figures.
type Tenant = sim.TenantFigures

// Report is a run's fairness: the figures summary.json carries
// (sim.Fairness, embedded: the JSON keys are its own) and each rated job's ρ.
type Report struct {
	Jobs []Job `json:"-"`
	sim.Fairness
}

// Compute returns the fairness of run res of jobs (the trace's specs,
// by ID) on cluster c. ten may be nil (tenants are then the trace's VCs);
// exec is the ground-truth estimator the run executed with.
func Compute(res *sim.Result, jobs []sim.JobSpec, c *sim.Cluster, ten *tenants.File, exec estimator.Estimator, o Options) (*Report, error) {
	if ten == nil {
		var err error
		if ten, err = fromTrace(jobs); err != nil {
			return nil, err
		}
	}
	byID := make(map[int]*sim.JobSpec, len(jobs))
	for i := range jobs {
		byID[int(jobs[i].ID)] = &jobs[i]
	}
	r := &Report{Fairness: sim.Fairness{Quota: o.Quota}}
	T := ten.Len()
	rhos := make([][]float64, T)
	jcts := make([][]float64, T)
	tn := make([]Tenant, T)
	for t := range T {
		tt := ten.Tenant(t)
		tn[t] = Tenant{Name: tt.Name, Weight: tt.Weight}
	}
	tenantOf := func(id int32) (int, *sim.JobSpec, error) {
		s, ok := byID[int(id)]
		if !ok {
			return 0, nil, fmt.Errorf("fairness: job %d of the results is not in the trace", id)
		}
		return ten.Index(s.VirtualCluster), s, nil
	}
	var total float64
	area := newAreas(res.Timeline)
	for _, jr := range res.Jobs {
		t, s, err := tenantOf(jr.ID)
		if err != nil {
			return nil, err
		}
		tn[t].Jobs++
		tn[t].GPUHours += jr.GPUSeconds / 3600
		total += jr.GPUSeconds / 3600
		if jr.State != "finished" {
			if jr.State == "dropped" || jr.State == "failed" {
				r.Dropped++
			} else {
				r.Unfinished++
			}
			continue
		}
		tn[t].Finished++
		jcts[t] = append(jcts[t], jr.JCT)
		alone, ok := aloneTime(s, &jr, c, exec, o.Overhead)
		if !ok {
			r.Unrated++
			continue
		}
		n := area.contending(jr.Submit, jr.Finish)
		ideal := alone * max(1, float64(jr.RequestedN)*n/float64(max(1, c.TotalGPUs(jr.RequestedGPU))))
		j := Job{ID: int(jr.ID), Tenant: tn[t].Name, JCT: jr.JCT, Alone: alone, N: n, Ideal: ideal, Rho: jr.JCT / ideal}
		r.Jobs = append(r.Jobs, j)
		rhos[t] = append(rhos[t], j.Rho)
	}
	summarize(r, tn, jcts, rhos, total)
	overCap(res, ten, tenantOf, tn)
	jainIndices(r, tn, rhos)
	for _, x := range tn {
		if x.Jobs > 0 || x.Name != tenants.Default {
			r.Tenants = append(r.Tenants, x)
		}
	}
	return r, nil
}

// summarize fills each tenant's JCT and ρ statistics and GPU share (of
// total GPU-hours) from its finished jobs' JCTs and ρs (jcts and rhos,
// per tenant; the JCTs are sorted here), and the run's ρ statistics over
// every rated job. Separate because it is the report's statistics, apart
// from rating each job.
func summarize(r *Report, tn []Tenant, jcts, rhos [][]float64, total float64) {
	var all []float64
	above := 0
	for t := range tn {
		slices.Sort(jcts[t])
		tn[t].MeanJCT, tn[t].P95JCT = mean(jcts[t]), quantile(jcts[t], 0.95)
		tn[t].MeanRho = mean(rhos[t])
		for _, x := range rhos[t] {
			tn[t].MaxRho = max(tn[t].MaxRho, x)
			all = append(all, x)
			if x > 1 {
				above++
			}
		}
		if total > 0 {
			tn[t].Share = tn[t].GPUHours / total
		}
	}
	r.Rated = len(all)
	r.MeanRho = mean(all)
	for _, x := range all {
		r.MaxRho = max(r.MaxRho, x)
	}
	if len(all) > 0 {
		r.FracRhoAbove1 = float64(above) / float64(len(all))
	}
}

// jainIndices adds up the tenants' over-cap GPU-time and sets the run's
// Jain's indices: of GPU share over weight across the tenants with jobs,
// and of mean ρ across those with a rated finished job. Separate because
// it is the choice of which tenants each index counts.
func jainIndices(r *Report, tn []Tenant, rhos [][]float64) {
	var share, slow []float64
	for t := range tn {
		r.OverCapSeconds += tn[t].OverCapGPUSeconds
		if tn[t].Jobs == 0 {
			continue
		}
		share = append(share, tn[t].Share/tn[t].Weight)
		if tn[t].Finished > 0 && len(rhos[t]) > 0 {
			slow = append(slow, tn[t].MeanRho)
		}
	}
	r.JainShare, r.JainSlowdown = Jain(share), Jain(slow)
}

// fromTrace makes a tenants file of the VCs the trace names, weight 1.
func fromTrace(jobs []sim.JobSpec) (*tenants.File, error) {
	seen := map[string]bool{}
	var names []string
	for i := range jobs {
		vc := jobs[i].VirtualCluster
		if vc != "" && !seen[vc] {
			seen[vc] = true
			names = append(names, vc)
		}
	}
	sort.Strings(names)
	ts := make([]tenants.Tenant, len(names))
	for i, n := range names {
		ts[i] = tenants.Tenant{Name: n, Weight: 1}
	}
	return tenants.New("(the trace's VCs)", true, ts...)
}

// aloneTime is T_alone: the job's iterations at its request's best
// locality (or, infeasible there, the shape it last ran on), plus one
// start overhead.
func aloneTime(s *sim.JobSpec, jr *sim.JobRecord, c *sim.Cluster, exec estimator.Estimator, o sim.Overhead) (float64, bool) {
	grid := estimator.BestLocality(jr.RequestedGPU, int(jr.RequestedN), c.NodeCapacity(jr.RequestedGPU))
	e := exec.Estimate(s.Workload, grid)
	n := int(jr.RequestedN)
	if grid.Nodes == 0 || !e.Feasible() {
		if jr.FinalNodes <= 0 || jr.FinalN <= 0 {
			return 0, false
		}
		grid = estimator.Config{GPU: jr.FinalGPU, Nodes: int(jr.FinalNodes), PerNode: int(jr.FinalN / jr.FinalNodes)}
		if e = exec.Estimate(s.Workload, grid); !e.Feasible() {
			return 0, false
		}
		n = int(jr.FinalN)
	}
	return float64(jr.Iterations)*e.IterTime + float64(o.Cost(sim.FirstStart, n)), true
}

// contending is N: the time-average of running + pending jobs over
// [from, to] from the timeline's rows (each held until the next).
func contending(tl []sim.RoundRecord, from, to float64) float64 {
	if len(tl) == 0 {
		return 1
	}
	if to <= from {
		i := sort.Search(len(tl), func(i int) bool { return tl[i].Time > from }) - 1
		return max(1, float64(tl[max(i, 0)].Running+tl[max(i, 0)].Pending))
	}
	var area float64
	for i, row := range tl {
		end := math.Inf(1)
		if i+1 < len(tl) {
			end = tl[i+1].Time
		}
		lo, hi := max(row.Time, from), min(end, to)
		if i == 0 && from < row.Time {
			lo = from // before the first row: its value
		}
		if hi > lo {
			area += (hi - lo) * float64(row.Running+row.Pending)
		}
	}
	return max(1, area/(to-from))
}

// areas holds the running integral of the jobs in the system over the
// timeline (each row's value held to the next row, the first row's before
// it, the last row's after it), so that a job's N is two lookups instead
// of a pass over every round: on the 82k-job trace the pass per job was
// most of the fairness figures' cost.
type areas struct {
	at, v, cum []float64 // row times, values, integral up to each row
}

func newAreas(tl []sim.RoundRecord) areas {
	a := areas{at: make([]float64, len(tl)), v: make([]float64, len(tl)), cum: make([]float64, len(tl))}
	for i, row := range tl {
		a.at[i], a.v[i] = row.Time, float64(row.Running+row.Pending)
		if i > 0 {
			a.cum[i] = a.cum[i-1] + (a.at[i]-a.at[i-1])*a.v[i-1]
		}
	}
	return a
}

// integral is the area from the first row's time to x (negative before it).
func (a areas) integral(x float64) float64 {
	i := sort.SearchFloat64s(a.at, x) // first row at or after x
	if i < len(a.at) && a.at[i] == x {
		return a.cum[i]
	}
	if i == 0 {
		return (x - a.at[0]) * a.v[0]
	}
	return a.cum[i-1] + (x-a.at[i-1])*a.v[i-1]
}

// contending is N over [from, to] (contending's rule, by the integral).
func (a areas) contending(from, to float64) float64 {
	if len(a.at) == 0 {
		return 1
	}
	if to <= from {
		i := sort.Search(len(a.at), func(i int) bool { return a.at[i] > from }) - 1
		return max(1, a.v[max(i, 0)])
	}
	return max(1, (a.integral(to)-a.integral(from))/(to-from))
}

// overCap sweeps the allocations for the GPU-seconds each capped tenant
// held beyond its cap.
func overCap(res *sim.Result, ten *tenants.File, tenantOf func(int32) (int, *sim.JobSpec, error), tn []Tenant) {
	type ev struct {
		at   float64
		t, d int
	}
	var evs []ev
	for _, a := range res.Allocations {
		t, _, err := tenantOf(a.Job)
		if err != nil || ten.Tenant(t).Cap == 0 {
			continue
		}
		evs = append(evs, ev{a.Start, t, int(a.Slots)}, ev{a.End, t, -int(a.Slots)})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].d < evs[j].d // releases first at the same instant
	})
	held := make([]int, len(tn))
	last := 0.0
	for _, e := range evs {
		for t := range held {
			if c := ten.Tenant(t).Cap; c > 0 && held[t] > c {
				tn[t].OverCapGPUSeconds += float64(held[t]-c) * (e.at - last)
			}
		}
		held[e.t] += e.d
		last = e.at
	}
}

// Jain is Jain's fairness index (Σx)² / (n·Σx²): 1 when all x are equal,
// 1/n when one has everything; 1 for no data or all zeros.
func Jain(x []float64) float64 {
	var s, s2 float64
	for _, v := range x {
		s += v
		s2 += v * v
	}
	if len(x) == 0 || s2 == 0 {
		return 1
	}
	return s * s / (float64(len(x)) * s2)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile is summary.json's percentile rule (sim.Quantile).
var quantile = sim.Quantile

// Write prints the report: the run's figures, then a table per tenant.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "finish-time fairness: %d jobs rated (%d finished without a ρ, %d dropped, %d unfinished), max ρ %.3f, mean ρ %.3f, ρ > 1 for %.1f%%\n",
		r.Rated, r.Unrated, r.Dropped, r.Unfinished, r.MaxRho, r.MeanRho, 100*r.FracRhoAbove1)
	fmt.Fprintf(&b, "Jain's index: GPU share/weight %.3f, slowdown %.3f; over-cap GPU-hours %.2f\n", r.JainShare, r.JainSlowdown, r.OverCapSeconds/3600)
	if q := r.Quota; q != nil {
		fmt.Fprintf(&b, "quota: %d reclaims (%d GPUs), %d vetoed actions, %d violations\n", q.Reclaims, q.ReclaimedGPUs, q.Vetoed, q.Violations)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tenant\tweight\tjobs\tfinished\tmean JCT h\tp95 JCT h\tGPU-h\tshare\tmean ρ\tmax ρ\tover cap GPU-h\t")
	for _, t := range r.Tenants {
		fmt.Fprintf(tw, "%s\t%g\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.3f\t%.3f\t%.3f\t%.2f\t\n", t.Name, t.Weight, t.Jobs, t.Finished,
			t.MeanJCT/3600, t.P95JCT/3600, t.GPUHours, t.Share, t.MeanRho, t.MaxRho, t.OverCapGPUSeconds/3600)
	}
	return tw.Flush()
}
