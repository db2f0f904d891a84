package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/policy"
)

// TestSlurmE2ESpecShape guards the spec make test-slurm submits
// (testdata/slurm/e2e.yaml): the Slurm test cancels array task 1 after some,
// not all, of its runs, so every one of the 4 shards needs several runs, and
// its seeds must give distinct runs (a spec whose seeds collapse to one run —
// a built-in trace — left 2 runs per shard, which finished before the cancel
// and failed CI). Here the failure shows in make test, without Slurm.
func TestSlurmE2ESpecShape(t *testing.T) {
	file := filepath.Join("..", "testdata", "slurm", "e2e.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec(file, filepath.Dir(file), data)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Expand(policy.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plan.Notes {
		if strings.Contains(n, "seed") {
			t.Errorf("the e2e spec's seeds collapse: %s", n)
		}
	}
	seeds := map[int64]bool{}
	for _, r := range plan.Runs {
		seeds[r.Run.Seed] = true
	}
	if len(seeds) < 2 {
		t.Errorf("the e2e plan has runs for %d seed(s), want several (the merge's confidence intervals)", len(seeds))
	}
	for i := 0; i < 4; i++ {
		if n := len(Shard{Index: i, Count: 4}.Select(plan.Runs)); n < 8 {
			t.Errorf("shard %d/4 has %d runs, want ≥ 8 so task 1 can be cancelled mid-way", i, n)
		}
	}
}
