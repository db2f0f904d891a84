// Package replay runs a trace on a real Slurm cluster at a compressed
// time scale and measures the simulator against it (arena replay --on
// slurm; docs/replay.md).
//
// The model, bottom up:
//
//   - The cluster. Up starts an emulated Slurm cluster whose nodes are a
//     cluster spec's (slurmconf.go: one NodeName per node, named by GPU
//     type and index, "a40-3", on its own loopback address and a port
//     below the ephemeral range; GPUs as File= gres entries pointing at
//     empty files; one partition of every node and one per GPU type): a
//     private munged, slurmctld and one `slurmd -N NAME` per node, each
//     arena's child in its own process group, killed with arena
//     (Pdeathsig) and stopped by Down by its pid. Attach uses an existing
//     cluster instead.
//   - The stand-in (standin.go) is the job Slurm runs: a shell script that
//     prints its own start and end instants and its node, and sleeps in
//     between (its compressed run time, or until an absolute instant in
//     the deterministic option). Completion times come from these stamps,
//     not from Slurm's accounting.
//   - Policy mode (RunPolicy): the simulation's holdings (Segments) are
//     replayed open loop: each is `srun -w NODES -N k --gres=gpu:TYPE:g`
//     at its compressed start on exactly arena's nodes; a job's next
//     holding waits for its previous one (suspend, resize and migrate are
//     an end and a relaunch with the remaining work). Native mode
//     (RunNative): each job is submitted with sbatch at its compressed
//     arrival, in its GPU type's partition, and Slurm's scheduler decides.
//   - The comparison (compare.go): per job and in aggregate, real vs
//     simulated JCT and queueing, the hand-off per start (from the moment
//     a start could begin to its stand-in's start), the simulator re-run
//     with the median hand-off as an overhead on every start (calibrated),
//     pairwise start-order agreement, placements that differed and the
//     policies' ranking; report.go renders it and writes the results
//     directory (replay.json, jobs.csv, REPORT.md) through sim/outdir.
//
// Times in the comparison are simulated seconds: a real instant w maps to
// t0 + (w − w0) × speed, w0 the wall-clock instant of simulated t0.
package replay
