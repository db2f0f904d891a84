package sim

import (
	"fmt"
	"testing"
)

// The shared alias table gives fmt's "job_%04d" of the 1-based row at the
// digit-count boundaries, after growing from a smaller table too.
func TestAliasTableMatchesFmt(t *testing.T) {
	for _, n := range []int{3, 10001, 100002} {
		tab := aliasesFor(n)
		for _, id := range []int{0, 1, 998, 999, 9998, 9999, 10000, 99998, 99999, 100000, 100001} {
			if id >= n {
				continue
			}
			want := fmt.Sprintf("job_%04d", id+1)
			if got := tab.alias(JobID(id)); got != want {
				t.Errorf("table of %d jobs: alias of %d = %q, want %q", tab.n, id, got, want)
			}
			s := JobSpec{ID: JobID(id)}
			if got := s.Alias(); got != want {
				t.Errorf("JobSpec{ID: %d}.Alias() = %q, want %q", id, got, want)
			}
		}
	}
	if s := (JobSpec{ID: 1 << 40}); s.Alias() != fmt.Sprintf("job_%04d", 1<<40+1) {
		t.Errorf("an ID past the table: %q", s.Alias())
	}
}
