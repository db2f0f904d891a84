package experiments

import "github.com/arena-sim/arena/experiments/data/reference"

// The authors' stored results live in package reference (small, so
// policy tests import it without this package); these names stay for the
// report and the CLI.

// ReferenceRun is one policy's stored result (reference.Run).
type ReferenceRun = reference.Run

// Reference returns the authors' stored Philly result of a policy
// (reference.Philly).
func Reference(policyName string) (ReferenceRun, bool) { return reference.Philly(policyName) }

// ReferenceDigest returns the authors' per-round digest CSV of a run on a
// built-in trace (reference.Digest).
func ReferenceDigest(trace, policyName string) ([]byte, error) {
	return reference.Digest(trace, policyName)
}
