// Package runner runs one simulation: the run as a value and its path to
// results.
//
// A Run is the only description of a run (its fields carry json/yaml
// tags; Fields binds each to its 'arena simulate' flag and its sweep-spec
// key, with the field's range rule written once). Validate checks a Run
// without loading anything and reports field errors with paths
// ("policies[2]: …") that the CLI renders as the flag and a spec as
// file:line: key. Resolve loads what a Run names — trace, cluster spec,
// policy, overhead profile, estimator — into a Scenario, resolved values
// in and no names (a Resolver shares each input between the runs of a
// sweep or of one simulate). Scenario.Execute runs the engine. Each is the
// worker pool both commands run their scenarios on.
//
// The package is small on purpose: policy tests import it (never
// experiments/sweep, experiments/report or experiments/regress).
package runner
