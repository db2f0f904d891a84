package arena

import (
	"math"
	"testing"
	"unsafe"
)

// TestStatSetStampWrap: a statSet's generation is an int32 (its entries
// are 48 bytes, one per job ID in every set); when it wraps, the entries
// stamped with the generations handed out before must read as stale, or
// an entry of a scan long past would be taken for the current one. Hand
// built: an entry and a seen mark from generation 1, then begins across
// the wrap; without the clearing in begin, generation 1 comes round again
// and the old entry is read back.
func TestStatSetStampWrap(t *testing.T) {
	var s statSet
	s.begin(4)
	s.byID[1] = jobStat{stamp: 1, t: 0, num: 3, used: 3, firstUsed: 5}
	s.seen[1] = 1
	if s.gen != 1 || s.get(1) == nil {
		t.Fatalf("gen %d, get(1) %v: the hand-made entry is not current", s.gen, s.get(1))
	}
	s.gen = math.MaxInt32 - 1
	for range 2 { // to MaxInt32, then across the wrap
		s.begin(4)
		if s.gen <= 0 {
			t.Fatalf("generation %d after begin: must stay positive", s.gen)
		}
		if js := s.get(1); js != nil {
			t.Fatalf("gen %d: a stale entry (stamp %d) reads as current", s.gen, js.stamp)
		}
		if s.recomputed(1) || s.seen[1] == s.gen {
			t.Fatalf("gen %d: a stale entry or seen mark counts as this generation's", s.gen)
		}
	}
	if s.gen != 1 {
		t.Fatalf("gen %d after the wrap, want 1", s.gen)
	}
}

// TestJobStatSize: the entry stays 48 bytes on 64-bit platforms (six
// int32 and a slice header); widening a field again costs 24 MB per
// million job IDs in each of the seven statSets.
func TestJobStatSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("32-bit platform")
	}
	if n := unsafe.Sizeof(jobStat{}); n != 48 {
		t.Fatalf("jobStat is %d bytes, want 48", n)
	}
}

// TestJobStateSize: a job's state stays 96 bytes on 64-bit platforms (a
// Go size class; one per job ever seen, a million at 1M jobs): the
// workload is kept once per workload (Policy.workloads), the flags last.
// A field added or moved past the class costs 16 MB or more per million
// jobs.
func TestJobStateSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("32-bit platform")
	}
	if n := unsafe.Sizeof(jobState{}); n != 96 {
		t.Fatalf("jobState is %d bytes, want 96", n)
	}
}
