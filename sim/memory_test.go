package sim

import "testing"

// TestMemoryLimit checks memoryLimit against limits worked out by hand
// from its rule (an anchor: the numbers are not computed by the code).
func TestMemoryLimit(t *testing.T) {
	const MiB = 1 << 20
	cases := []struct {
		live, want int64
	}{
		{0, 1024 * MiB},          // the floor
		{400 * MiB, 1024 * MiB},  // 2× live 800 MiB < floor
		{512 * MiB, 1024 * MiB},  // 2× live = floor
		{700 * MiB, 1400 * MiB},  // 2× live, under the ceiling
		{800 * MiB, 1600 * MiB},  // 2× live = the ceiling
		{1000 * MiB, 1600 * MiB}, // the ceiling: 2× would be 2,000 MiB
		{1066 * MiB, 1600 * MiB}, // 1.5× live 1,599 MiB: still the ceiling
		{1200 * MiB, 1800 * MiB}, // 1.5× live above the ceiling
		{4000 * MiB, 6000 * MiB}, // 1.5× live
	}
	for _, c := range cases {
		if got := memoryLimit(c.live); got != c.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", c.live/MiB, got/MiB, c.want/MiB)
		}
	}
	// Whatever the live heap, the limit leaves the collector a third of
	// the heap to fill (never back-to-back collections).
	for live := int64(0); live < 8<<30; live += 37 * MiB {
		if l := memoryLimit(live); 2*l < 3*live {
			t.Fatalf("memoryLimit(%d) = %d: less than 1.5× the live heap", live, l)
		}
	}
}
