// Package input is how arena reports bad input and reads YAML strictly.
//
// Error is the one input-error type: where (file or named text, line),
// which field (a key, column or option) and what was expected, wrapping
// the cause. Every parser returns it — artifact trace CSVs (traces),
// canonical tables, importers, cluster specs, overhead profiles, tenants
// files, faults specs and events files, sweep specs, policy strings, a
// run's fields (no file, Field the field's path), Parquet files (pq) — so a
// caller finds the place with one errors.As whatever was read. A
// *LimitError is found by errors.As as an *Error too.
//
// OneDocument and Mapping are the one strict YAML walker every YAML reader
// uses: a second document, a key given twice or a key the reader does
// not know is an error at its file:line: key, never silently ignored (a
// typo in a key must not run another experiment than the one written).
//
// Reader is the one bounded reader every parser of arena reads through
// (traces, canonical tables, importers incl. gzip input; ReadFile for the
// small files read whole: specs, cluster specs, overhead profiles, tenants
// and golden files). Its caps (Cap: line, record, field, input, rows,
// spec file, count, runs) each have a documented default and an
// ARENA_MAX_* variable that raises it, and it fails the moment one is
// passed — before the parser above it can buffer more — with a
// *LimitError naming the cap, the file, the line and the variable
// (docs/limits.md). Count is the one rule for counts a user or a file
// names, checked before allocating; Name and Time are the one validator
// of ids, names and times that the artifact CSV and the canonical table
// share; Clip, ShowValue and Errorf bound and escape whatever an error
// message echoes. Parquet is opened through the subpackage pq.
package input
