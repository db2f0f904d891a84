package traces

import "testing"

// The figures ARENA.md §8 gives for the artifact's Philly trace.
func TestInspectPhilly(t *testing.T) {
	tr, err := Load("philly")
	if err != nil {
		t.Fatal(err)
	}
	s := Inspect(tr, 2000)
	if s.Jobs != 1938 || s.InWindow != 986 {
		t.Errorf("jobs %d, in window %d; want 1938 and 986", s.Jobs, s.InWindow)
	}
	wantGPUs := map[int]int{1: 100, 2: 286, 4: 717, 8: 644, 16: 191}
	for n, c := range wantGPUs {
		if s.ByGPUs[n] != c {
			t.Errorf("%d-GPU jobs: %d, want %d", n, s.ByGPUs[n], c)
		}
	}
	for typ, c := range map[string]int{"a40": 784, "a10": 473, "a100": 352, "v100": 329} {
		if s.ByType[typ] != c {
			t.Errorf("%s jobs: %d, want %d", typ, s.ByType[typ], c)
		}
	}
	for fam, c := range map[string]int{"moe": 1231, "gpt": 450, "wresnet": 257} {
		if s.ByFamily[fam] != c {
			t.Errorf("%s jobs: %d, want %d", fam, s.ByFamily[fam], c)
		}
	}
	if days := float64(s.Last-s.First) / 86400; days < 19.8 || days > 19.9 {
		t.Errorf("span %.2f days, want 19.85", days)
	}
}
