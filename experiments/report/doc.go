// Package report reproduces the paper's evaluation and draws results: it
// runs the built-in specs (package specs, experiments/data/specs) as one
// sweep through package sweep, and writes REPORT.md and figures from the
// results it reads back, never re-running a run to draw it.
//
// The model:
//
//   - Reproduce runs the sections of the paper's evaluation (Sections,
//     ExtraSections; BuiltinSpec parses one) as one sweep and writes
//     REPORT.md: tables in the paper's form beside the published numbers
//     (PublishedPhilly, from ARENA.md §8, which the authors' stored arrays
//     in package reference recompute), verdicts on the paper's claims
//     (verdict.go), whether each holds under model error (sensitivity.go:
//     the Philly artifact-timing runs re-run over sweep's grid) and the
//     tenants study's fairness tables (report_tenants.go).
//   - ReproduceTestbed predicts the authors' physical testbed run step by
//     step, each ratio with a sensitivity band (testbed.go).
//   - WriteFigures, WriteLoadFigures, WriteSeedFigures and
//     WriteTenantFigures draw a sweep's results with package plots (the
//     figures of REPORT.md and of `arena plot`).
package report
