package exec

import (
	"reflect"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// slotChanges compares the dirty slots only (sorted, each once, runs kept
// within a node), and a change outside them — which the engine's invariant
// rules out — is found by the full comparison of the next checksum decide,
// after which every decide compares every slot. Hand-worked cases.
func TestSlotChangesDirtyAndFallback(t *testing.T) {
	p := &Policy{d: newDeltaState(), slotNode: []int{0, 0, 0, 1, 1, 1}}
	p.d.occ = []sim.JobID{-1, -1, -1, -1, -1, -1}
	v := &sim.View{Occupant: []sim.JobID{4, 4, -1, 4, -1, -1}}
	p.d.dirty = []int{3, 1, 0, 1, 3, 2}
	var m decideV2
	p.slotChanges(&m, v, false, false)
	if want := [][3]int{{0, 2, 4}, {3, 1, 4}}; !reflect.DeepEqual(m.Slots, want) {
		t.Fatalf("dirty slots: runs %v, want %v", m.Slots, want)
	}
	if len(p.d.dirty) != 0 {
		t.Fatalf("dirty slots kept: %v", p.d.dirty)
	}

	v.Occupant[5] = 9 // no job's change explains it
	m = decideV2{}
	p.slotChanges(&m, v, false, false)
	if len(m.Slots) != 0 || p.d.scanAll {
		t.Fatalf("without checksums: runs %v, scanAll %v; want none, false", m.Slots, p.d.scanAll)
	}
	p.slotChanges(&m, v, true, false)
	if want := [][3]int{{5, 1, 9}}; !reflect.DeepEqual(m.Slots, want) || !p.d.scanAll {
		t.Fatalf("checksum decide: runs %v, scanAll %v; want %v, true", m.Slots, p.d.scanAll, want)
	}
	v.Occupant[2] = 7
	m = decideV2{}
	p.slotChanges(&m, v, false, false)
	if want := [][3]int{{2, 1, 7}}; !reflect.DeepEqual(m.Slots, want) {
		t.Fatalf("after the fallback: runs %v, want %v", m.Slots, want)
	}
}
