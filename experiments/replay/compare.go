package replay

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/sim"
)

// JobRow is one job of one replay: what the simulator said, what Slurm
// did (converted to simulated seconds on the replay's clock) and what the
// simulator said once calibrated with the measured hand-off. Times are
// simulated seconds in the trace's time base; NaN when not measured.
type JobRow struct {
	Job                           int32   `json:"job"`
	Name                          string  `json:"name"`
	GPU                           string  `json:"gpu"`
	GPUs                          int     `json:"gpus"`
	Submit                        float64 `json:"submit_s"`
	SimStart, SimEnd, SimJCT      float64 `json:"-"`
	RealStart, RealEnd, RealJCT   float64 `json:"-"`
	CalStart, CalEnd, CalJCT      float64 `json:"-"`
	SimQueue, RealQueue, CalQueue float64 `json:"-"`
	SimNodes, RealNodes           string  `json:"-"`
	// HandoffS is the real seconds between the moment the job's first
	// start could begin (arena asked, and its nodes were free) and the
	// moment its stand-in started (policy mode); in native mode between
	// submission and start, for jobs the simulator started at once.
	HandoffS         float64 `json:"-"`
	PlacementDiffers bool    `json:"placement_differs"`
}

// ModeRun is one replay (a policy's schedule, or Slurm's own scheduler)
// against its simulation, raw and calibrated.
type ModeRun struct {
	Mode          string  `json:"mode"` // "policy" or "native"
	Policy        string  `json:"policy"`
	Speed         float64 `json:"speed"`
	Deterministic bool    `json:"deterministic"`
	Jobs          int     `json:"jobs"`
	Starts        int     `json:"starts"` // srun calls (policy) or sbatch jobs (native)
	Failed        int     `json:"failed"` // starts without both timestamps
	// Hand-off per start, real seconds.
	HandoffMean float64 `json:"handoff_mean_s"`
	HandoffP50  float64 `json:"handoff_p50_s"`
	HandoffP95  float64 `json:"handoff_p95_s"`
	HandoffMax  float64 `json:"handoff_max_s"`
	// OverheadAdded is the hand-off fed back to the simulator: simulated
	// seconds added to every start and reallocation, the median hand-off
	// × speed (the median: under load a few starts wait out an RPC
	// timeout, 30 s, which would make the mean no start's typical cost).
	OverheadAdded float64 `json:"overhead_added_s"`
	// Mean JCT and queueing, simulated seconds: simulated, real, calibrated.
	SimMeanJCT    float64 `json:"sim_mean_jct_s"`
	RealMeanJCT   float64 `json:"real_mean_jct_s"`
	CalMeanJCT    float64 `json:"cal_mean_jct_s"`
	SimMeanQueue  float64 `json:"sim_mean_queue_s"`
	RealMeanQueue float64 `json:"real_mean_queue_s"`
	CalMeanQueue  float64 `json:"cal_mean_queue_s"`
	// RawErr and CalErr are real / simulated − 1 of the mean JCT.
	RawErr float64 `json:"raw_error"`
	CalErr float64 `json:"cal_error"`
	// MeanAbsJobErr is the mean over jobs of |real JCT / calibrated JCT − 1|.
	MeanAbsJobErr float64 `json:"mean_abs_job_error"`
	// OrderAgreement is the share of job pairs started in the same order
	// as the simulator started them (OrderPairs pairs).
	OrderAgreement float64 `json:"order_agreement"`
	OrderPairs     int     `json:"order_pairs"`
	// PlacementsDiffered counts segments whose real nodes were not
	// arena's (policy mode; native: jobs on other nodes than simulated).
	PlacementsDiffered int      `json:"placements_differed"`
	WallS              float64  `json:"wall_s"`
	Rows               []JobRow `json:"-"`
}

// Report is a whole replay: the cluster and every mode run.
type Report struct {
	Cluster      string     `json:"cluster"`
	Trace        string     `json:"trace"`
	Jobs         int        `json:"jobs"`
	Nodes        int        `json:"nodes"`
	Emulated     bool       `json:"emulated"`
	StartupS     float64    `json:"startup_s,omitempty"`
	SlurmdRSSKiB float64    `json:"slurmd_rss_mean_kib,omitempty"`
	CtldRSSKiB   int64      `json:"slurmctld_rss_kib,omitempty"`
	Runs         []*ModeRun `json:"runs"`
}

// Experiment is what to replay: one resolved scenario per policy (their
// jobs the same), the modes, the options.
type Experiment struct {
	Scenarios []*runner.Scenario
	Modes     []string
	Opts      Options
}

// Run replays every scenario in every mode and compares. Each mode runs
// on the cluster clusterFor gives it (an emulated cluster is started per
// mode, with the scheduler that mode needs, and stopped after it: its
// first one's start-up time and memory go in the report); clusterFor's
// done stops it.
func Run(ctx context.Context, clusterFor func(mode string) (s *Slurm, done func(), err error), e Experiment) (*Report, error) {
	sc0 := e.Scenarios[0]
	rep := &Report{Cluster: sc0.ClusterSpec.Name, Trace: sc0.TraceName, Jobs: len(sc0.Jobs)}
	for _, mode := range e.Modes {
		if mode != "policy" && mode != "native" {
			return rep, fmt.Errorf("replay: mode %q: want policy or native", mode)
		}
		s, done, err := clusterFor(mode)
		if err != nil {
			return rep, err
		}
		if rep.Nodes == 0 {
			rep.Nodes, rep.Emulated, rep.StartupS, rep.CtldRSSKiB = len(s.Nodes), s.Emulated, s.StartupS, s.CtldRSS
			if len(s.DaemonRSS) > 0 {
				rep.SlurmdRSSKiB = mean(int64s(s.DaemonRSS))
			}
		}
		switch mode {
		case "policy":
			for _, sc := range e.Scenarios {
				var mr *ModeRun
				if mr, err = runPolicyMode(ctx, s, sc, e.Opts); err != nil {
					break
				}
				rep.Runs = append(rep.Runs, mr)
			}
		case "native":
			var mrs []*ModeRun
			mrs, err = runNativeMode(ctx, s, e.Scenarios, e.Opts)
			rep.Runs = append(rep.Runs, mrs...)
		}
		done()
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func int64s(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// withOverhead is sc with d simulated seconds added to every start's
// overhead, and schedule-on-events as asked.
func withOverhead(sc *runner.Scenario, d float64, onEvents bool) *runner.Scenario {
	c := *sc
	c.Overhead = AddFixed(sc.Overhead, sim.Duration(d))
	c.Config.Overhead = AddFixed(sc.Config.Overhead, sim.Duration(d))
	c.Config.ScheduleOnEvents = onEvents || sc.Config.ScheduleOnEvents
	return &c
}

func nodeNames(s *Slurm, idx []int) string {
	n := make([]string, len(idx))
	for i, x := range idx {
		n[i] = s.Nodes[x]
	}
	slices.Sort(n)
	return strings.Join(n, ",")
}

func runPolicyMode(ctx context.Context, s *Slurm, sc *runner.Scenario, o Options) (*ModeRun, error) {
	w0 := time.Now()
	out, err := sc.Execute(ctx, nil)
	if err != nil {
		return nil, err
	}
	res, c := out.Result, out.Cluster
	segs, err := Segments(res, c)
	if err != nil {
		return nil, err
	}
	name := sc.Policy.String()
	o.Name = fmt.Sprintf("arena-replay-%d", time.Now().UnixNano()%1e9)
	o.logf("policy mode, %s: %d jobs, %d starts, simulated makespan %.0f s = %.0f s at %gx", name, len(res.Jobs), len(segs), out.Summary.Makespan, out.Summary.Makespan/o.Speed, o.Speed)
	// A replay that runs three times late (a node lost, a stuck srun)
	// is stopped, not waited for.
	limit := time.Duration((3*float64(out.Summary.Makespan)/o.Speed + 120) * 1e9)
	rctx, cancel := context.WithTimeout(ctx, limit)
	launches, k, err := RunPolicy(rctx, s, segs, float64(res.Start), o)
	cancel()
	if err != nil {
		if ctx.Err() == nil && rctx.Err() != nil {
			return nil, fmt.Errorf("replay: policy %s: the replay did not finish within %v (3 × the compressed makespan + 2 min)", name, limit)
		}
		return nil, err
	}
	mr := &ModeRun{Mode: "policy", Policy: name, Speed: o.Speed, Deterministic: o.Deterministic, Jobs: len(res.Jobs), Starts: len(segs)}
	// Hand-off: from the moment the segment could start (launched, and
	// the segments before it on its nodes had ended) to its start.
	prevOnNode := map[int]int{}
	handoff := make([]float64, len(segs))
	first := map[sim.JobID]int{}
	lastSeg := map[sim.JobID]int{}
	for i, sg := range segs {
		l := launches[i]
		handoff[i] = nan
		if _, ok := first[sg.Job]; !ok {
			first[sg.Job] = i
		}
		lastSeg[sg.Job] = i
		if !l.Stamps.Complete() {
			mr.Failed++
		} else {
			ready := l.Launch
			for _, n := range sg.Nodes {
				if p, ok := prevOnNode[n]; ok && launches[p].Stamps.End > ready {
					ready = launches[p].Stamps.End
				}
			}
			handoff[i] = max(l.Stamps.Start-ready, 0)
			want := strings.Split(nodeNames(s, sg.Nodes), ",")
			if !slices.Equal(want, l.Stamps.Nodes) {
				mr.PlacementsDiffered++
			}
		}
		for _, n := range sg.Nodes {
			prevOnNode[n] = i
		}
	}
	mr.HandoffMean, mr.HandoffP50, mr.HandoffP95 = mean(handoff), quantile(handoff, 0.5), quantile(handoff, 0.95)
	mr.HandoffMax = quantile(handoff, 1)
	if math.IsNaN(mr.HandoffMean) {
		return nil, fmt.Errorf("replay: policy %s: no stand-in reported its times (%d starts)", name, len(segs))
	}
	// Deterministic: the stand-ins end at their simulated ends whatever
	// the hand-off, so there is nothing to feed back (calibrated = simulated).
	if !o.Deterministic {
		mr.OverheadAdded = mr.HandoffP50 * o.Speed
	}
	cal, err := withOverhead(sc, mr.OverheadAdded, false).Execute(ctx, nil)
	if err != nil {
		return nil, err
	}
	calBy := map[int32]sim.JobRecord{}
	for _, j := range cal.Result.Jobs {
		calBy[j.ID] = j
	}
	for _, j := range res.Jobs {
		row := JobRow{Job: j.ID, Name: j.Name, GPU: j.RequestedGPU, GPUs: int(j.RequestedN), Submit: j.Submit,
			SimStart: j.FirstStart, SimEnd: j.Finish, SimJCT: j.JCT, SimQueue: j.Queueing,
			RealStart: nan, RealEnd: nan, RealJCT: nan, RealQueue: nan, HandoffS: nan}
		if j.Finish < 0 {
			row.SimEnd, row.SimJCT = nan, nan
		}
		if cj, ok := calBy[j.ID]; ok && cj.Finish >= 0 {
			row.CalStart, row.CalEnd, row.CalJCT, row.CalQueue = cj.FirstStart, cj.Finish, cj.JCT, cj.Queueing
		} else {
			row.CalStart, row.CalEnd, row.CalJCT, row.CalQueue = nan, nan, nan, nan
		}
		f, ok := first[sim.JobID(j.ID)]
		if ok {
			row.SimNodes = nodeNames(s, segs[f].Nodes)
			fl, ll := launches[f], launches[lastSeg[sim.JobID(j.ID)]]
			if fl.Stamps.Complete() {
				row.RealStart = k.sim(fl.Stamps.Start)
				row.RealQueue = row.RealStart - j.Submit
				row.RealNodes = strings.Join(fl.Stamps.Nodes, ",")
				row.HandoffS = handoff[f]
				row.PlacementDiffers = row.RealNodes != row.SimNodes
			}
			if ll.Stamps.Complete() && fl.Stamps.Complete() {
				row.RealEnd = k.sim(ll.Stamps.End)
				row.RealJCT = row.RealEnd - j.Submit
			}
		}
		mr.Rows = append(mr.Rows, row)
	}
	mr.fill()
	mr.WallS = time.Since(w0).Seconds()
	o.logf("policy mode, %s: real mean JCT %.0f s, simulated %.0f s (%+.1f %%), calibrated %.0f s (%+.1f %%); hand-off %.3f s median, %.3f s mean",
		name, mr.RealMeanJCT, mr.SimMeanJCT, 100*mr.RawErr, mr.CalMeanJCT, 100*mr.CalErr, mr.HandoffP50, mr.HandoffMean)
	return mr, nil
}

// fill computes the aggregates from the rows (jobs measured in all three).
func (mr *ModeRun) fill() {
	var sj, rj, cj, sq, rq, cq, jerr, ss, rs []float64
	for _, r := range mr.Rows {
		if math.IsNaN(r.RealJCT) || math.IsNaN(r.SimJCT) || math.IsNaN(r.CalJCT) {
			continue
		}
		sj, rj, cj = append(sj, r.SimJCT), append(rj, r.RealJCT), append(cj, r.CalJCT)
		sq, rq, cq = append(sq, r.SimQueue), append(rq, r.RealQueue), append(cq, r.CalQueue)
		jerr = append(jerr, math.Abs(RelErr(r.RealJCT, r.CalJCT)))
		ss, rs = append(ss, r.SimStart), append(rs, r.RealStart)
	}
	mr.SimMeanJCT, mr.RealMeanJCT, mr.CalMeanJCT = mean(sj), mean(rj), mean(cj)
	mr.SimMeanQueue, mr.RealMeanQueue, mr.CalMeanQueue = mean(sq), mean(rq), mean(cq)
	mr.RawErr, mr.CalErr = RelErr(mr.RealMeanJCT, mr.SimMeanJCT), RelErr(mr.RealMeanJCT, mr.CalMeanJCT)
	mr.MeanAbsJobErr = mean(jerr)
	mr.OrderAgreement, mr.OrderPairs = OrderAgreement(ss, rs)
}

// runNativeMode submits the jobs once, with Slurm's scheduler deciding,
// and compares with each policy's simulation scheduling on every arrival
// and completion (as Slurm does). The jobs' run times are the first
// policy's simulated service times (GPU-holding time, overhead included).
func runNativeMode(ctx context.Context, s *Slurm, scs []*runner.Scenario, o Options) ([]*ModeRun, error) {
	w0 := time.Now()
	sims := make([]*runner.Outcome, len(scs))
	for i, sc := range scs {
		out, err := withOverhead(sc, 0, true).Execute(ctx, nil)
		if err != nil {
			return nil, err
		}
		sims[i] = out
	}
	ref := sims[0]
	held := map[int32]float64{}
	refSegs, err := Segments(ref.Result, ref.Cluster)
	if err != nil {
		return nil, err
	}
	for _, sg := range refSegs {
		held[int32(sg.Job)] += sg.End - sg.Start
	}
	c := ref.Cluster
	var jobs []NativeJob
	for _, j := range ref.Result.Jobs {
		d, ok := held[j.ID]
		if !ok || j.Finish < 0 {
			continue
		}
		nodes, per, ok := Shape(int(j.RequestedN), c.NodeCapacity(j.RequestedGPU))
		if !ok {
			return nil, fmt.Errorf("replay: job %d asks %d %s GPUs, which %s's nodes cannot hold evenly", j.ID, j.RequestedN, j.RequestedGPU, c.Name)
		}
		jobs = append(jobs, NativeJob{Job: sim.JobID(j.ID), Submit: j.Submit, Seconds: d, GPU: j.RequestedGPU, Nodes: nodes, PerNode: per})
	}
	slices.SortStableFunc(jobs, func(a, b NativeJob) int {
		switch {
		case a.Submit < b.Submit:
			return -1
		case a.Submit > b.Submit:
			return 1
		}
		return 0
	})
	o.Name = fmt.Sprintf("arena-native-%d", time.Now().UnixNano()%1e9)
	makespan := ref.Summary.Makespan
	o.logf("native mode: %d jobs submitted with sbatch at their compressed arrivals, simulated makespan %.0f s = %.0f s at %gx", len(jobs), makespan, makespan/o.Speed, o.Speed)
	launches, k, err := RunNative(ctx, s, jobs, float64(ref.Result.Start), o, time.Duration((3*makespan/o.Speed+120)*1e9))
	if err != nil {
		return nil, err
	}
	real := map[int32]Launch{}
	jobIndex := map[int32]int{}
	for i, j := range jobs {
		real[int32(j.Job)] = launches[i]
		jobIndex[int32(j.Job)] = i
	}
	handoff := NativeHandoffs(launches)
	var runs []*ModeRun
	for pi, sc := range scs {
		out := sims[pi]
		mr := &ModeRun{Mode: "native", Policy: sc.Policy.String(), Speed: o.Speed, Jobs: len(jobs), Starts: len(jobs)}
		for _, l := range launches {
			if !l.Stamps.Complete() {
				mr.Failed++
			}
		}
		mr.HandoffMean, mr.HandoffP50, mr.HandoffP95, mr.HandoffMax = mean(handoff), quantile(handoff, 0.5), quantile(handoff, 0.95), quantile(handoff, 1)
		if math.IsNaN(mr.HandoffP50) {
			mr.HandoffMean, mr.HandoffP50 = 0, 0
		}
		mr.OverheadAdded = mr.HandoffP50 * o.Speed
		cal, err := withOverhead(sc, mr.OverheadAdded, true).Execute(ctx, nil)
		if err != nil {
			return nil, err
		}
		calBy := map[int32]sim.JobRecord{}
		for _, j := range cal.Result.Jobs {
			calBy[j.ID] = j
		}
		simNodes := firstNodes(s, out)
		for _, j := range out.Result.Jobs {
			l, ok := real[j.ID]
			if !ok {
				continue
			}
			row := JobRow{Job: j.ID, Name: j.Name, GPU: j.RequestedGPU, GPUs: int(j.RequestedN), Submit: j.Submit,
				SimStart: j.FirstStart, SimEnd: j.Finish, SimJCT: j.JCT, SimQueue: j.Queueing,
				RealStart: nan, RealEnd: nan, RealJCT: nan, RealQueue: nan, HandoffS: nan, SimNodes: simNodes[j.ID]}
			if j.Finish < 0 {
				row.SimEnd, row.SimJCT = nan, nan
			}
			row.CalStart, row.CalEnd, row.CalJCT, row.CalQueue = nan, nan, nan, nan
			row.HandoffS = handoff[jobIndex[j.ID]]
			if cj, ok := calBy[j.ID]; ok && cj.Finish >= 0 {
				row.CalStart, row.CalEnd, row.CalJCT, row.CalQueue = cj.FirstStart, cj.Finish, cj.JCT, cj.Queueing
			}
			if l.Stamps.Complete() {
				row.RealStart, row.RealEnd = k.sim(l.Stamps.Start), k.sim(l.Stamps.End)
				row.RealJCT, row.RealQueue = row.RealEnd-j.Submit, row.RealStart-j.Submit
				row.RealNodes = strings.Join(l.Stamps.Nodes, ",")
				row.PlacementDiffers = row.RealNodes != row.SimNodes
				if row.PlacementDiffers {
					mr.PlacementsDiffered++
				}
			}
			mr.Rows = append(mr.Rows, row)
		}
		mr.fill()
		mr.WallS = time.Since(w0).Seconds()
		o.logf("native mode vs %s: real mean JCT %.0f s, simulated %.0f s (%+.1f %%), calibrated %.0f s (%+.1f %%); order agreement %.1f %%",
			mr.Policy, mr.RealMeanJCT, mr.SimMeanJCT, 100*mr.RawErr, mr.CalMeanJCT, 100*mr.CalErr, 100*mr.OrderAgreement)
		runs = append(runs, mr)
	}
	return runs, nil
}

// NativeHandoffs is each native job's hand-off, real seconds: from the
// moment it could start on the nodes Slurm gave it (its submission, or
// the latest end of a job on those nodes that ended before it started)
// to its start; NaN without timestamps.
func NativeHandoffs(ls []Launch) []float64 {
	h := make([]float64, len(ls))
	for i, l := range ls {
		h[i] = nan
		if !l.Stamps.Complete() {
			continue
		}
		ready := l.Launch
		for j, o := range ls {
			if j == i || !o.Stamps.Complete() || o.Stamps.End > l.Stamps.Start || !overlap(o.Stamps.Nodes, l.Stamps.Nodes) {
				continue
			}
			ready = max(ready, o.Stamps.End)
		}
		h[i] = max(l.Stamps.Start-ready, 0)
	}
	return h
}

func overlap(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// firstNodes is each job's first placement in a simulation, as Slurm
// node names.
func firstNodes(s *Slurm, out *runner.Outcome) map[int32]string {
	segs, err := Segments(out.Result, out.Cluster)
	m := map[int32]string{}
	if err != nil {
		return m
	}
	for _, sg := range segs {
		if _, ok := m[int32(sg.Job)]; !ok {
			m[int32(sg.Job)] = nodeNames(s, sg.Nodes)
		}
	}
	return m
}
