// Package analytic is a calibrated analytic performance model of one
// training iteration, Arena's grid abstraction with its pruned plan search,
// and a cost model of disaggregated profiling (ARENA.md §2–§4,
// ../shared/reference/perf-model.md). It extends the measured profile
// database to GPU types, localities and model sizes the authors never ran.
//
// # Model
//
// An Arch is a model cut into layer groups (Units: GPT 6, MoE 8,
// WideResNet 16, the artifact's counts) with per-sample forward FLOPs,
// parameters, activation sizes and collective volumes (Alpa's GPT, GShard
// MoE and WideResNet configurations; ArchOf). A Plan puts contiguous units
// on each of p pipeline stages, gives every stage the same (dp, tp) shape
// (dp·tp = GPUs/p) and splits the batch into m micro-batches. planCost
// returns its iteration time:
//
//	stage_j   = 4·F_j·(b/dp)/tp / (peak·e_{gpu,family}) · (1 + w0/h)     compute, with remat
//	          + (#layers_j)·λ_family                                       per-layer fixed cost
//	          + 3 × all-reduce(TP bytes) over tp  + MoE all-to-alls        collectives
//	T = Σ_j stage_j + Σ p2p + (m−1)·max(stage, p2p)                        1F1B / GPipe pipeline
//	  + ε·max_j all-reduce(gradients_j) over dp + Adam step (HBM-bound)
//
// Collectives are ring all-reduce 2(n−1)/n·S/β plus log-depth latency, on
// the intra-node link when the group fits in a node and on the per-GPU
// share of the network otherwise; β is the catalog's bandwidth times a
// fitted efficiency. Peak memory per GPU counts weights and gradients,
// optimizer states sharded over dp, MoE experts sharded over the stage,
// the activations 1F1B keeps in flight (min(m, p−j) micro-batches) and the
// largest layer's transient activations, against 80% of the GPU's memory.
//
// # Grids and search
//
// A Grid is (GPU type, nodes, GPUs per node, pipeline stages). Exhaustive
// evaluates every partition × shape × micro-batch count of a grid; Pruned is
// Arena's planner: it scores each (partition, shape) on compute imbalance
// and communication time at nominal bandwidth — no profiling needed — drops
// plans its memory estimate rejects, keeps the Pareto set and evaluates
// only that. The proxy plan is the Pareto set's most balanced plan.
// BestBounded finds Best's plan (the exhaustive optimum over a locality's
// grids, what Source answers with) without costing the plans a per-term
// lower bound of planCost proves slower than one already costed.
//
// Large jobs: where a locality's exhaustive space exceeds
// MaxExhaustivePlans (a model cut into many units, such as gpt-405b),
// Search3D prices 3D-parallel plans instead — tensor parallelism inside a
// node, pipeline and data parallelism across, even layer splits, the
// interleaved 1F1B schedule — in at most MaxPlanSteps counted steps.
//
// # Held-out validation
//
// Published runs the fit never saw are priced on their published plans:
// Megatron-LM SC21 on 32–3,072 A100s (validate.go), Megatron-Core's weak
// and strong scaling on 48–6,144 H100s (mcorevalid.go) and the Llama 3
// paper's 8,192- and 16,384-GPU runs (llama3val.go). Attribution re-prices
// a published plan with the model's named differences from those runs
// removed (full recomputation, the exposed data-parallel all-reduce, the
// tensor-parallel all-reduces); it is a study, never an estimate the
// simulator uses (docs/perf-model.md).
//
// # Calibration
//
// Params (compute efficiency per GPU type × family, GEMM-width constant w0
// and per-layer latency λ per family, intra/inter link efficiency per GPU
// type, exposed DP share ε) are fitted to the profile database with gonum's
// Nelder–Mead on squared log error (Calibrate), and stored in
// estimator/data/analytic_params.json (`arena calibrate`). GPU types
// without database data inherit compute efficiencies from a twin (h100 ←
// a100, l20 ← a40, ...) and use datasheet-typical link efficiencies.
//
// Source and Hybrid adapt the model to estimator.Source for simulations.
// Source.NetworkShare gives the share of a job's iteration spent in
// cross-node collectives under its best plan, from planCost's breakdown:
// the part the engine's contention model stretches (docs/topology.md).
package analytic
