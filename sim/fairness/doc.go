// Package fairness computes fairness metrics from a run's results: per job
// finish-time fairness ρ, and per run and per tenant the figures multi-
// tenant schedulers are judged on (Themis, Gavel, Shockwave, Sia).
//
// # ρ, exactly
//
// Themis (Mahajan et al., "Themis: Fair and Efficient GPU Cluster
// Scheduling", NSDI 2020, §3) defines a job's finish-time fairness as
// ρ = T_sh / T_id: its completion time in the shared cluster over its
// completion time with an independent 1/N share of the cluster, N the
// number of contending apps. A job with ρ ≤ 1 did no worse than its fair
// share; the fraction of jobs with ρ > 1 is the headline figure of Gavel
// and Sia. Here:
//
//   - T_sh is the job's JCT in the run (finish − submit, jobs.parquet).
//   - N_j is the time-average, over [submit, finish] of the job, of the
//     number of jobs in the system (running + pending, timeline.parquet,
//     one value per round, held until the next round): the contending
//     jobs, the job itself included, so N_j ≥ 1. Jobs, not tenants: a
//     tenant-level N hides contention inside a tenant.
//   - The 1/N share is of the GPUs of the job's requested type (C_k), the
//     pool it can run on: C_k / N_j GPUs.
//   - T_alone is the job run alone on its request — its type and count at
//     the best locality — under the ground-truth estimator: iterations ×
//     iteration time, plus the first-start overhead of Options.Overhead.
//     A request the estimator finds infeasible uses the shape the job
//     last ran on.
//   - With a share smaller than its request, a job time-slices: T_id =
//     T_alone × max(1, g_j · N_j / C_k), g_j its requested GPUs.
//
// ρ_j = T_sh / T_id. Jobs that did not finish have no ρ (counted apart).
//
// # Per run and per tenant
//
// Tenants are the tenants file's VCs (and Default), or without a file
// the VCs the trace names. Per tenant: jobs, finished, mean and p95 JCT
// (linear interpolation, as summary.json), GPU-hours (jobs.parquet's
// gpu_seconds), share of the run's GPU-hours, mean ρ, and the GPU-seconds
// held beyond the tenant's cap (from allocations: any policy's runs can be
// measured, not only the quota wrapper's). Per run: max and mean ρ, the
// fraction with ρ > 1, and Jain's index J(x) = (Σx)² / (n·Σx²) of the
// per-tenant GPU share divided by the tenant's weight, and of the
// per-tenant mean ρ (1 = equal, 1/n = one tenant has everything), over the
// tenants with at least one job. The quota wrapper's reclaim and
// violation counts are copied in when given (Options.Quota).
//
// ShareOverTime samples each tenant's GPUs held at the timeline's rows
// (for a share-over-time figure); Report.Jobs feeds a ρ CDF.
//
// # Where the figures go
//
// A run with tenants (experiments/runner Run.Tenants) computes its Report
// after the simulation: the run-level and per-tenant figures (Report's
// embedded sim.Fairness) become summary.json's fairness object, and
// Report.Files writes fairness.json, fairness_jobs.csv (each rated job's
// ρ) and tenant_gpus.csv (ShareOverTime) beside the results; ReadJobs and
// ReadShare read the two tables back for the figures.
package fairness
