// Package plots draws the figures of arena's results with gonum/plot: the
// JCT CDF per policy, mean-JCT bars (raw and padded), cluster throughput
// and queue length over simulated time, GPU utilisation by type, and the
// load-sweep curves. It knows nothing about files of results: callers
// (experiments, the CLI) hand it plain series in Run and Curve values and
// save the plots as PNG (default) or SVG with Save or Encode. Every axis
// carries its unit; every multi-series figure has a legend.
package plots
