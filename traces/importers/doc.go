// Package importers reads public GPU-cluster job traces into the canonical
// job table (package table), one streaming reader per format.
//
// Every reader takes the input's name (for errors), an io.Reader and an
// emit callback that receives one table.Job per job (or per attempt) in
// file order; no reader holds the whole trace in memory except where the
// format forces a join (the PAI task table is aggregated per job first).
// A bad value stops the import with an *input.Error naming the file,
// line, field and what was expected.
//
// Formats (TRACES.md §1–§6 describes each, with its pitfalls):
//
//	philly      Microsoft Philly cluster_job_log (JSON array; times US-Pacific)
//	pollux      the Pollux/Sia reduction of Philly (timestamp,duration,num_gpus,gpu_time,cluster)
//	helios      SenseTime Helios cluster_log.csv (times Asia/Shanghai; CPU jobs skipped)
//	pai         Alibaba PAI 2020 pai_job_table + pai_task_table (header-less; GPUs in percent)
//	alibaba2023 Alibaba GPU 2023 pod list (openb_pod_list_*.csv; censored deletions)
//	gavel       Gavel's TSV traces (7-, 9- and 10-field forms)
//	arena       the Arena artifact's simulate_trace_*.csv
//
// and three capacity files that describe a cluster rather than jobs
// (ReadPhillyMachines, ReadHeliosCapacity, ReadPAIMachines).
//
// The never-ran rule, one for every importer: a job the trace records as
// never started — Philly: no attempt with both a start and an end time;
// Helios: no start_time (cancelled in the queue); PAI 2020: none of its
// tasks started; Alibaba 2023: no scheduled_time (Pending) — is skipped by
// default and counted under a reason starting "never ran: ", because it
// offers no run time to replay. With Options.KeepNeverRan it is kept with
// duration_s −1 (unknown), censored false and the trace's final state, so
// that studies of cancellations can count it; synthesis then drops it
// before a recipe that derives work from the run time, and says so.
// Formats without the notion (Pollux, Gavel, Arena) have every row run.
//
// Absurd values warn (Options.Warned) instead of passing silently: a
// negative run time (end before start, or a negative duration column)
// skips its row, and a job larger than the largest built-in cluster
// (MaxKnownGPUs) is kept but reported, since it is as likely a misread
// layout as a real job.
package importers
