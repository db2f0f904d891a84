package report

import (
	"fmt"
	"io"

	"github.com/arena-sim/arena/experiments/runner"
)

// printMeasureWarnings notes, under the run table, what the measurement
// window and the horizon say about the runs' figures: the window measured,
// a drained run stopped at its cap (its comparisons are inconclusive) or
// with measured jobs stuck, and a fixed horizon that may decide the
// comparison (sim.Summary.HorizonWarning).
func printMeasureWarnings(w io.Writer, outcomes []*runner.Outcome) {
	if s := &outcomes[0].Summary; s.Measure != "" {
		fmt.Fprintf(w, "measured: jobs %s (%d of the trace's %d); the others run but are not counted\n", s.Measure, s.JobsMeasured, s.JobsInTrace)
	}
	for _, o := range outcomes {
		s := &o.Summary
		if s.DrainCapReached {
			fmt.Fprintf(w, "⚠ %s: --drain stopped at its cap (%d rounds) with %d measured jobs unfinished: its comparisons are inconclusive\n", s.Policy, s.Rounds, s.Unfinished)
		}
		if s.DrainStuck {
			fmt.Fprintf(w, "⚠ %s: --drain stopped after round %d with %d measured jobs queued on an idle cluster (nothing left to arrive): they count at their age then\n", s.Policy, s.Rounds, s.Pending)
		}
		if s.HorizonWarning != "" {
			fmt.Fprintf(w, "⚠ %s: %s: where the run stops may decide the comparison (--drain runs until the measured jobs end)\n", s.Policy, s.HorizonWarning)
		}
	}
}
