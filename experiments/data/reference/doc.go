// Package reference holds the authors' stored results of the Arena
// artifact: their Philly runs (per-job JCTs, queueing, per-round
// throughput) and their per-round digests of Philly and PAI runs, copied
// from the artifact data (../shared/arena-data/reference-results; see
// PROVENANCE.md). Parity tests compare arena's runs with them; the
// package is small so a policy's tests can import it (with
// experiments/runner) without the sweep and report code.
package reference
