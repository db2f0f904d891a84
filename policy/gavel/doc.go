// Package gavel is Gavel's max-sum-throughput policy as the Arena artifact
// implements it as a baseline (ARENA.md §7, "Gavel"); the package also
// holds the placement and round-planning helpers Sia shares with it.
//
// The model. Gavel keeps an ordered table of admitted jobs (each at the GPU
// count its user asked for, never changed) and the previous solution
// ("prev_alloc": one GPU type per admitted job). Every decision — a new
// job, or a pending job in a restart pass — solves
//
//	maximize   Σ thr[j][t]·x[j][t]
//	subject to Σ_t x[j][t] = 1                 every admitted job and the new one
//	           Σ_j gpus[j]·x[j][t] ≤ total[t]   every type (ALL its GPUs, busy or not)
//	           at most 3 admitted jobs change type (MAX_MGRT_JOB_NUM)
//
// with thr the data-parallel throughput (estimator.ViewDataParallel: DP
// memory filter, unscaled fallbacks) at best locality, −1e9 where
// infeasible. The artifact used CPLEX; here policy/ilp solves it exactly
// (see ilp.Reassignment for the reformulation). A decision is rejected when
// the program has no solution or its objective is exactly 0; a negative
// objective (an infeasible −1e9 entry forced in) is accepted and then fails
// placement.
//
// After acceptance prev_alloc becomes the solution; the jobs whose type
// changed (admitted order) and then the new job are cleared from a copy of
// the slot table and placed on their new types at best locality, else at
// relaxed locality (Place). Any failure discards the copy
// and removes the new job's row, but — the artifact's quirk — the other
// rows keep the program's new types although those jobs did not move.
// Departures delete their rows.
//
// Passes per round: in rounds with departures, a restart pass over the
// pending queue in order, where a failure blocks the job's requested type
// for the rest of the pass; then the arrivals in trace order, each dropped
// unless it is feasible on some type at best locality without the memory
// check (estimator.ViewDataParallelNoMemCheck). Gavel never preempts.
//
// Versions. The placement's feasibility check is where the two versions of
// the authors' code differ (Version): at their ae-eurosys head (Head: the
// "gavel" policy, alias "gavel-head") it applies the DP memory filter; in
// the version behind their stored Philly results (StoredRun:
// "gavel-stored") it does not (force_opt), so a
// job the filter rejects on every type, admitted with an all −1e9 row,
// runs wherever it fits. docs/ilp-baselines.md gives the evidence.
//
// Ties. When several assignments are optimal, CPLEX's choice cannot be
// reproduced; the solver keeps the previous types when they are optimal,
// undoes zero-gain changes, and otherwise returns the first optimum of its
// fixed search order (see policy/ilp). docs/ilp-baselines.md compares the
// Philly run with the authors' stored result.
package gavel
