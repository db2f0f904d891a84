package replay

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/arena-sim/arena/sim"
)

// TestEmulatedUpDown brings up a 4-node emulated cluster and stops it,
// checking every daemon is gone. It needs root and Slurm: only with
// ARENA_SLURM_TEST=1 (make test-slurm runs the full replay instead).
func TestEmulatedUpDown(t *testing.T) {
	if os.Getenv("ARENA_SLURM_TEST") != "1" {
		t.Skip("ARENA_SLURM_TEST=1 runs it (root, Slurm installed)")
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "t", Pools: []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 2}, {GPU: "a10", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Up(context.Background(), c, UpOptions{Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	pids := s.Pids()
	out, err := s.output(context.Background(), "sinfo", "-h", "-N", "-o", "%N %G %T")
	t.Logf("sinfo:\n%s err %v", out, err)
	// Attach to the same cluster as a user would (SLURM_CONF): the
	// partition's nodes by type stand for the spec's, in name order.
	t.Setenv("SLURM_CONF", s.Dir+"/slurm.conf")
	a, err := Attach(context.Background(), c, "arena", t.TempDir())
	if err != nil {
		t.Errorf("Attach: %v", err)
	} else if strings.Join(a.Nodes, " ") != strings.Join(s.Nodes, " ") {
		t.Errorf("Attach mapped the nodes %v, want %v", a.Nodes, s.Nodes)
	}
	s.Down(context.Background())
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("the work directory %s is still there (%v)", s.Dir, err)
	}
	if !strings.Contains(out, "gpu:a10:4") {
		t.Errorf("sinfo does not show the a10 nodes' GPUs")
	}
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			t.Errorf("pid %d still alive after Down", p)
		}
	}
}
