// Package resultsdir writes a run's results directory: jobs.parquet (one
// row per job), timeline.parquet (one row per round, a busy-GPU column per
// GPU type), allocations.parquet (every GPU holding), rounds.csv (the
// per-round digest in the artifact's form, sim.Result.DigestCSV) and
// summary.json, every table row carrying the run's identity
// (sim.Identity).
//
// The engine hands a finished run over as a value (sim.Result and its
// sim.Summary) and knows no file format: encoding and the directory's
// layout live here, so sim does not depend on Parquet. Write builds the
// directory under a temporary name and swaps it in whole (sim/outdir):
// afterwards it holds the new run's files or, after a failure, the old
// run's, never a mix. A non-empty directory without arena's manifest, or
// holding anything arena did not write there (files other than those the
// manifest lists, CompanionNames and temporaries; any symbolic link), is
// refused, not replaced. Each file is streamed to disk as it is rendered,
// its Parquet rows built a chunk at a time and its encoded pages kept in
// temporary files until the file is written (PageBuffers): a million-job
// run's files are never in memory (the exported XParquet functions return
// one file's bytes, for tests and tools). AllocStream encodes
// allocations.parquet's rows as the run produces them (RunDir.Allocations),
// so a run reconfiguring tens of millions of times keeps none; JobStream
// encodes jobs.parquet's rows as the engine hands the job table over after
// the run (RunDir.Jobs), a part at a time, so the table is never whole in
// memory.
package resultsdir
