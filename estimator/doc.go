// Package estimator answers the question every scheduler and the engine ask:
// how fast does a job (model, global batch) train on a given shape of GPUs
// (GPU type × nodes × GPUs per node), and can it run there at all?
//
// The model is deliberately small:
//
//   - GPUType and the Catalog describe hardware (memory, peak FP16/BF16
//     TFLOPS, bandwidths, default GPUs per node).
//   - Model and Workload describe what trains: a family (GPT, MoE,
//     WideResNet), a size, and a global batch size.
//   - Config is one uniform placement shape: a GPU type, a number of nodes
//     and the GPUs used on each of them (the artifact's "locality").
//   - An Estimator maps (Workload, Config) to an Estimate: throughput in
//     samples/s and iteration time in seconds, or "infeasible" with a Reason.
//
// ProfileDB is the Arena artifact's measured profile database (embedded from
// data/) with the artifact's exact lookup and fallback rules (ARENA.md §4).
// It offers views: the adaptive-parallelism ("optimal") view that Arena
// decides with and that the engine always executes with, and the
// data-parallel view the baselines decide with (a DP memory filter, unscaled
// fallback entries). The gap between those two views — static parallelism
// in the scheduler, adaptive parallelism at run time — is the paper's
// subject, so it is kept explicit: a caller always names the view it uses.
//
// This package imports nothing else of the project.
package estimator
