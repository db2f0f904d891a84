// Package faults produces the cluster events of a run — nodes that fail,
// are drained for maintenance, are reclaimed as spot capacity, come back
// or are added — as a time-ordered []sim.ClusterEvent the engine applies
// (sim/clusterevent.go). It also holds the checkpoint mathematics (Young,
// Daly) the engine's statistical tests compare against. docs/faults.md is
// the user's reference.
//
// Two sources, one result (Load resolves a name to either):
//
//   - An events file (CSV or Parquet): one event per row — time, node or
//     pool, event word, notice, cause, price (add and up: the node's spot
//     price, $/GPU-hour, for sim/energy). Rows are checked one by one (the
//     node exists, times and notices are finite seconds ≥ 0, a notice only
//     on drain and reclaim, a known event word) and then as each node's
//     sequence (a repair needs a failure before it, an up needs a node
//     that is down, an add comes first): every refusal is an *input.Error
//     naming file, line and field.
//   - A faults spec (YAML; the built-in presets are specs): seeded
//     processes per GPU type. Failures: Weibull inter-failure times
//     (shape 1 is the exponential) per GPU or per node, a repair-time
//     distribution, causes drawn by weight. Maintenance: periodic windows
//     (a phase per node, or aligned) or Poisson ones, each drained with a
//     notice, down for a window's duration. Spot: Poisson reclaims with a
//     notice, the capacity back after a return time.
//
// The model of a synthesised node: its processes are independent clocks
// that run while the node is up; the first to fire takes the node out
// (down, drained or reclaimed); while it is out nothing else fires; when
// it is back every clock restarts (the node is as new). Per-GPU rates
// become per-node ones exactly: a node of G GPUs fails when its first GPU
// does, which for Weibull(k, λ) per GPU is Weibull(k, λ·G^(−1/k)).
//
// Determinism: every random draw comes from math/rand/v2's PCG seeded
// with the run's seed and a stream key made of the process (its kind and
// position in the spec), the node's GPU type and the node's ordinal among
// the nodes of that type — never the node's global index, so adding a
// node or a pool leaves every other node's events unchanged. Nodes are
// visited in a fixed order and events sorted by (time, node), stably:
// no map order, no wall clock enters.
package faults
