package runner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/arena-sim/arena/sim"
)

// FewOutages is the rule a faults run is warned by: it saw no node
// outage, or its faults were expected to give fewer than one.
func FewOutages(f *sim.FaultSummary) bool {
	return f.Outages == 0 || f.ExpectedOutages != nil && *f.ExpectedOutages < 1
}

// FaultsWarning warns about a run whose faults gave it little to compare:
// no node outage at all in its window, or fewer than one expected on its
// cluster over the window (most seeds then see none, and their results
// are a fault-free run's); and about the events of an events file that
// fell after the window, never applied. "" for a run without faults or
// with enough.
// The warning names the count, the expectation, the cluster and the span,
// and what would give more outages.
func (o *Outcome) FaultsWarning() string {
	f := o.Summary.Faults
	if o.Run.Faults == "" || f == nil {
		return ""
	}
	name := o.Run.Faults
	if strings.ContainsAny(name, `/\.`) {
		name = filepath.Base(name)
	}
	past := ""
	if o.EventsPastWindow > 0 {
		past = fmt.Sprintf("faults %s: %d of the file's %d events fall after the run's window and were never applied (times in milliseconds, or a file for a longer run?)", name, o.EventsPastWindow, o.FileEvents)
	}
	msg := o.fewOutagesWarning(f, name)
	switch {
	case past == "":
		return msg
	case msg == "":
		return past
	}
	return past + "; " + msg
}

// fewOutagesWarning is FaultsWarning's warning about few outages.
func (o *Outcome) fewOutagesWarning(f *sim.FaultSummary, name string) string {
	noun := "node outages"
	if f.Outages == 1 {
		noun = "node outage"
	}
	gpus := 0
	if o.Cluster != nil {
		for _, t := range o.Cluster.Types {
			gpus += o.Cluster.TotalGPUs(t)
		}
	}
	where := fmt.Sprintf("on %s (%d GPUs) over %s", o.Summary.Cluster, gpus, sim.Duration(o.Summary.HorizonS))
	if f.ExpectedOutages == nil {
		if !FewOutages(f) {
			return ""
		}
		return fmt.Sprintf("faults %s: no node outage in the run's window (%s): the results are a fault-free run's; check the events file's times against the window", name, where)
	}
	if !FewOutages(f) {
		return ""
	}
	e := *f.ExpectedOutages
	what := "the results are a fault-free run's"
	if f.Outages > 0 {
		what = "with fewer than one expected, most seeds see none and compare fault-free runs"
	}
	return fmt.Sprintf("faults %s: %d %s in the run's window, %.2f expected %s (rate × GPUs × span): %s. For more, run longer (--horizon), on a bigger cluster, or at scaled rates: a faults spec with the preset's rates raised (arena faults show %s > mine.yaml, edit rate:, --faults mine.yaml)",
		name, f.Outages, noun, e, where, what, name)
}
