// Package ci computes confidence intervals over seeds: the mean of a
// metric across a sweep's seeds and its 95 % percentile-bootstrap
// interval, and formats them for reports ("49.1% [46.3, 51.8]").
//
// The bootstrap draws Resamples resamples (with replacement, of the same
// size) from a PCG generator with a fixed seed, so an interval is a pure
// function of its sample: the same numbers give the same interval on every
// machine and in every run. With fewer than two values there is no
// interval (NaN bounds). With few seeds (the usual 3–10) the percentile
// bootstrap is narrower than the t interval; it is what the project
// reports, consistently, and its bounds never leave the sample's range.
package ci
