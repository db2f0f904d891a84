// Package energy says what a schedule costs in kilowatt-hours, dollars and
// kilograms of CO₂: it reads a run's recorded GPU holdings (sim.Result's
// Allocations, each split at Ready into reconfiguring and computing) and
// prices every GPU-second of the cluster with a power model, a price table
// and a grid carbon intensity (Model). It runs after the engine, so a run
// that does not ask for it (runner.Run.Energy "") pays nothing and its
// results are unchanged.
//
// Power of one GPU, watts, by what it does (GPUPower):
//
//	idle (nobody holds it)          Idle
//	reconfiguring (overhead)        Idle + (TDP − Idle) × Reconfig (a CUDA context, no kernel)
//	held, computing, no kernel      Idle + (TDP − Idle) × Reconfig, the share NoKernel of the time
//	held, computing, the rest       Idle + (TDP − Idle) × (Compute × e + Comm × (1 − e))
//
// NoKernel, by the job's GPU count, is the share of held time whose GPUs
// run no kernel (Philly's per-minute utilisation samples at 0 %); it
// changes power only, not the job's progress.
// where e is the job's scaling efficiency on its grid under the estimator
// the engine executed with: its throughput ÷ (GPUs × the best per-GPU
// throughput any one-node grid of that type gives it), in (0, 1]. The
// share 1 − e of its time a GPU waits on communication draws the Comm
// activity rather than Compute. Each GPU also carries its share of the
// server's other power (ServerWattsPerGPU, CPUs, memory, NICs, fans), and
// the facility multiplies the whole by its PUE.
//
// Energy (kWh) = Σ over GPU-time of (GPU watts + server watts) × PUE;
// carbon (kg) = Σ energy × the grid intensity at that instant (Intensity:
// a constant, or an hourly series from the run's start, repeating);
// electricity $ = energy × USDPerKWh; GPU $ = GPU-hours held × the price
// tier's $/GPU-hour, or a node's spot price set by its cluster events
// (EventPrices, Model.NodePrices) or by a faults spec's priced spot
// process (Model.SpotNodes). A node out of service (EventOutages,
// Model.Outages: down, in maintenance, reclaimed, not yet added) is
// powered off, and costs nothing while reclaimed or before it is added;
// Model.WithEvents sets both from a run's events. A cluster spec's energy section is a
// base model that LoadOnto applies --energy over. Every constant, its source and the anchors
// (published LLM trainings, Acme's power distributions) are in
// docs/energy.md.
package energy
