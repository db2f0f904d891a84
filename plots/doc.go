// Package plots draws the figures of arena's results with gonum/plot: the
// JCT CDF per policy, mean-JCT bars (raw and padded), cluster throughput
// and queue length over simulated time, GPU utilisation by type, and the
// load-sweep curves. It knows nothing about files of results: callers
// (experiments, the CLI) hand it plain series in Run and Curve values and
// save the plots as PNG (default), SVG or PDF with Save or Encode. Every
// axis carries its unit; every multi-series figure has a legend, kept
// under a quarter of the figure's height.
//
// Runs of several seeds are drawn over their seeds (DrawSeeds,
// MeanJCTBarsCI, UtilizationCI, LoadCurvesCI): the mean with a band or
// whiskers of the 95 % Student-t interval over seeds (TInterval), named in
// the legend. Series stay apart in greyscale print: lines by dashes and
// markers, bars by hatches (hatch.go). PDFs are written by pdf.go (gonum's
// vgpdf with fpdf's UTF-8, subset-font path): their text is Unicode, so
// ×, — and ≤ survive, and a figure is tens of KB. docs/figures.md is the
// user's guide.
//
// Every figure checks, as it is drawn, that its text fits (layout.go):
// each string's box inside the canvas, apart from the others, at 6 pt or
// more (LayoutProblems); what does not is in Figure.Notes. Figures of
// several panels label their axes once (Figure.XLabel, YLabel).
//
// Runs with faults (faults.go): the GPUs available per GPU type over time
// with failures, drains and reclaims marked (Availability), and each
// policy's cumulative progress lost to interruptions (CumulativeLost);
// docs/faults.md.
package plots
