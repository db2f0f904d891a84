// Package policy is the catalogue of the built-in scheduling policies: one
// explicit list (Builtin) of the entries each policy package declares, and
// NewRegistry, the registry holding them. The types of an entry, the
// policy-string grammar and the registry itself are in policy/registry
// (registry.Entry, registry.Options, registry.Registry, …), which the CLI,
// the runner and custom commands use directly.
//
// The Policy interface itself is sim.Policy: a policy reads a sim.View and
// returns sim.Actions, which the engine validates and applies. Each policy
// lives in its own subpackage (policy/fcfs, …), which also owns its
// registry entry (name, options, doc line, overhead class, options →
// config); the shared slot-level helpers are in policy/placement. A policy
// decides with the estimator view it chooses (Arena: adaptive-parallelism;
// the baselines: data-parallel with the DP memory filter); the engine
// always executes with the adaptive view.
package policy
