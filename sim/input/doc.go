// Package input is how arena reports bad input and reads YAML strictly.
//
// Error is the one input-error type: where (file or named text, line),
// which field (a key, column or option) and what was expected, wrapping
// the cause. The readers of traces tables (table.FieldError), sweep specs
// (experiments.SpecError), policy strings (policy.OptionError), cluster
// specs and overhead profiles all return it, so a caller finds the place
// with one errors.As whatever was read.
//
// OneDocument and Mapping are the one strict YAML walker every YAML reader
// uses: a second document, a key given twice or a key the reader does
// not know is an error at its file:line: key, never silently ignored (a
// typo in a key must not run another experiment than the one written).
package input
