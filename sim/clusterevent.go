package sim

import "fmt"

// ClusterEventKind is what happens to a node at a cluster event.
//
// This file is the contract between the engine (which applies events) and
// sim/faults (which reads them from a file or synthesises them from seeded
// processes): sim/faults produces a time-ordered []ClusterEvent for a
// cluster, the engine consumes it through Config.Events.
type ClusterEventKind int

const (
	// NodeDown: the node fails now, without notice. Its jobs stop at once
	// and lose the work done since their last checkpoint.
	NodeDown ClusterEventKind = iota
	// NodeUp: the node is back (repaired, maintenance over, spot capacity
	// returned) or, for a node whose first event is NodeAdd, first joins.
	NodeUp
	// NodeDrain: planned maintenance. The node takes no new job from now;
	// at Time+Notice it goes down (its remaining jobs stop as at NodeDown)
	// until a later NodeUp.
	NodeDrain
	// NodeReclaim: spot capacity taken back. As NodeDrain, with its own
	// cause so metrics can tell the two apart.
	NodeReclaim
	// NodeAdd: capacity added to the cluster. A node whose first event is
	// NodeAdd is absent (down) from the run's start until then.
	NodeAdd
)

func (k ClusterEventKind) String() string {
	if k < NodeDown || k > NodeAdd {
		return fmt.Sprintf("ClusterEventKind(%d)", int(k))
	}
	return [...]string{"down", "up", "drain", "reclaim", "add"}[k]
}

// ClusterEvent is one change of one node's availability.
type ClusterEvent struct {
	// Time is the simulated time of the event, seconds (the trace's clock).
	Time Time
	// Node is the index into Cluster.Nodes.
	Node int
	Kind ClusterEventKind
	// Notice is, for NodeDrain and NodeReclaim, the time between the
	// event and the node going down; 0 otherwise.
	Notice Duration
	// Cause names why (a failure class such as "gpu", "hbm", "network",
	// or "maintenance", "spot"); metrics break lost work down by it.
	Cause string
}
