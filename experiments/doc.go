// Package experiments turns descriptions of runs into simulations and
// results: the runner every command uses, experiment specs and sweeps, the
// result store, the paper reproduction and regression checks.
//
// The model, bottom up:
//
//   - Run is one simulation (trace × cluster × policy × timing × rounds ×
//     density × seed × estimator); Execute runs it. Density scales every
//     job's iterations (the artifact's job_submit_density).
//   - Spec is a YAML experiment description whose lists are the axes of a
//     sweep; Expand resolves its policy names and globs against the
//     registry at run time (policies that have not landed are skipped and
//     noted) and returns a Plan: the cross product as PlannedRuns, each with
//     a stable Key (its results directory) and a Group (the runs that
//     differ only in policy, among which padded mean JCTs are computed).
//   - RunSweep executes a plan, or one Shard of it, on a worker pool into
//     OUT/runs/<key>/ (ExecuteTo: run.json, jobs.parquet, timeline.parquet,
//     rounds.csv, then summary.json, each written atomically, summary.json
//     last so its presence marks a complete run). Resume skips complete
//     runs, so a killed sweep loses only the runs in progress.
//     MergeSweep gathers the runs of a plan from any directories into
//     OUT/summary.parquet, one SummaryRow per run in plan order, so shards
//     merge to exactly the unsharded table. Emit prints Slurm / Kubernetes
//     job files for sharded sweeps.
//   - Reproduce runs the built-in specs of the paper's evaluation
//     (data/specs/) as one sweep and writes REPORT.md: tables in the
//     paper's form beside the published numbers (PublishedPhilly, from
//     ARENA.md §8, which Reference's stored arrays recompute) and figures
//     drawn by package plots.
//   - Regress re-runs the runs of a Golden file (testdata/golden) and fails
//     with ErrRegression naming each summary metric that moved beyond its
//     Tolerance; TestGolden makes `make test` run it.
//
// Everything a run writes is deterministic except the wallclock section of
// its summary (and the wall_* columns of summary.parquet).
package experiments
