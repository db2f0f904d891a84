package importers

import (
	"strings"

	"github.com/arena-sim/arena/traces/table"
)

// Outcome maps a trace's final state (the status column, as the source
// spells it) to the canonical outcome column: "failed" when the job ended
// by its own error, "killed" when a user or the scheduler's limit ended
// it, "" when it passed, is still running or never ran, or ended by the
// cluster's fault. The cluster's faults are left out on purpose: arena
// models them as cluster events (sim/faults), and a job that also carried
// them as its own end would lose its work twice.
//
//	philly       Pass → "", Failed → failed, Killed → killed
//	helios       COMPLETED → "", FAILED → failed, CANCELLED → killed,
//	             TIMEOUT → killed (the job's own time limit, enforced by
//	             Slurm), NODE_FAIL → "" (the cluster's fault), SUSPENDED → ""
//	pai          Terminated → "", Failed → failed, Running, Waiting → ""
//	alibaba2023  Succeeded → "", Failed → failed, Running, Pending → ""
//
// Other formats (pollux, gavel, arena) record no final state. Words are
// matched case-insensitively; an unknown word maps to "".
func Outcome(source, status string) string {
	s := strings.ToLower(strings.TrimSpace(status))
	switch source {
	case "philly":
		switch s {
		case "failed":
			return table.OutcomeFailed
		case "killed":
			return table.OutcomeKilled
		}
	case "helios":
		switch s {
		case "failed":
			return table.OutcomeFailed
		case "cancelled", "timeout":
			return table.OutcomeKilled
		}
	case "pai", "alibaba2023":
		if s == "failed" {
			return table.OutcomeFailed
		}
	}
	return ""
}
