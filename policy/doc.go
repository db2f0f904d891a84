// Package policy is the catalogue of scheduling policies: a registry that
// maps a name (and the artifact's aliases) to a constructor, the policy's
// reconfiguration overhead and a one-line description.
//
// The Policy interface itself is sim.Policy: a policy reads a sim.View and
// returns sim.Actions, which the engine validates and applies. Each policy
// lives in its own subpackage (policy/fcfs, …) and the shared slot-level
// helpers in policy/placement. A policy decides with the estimator view it
// chooses (Arena: adaptive-parallelism; the baselines: data-parallel with the
// DP memory filter); the engine always executes with the adaptive view.
package policy
