package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The measurement window (Config.Measure) and draining (Config.Drain).
//
// A run may measure a window of its jobs: only they enter the JCT,
// queueing and slowdown figures of the summary (and its job counts), the
// others still run and load the cluster — the warm-up before the window
// and the cool-down after it. Draining runs past the run's rounds until
// every measured job has ended or is provably stuck, so that where the
// run stops no longer decides its figures.

// Window selects the jobs a run measures. By submission time, the jobs
// submitted at First + From ≤ submit < First + To, First being the
// earliest submission of the trace ("1d..3d"); by index (ByIndex), the
// jobs at positions From ≤ i < To of the arrival order — submission
// time, ties in trace order — as Gavel's "jobs 4000–5000" ("#4000..5000").
// To is +Inf for a window open at its end. The zero value's To is 0: use
// AllJobs for every job.
type Window struct {
	ByIndex  bool
	From, To float64
}

// AllJobs is the window of every job (the default).
var AllJobs = Window{To: math.Inf(1)}

// All reports whether w selects every job whatever the trace.
// The zero Window is AllJobs too.
func (w Window) All() bool { return w == Window{} || w.From <= 0 && math.IsInf(w.To, 1) }

// String is the window as written: "1d..3d", "86400..", "#4000..5000";
// "all" for AllJobs. Times are in days when whole, else in seconds.
func (w Window) String() string {
	if w.All() {
		return "all"
	}
	f := func(x float64) string {
		if math.IsInf(x, 1) {
			return ""
		}
		if w.ByIndex {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		if x != 0 && math.Mod(x, 86400) == 0 {
			return strconv.FormatFloat(x/86400, 'f', -1, 64) + "d"
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := f(w.From) + ".." + f(w.To)
	if w.ByIndex {
		return "#" + s
	}
	return s
}

// Select returns which of specs (by ID) w measures — nil when it measures
// every job — and how many it measures, with the first and last
// submission among them (0, 0 when none).
func (w Window) Select(specs []JobSpec) (measured []bool, n int, first, last Time) {
	if len(specs) == 0 {
		return nil, 0, 0, 0
	}
	if w.All() {
		first, last = specs[0].Submit, specs[0].Submit
		for i := range specs {
			first, last = min(first, specs[i].Submit), max(last, specs[i].Submit)
		}
		return nil, len(specs), first, last
	}
	measured = make([]bool, len(specs))
	mark := func(i int) {
		s := specs[i].Submit
		if n == 0 {
			first, last = s, s
		}
		first, last = min(first, s), max(last, s)
		measured[i] = true
		n++
	}
	if w.ByIndex {
		order := make([]int, len(specs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch sa, sb := specs[a].Submit, specs[b].Submit; {
			case sa < sb:
				return -1
			case sa > sb:
				return 1
			}
			return 0
		})
		for k, i := range order {
			if float64(k) >= w.From && float64(k) < w.To {
				mark(i)
			}
		}
		return measured, n, first, last
	}
	t0 := specs[0].Submit
	for i := range specs {
		t0 = min(t0, specs[i].Submit)
	}
	for i := range specs {
		if d := float64(specs[i].Submit - t0); d >= w.From && d < w.To {
			mark(i)
		}
	}
	return measured, n, first, last
}

// DrainCapFactor and DrainSpanFactor set a draining run's round cap,
// DrainCap.
const (
	DrainCapFactor  = 10
	DrainSpanFactor = 20
)

// DrainCap is the most rounds a draining run of rounds rounds may go on
// for: max(10 × rounds, rounds + 20 × the measured jobs' arrival span in
// rounds (rounded up)), at most maxRounds when that is positive. A
// measured window whose jobs all arrive by the end of its span and each
// need less than 20 spans of the cluster's time to finish is drained well
// inside it; reaching it says the policy (or the load) did not drain the
// window, and the run's comparisons are inconclusive.
func DrainCap(rounds, maxRounds int, span, roundLength Duration) int {
	spanRounds := 0
	if roundLength > 0 && span > 0 {
		spanRounds = int(math.Ceil(float64(span) / float64(roundLength)))
	}
	c := max(DrainCapFactor*rounds, rounds+DrainSpanFactor*spanRounds)
	if maxRounds > 0 {
		c = min(c, maxRounds)
	}
	return max(c, rounds)
}

// HorizonUnfinishedShare is the share of measured jobs unfinished at the
// end of a fixed horizon above which the run warns (Summary.HorizonWarning).
const HorizonUnfinishedShare = 0.01

// isMeasured reports whether the run measures job id.
func (e *engine) isMeasured(id JobID) bool { return e.measured == nil || e.measured[id] }

// drained reports whether every measured job has ended (finished, dropped
// or failed for good), and whether one of them is pending.
// Jobs before e.drainFrom have all ended: a scan starts there.
func (e *engine) drained() (done, pending bool) {
	done = true
	for i := e.drainFrom; i < len(e.jobs); i++ {
		j := e.jobs[i]
		if done && !pending && (!e.isMeasured(j.Spec.ID) || j.Status >= Finished) {
			e.drainFrom = i + 1 // every job up to here has ended or is not measured
		}
		if !e.isMeasured(j.Spec.ID) {
			continue
		}
		switch j.Status {
		case NotArrived, Running:
			return false, pending
		case Pending:
			done, pending = false, true
			if len(e.runq.jobs) > 0 {
				return false, true // the caller asks pending only of an idle cluster
			}
		}
	}
	return done, pending
}

// extendDrain is extend for a draining run: one more round unless every
// measured job has ended, the cap is reached, or the cluster has been
// idle for IdleStop rounds with measured jobs pending, every job arrived
// and no cluster event to come (they are stuck: the policy will not place
// them).
func (e *engine) extendDrain() bool {
	done, pending := e.drained()
	if done {
		return false
	}
	extended, stuck := e.extendUnlessStuck(len(e.runq.jobs) == 0 && pending && len(e.arrived) == 0 && e.arrivedJobs == len(e.jobs))
	if stuck {
		e.res.DrainStuck = true
	}
	return extended
}

// addUnmeasured counts a job outside the measurement window: only in the
// figures over the whole cluster (reconfigurations, the makespan).
func (t *runTotals) addUnmeasured(j *JobRecord) {
	t.earliest = math.Min(t.earliest, j.Submit)
	if j.State == "finished" {
		t.lastFinish = math.Max(t.lastFinish, j.Finish)
	} else if j.State == "running" || j.State == "pending" {
		t.unmeasuredOpen++
	}
	t.reconfigs += int(j.Reconfigs)
}

// setMeasure records the run's window and drain in its result.
func (e *engine) setMeasure() {
	r := e.res
	r.Measure, r.Measured, r.MeasuredFirst, r.MeasuredLast = e.cfg.Measure, e.measuredN, e.measuredFirst, e.measuredLast
	r.Drain = e.cfg.Drain
	if e.cfg.Drain {
		r.DrainCap = e.cfg.MaxRounds
	}
}

// atHorizon is charge, the JCT a job unfinished (or dropped, or failed)
// at the horizon is counted at, noted in the totals the sweep re-charges
// a run at another horizon from: their count and Σ (charge − horizon).
// Every charge grows one for one with the horizon, so at horizon H' the
// job counts charge + (H' − horizon).
func (t *runTotals) atHorizon(charge, horizon float64) float64 {
	t.chargedN++
	t.chargedOffset += charge - horizon
	return charge
}

// summarizeMeasure fills the summary's window, drain and horizon-charge
// fields (each absent from a run of every job with a fixed horizon and
// nothing charged at it).
func (r *Result) summarizeMeasure(s *Summary) {
	tot := &r.totals
	if !r.Measure.All() {
		s.Measure = r.Measure.String()
	}
	if !r.Measure.All() || r.Drain {
		s.JobsMeasured = r.Measured
	}
	if r.Drain || r.UntilDone {
		s.RoundsAsked = r.AskedRounds
	}
	if r.Drain {
		s.Drain, s.DrainCapRounds, s.DrainCapReached, s.DrainStuck = true, r.DrainCap, r.CapReached, r.DrainStuck
	}
	s.JobsChargedAtHorizon = tot.chargedN
	if tot.chargedN > 0 {
		s.HorizonChargeOffsetS = tot.chargedOffset + float64(tot.chargedN)*float64(r.Start)
	}
	if !r.Drain && !r.UntilDone {
		s.HorizonWarning = horizonWarning(r, s)
	}
}

// horizonWarning says why a fixed horizon may decide a run's figures: it
// ends before the last measured job arrives, or more than
// HorizonUnfinishedShare of the measured jobs have not ended ("" when
// neither).
func horizonWarning(r *Result, s *Summary) string {
	var why []string
	end := float64(r.Start) + s.HorizonS
	if r.Measured > 0 && end <= float64(r.MeasuredLast) {
		why = append(why, fmt.Sprintf("the horizon (%s) ends before the last measured job arrives (%s after the first submission)",
			Duration(s.HorizonS), r.MeasuredLast.Sub(r.Start)))
	}
	given := 0
	if s.Faults != nil {
		given = s.Faults.JobsGivenUp
	}
	if open := r.Measured - s.Finished - s.Dropped - given; r.Measured > 0 && float64(open) > HorizonUnfinishedShare*float64(r.Measured) {
		msg := fmt.Sprintf("%d of %d measured jobs (%.0f %%) are unfinished at the horizon", open, r.Measured, 100*float64(open)/float64(r.Measured))
		// Say how many of them never arrived: those are outside the run,
		// not left by the policy.
		if late := r.Measured - s.Submitted; late > 0 {
			msg += fmt.Sprintf(" (%d of them arrive after it; %d submitted ones are running or pending)", late, open-late)
		}
		why = append(why, msg)
	}
	return strings.Join(why, "; ")
}
