// Package regress checks that arena's results have not moved: Regress
// re-runs the runs of a Golden file (experiments/testdata/golden) through
// package runner and fails with ErrRegression naming each summary metric
// that moved beyond its Tolerance or each relation between runs
// (relation.go) that no longer holds; UpdateGolden rewrites a file's
// summaries. TestGolden makes `go test` run every committed golden
// exactly.
//
// Its tests also hold the parity checks against the Arena artifact (the
// authors' per-round digests and stored results, package reference, and
// their fresh-Poisson runs in ../shared), the determinism checks
// (GOMAXPROCS), the summary metrics against a policy that games them by
// dropping jobs, and the scaling benchmark of `make
// bench-scale`. It imports only package runner of the experiments tree:
// a golden run is one runner.Run.
package regress
