// Package quota is a wrapper policy that enforces tenants' quotas around
// any other policy: quota(INNER, tenants=FILE, borrow=true, grace=0).
// It is the cluster-policy layer of Kueue (ClusterQueue nominal quota,
// borrowing, reclaimWithinCohort) and of Slurm's QOS (GrpTRES caps,
// preemption of lower-priority work), kept outside the scheduling policy
// so that every built-in policy and every exec: policy can run under it
// unchanged (DESIGN.md: "quota logic wraps any policy rather than living
// inside one").
//
// # Model
//
// The tenants file (sim/tenants) gives each VC guaranteed GPUs per type
// G[t][k], a cap on the GPUs it holds at once, a weight and a priority. A
// job belongs to the tenant of its JobSpec.VirtualCluster; a VC the file
// does not list is the Default tenant (nothing guaranteed, no cap).
//
// Usage U[t][k] is the GPUs of type k the tenant's running jobs hold. A
// running job is a borrower when, walking its tenant's jobs on its type in
// running-queue (start) order, the GPUs counted so far with it exceed
// G[t][k]: the most recently started jobs are the borrowed ones.
//
// A pending job j of tenant t requesting n GPUs of type k is an eligible
// owner when U[t][k] + (the requests of t's eligible owners ahead of j in
// the queue on k) + n ≤ G[t][k]: it fits in its tenant's unused guarantee.
//
// # One decision
//
//  1. Filter. The inner policy gets the engine's View with a pending queue
//     and arrivals holding only the jobs it may start: a job whose tenant
//     would exceed its cap with the job's request is hidden, and with
//     borrow=false so is a job that does not fit in its tenant's unused
//     guarantee on its requested type. Running, Occupant, Cluster and the
//     Job records are the engine's, every running job included: policies
//     that repack a GPU type (ElasticFlow) must see every holder. A View
//     with nothing to change is handed on as it came, so the inner
//     policy's shortcuts (ViewReader, queue mirrors) keep working.
//  2. Decide. The inner policy returns its batch of actions.
//  3. Sanitise. Once the wrapper has changed anything (a hidden job, a
//     refused action, a reclaim), a policy that keeps its own record of
//     what runs (Arena's decision queue, Sia's and Gavel's tables) can act
//     on a state that is no longer true. From then on its batch is checked
//     against the cluster as it is, and what no longer fits is dropped
//     (Stats.Stale): an action on a job in the wrong state, a start or
//     reallocation onto GPUs another job keeps or another action took, or
//     onto GPUs of mixed types. A batch from a policy the wrapper never
//     touched reaches the engine verbatim, so the engine still names an
//     inner policy's own bugs.
//  4. Veto. The batch is applied in order to a copy of the usage; a start
//     or reallocation that puts its tenant over its cap (or, with
//     borrow=false, beyond its guarantee on the type it lands on) is
//     dropped. A start can always be dropped; a reallocation is dropped only
//     if no other action of the batch takes the GPUs it would free,
//     otherwise it is kept and counted as a violation (Stats.Violations):
//     refusing it would make the engine reject the whole batch.
//  5. Reclaim. After the batch, the eligible owners are recomputed; each
//     remembers the first decision at which it became eligible. An owner
//     eligible for grace or longer is started by the wrapper on its
//     requested type and count at the best locality (placement.Best on the
//     nodes with most idle GPUs): on idle GPUs if they suffice (the inner
//     policy may have left it waiting, e.g. behind FCFS's head of line),
//     otherwise after taking GPUs back from borrowers of that type one at a
//     time in reclaim order until it fits. An owner the inner policy has
//     just suspended keeps its GPUs instead (its suspension is refused and
//     borrowers on those GPUs give them back), so a preemptive inner policy
//     cannot make an owner pay a restart.
//
// A job the wrapper suspended, or whose start it refused, is handed to the
// inner policy as an arrival at the next decision (and left out of its
// pending queue then): a policy that keeps its own queue learns of it
// that way, as of any new job.
//
// Reclaim order (Kueue's: lowest priority first, then most recently
// admitted): borrowers of the tenant with the lowest priority first,
// among equals the most recently started first (least work lost, and the
// job that borrowed last gives back first). A borrower the inner policy
// started in this very batch is reclaimed by dropping its start; a
// borrower it reallocated in this batch is not reclaimed in this decision.
// A reclaimed job is suspended (sim.Suspend: back to the pending queue,
// progress kept) — the preemption a production scheduler does with a
// checkpoint; its restart pays the overhead profile's restart cost.
//
// Grace is Slurm QOS's GraceTime seen from the owner's side: the borrower
// keeps its GPUs until the owner has been eligible for grace seconds. The
// guarantee the property test checks: an owner is never left pending at a
// decision made grace or more after the first decision at which it was
// eligible. As decisions fall every round (300 s), an owner's wait behind
// a borrower is at most grace plus one round from its arrival. With a
// tenants file the wrapper is called every round (it does not claim
// sim.QuietRounds): a grace expires on elapsed time alone, and a job it
// handed back acts at the next decision, arrival or not.
//
// Limits: the inner policy's priorities and the guarantees can pull in
// opposite directions — a preemptive inner policy (SRTF, Tiresias) may
// keep choosing a borrower over an owner, and the wrapper keeps undoing
// it (Stats.Vetoed counts it). The guarantee holds in GPU counts; an owner whose request
// cannot be placed even after every borrower of its type is reclaimed
// (fragmentation by guaranteed jobs) waits for the next decision. With
// oversubscribed guarantees (the file's oversubscribe: true) owners can
// outnumber the GPUs and wait for each other. Borrowing while an owner
// waits out its grace is not refused: the new borrower is the most
// recent and is reclaimed first.
//
// # Stats
//
// Stats (QuotaStats) counts reclaims, reclaimed GPUs, owner starts,
// vetoed actions, violations, hidden job-decisions and stale actions; sim/fairness
// reports them beside the fairness metrics.
package quota
