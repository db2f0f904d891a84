// Package ci computes confidence intervals over seeds: the mean of a
// metric across a sweep's seeds and its 95 % Student-t interval, and
// formats them for reports ("49.1% [46.3, 51.8]", under a header that
// names the method and the seed count: "95 % t-interval over 5 seeds").
//
// Why t: a sweep has few seeds (3–10). The percentile bootstrap that the
// project used before is [min, max] at 3 seeds and covers the true mean
// in about 74 % of normal samples at 3 seeds, 83 % at 5 (TestCoverage
// measures it); the t-interval mean ± t(0.975, n−1)·s/√n has exact 95 %
// coverage for normal values at every n and stays close to it for the
// mildly skewed values a sweep produces (per-seed means over hundreds of
// jobs; per-seed paired ratios). Comparisons are paired: the interval is
// over the per-seed values of 1 − a/b (same workload draw for both
// policies), which removes the seed-to-seed variation of the workload.
// For strongly skewed values (lognormal σ = 1) no interval on 10–20
// values reaches 95 %; TestCoverage reports that case without asserting it.
//
// Ratios (a paired throughput ratio per seed) are averaged on the log
// scale: LogRatioInterval is exp of the t-interval of their logarithms,
// the geometric mean with an interval symmetric in log space.
//
// A table of many comparisons at 95 % each expects 5 % of them to exclude
// no effect when there is none (FalsePositives). TTestP gives each paired
// comparison's two-sided t-test p-value (below 0.05 exactly when its
// interval excludes no effect) and Holm the step-down adjusted p-values
// that keep the family-wise error rate at 5 %.
//
// Intervals are pure functions of their sample: the same numbers give the
// same interval on every machine and in every run (Bootstrap, kept for
// comparison, draws from a PCG generator with a fixed seed). With fewer
// than two values there is no interval (NaN bounds); with fewer than
// FewSeeds, Describe adds a warning.
package ci
