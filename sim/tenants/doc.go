// Package tenants reads a tenants file: the teams (virtual clusters, VCs)
// that share a cluster, each with GPUs guaranteed to it per GPU type, a cap
// on the GPUs it may hold at once, a fair-share weight and a priority.
//
// It is data beside the trace (DESIGN.md, "Cluster dynamics and tenants"):
// the trace says which VC each job belongs to (sim.JobSpec.VirtualCluster),
// the tenants file says what each VC is entitled to. The quota wrapper
// (policy/quota) enforces it around any policy; the fairness policies and
// metrics (sim/fairness) read weights and shares from it.
//
// The model is Kueue's ClusterQueue (nominal quota per resource flavour,
// borrowing limit) and Slurm's QOS (GrpTRES limit, priority, preemption):
//
//   - guaranteed: GPUs per type the VC may always have within a bounded
//     wait (nominal quota). Unused guarantee is lent to others.
//   - cap: the most GPUs (all types together) the VC may hold, borrowed or
//     not; 0 or absent means no cap.
//   - weight: the VC's share in weighted fair sharing (> 0, default 1).
//   - priority: higher priority VCs' borrowed jobs are reclaimed last.
//
// A job whose VC the file does not list belongs to the implicit tenant
// Default ("" in the trace included): no guarantee, no cap, weight 1,
// priority 0 — it can run only on borrowed GPUs — unless the file lists
// "(default)" itself with other values.
//
// Validation against a run (Check) refuses a VC no job of the trace has
// (a typo in the file would otherwise silently guarantee nothing), a GPU
// type the cluster lacks, and guarantees summing to more GPUs of a type
// than the cluster has unless the file says oversubscribe: true (real
// clusters do over-commit guarantees; the wrapper then cannot honour all
// of them at once and says so in its reclaim count).
package tenants
