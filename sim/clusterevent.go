package sim

import "fmt"

// ClusterEventKind is what happens to a node at a cluster event.
//
// This file is the contract between the engine (which applies events) and
// sim/faults (which reads them from a file or synthesises them from seeded
// processes): sim/faults produces a time-ordered []ClusterEvent for a
// cluster, the engine consumes it through Config.Events.
//
// What a kind does is its row in one table (ClusterEventKind.Info): the
// engine, the events file's parser and writer and the event summaries
// read the row's properties rather than switch on the kind, so a new kind
// built from the existing effects is a constant and a row.
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

	// numClusterEventKinds sizes the table: a new kind goes above it,
	// and the table then has a row for it or a test fails.
	numClusterEventKinds
)

// ClusterEventKindInfo is one kind's row: its name and what it does to its
// node. Every kind either takes its node down (Down) or brings it up (Up).
type ClusterEventKindInfo struct {
	// Name is the kind's word: String, the event column of an events
	// file and of availability.parquet.
	Name string
	// Down: the node goes down (its jobs are interrupted) at once or, for
	// a kind with Notice, when the notice ends. It starts the node's time
	// out, and its cause is counted (arena faults' by-cause lines).
	Down bool
	// Notice: the event carries a notice (ClusterEvent.Notice), during
	// which the node is in NoticeState: its jobs run on, it takes no new
	// job. A notice of 0 takes the node down at once. Only kinds with
	// Notice may have a nonzero Notice.
	Notice bool
	// NoticeState is the node's state during the notice (NodeDraining or
	// NodeReclaiming, so a policy can tell maintenance from spot); only
	// for kinds with Notice.
	NoticeState NodeState
	// Up: the node is available after the event: capacity back, or, with
	// Joins, joining.
	Up bool
	// Joins: the kind may only be a node's first event, and the node is
	// absent (down) from the run's start until it.
	Joins bool
	// DefaultCause is the cause of a Down event whose events file row
	// gives none. Up kinds take no cause.
	DefaultCause string
}

// clusterEventKinds is the table of kinds, indexed by kind.
var clusterEventKinds = [numClusterEventKinds]ClusterEventKindInfo{
	NodeDown:    {Name: "down", Down: true, DefaultCause: "failure"},
	NodeUp:      {Name: "up", Up: true},
	NodeDrain:   {Name: "drain", Down: true, Notice: true, NoticeState: NodeDraining, DefaultCause: "maintenance"},
	NodeReclaim: {Name: "reclaim", Down: true, Notice: true, NoticeState: NodeReclaiming, DefaultCause: "spot"},
	NodeAdd:     {Name: "add", Up: true, Joins: true},
}

// ClusterEventKinds returns every kind, in kind order.
func ClusterEventKinds() []ClusterEventKind {
	ks := make([]ClusterEventKind, numClusterEventKinds)
	for i := range ks {
		ks[i] = ClusterEventKind(i)
	}
	return ks
}

// Valid reports whether k is one of the kinds.
func (k ClusterEventKind) Valid() bool { return k >= 0 && k < numClusterEventKinds }

// Info returns k's row; the zero row for a k that is not Valid.
func (k ClusterEventKind) Info() ClusterEventKindInfo {
	if !k.Valid() {
		return ClusterEventKindInfo{}
	}
	return clusterEventKinds[k]
}

// ParseClusterEventKind returns the kind named name (exactly, as String
// writes it).
func ParseClusterEventKind(name string) (ClusterEventKind, bool) {
	for k := range clusterEventKinds {
		if clusterEventKinds[k].Name == name {
			return ClusterEventKind(k), true
		}
	}
	return 0, false
}

func (k ClusterEventKind) String() string {
	if !k.Valid() {
		return fmt.Sprintf("ClusterEventKind(%d)", int(k))
	}
	return clusterEventKinds[k].Name
}

// ClusterEvent is one change of one node's availability.
type ClusterEvent struct {
	// Time is the simulated time of the event, seconds (the trace's clock).
	Time Time
	// Node is the index into Cluster.Nodes.
	Node int
	Kind ClusterEventKind
	// Notice is, for a kind with Notice (NodeDrain, NodeReclaim), the time
	// between the event and the node going down; 0 otherwise.
	Notice Duration
	// Cause names why (a failure class such as "gpu", "hbm", "network",
	// or "maintenance", "spot"); metrics break lost work down by it.
	Cause string
	// Price is, for a kind that brings a node up (NodeAdd, NodeUp), the
	// price of its GPUs from then on, $ per GPU-hour (spot capacity), until
	// the node's next such event; 0: none, the energy model's price for
	// the type. The engine ignores it; sim/energy prices GPU-hours with it.
	Price float64
}
