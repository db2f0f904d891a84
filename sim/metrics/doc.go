// Package metrics is arena's metric catalogue: every figure a run reports
// is one row of Catalogue, declared once with its key, unit, one-line doc,
// direction (lower or higher is better), how to read it from a run's
// summary (sim.Summary), how the side-by-side table shows it, and whether
// it is summarised across seeds and compared across policies.
//
// Everything that lists metrics reads this table instead of naming fields
// itself: the columns of a sweep's summary.parquet and their across-seed
// intervals (experiments/sweep), the paired comparisons between policies,
// the side-by-side table of 'arena simulate' (cli), the names a regression
// golden file may bound (experiments/regress) and the metric reference in
// docs/metrics.md (a test fails when the page and the table differ).
// summary.json itself is sim.Summary's encoding: a row's Path names where
// its value sits there, and a test checks every numeric field of
// sim.Summary has a row whose getter returns it.
//
// Adding a metric is one row here plus the field of sim.Summary (or its
// fault or fairness section) that the engine fills; its column, interval,
// table row and documentation follow from the row.
//
// A row's Section says which runs have the metric at all: Core metrics
// every run; Faults metrics runs with a fault model (summary.json's faults
// section); Fairness metrics runs with tenants. A table gains a section's
// columns only when one of its runs has the section, so tables of runs
// without faults or tenants keep their columns.
package metrics
