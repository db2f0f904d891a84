package faults

import (
	"errors"

	"github.com/arena-sim/arena/sim"
)

// Load returns the cluster events of a run on cluster c between start and
// end (simulated seconds): name is a preset's name (synthesised from its
// seeded processes with seed) or the path of an events file (CSV or
// Parquet; seed unused). The events are sorted by time, then node.
//
// CONTRACT ONLY: the implementation lands with the sim/faults work of
// issue 26; until then every name is refused.
func Load(name string, c *sim.Cluster, seed int64, start, end sim.Time) ([]sim.ClusterEvent, error) {
	return nil, errors.New("faults: not implemented yet")
}
