// Package experiments turns a description of runs (trace × cluster ×
// policy × timing × rounds) into simulations and results: the runner every
// command uses, and (as they land) sweep specs, paper reproduction and
// regression checks.
package experiments
