// Package overheadprofile reads reconfiguration overhead profiles: the
// built-in ones (artifact: the artifact simulator's constants; testbed:
// the measured table of arena-data/testbed) and YAML files
// (docs/calibrating.md), into a sim.OverheadProfile.
//
// A profile prices overhead classes (a policy's name or a family such as
// pruned or full-search); a policy's class list is resolved in it once
// per run (sim.OverheadProfile.Resolve) and the engine charges the
// resolved sim.Overhead on every start and reallocation. Each class is
// fixed + min(per_gpu·n, cap) + by_gpus[n] seconds, with optional own
// formulas per kind of change (first_start, restart, resize, type_change,
// migration). Parsing is strict (one document, known keys, durations in
// [0, a week]) and errors are input.Error values naming file, line and key.
package overheadprofile
