// Package sia is Sia (Jayaram Subramanya et al., SOSP'23) as the Arena
// artifact implements it as a baseline (ARENA.md §7, "Sia").
//
// The model. Like Gavel, Sia keeps an ordered table of admitted jobs and
// the previous solution, but its columns are the 20 configurations
// (type, n) for type in a100, v100, a40, a10 and n in 1, 2, 4, 8, 16.
//
//   - Throughput model (DP view with the memory filter): the single-GPU
//     throughput t1 scaled linearly, t1·n; −1e9 when the best-locality shape
//     of n GPUs is DP-infeasible. When one GPU is infeasible, t1 is
//     estimated from every feasible count m as thr(m)/(2m) (the artifact
//     doubles m before dividing), the last feasible m winning.
//   - Goodput row (statistical efficiency 1), normalised per job:
//     n_min·g/g_min over its feasible entries.
//   - Weights min((g·r)^0.5, 3000) with the restart factor
//     r = max((exec − rescheds·600)/(exec + 600), 0.01), exec = Job.ExecTime
//     and rescheds = Job.Rescheds (a new job has r = 0.01).
//   - Program: maximise Σ w·x + 1 + 1000·Σ x_new; admitted jobs exactly one
//     configuration each, the new job at most one; per type Σ n·x ≤ its total
//     GPUs; at most 3 config changes (2 if the new job is left out). The
//     artifact used GLPK with a 30 s limit; here policy/ilp, with the same
//     time limit and a node limit. policy/ilp returns exact optima; GLPK
//     did not on these programs (the −1e9 entries swamp its simplex's
//     tolerances), which is why the stored run departs from ours in round
//     14. Sia.WithGLPK (registered as sia-glpk) solves with GLPK itself,
//     through Python's cvxopt, and follows the stored run through round 103
//     (docs/ilp-baselines.md); Sia.WithSolver takes any other solver.
//   - Rejection: no solution, the new job not allocated, or a goodput sum of
//     exactly 0.
//   - After acceptance the jobs to move are re-placed, then the new job gets
//     the program's (type, n). Placement as Gavel's (best, else relaxed
//     locality); its feasibility check skips the memory filter in the
//     new-job pass (force_opt) and applies it in the restart pass. Failure
//     reverts the decision like Gavel, stale rows included.
//   - GPU counts of running jobs. The artifact overwrites every admitted
//     job's count with the count of its row in the PREVIOUS solution, and
//     moves only jobs whose TYPE changed, with that count: a count-only
//     change is never applied and a type change applies a count one
//     decision old. New(…, artifactCounts=true) reproduces this (the
//     registry's sia-head, sia-stored and sia-glpk, in every timing). The
//     registry's "sia" has the corrected behaviour: a job whose
//     configuration changed in any way is re-placed with the program's type
//     and count.
//   - Passes per round: in rounds with departures the pending jobs are tried
//     in queue order; then the arrivals, pre-filtered as in Gavel. Sia never
//     preempts.
//   - Versions (Version). At the authors' ae-eurosys head (Head: the
//     "sia" and "sia-head" policies) the restart pass tries every pending
//     job. In the version behind their stored Philly results (StoredRun:
//     "sia-stored", "sia-glpk") a failure blocks the job's
//     requested type for the rest of the pass, as in Gavel; pending jobs
//     then almost never restart, as in the stored run
//     (docs/ilp-baselines.md).
//
// Performance. A failed fit changes nothing a later fit reads, unless its
// placement failed and left new previous columns: so within a pass a job
// with the workload, execution time and reschedule count of a remembered
// failure fails the same way without its program being solved
// (rememberFailed). On an overloaded cluster that is most of the restart
// pass: one program per pending job per departure, most of them admitting
// the job and then failing to place it.
package sia
