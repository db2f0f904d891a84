// Package elasticflow is ElasticFlow (Gu et al., ASPLOS'23) as the Arena
// artifact implements it as a baseline (ARENA.md §7, "ElasticFlow-LS"), in
// two variants:
//
//   - "elasticflow-ls" (the artifact's elasticflow-l, the paper's
//     ElasticFlow-LS): every job's deadline is its submission time + 1e9 s,
//     ElasticFlow's "improvement in cluster efficiency" setting, so the
//     deadline never binds and the policy is an elastic, throughput-greedy
//     scheduler with admission by the smallest data-parallel-feasible share;
//   - "elasticflow": the jobs' own deadlines (the engine's Job.Deadline,
//     submit + 5·(trace deadline − submit)). At the start of every round,
//     pending jobs whose deadline has passed are marked timed out: as in
//     the artifact they stay in the pending queue (their queueing time keeps
//     growing, and they count in the queueing list) but are never restarted.
//     A doubling must also meet the deadline under the artifact's
//     deadline-aware check (adaptive-parallelism iteration time).
//
// The model. ElasticFlow works per GPU type: a job runs only on the type its
// user asked for, but on any power-of-two count of GPUs of that type, at
// the best locality. All decisions use the data-parallel view of the
// estimator (estimator.ViewDataParallel: DP memory filter, unscaled
// fallbacks); the engine executes with the adaptive-parallelism view.
//
//   - Minimum satisfactory share of a job: the smallest g in 1, 2, 4, 8, 16
//     that is DP-feasible and meets the deadline:
//     now + overhead(current GPUs) + 300 + trunc(remaining·iterTime(g)) ≤ deadline.
//   - Admission of job J of type T: J and the running jobs of T, stably
//     sorted by deadline, must each get their minimum share out of T's
//     TOTAL GPUs (occupancy is ignored).
//   - Allocation: everyone of [J, running jobs of T] starts at its minimum
//     share; while GPUs remain, the job whose doubling gains the most DP
//     throughput (strictly largest, first on ties, among those with
//     share ≤ free and share < 16) is doubled, even when the gain is
//     negative.
//   - Re-placement of every job of T: stably sorted by share, descending;
//     multi-node jobs take the first whole nodes of T in node order, then
//     each remaining node, in node order, is packed by walking the sorted
//     list. Every job whose slots change pays the reconfiguration overhead
//     (the engine detects it slot by slot).
//   - Option keep (WithKeep; default off, the artifact's re-placement
//     above): the shares are the same, but a running job whose share
//     equals the GPUs it holds keeps them; the others (new jobs, jobs
//     whose share changed) are stably sorted by share, descending, those
//     larger than a node take the first wholly free nodes in node order,
//     then each node, in node order, is packed by walking them (a job
//     takes the node's lowest free slots, adjacent or not). Kept jobs
//     never move to make room: if some job is left unplaced, the type is
//     re-placed whole as above, so no admission fails that the default
//     would make.
//   - New jobs are fitted in arrival order (no head-of-line rule); a job
//     that does not fit pends. In rounds with departures, a restart pass
//     walks the pending queue in order; a failure blocks the job's type
//     for the rest of the pass.
//
// The policy plans each round on its own record of the running jobs by
// type, applying the passes one after another as the artifact does, and
// returns the net difference as sim.Actions: Start for jobs that begin
// running, Reallocate for running jobs whose slots changed. The engine
// validates the final state as a whole, so reshuffles within a type are
// fine. The work follows what the result depends on: admission compares
// the type's sum of minimum shares with its GPUs (the order of the
// artifact's walk cannot change the answer), so a rejection costs the
// job's own share; and in ElasticFlow-LS, when no minimum share of the
// type depends on its job's GPU count, only the type's last admission of
// the round is allocated and re-placed, since each admission starts again
// from the minimum shares.
package elasticflow
