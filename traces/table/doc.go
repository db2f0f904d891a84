// Package table is the canonical job table: what any imported trace keeps
// about its jobs, in one schema, written as CSV or Parquet.
//
// One row per job (or per attempt, when an importer splits attempts):
//
//	id               the trace's own job identifier
//	submit_s         submission instant, seconds (Unix time when the trace
//	                 has dates; the trace's own clock otherwise)
//	duration_s       run time in seconds; −1 when the trace has none
//	censored         the job was still running at the trace's end, so
//	                 duration_s is a lower bound
//	iterations       training iterations on the trace's scale; 0 = unknown
//	iteration_scale  the engine runs iterations ÷ iteration_scale (5 for the
//	                 Arena artifact's traces, 1 when iterations are real)
//	gpus             GPUs requested (fractional for shared-GPU traces)
//	gpu_type         requested GPU type as the trace names it; "" = any
//	model, batch     workload ("gpt-2.6b", 256) when known; "" and 0 if not
//	deadline_s       deadline instant on submit_s's clock; 0 = none
//	user, vc         user and virtual cluster (hashed as published)
//	status           final state as the trace spells it (Pass, COMPLETED, …)
//	attempt          attempt number when attempts are separate rows, else 0
//	zone             IANA zone of the trace's local clock ("" if unknown);
//	                 time-of-day windows are taken in it
//	source           the format the row was imported from (philly, pollux, …)
//	outcome          the job's own end where the trace records it: failed
//	                 (the job's error), killed (a user's or the scheduler's
//	                 cancel, a time limit), "" (passed, unknown, or ended
//	                 by the cluster's fault, e.g. Helios NODE_FAIL); the
//	                 importers map status to it (docs/faults.md)
//
// The CSV form has these columns in this order with a header row; the
// Parquet form has the same column names. Readers find columns by name,
// so extra columns are ignored, and outcome may be absent (tables written
// before it existed read with no outcome).
package table
