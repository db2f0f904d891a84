// Package traces reads job traces into the engine's job specs.
//
// The Arena artifact's CSV format is the native one:
//
//	job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type
//
// submission_time and deadline are seconds on the trace's clock (deadline 0
// or empty means none), num_iteration is the trace's iteration count (the
// engine divides it by the trace's IterationScale, 5 for the artifact's simulation traces), model_name
// is "<family>__<size>" (bert = GPT) or this project's "gpt-2.6b" form,
// num_gpu a power of two up to 16 and gpu_type a catalog GPU type.
//
// The four artifact traces are embedded under the names philly, helios (the
// Venus cluster of Helios), pai and testbed, so a run needs no file on disk.
// A bad row is reported as an *input.Error (sim/input's one input-error
// type) naming the file, line and column and what was expected
// ("t.csv:3: column num_iteration: bad number: …"); it unwraps to one of
// the Err* sentinels.
package traces
