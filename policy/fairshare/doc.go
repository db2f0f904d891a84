// Package fairshare holds two fairness baselines that schedule across
// tenants (sim/tenants): gavel-fair, Gavel's max-min fairness over tenants
// with heterogeneity-aware placement, and ftf, finish-time fairness in the
// spirit of Themis. Both are preemptive and round-based: at every
// decision they choose the set of jobs that should run, keep the running
// ones of it where they are, suspend the others (progress kept) and start
// the new ones on their requested GPU count.
//
// A running job holds its GPUs for at least its lease (default one round,
// Themis' lease) before it can be suspended, so a decision never undoes
// the previous one's starts.
//
// # gavel-fair
//
// Gavel (Narayanan et al., OSDI 2020) formulates max-min fairness over
// jobs (or, hierarchically, over entities) as a linear program on the
// fraction of time each job spends on each GPU type, normalised by the
// job's throughput with an equal share. This package keeps its two ideas
// and replaces the LP with what a round-based scheduler can apply
// directly:
//
//  1. Max-min fairness over tenants: the tenants' GPU shares are the
//     weighted water-filling (progressive filling) of the cluster's GPUs
//     against their demands (the GPUs their active jobs request): every
//     tenant gets the same GPUs per unit of weight, except that a tenant
//     asking less gets what it asks and the rest is refilled among the
//     others. That is the max-min fair allocation of one divisible
//     resource, exactly; GPUs left by whole-job rounding go to the tenants
//     with the least allocation per weight. Within a tenant jobs run in
//     least-attained-service order (LAS: GPU-seconds received so far), as
//     Gavel's LAS policy does.
//  2. Heterogeneity awareness: the chosen jobs get GPU types in order of
//     how much they gain from the fastest type they can use over the
//     slowest (throughput ratio under the policy's estimator), each the
//     fastest type with room left: the fast GPUs go to the jobs they speed
//     up most, Gavel's central observation. A running job keeps its type.
//
// Simplified: no LP over time fractions, fairness between tenants in GPU
// counts rather than in normalised throughput, no space sharing.
//
// # ftf
//
// Themis (Mahajan et al., NSDI 2020) runs a partial-allocation auction
// among the apps with the worst finish-time fairness ρ = T_sh / T_id each
// lease. ftf drops the auction (no bids, no hidden payments, the fairness
// knob f = 1: every app takes part) and keeps its rule: at each decision
// every active job's ρ is estimated as
//
//	ρ̂ = (now − submit + remaining iterations × iteration time on the
//	     request) / (T_alone × max(1, g·N / C_k))
//
// (N the active jobs now, C_k the GPUs of the requested type, T_alone the
// whole job alone on its request: sim/fairness' definition with N taken
// at the decision), and GPUs go to the jobs in decreasing ρ̂, each on its
// requested type and count, skipping a job that does not fit. Jobs stay
// on their requested GPU type (Themis is not heterogeneity-aware).
package fairshare
