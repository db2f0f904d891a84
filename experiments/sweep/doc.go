// Package sweep turns an experiment spec into many runs and their results
// into one table: the spec and its expansion, the worker pool, the
// results store, resume, shards and merge, statistics over seeds, the
// model-error grid, job files for Slurm and Kubernetes, and CSV export.
// One run is package runner's; the paper's report (package report) and
// the regression checks (package regress) sit beside or above this one.
//
// The model, bottom up:
//
//   - Spec is a YAML experiment description whose lists are the axes of a
//     sweep; Expand resolves its policy names and globs against the
//     registry at run time (policies that have not landed are skipped and
//     noted) and returns a Plan: the cross product as PlannedRuns, each a
//     runner.Run with a stable Key (its results directory) and a Group (the
//     runs that differ only in policy, among which padded mean JCTs are
//     computed). A spec's synth key synthesises its trace (synthspec.go);
//     CheckExec refuses the commands of exec: policies unless allowed.
//   - RunSweep executes a plan, or one Shard of it, on a worker pool into
//     OUT/runs/<key>/ (ExecuteTo: run.json, jobs.parquet, timeline.parquet,
//     rounds.csv, then summary.json, each written atomically, summary.json
//     last so its presence marks a complete run). Resume skips complete
//     runs, so a killed sweep loses only the runs in progress.
//     MergeSweep gathers the runs of a plan from any directories into
//     OUT/summary.parquet, one SummaryRow per run in plan order, so shards
//     merge to exactly the unsharded table; rows of the same cell over
//     several seeds get t-intervals (seedstats.go, fairrows.go) and the
//     seed table (seedreport.go). CompareSweeps checks two outputs agree.
//   - Sensitivity is the grid of model perturbations (overheads × iteration
//     times, per-GPU-type iteration times, other estimators);
//     SensitivityPlan re-runs a plan at every point that applies and
//     MarkRobust marks each comparison robust or fragile.
//   - Emit prints Slurm / Kubernetes job files for sharded sweeps;
//     ExportCSV writes CSV copies of the results tables.
//
// Everything a run writes is deterministic except the wallclock section of
// its summary (and the wall_* columns of summary.parquet).
package sweep
